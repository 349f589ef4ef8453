/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/timestamp.c - the time options of a trace and trace-cmd's
 * timestamp_calc().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "timestamp.h"

/* The guest-to-host samples of one CPU slot, sorted by time, no repeats. */
struct ts_sync_cpu {
	uint32_t n;
	struct tdat_time_sample *s;
};

struct text_timestamp {
	int64_t offset;		/* DATE and OFFSET, in nanoseconds */
	uint32_t tsc_mult;	/* TSC2NSEC; 0: none */
	uint32_t tsc_shift;
	bool in_usecs;
	const struct tdat_file *f;
	size_t top;		/* the top buffer's index; SIZE_MAX: none */
	uint32_t sync_flags;	/* of the TIME_SHIFT in use */
	uint32_t sync_ncpus;	/* 0: no TIME_SHIFT correction */
	struct ts_sync_cpu *sync;
	const struct tdat_option *sync_opt;	/* the TIME_SHIFT in use */
};

/* The option bytes as a NUL-terminated string, bounded. */
static void option_string(const struct tdat_option *o, char *dst, size_t len)
{
	size_t n = o->size < len - 1 ? o->size : len - 1;

	memcpy(dst, o->data, n);
	dst[n] = '\0';
}

/* As trace-cmd's extract_trace_clock(): keep usecs for nsec clocks only. */
static void apply_clock(struct text_timestamp *t, const char *text)
{
	char buf[512], word[128];
	const char *p;
	size_t n;

	snprintf(buf, sizeof(buf), "%s", text);
	for (p = buf; *p; p++) {
		if (*p == '[' && (p == buf || p[-1] == ' '))
			break;
	}
	if (*p != '[')
		return;
	p++;
	while (*p == ']' || *p == '[' || *p == '\t' || *p == '\n' ||
	       *p == '\r' || *p == '\f' || *p == '\v')
		p++;
	n = strcspn(p, "[] \t\n\r\f\v");
	if (!n)
		return;
	if (n >= sizeof(word))
		n = sizeof(word) - 1;
	memcpy(word, p, n);
	word[n] = '\0';

	if (t->tsc_mult)
		return;
	if (strcmp(word, "local") && strcmp(word, "global") &&
	    strcmp(word, "uptime") && strcmp(word, "perf") &&
	    strncmp(word, "mono", 4) && strcmp(word, "tsc2nsec") &&
	    strcmp(word, "tai"))
		t->in_usecs = false;
}

static void free_sync(struct text_timestamp *t)
{
	uint32_t i;

	for (i = 0; i < t->sync_ncpus; i++)
		free(t->sync[i].s);
	free(t->sync);
	t->sync = NULL;
	t->sync_ncpus = 0;
}

/*
 * Sort @s[0..n) by time, stably (glibc's qsort, which trace-cmd uses,
 * merges), so that of samples with one time the first in the file stays.
 */
static void sort_samples(struct tdat_time_sample *s, struct tdat_time_sample *tmp,
			 uint32_t n)
{
	uint32_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	sort_samples(s, tmp, mid);
	sort_samples(s + mid, tmp, n - mid);
	while (i < mid && j < n)
		tmp[k++] = s[j].time < s[i].time ? s[j++] : s[i++];
	while (i < mid)
		tmp[k++] = s[i++];
	while (j < n)
		tmp[k++] = s[j++];
	memcpy(s, tmp, (size_t)n * sizeof(*s));
}

/* One CPU's samples as trace-cmd keeps them: sorted, repeated times dropped. */
static int load_sync_cpu(struct ts_sync_cpu *sc, const struct tdat_time_sample *src,
			 uint32_t n)
{
	struct tdat_time_sample *tmp;
	uint32_t k, j;

	sc->n = 0;
	sc->s = malloc((n ? n : 1) * sizeof(*sc->s));
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!sc->s || !tmp) {
		free(tmp);
		return -ENOMEM;
	}
	if (n)
		memcpy(sc->s, src, (size_t)n * sizeof(*src));
	sort_samples(sc->s, tmp, n);
	free(tmp);
	for (k = 0, j = 0; k < n; k++) {
		if (k == 0 || sc->s[k].time != sc->s[k - 1].time)
			sc->s[j++] = sc->s[k];
	}
	sc->n = j;
	return 0;
}

/*
 * A TIME_SHIFT option replaces the samples of any before it, as in
 * trace-cmd; one under 16 bytes is ignored.  One that does not decode
 * (trace-cmd then refuses the whole file) leaves no correction.
 */
static int read_time_shift(struct text_timestamp *t, struct tdat_file *f,
			   const struct tdat_option *o)
{
	struct tdat_time_shift *ts = tdat_time_shift_decode(o, tdat_big_endian(f),
							    NULL, 0);
	int err = ts ? 0 : errno;
	uint32_t i;
	int ret = 0;

	if (err == ENODATA)
		return 0;
	free_sync(t);
	if (!ts)
		return err == ENOMEM ? -ENOMEM : 0;
	t->sync = calloc(ts->ncpus ? ts->ncpus : 1, sizeof(*t->sync));
	if (!t->sync) {
		ret = -ENOMEM;
		goto out;
	}
	t->sync_ncpus = ts->ncpus;
	t->sync_flags = ts->flags;
	t->sync_opt = o;
	for (i = 0; i < ts->ncpus && !ret; i++)
		ret = load_sync_cpu(&t->sync[i], ts->samples[i], ts->count[i]);
	if (ret)
		free_sync(t);
out:
	tdat_time_shift_free(ts);
	return ret;
}

