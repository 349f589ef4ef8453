/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-fields-row.c - whitebox tests of the fields.tsv rows
 * (fs/text/fields-row.h) on records built here, byte by byte, for two
 * events of a real trace whose string fields hold any bytes: ftrace
 * "print" (printed through libtraceevent) and sched_process_exec (the
 * fast path).  libtraceevent is the oracle: a row's columns,
 * unescaped and joined as " FIELD=VALUE", are tep_print_fields()'s text
 * of the same bytes (what `trace-cmd report -R` prints), less one
 * trailing newline; its time is libtraceevent's "%9.1d" time (`report
 * -t`); its comm is the one text_format_record() puts in the line; and a
 * tep_only engine (every value through libtraceevent) makes the same row.
 *
 * Usage: test-fields TRACE
 *   TRACE: a trace in nanoseconds with an ftrace print format
 *   (tests/data/small.dat).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-text.h"
#include "check.h"
#include "text/comm.h"
#include "text/engine.h"
#include "text/fields-row.h"
#include "text/line.h"
#include "text/source.h"
#include "text/stream-internal.h"
#include "text/tep.h"

/* The values the rows must carry through: every byte that is escaped,
 * " FIELD=" look-alikes, and a trailing newline (dropped, as trace-cmd
 * drops it). */
static const char *const strings[] = {
	"tab\there",
	"new\nline",
	"back\\slash \\t not a tab",
	"\t\n\\ ip=0x1 buf=x",
	"ends in a newline\n",
	"",
};

struct env {
	struct tdatfs_text *t;
	struct text_fmt *fm;
	struct tep_handle *tep;
	struct text_tep *tt;
	struct tep_event *ev;
	struct text_fmt *tep_fm;	/* a tep_only engine's, same trace */
	struct text_tep *tep_tt;
};

static void put_num(unsigned char *p, uint64_t v, int size)
{
	int i;

	/* small.dat is little-endian */
	for (i = 0; i < size; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_field(unsigned char *rec, struct tep_format_field *f,
		      uint64_t v)
{
	FATAL(f);
	put_num(rec + f->offset, v, f->size);
}

/*
 * A record of @ev at @rec holding @s in its string fields (a char array
 * in place, a __data_loc one after the fixed fields) and @num in every
 * number; its size.
 */
static size_t make_record(const struct tep_event *ev, unsigned char *rec,
			  size_t cap, int pid, uint64_t num, const char *s)
{
	struct tep_format_field *f;
	size_t n = 0, len = strlen(s) + 1;

	memset(rec, 0, cap);
	for (f = ev->format.fields; f; f = f->next) {
		if ((size_t)f->offset + f->size > n)
			n = f->offset + f->size;
	}
	put_field(rec, tep_find_common_field((struct tep_event *)ev,
					     "common_type"), ev->id);
	put_field(rec, tep_find_common_field((struct tep_event *)ev,
					     "common_pid"), pid);
	for (f = ev->format.fields; f; f = f->next) {
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			FATAL(f->size == 4 && n + len <= cap);
			put_field(rec, f, (uint64_t)len << 16 | n);
			memcpy(rec + n, s, len);
			n += len;
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			/* a char buf[] of size 0 holds the rest of the record */
			size_t room = f->size ? (size_t)f->size - 1 : len;

			FATAL((size_t)f->offset + room < cap);
			memcpy(rec + f->offset, s, len - 1 < room ? len - 1 : room);
			if (!f->size && (size_t)f->offset + len > n)
				n = f->offset + len;
		} else {
			put_field(rec, f, num);
		}
	}
	return (n + 3) & ~(size_t)3;
}

/* Undo the row's escapes; NULL when a raw tab or newline is inside. */
static char *unescape(const char *v, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	size_t i;

	FATAL(out);
	for (i = 0; i < n; i++) {
		if (v[i] == '\t' || v[i] == '\n') {
			free(out);
			return NULL;
		}
		if (v[i] == '\\' && i + 1 < n) {
			i++;
			*o++ = v[i] == 't' ? '\t' : v[i] == 'n' ? '\n' : v[i];
			CHECK(v[i] == 't' || v[i] == 'n' || v[i] == '\\');
			continue;
		}
		CHECK(v[i] != '\\');
		*o++ = v[i];
	}
	*o = 0;
	return out;
}

/* What libtraceevent prints for the record, as trace-cmd shows it. */
static void oracle(const struct env *e, const struct text_rec *r,
		   struct tdatfs_buf *info, struct tdatfs_buf *time)
{
	struct tep_record rec;
	struct trace_seq s;
	const char *p;

	memset(&rec, 0, sizeof(rec));
	rec.ts = r->ts;
	rec.cpu = r->cpu;
	rec.size = r->size;
	rec.data = (void *)r->data;
	trace_seq_init(&s);
	text_tep_lock(e->tt);
	tep_print_fields(&s, (void *)r->data, r->size, e->ev);
	text_tep_unlock(e->tt);
	FATAL(s.state == TRACE_SEQ__GOOD);
	if (s.len && s.buffer[s.len - 1] == '\n')
		s.len--;
	FATAL(tdatfs_buf_put(info, s.buffer, s.len) == 0);
	trace_seq_reset(&s);
	text_tep_lock(e->tt);
	tep_print_event(e->tep, &s, &rec, "%9.1d", TEP_PRINT_TIME);
	text_tep_unlock(e->tt);
	for (p = s.buffer; p < s.buffer + s.len && *p == ' '; p++)
		;
	FATAL(tdatfs_buf_put(time, p, s.buffer + s.len - p) == 0);
	trace_seq_destroy(&s);
}

/* The comm of the report line text_format_record() makes for @r. */
static char *line_comm(const struct env *e, const struct text_rec *r,
		       struct text_comm_ctx *cc)
{
	struct tdatfs_buf line = { 0 };
	char *dash, *p, *comm;

	FATAL(text_format_record(e->fm, r, NULL, cc, &line) == 0);
	FATAL(tdatfs_buf_put(&line, "", 1) == 0);
	for (p = line.p; *p == ' '; p++)
		;
	dash = strstr(p, "-");
	FATAL(dash);
	comm = strndup(p, dash - p);
	FATAL(comm);
	tdatfs_buf_release(&line);
	return comm;
}

/* One row of @n bytes against the oracle. */
static void check_row(const struct env *e, const struct text_rec *r,
		      const char *row, size_t n, struct text_comm_ctx *cc)
{
	struct tdatfs_buf info = { 0 }, time = { 0 }, joined = { 0 };
	struct tep_format_field *f = e->ev->format.fields;
	const char *p = row, *end = row + n, *tab;
	char *comm, *v;
	char num[32];
	int col = 0;

	oracle(e, r, &info, &time);
	comm = line_comm(e, r, cc);
	CHECK(n && row[n - 1] == '\n');
	end--;
	for (; p <= end; p = tab + 1, col++) {
		tab = memchr(p, '\t', end - p);
		if (!tab)
			tab = end;
		v = unescape(p, tab - p);
		CHECK(v);
		if (!v)
			break;
		if (col == 0) {
			CHECK(time.len == strlen(v) && !memcmp(time.p, v, time.len));
		} else if (col == 1) {
			snprintf(num, sizeof(num), "%u", r->cpu);
			CHECK(!strcmp(v, num));
		} else if (col == 2) {
			CHECK(!strcmp(v, comm));
		} else if (col >= 4 && f) {
			FATAL(tdatfs_buf_printf(&joined, " %s=%s",
						f->name, v) >= 0);
			f = f->next;
		}
		free(v);
	}
	CHECK(col == 4 + e->ev->format.nr_fields && !f);
	CHECK(joined.len == info.len && !memcmp(joined.p, info.p, info.len));
	free(comm);
	tdatfs_buf_release(&info);
	tdatfs_buf_release(&time);
	tdatfs_buf_release(&joined);
}

/* The header row: the head columns and tep's field names, in order. */
static void check_header(const struct env *e)
{
	struct tdatfs_buf out = { 0 }, want = { 0 };
	struct tep_format_field *f;

	FATAL(tdatfs_buf_put(&want, "time\tcpu\tcomm\tpid", 17) == 0);
	for (f = e->ev->format.fields; f; f = f->next)
		FATAL(tdatfs_buf_printf(&want, "\t%s", f->name) >= 0);
	FATAL(tdatfs_buf_put(&want, "\n", 1) == 0);
	CHECK(text_fields_header(e->fm, e->ev->id, &out) == 0);
	CHECK(out.len == want.len && !memcmp(out.p, want.p, want.len));
	/* an id without a format adds nothing */
	FATAL(!tep_find_event(e->tep, 65535));
	CHECK(text_fields_header(e->fm, 65535, &out) == -ENOENT);
	CHECK(out.len == want.len);
	tdatfs_buf_release(&out);
	tdatfs_buf_release(&want);
}

/* A row of the tep_only engine for the same record: the same bytes. */
static void check_tep_only(const struct env *e, const struct text_rec *r,
			   const char *row, size_t n)
{
	struct text_overlay *ov = text_overlay_new();
	struct tdatfs_buf out = { 0 };
	struct text_comm_ctx cc = { 0 };
	size_t seen = 0;

	FATAL(ov);
	cc.ov = ov;
	cc.seen = &seen;
	CHECK(text_fields_row(e->tep_fm, r, &cc, &out) == 0);
	CHECK(out.len == n && !memcmp(out.p, row, n));
	tdatfs_buf_release(&out);
	text_overlay_free(ov);
}

static void check_rows(const struct env *e)
{
	static const uint64_t nums[] = { 0, 7, 0xfffffffb, (uint64_t)-2,
					 0x8000, 0x1234567890ull };
	unsigned char rec[512];
	struct text_overlay *ov = text_overlay_new();
	struct text_comm_ctx cc = { 0 };
	struct tdatfs_buf out = { 0 };
	struct text_rec r;
	size_t i, seen = 0, before;

	FATAL(ov);
	cc.ov = ov;
	cc.seen = &seen;
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.ts = 1234567890123ull + i * 1000000007ull;
		r.cpu = (unsigned int)i;
		r.data = rec;
		r.size = make_record(e->ev, rec, sizeof(rec), 1 + (int)i,
				     nums[i % (sizeof(nums) / sizeof(nums[0]))],
				     strings[i]);
		r.avail = sizeof(rec);
		before = out.len;
		CHECK(text_fields_row(e->fm, &r, &cc, &out) == 0);
		check_row(e, &r, out.p + before, out.len - before, &cc);
		check_tep_only(e, &r, out.p + before, out.len - before);
	}
	/* records that do not hold their fields: nothing, 1 */
	r.size = 2;
	before = out.len;
	CHECK(text_fields_row(e->fm, &r, &cc, &out) == 1);
	r.size = e->ev->format.fields->offset;
	CHECK(text_fields_row(e->fm, &r, &cc, &out) == 1);
	CHECK(out.len == before);
	tdatfs_buf_release(&out);
	text_overlay_free(ov);
}

/* The formatter of an engine's merged stream. */
static struct text_fmt *engine_fmt(struct tdatfs_text *t, struct text_tep **tt)
{
	struct text_stream *st = text_engine_stream(t, 0, -1);
	struct text_fmt_share sh;

	FATAL(st);
	text_fmt_share(st->env.fmt, &sh);
	FATAL(sh.in_usecs);
	*tt = sh.tt;
	return st->env.fmt;
}

int main(int argc, char **argv)
{
	/* every format parsed, so the events are found by name */
	struct tdatfs_text_opts opts = { .eager = true };
	struct tdatfs_text_opts tep_opts = { .eager = true, .tep_only = true };
	/* print: through libtraceevent (a %ps of a field); exec: the fast
	 * path (a __data_loc string and plain %d numbers) */
	static const char *const events[][2] = {
		{ "ftrace", "print" },
		{ "sched", "sched_process_exec" },
	};
	struct tdatfs_text *tep_t;
	char err[512] = "";
	struct tdat_file *f;
	struct env e;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s TRACE\n", argv[0]);
		return 2;
	}
	f = tdat_open(argv[1], NULL, err, sizeof(err));
	if (!f)
		fprintf(stderr, "%s: %s\n", argv[1], err);
	FATAL(f);
	e.t = tdatfs_text_new(f, &opts);
	tep_t = tdatfs_text_new(f, &tep_opts);
	FATAL(e.t && tep_t);
	e.fm = engine_fmt(e.t, &e.tt);
	e.tep_fm = engine_fmt(tep_t, &e.tep_tt);
	e.tep = text_tep_handle(e.tt);
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		text_tep_lock(e.tt);
		e.ev = tep_find_event_by_name(e.tep, events[i][0], events[i][1]);
		text_tep_unlock(e.tt);
		FATAL(e.ev);
		check_header(&e);
		check_rows(&e);
	}
	tdatfs_text_free(tep_t);
	tdatfs_text_free(e.t);
	tdat_close(f);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
