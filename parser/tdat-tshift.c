/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-tshift.c - the TIME_SHIFT option (guest-to-host clock samples)
 * decoded from its bytes.  It reads only the option it is given, so it
 * sits on top of the reader and nothing in parser/ calls into it.
 *
 * The public functions defined here are documented in tdat.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tdat.h"
#include "tdat-util.h"

#define TS_HEAD		16	/* u64 peer id, u32 flags, u32 CPU count */
#define TS_CPU_HEAD	4	/* u32 sample count */
#define TS_TRIPLET	24	/* time, offset, scaling: s64 each */
#define TS_FRACTION	8	/* s64 */

/* What the walk over the option bytes learns; see layout(). */
struct ts_walk {
	const unsigned char *p;
	uint32_t size;
	uint64_t at;		/* file offset of the option data */
	uint32_t ncpus;
	size_t total;		/* samples of all CPUs */
	bool has_fraction;
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Check every field fits, as trace-cmd's bounds-checked reads do, and
 * count the samples.  A CPU block needs 4 bytes plus 24 per sample; the
 * fraction block, when any byte follows the triplets, 8 per sample.
 */
static int layout(struct ts_walk *w, bool be, char *err, size_t errlen)
{
	uint64_t pos = TS_HEAD, need;
	uint32_t i, n;

	w->ncpus = tdp_get32(be, w->p + 12);
	for (i = 0; i < w->ncpus; i++) {
		if (w->size - pos < TS_CPU_HEAD) {
			set_err(err, errlen,
				"option time_shift at offset %llu: cpu %u of %u: no sample count at offset %llu (option size %u)",
				(unsigned long long)w->at, i, w->ncpus,
				(unsigned long long)(w->at + pos), w->size);
			return -EINVAL;
		}
		n = tdp_get32(be, w->p + pos);
		need = (uint64_t)n * TS_TRIPLET;
		pos += TS_CPU_HEAD;
		if (need > w->size - pos) {
			set_err(err, errlen,
				"option time_shift at offset %llu: cpu %u: %u samples need %llu bytes at offset %llu, %llu left",
				(unsigned long long)w->at, i, n,
				(unsigned long long)need,
				(unsigned long long)(w->at + pos),
				(unsigned long long)(w->size - pos));
			return -EINVAL;
		}
		pos += need;
		w->total += n;
	}
	w->has_fraction = pos < w->size;
	need = (uint64_t)w->total * TS_FRACTION;
	if (w->has_fraction && need > w->size - pos) {
		set_err(err, errlen,
			"option time_shift at offset %llu: fraction block at offset %llu needs %llu bytes, %llu left",
			(unsigned long long)w->at, (unsigned long long)(w->at + pos),
			(unsigned long long)need,
			(unsigned long long)(w->size - pos));
		return -EINVAL;
	}
	return 0;
}

/* Fill the per-CPU arrays from the checked bytes. */
static void fill(struct tdat_time_shift *ts, const struct ts_walk *w,
		 uint32_t *count, struct tdat_time_sample **rows,
		 struct tdat_time_sample *all, bool be)
{
	const unsigned char *p = w->p + TS_HEAD;
	uint32_t i, k, n;

	for (i = 0; i < w->ncpus; i++) {
		n = tdp_get32(be, p);
		p += TS_CPU_HEAD;
		count[i] = n;
		rows[i] = all;
		for (k = 0; k < n; k++) {
			all[k].time = (int64_t)tdp_get64(be, p + 8 * k);
			all[k].offset = (int64_t)tdp_get64(be, p + 8 * ((size_t)n + k));
			all[k].scaling = (int64_t)tdp_get64(be, p + 8 * (2 * (size_t)n + k));
		}
		p += (size_t)n * TS_TRIPLET;
		all += n;
	}
	for (i = 0; w->has_fraction && i < w->ncpus; i++) {
		for (k = 0; k < count[i]; k++, p += TS_FRACTION)
			rows[i][k].fraction = (int64_t)tdp_get64(be, p);
	}
	ts->count = count;
	ts->samples = (const struct tdat_time_sample *const *)rows;
}

struct tdat_time_shift *tdat_time_shift_decode(const struct tdat_option *o,
					       bool big_endian, char *err,
					       size_t errlen)
{
	struct ts_walk w = { .p = o->data, .size = o->size, .at = o->offset };
	struct tdat_time_shift *ts;
	struct tdat_time_sample **rows;
	struct tdat_time_sample *all;
	int r;

	if (o->size < TS_HEAD) {
		set_err(err, errlen,
			"option time_shift at offset %llu: %u bytes, fewer than 16",
			(unsigned long long)o->offset, o->size);
		errno = ENODATA;
		return NULL;
	}
	r = layout(&w, big_endian, err, errlen);
	if (r) {
		errno = -r;
		return NULL;
	}
	/* one block: the struct, the row pointers, the samples, the counts */
	ts = calloc(1, sizeof(*ts) + w.ncpus * sizeof(*rows) +
		       w.total * sizeof(*all) + w.ncpus * sizeof(uint32_t));
	if (!ts) {
		set_err(err, errlen, "option time_shift at offset %llu: out of memory",
			(unsigned long long)o->offset);
		errno = ENOMEM;
		return NULL;
	}
	rows = (struct tdat_time_sample **)(ts + 1);
	all = (struct tdat_time_sample *)(rows + w.ncpus);
	ts->peer_trace_id = tdp_get64(big_endian, w.p);
	ts->flags = tdp_get32(big_endian, w.p + 8);
	ts->ncpus = w.ncpus;
	ts->has_fraction = w.has_fraction;
	fill(ts, &w, (uint32_t *)(all + w.total), rows, all, big_endian);
	return ts;
}

void tdat_time_shift_free(struct tdat_time_shift *ts)
{
	free(ts);
}