/* DATE, OFFSET, TSC2NSEC and TRACECLOCK, in file order as trace-cmd. */
static int read_time_options(struct text_timestamp *t, struct tdat_file *f)
{
	size_t i, n = tdat_option_count(f);
	bool have_clock_opt = false;
	char buf[512];
	int ret;

	t->in_usecs = true;
	for (i = 0; i < n; i++) {
		const struct tdat_option *o = tdat_option_get(f, i);

		if (!o)
			continue;
		switch (o->id) {
		case TDAT_OPT_DATE:
			option_string(o, buf, 64);
			/* microseconds, as "0x..." */
			t->offset += (int64_t)((uint64_t)strtoll(buf, NULL, 0) * 1000);
			break;
		case TDAT_OPT_OFFSET:
			option_string(o, buf, 64);
			t->offset += strtoll(buf, NULL, 0);
			break;
		case TDAT_OPT_TSC2NSEC:
			if (o->size < 16)
				break;
			t->tsc_mult = tdat_get32(f, o->data);
			t->tsc_shift = tdat_get32(f, (const char *)o->data + 4);
			t->in_usecs = true;
			break;
		case TDAT_OPT_TIME_SHIFT:
			ret = read_time_shift(t, f, o);
			if (ret < 0)
				return ret;
			break;
		case TDAT_OPT_TRACECLOCK:
			have_clock_opt = true;
			option_string(o, buf, sizeof(buf));
			apply_clock(t, buf);
			break;
		default:
			break;
		}
	}
	/* v6 keeps the clock after the CPU table; read only with the option */
	if (tdat_version(f) < 7 && have_clock_opt && tdat_buffer_count(f)) {
		const struct tdat_buffer *b = tdat_buffer_get(f, 0);

		if (b && b->clock && b->clock[0]) {
			snprintf(buf, sizeof(buf), "[%s]", b->clock);
			apply_clock(t, buf);
		}
	}
	return 0;
}

/*
 * trace-cmd's copy of the kernel's mul_u64_u32_shr() as its x86-64 build
 * computes it: the multiplier is read into an int and widened with its
 * sign, and each 64-bit shift takes its count modulo 64, so a shift of 64
 * is no shift and one over 32 moves the high half left by (32 - shift)
 * modulo 64.
 */
static uint64_t mul_u64_u32_shr(uint64_t a, uint32_t mult, uint32_t shift)
{
	uint64_t mul = (uint64_t)(int64_t)(int32_t)mult;
	uint64_t ret = ((a & 0xffffffffu) * mul) >> (shift & 63);

	if (a >> 32)
		ret += ((a >> 32) * mul) << ((32 - shift) & 63);
	return ret;
}

/* The top buffer (name ""): the only one TIME_SHIFT corrects. */
static size_t find_top(struct tdat_file *f)
{
	size_t i;

	for (i = 0; i < tdat_buffer_count(f); i++) {
		const struct tdat_buffer *b = tdat_buffer_get(f, i);

		if (b && !b->latency && !b->name[0])
			return i;
	}
	return SIZE_MAX;
}

/*
 * A CPU of the top buffer whose TIME_SHIFT slot holds no sample: trace-cmd
 * then reads the samples outside the array it allocated, so what it shows
 * depends on its heap.  Its records keep their times here, and the
 * contradiction goes to the damage registry (errors, tdat check).
 */
static int report_empty_slots(struct text_timestamp *t, struct tdat_file *f)
{
	const struct tdat_buffer *b = tdat_buffer_get(f, t->top);
	char why[96];
	size_t c;
	int ret;

	for (c = 0; b && c < b->ncpus; c++) {
		int slot = text_timestamp_slot(t, t->top, c);

		if (slot < 0 || t->sync[slot].n)
			continue;
		snprintf(why, sizeof(why),
			 "has no samples for cpu %u, which has data", b->cpus[c].cpu);
		ret = tdat_option_mark_damaged(f, t->sync_opt, t->top, c, why);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/**
 * text_timestamp_new() - the timestamp settings of a trace
 * @f: the trace; must outlive the settings
 *
 * Return: the settings (free with text_timestamp_free()), or NULL with errno set.
 */
struct text_timestamp *text_timestamp_new(struct tdat_file *f)
{
	struct text_timestamp *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return NULL;
	t->f = f;
	t->top = find_top(f);
	ret = read_time_options(t, f);
	if (!ret && t->sync_ncpus && t->top != SIZE_MAX)
		ret = report_empty_slots(t, f);
	if (ret < 0) {
		text_timestamp_free(t);
		errno = -ret;
		return NULL;
	}
	return t;
}

/**
 * text_timestamp_free() - free the settings; NULL is fine
 * @ts: settings
 */
void text_timestamp_free(struct text_timestamp *ts)
{
	if (!ts)
		return;
	free_sync(ts);
	free(ts);
}

/**
 * text_timestamp_slot() - which TIME_SHIFT samples correct a CPU of a buffer
 * @ts: settings
 * @b: buffer index
 * @c: index into the buffer's cpus
 *
 * trace-cmd indexes the samples by the CPU's slot in its handle: the CPU
 * number in a v6 file (whose table has every CPU), the position in the
 * buffer's CPU list in a v7 file.  Instances are copies of the handle
 * without the samples.
 *
 * Return: the slot for text_timestamp_calc(), or -1 for no correction.
 */
int text_timestamp_slot(const struct text_timestamp *ts, size_t b, size_t c)
{
	const struct tdat_buffer *buf;
	size_t slot;

	if (!ts->sync_ncpus || b != ts->top)
		return -1;
	buf = tdat_buffer_get(ts->f, b);
	if (!buf || c >= buf->ncpus)
		return -1;
	slot = tdat_version(ts->f) < 7 ? buf->cpus[c].cpu : c;
	return slot < ts->sync_ncpus ? (int)slot : -1;
}

/*
 * trace-cmd's timestamp_correction_calc(): the offset of @min, or
 * interpolated towards @max, and @min's scaling.  The arithmetic wraps
 * as the x86-64 code trace-cmd compiles to: s64 products modulo 2^64, a
 * shift count modulo 64.
 */
static uint64_t sync_corr(const struct text_timestamp *t, uint64_t ts,
			  const struct tdat_time_sample *min,
			  const struct tdat_time_sample *max)
{
	int64_t tscor = min->offset;

	if (t->sync_flags & TDAT_TSYNC_INTERPOLATE) {
		int64_t delta = (int64_t)((uint64_t)max->time - (uint64_t)min->time);
		int64_t num = (int64_t)((ts - (uint64_t)min->time) *
					((uint64_t)max->offset - (uint64_t)min->offset));

		num = (int64_t)((uint64_t)num + (uint64_t)(delta / 2));
		/* what trace-cmd would trap on is left uncorrected */
		if (delta && !(delta == -1 && num == INT64_MIN))
			tscor = (int64_t)((uint64_t)min->offset + (uint64_t)(num / delta));
	}
	ts = (ts * (uint64_t)min->scaling) >> (min->fraction & 63);
	return ts + (uint64_t)tscor;
}

/*
 * trace-cmd's timestamp_host_sync(): the two samples around @ts (the
 * first or last two outside them).  @ts compares as unsigned with the
 * sample times, as in trace-cmd.
 */
static uint64_t host_sync(const struct text_timestamp *t, int slot, uint64_t ts)
{
	const struct ts_sync_cpu *sc = &t->sync[slot];
	const struct tdat_time_sample *s = sc->s;
	int lo, hi, mid, n = (int)sc->n;

	if (n == 0)
		return ts;	/* trace-cmd reads past an empty array */
	if (n == 1)
		return ts + (uint64_t)s[0].offset;
	if (n == 2 || ts <= (uint64_t)s[0].time)
		return sync_corr(t, ts, &s[0], &s[1]);
	if (ts >= (uint64_t)s[n - 1].time)
		return sync_corr(t, ts, &s[n - 2], &s[n - 1]);
	lo = 0;
	hi = n - 1;
	mid = (lo + hi) / 2;
	while (lo <= hi) {
		if (ts < (uint64_t)s[mid].time)
			hi = mid - 1;
		else if (ts > (uint64_t)s[mid].time)
			lo = mid + 1;
		else
			break;
		mid = (lo + hi) / 2;
	}
	/* only negative times (unsorted as unsigned) get here past the end */
	if (mid > n - 2)
		mid = n - 2;
	return sync_corr(t, ts, &s[mid], &s[mid + 1]);
}

/**
 * text_timestamp_calc() - a raw ring-buffer timestamp as trace-cmd shows it
 * @ts: settings
 * @slot: text_timestamp_slot() of the record's buffer and CPU
 * @raw: timestamp from kbuffer
 *
 * Return: the timestamp after TIME_SHIFT, TSC2NSEC, DATE and OFFSET.
 */
uint64_t text_timestamp_calc(const struct text_timestamp *ts, int slot,
			     uint64_t raw)
{
	uint64_t v = raw;

	if (slot >= 0)
		v = host_sync(ts, slot, v);
	if (ts->tsc_mult)
		v = mul_u64_u32_shr(v, ts->tsc_mult, ts->tsc_shift);
	return v + (uint64_t)ts->offset;
}

/**
 * text_timestamp_in_usecs() - whether times print as seconds.microseconds
 * @ts: settings
 *
 * Return: true for a nanosecond clock (or TSC2NSEC), false for a counter.
 */
bool text_timestamp_in_usecs(const struct text_timestamp *ts)
{
	return ts->in_usecs;
}
