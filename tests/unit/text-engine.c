/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-engine.c - whitebox tests of the text engine's positions, without
 * FUSE: text made again from any checkpoint is the text made on the way
 * there, and the record source gives the records of a CPU in order, the
 * same again after a seek.  The report (every buffer merged, with its
 * cpus= head and instance prefixes) keeps the same promise, and on a
 * one-buffer trace it is the head and the merged text.  Engines made
 * like another (tdatfs_text_new_like(), their kallsyms shared) make the
 * same text, also once the engine they were made like is freed.
 *
 * Usage: test-text TRACE [INSTANCES]
 *   TRACE: a clean trace with two CPUs (tests/data/small.dat);
 *   INSTANCES: a trace with instances (tests/data/instances.dat), whose
 *   report is checked too.
 *        test-text --spacing BYTES TRACE
 *   the checkpoint tests alone, a checkpoint every BYTES of text, any CPU
 *   count (for the small function_graph traces of tests/gen, whose leaves
 *   consume exits).
 *        test-text --positions TRACE
 *   only the checkpoints, on any trace: for the real traces whose comms
 *   need the per-stream model of text/comm.h (duplicate pids, hits
 *   that move as pids are added).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-text.h"
#include "check.h"
#include "open-trace.h"
#include "text/engine.h"
#include "text/source.h"
#include "text/stream.h"
#include "text/tep.h"
#include "text/timestamp.h"

/* text between checkpoints here */
static uint64_t spacing = 16 * 1024;
#define MAX_CKPT	4096
#define REPORT		(-2)		/* "cpu" of the report's stream */


/* [off, off + len) of a stream, read in odd-sized pieces; *got is set. */
static char *read_range(struct text_stream *st, uint64_t off, size_t len,
			size_t *got)
{
	char *buf = malloc(len + 1);
	size_t done = 0;

	FATAL(buf);
	while (done < len) {
		size_t want = len - done < 3001 ? len - done : 3001;
		ssize_t n = text_stream_read(st, buf + done, want, off + done);

		FATAL(n >= 0);
		if (n == 0)
			break;
		done += n;
	}
	*got = done;
	return buf;
}

/* A read of the text of (buffer 0, @cpu), or of the report. */
static ssize_t text_read(struct tdatfs_text *t, int cpu, char *buf, size_t len,
			 uint64_t off)
{
	if (cpu == REPORT)
		return tdatfs_text_report_read(t, buf, len, off);
	return tdatfs_text_read(t, 0, cpu, buf, len, off);
}

/* The whole text through the public API, with default checkpoints. */
static char *whole_text(struct tdat_file *f, int cpu, size_t *len)
{
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	struct tdatfs_buf b = { 0 };
	char tmp[65536];
	ssize_t n;

	FATAL(t);
	while ((n = text_read(t, cpu, tmp, sizeof(tmp), b.len)) > 0)
		FATAL(tdatfs_buf_put(&b, tmp, n) == 0);
	FATAL(n == 0);
	tdatfs_text_free(t);
	*len = b.len;
	return b.p;
}

/* The whole text of (buffer 0, @cpu) read from @t. */
static char *engine_text(struct tdatfs_text *t, int cpu, size_t *len)
{
	struct tdatfs_buf b = { 0 };
	char tmp[65536];
	ssize_t n;

	while ((n = text_read(t, cpu, tmp, sizeof(tmp), b.len)) > 0)
		FATAL(tdatfs_buf_put(&b, tmp, n) == 0);
	CHECK(n == 0);
	*len = b.len;
	return b.p;
}

/*
 * Engines made like one that read first (so holding the kallsyms table
 * it parsed), the first one freed before they read: each makes the text
 * of an engine of its own.
 */
static void check_like(struct tdat_file *f)
{
	struct tdatfs_text *a = tdatfs_text_new(f, NULL), *b, *c;
	size_t len, la, lb, lc;
	char *want = whole_text(f, -1, &len), *ta, *tb, *tc;

	FATAL(a);
	CHECK(!tdatfs_text_new_like(NULL, NULL) && errno == EINVAL);
	ta = engine_text(a, -1, &la);
	b = tdatfs_text_new_like(a, NULL);
	FATAL(b);
	c = tdatfs_text_new_like(b, NULL);
	FATAL(c);
	tdatfs_text_free(a);
	tb = engine_text(b, 0, &lb);
	free(tb);
	tb = engine_text(b, -1, &lb);
	tdatfs_text_free(b);
	tc = engine_text(c, -1, &lc);
	tdatfs_text_free(c);
	CHECK(la == len && !memcmp(ta, want, len));
	CHECK(lb == len && !memcmp(tb, want, len));
	CHECK(lc == len && !memcmp(tc, want, len));
	free(want);
	free(ta);
	free(tb);
	free(tc);
}

/*
 * Make the text of (buffer 0, @cpu) with a checkpoint every spacing
 * bytes (at most @max_ckpt of them kept), then make it again from every
 * checkpoint, each time without a cursor to help, and compare.
 */
static void check_checkpoints(struct tdat_file *f, int cpu, unsigned int max_ckpt)
{
	struct tdatfs_text_opts opts = { .max_checkpoints = max_ckpt };
	struct tdatfs_text *t = tdatfs_text_new(f, &opts);
	static uint64_t off[MAX_CKPT];
	size_t ref_len, len, k, n;
	struct text_stream *st;
	uint64_t size;
	char *ref, *text;

	FATAL(t);
	ref = whole_text(f, cpu, &ref_len);
	st = cpu == REPORT ? text_engine_report(t) : text_engine_stream(t, 0, cpu);
	FATAL(st);
	text_stream_set_spacing(st, spacing);
	text = read_range(st, 0, ref_len + 4096, &len);
	CHECK(len == ref_len && !memcmp(text, ref, len));
	CHECK(text_stream_size(st, &size) == 0 && size == ref_len);
	n = text_stream_checkpoints(st, off, MAX_CKPT);
	FATAL(n <= MAX_CKPT);
	/* a test with few checkpoints would prove little */
	CHECK(max_ckpt ? n <= max_ckpt : n > ref_len / spacing / 2);
	CHECK(n >= 2 && off[0] == 0);
	for (k = 0; k < n; k++) {
		uint64_t end = k + 2 < n ? off[k + 2] : ref_len;
		size_t got;
		char *again;

		CHECK(off[k] <= ref_len && (!k || off[k] > off[k - 1]));
		text_stream_drop_cursors(st);
		again = read_range(st, off[k], end - off[k] + 1, &got);
		if (got != (size_t)(end - off[k] + (end < ref_len)) ||
		    memcmp(again, ref + off[k], got)) {
			fprintf(stderr, "cpu %d: text from checkpoint %zu (offset %llu) differs\n",
				cpu, k, (unsigned long long)off[k]);
			failures++;
		}
		free(again);
	}
	/* inside the first line (the report's head) without a cursor */
	text_stream_drop_cursors(st);
	free(text);
	text = read_range(st, 2, 100, &len);
	CHECK(len == 100 && !memcmp(text, ref + 2, len));
	free(text);
	free(ref);
	tdatfs_text_free(t);
}

/*
 * The report of a one-buffer trace: "cpus=N" and the merged text, and
 * its size known once it was read to the end.
 */
static void check_report_single(struct tdat_file *f)
{
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	size_t len, rlen;
	char *text, *rep, head[32];
	uint64_t size;

	FATAL(t);
	CHECK(tdatfs_text_report_size(t, &size) == -EAGAIN);
	text = whole_text(f, -1, &len);
	rep = whole_text(f, REPORT, &rlen);
	snprintf(head, sizeof(head), "cpus=%u\n", tdat_cpu_count(f));
	CHECK(rlen == strlen(head) + len && !memcmp(rep, head, strlen(head)) &&
	      !memcmp(rep + strlen(head), text, len));
	FATAL(tdatfs_text_report_read(t, head, 1, rlen) == 0);
	CHECK(tdatfs_text_report_size(t, &size) == 0 && size == rlen);
	free(text);
	free(rep);
	tdatfs_text_free(t);
}

/*
 * The report of a trace with instances: every line but the head starts
 * with a prefix of one width, which some instance's name fills.
 */
static void check_report_instances(struct tdat_file *f)
{
	size_t len, i, w = 0, bol = 0;
	char *rep = whole_text(f, REPORT, &len);
	bool named = false;

	FATAL(tdat_buffer_count(f) >= 2);
	for (i = 1; i < tdat_buffer_count(f); i++)
		if (strlen(tdat_buffer_get(f, i)->name) > w)
			w = strlen(tdat_buffer_get(f, i)->name);
	CHECK(len > 5 && !memcmp(rep, "cpus=", 5));
	for (i = 0; i < len; i++) {
		if (rep[i] != '\n')
			continue;
		if (bol && i + 1 - bol > w + 2) {
			CHECK(rep[bol + w] == ':' || rep[bol + w] == ' ');
			CHECK(rep[bol + w + 1] == ' ');
			named |= rep[bol + w] == ':' && rep[bol] != ' ';
		}
		bol = i + 1;
	}
	CHECK(named);
	free(rep);
	check_checkpoints(f, REPORT, 0);
	check_checkpoints(f, REPORT, 3);
}

struct src_env {
	struct text_tep *tt;
	struct text_page_fmt pf;
	struct text_timestamp *ts;
};

static void src_env_init(struct src_env *e, struct tdat_file *f)
{
	e->tt = text_tep_new(f, NULL);
	FATAL(e->tt);
	FATAL(text_tep_parse_header_page(e->tt) == 0);
	text_tep_page_fmt(e->tt, &e->pf);
	e->ts = text_timestamp_new(f);
	FATAL(e->ts);
}

static uint64_t cpu_pages(struct tdat_file *f, size_t c)
{
	const struct tdat_buffer *buf = tdat_buffer_get(f, 0);
	uint64_t size = 0;

	FATAL(tdat_cpu_size(f, 0, c, &size) == 0);
	return (size + buf->page_size - 1) / buf->page_size;
}

/* Event lines of a per-CPU text: one per record. */
static size_t count_records(const char *text, size_t len)
{
	size_t n = 0, i;
	bool bol = true;

	for (i = 0; i < len; i++) {
		if (bol && strncmp(text + i, "CPU:", 4) && strncmp(text + i, "[tdatfs", 7))
			n++;
		bol = text[i] == '\n';
	}
	return n;
}

/*
 * Peek and consume every record of CPU index @c: offsets grow, the
 * record just consumed stays readable while the next is peeked, the
 * count is the per-CPU text's, and after a seek back to a told position
 * the same records come again.
 */
static void check_source(struct tdat_file *f, const struct src_env *e, size_t c)
{
	const struct tdat_buffer *buf = tdat_buffer_get(f, 0);
	uint64_t np = cpu_pages(f, c), prev_off = 0;
	struct tdatfs_buf markers = { 0 };
	struct text_pos mid = { 0 }, pos;
	uint64_t mid_offs[8];
	size_t nrec = 0, text_len, i;
	unsigned char prev[64];
	const void *prev_data = NULL;
	size_t prev_size = 0;
	struct text_source *src;
	const struct text_rec *r;
	unsigned int cpu = buf->cpus[c].cpu;
	char *text;

	src = text_source_new(f, 0, &c, &np, 1, &e->pf, e->ts);
	FATAL(src);
	for (;;) {
		const struct text_rec *again;

		FATAL(text_source_peek(src, cpu, &r) == 0);
		if (prev_data)
			CHECK(!memcmp(prev_data, prev, prev_size));
		if (!r)
			break;
		FATAL(text_source_peek_index(src, 0, &markers, &again) == 0);
		CHECK(again == r);
		CHECK(r->cpu == cpu);
		CHECK(!nrec || r->offset > prev_off);
		if (nrec == 1000) {
			FATAL(text_source_pos(src, cpu, &mid) == 0);
			CHECK(mid.page > 0 || mid.idx > 0);
		}
		if (nrec >= 1000 && nrec < 1008)
			mid_offs[nrec - 1000] = r->offset;
		prev_off = r->offset;
		prev_size = r->size < sizeof(prev) ? r->size : sizeof(prev);
		memcpy(prev, r->data, prev_size);
		prev_data = r->data;
		CHECK(text_source_consume(src, cpu) == 1);
		nrec++;
	}
	CHECK(text_source_consume(src, cpu) == 0);
	CHECK(text_source_pos(src, cpu, &pos) == 0 && pos.done);
	CHECK(text_source_peek(src, cpu + 1000, &r) == -ENOENT);
	CHECK(markers.len == 0);

	text = whole_text(f, (int)c, &text_len);
	CHECK(nrec == count_records(text, text_len));
	CHECK(nrec > 1008);

	/* the same records again from a told position */
	text_source_seek(src, &mid);
	text_source_tell(src, &pos);
	CHECK(pos.page == mid.page && pos.idx == mid.idx && !pos.done);
	for (i = 0; i < 8 && nrec > 1008; i++) {
		FATAL(text_source_peek(src, cpu, &r) == 0 && r);
		CHECK(r->offset == mid_offs[i]);
		CHECK(text_source_consume(src, cpu) == 1);
	}
	free(text);
	tdatfs_buf_release(&markers);
	text_source_free(src);
}

/* The merged text and each CPU's, from every checkpoint. */
static void check_positions(struct tdat_file *f)
{
	const struct tdat_buffer *buf = tdat_buffer_get(f, 0);
	unsigned int c;

	FATAL(buf && buf->ncpus >= 1);
	check_checkpoints(f, -1, 0);
	for (c = 0; c < buf->ncpus; c++)
		check_checkpoints(f, (int)c, 0);
}

int main(int argc, char **argv)
{
	const struct tdat_buffer *buf;
	struct tdat_file *f;
	struct src_env e;
	unsigned int c;

	if (argc == 3 && !strcmp(argv[1], "--positions")) {
		f = open_trace(argv[2]);
		check_positions(f);
		goto out;
	}
	if (argc == 4 && !strcmp(argv[1], "--spacing")) {
		spacing = strtoull(argv[2], NULL, 0);
		FATAL(spacing > 0);
		f = open_trace(argv[3]);
		buf = tdat_buffer_get(f, 0);
		FATAL(buf && !buf->latency);
		check_checkpoints(f, -1, 0);
		check_checkpoints(f, -1, 3);
		for (c = 0; c < buf->ncpus; c++)
			check_checkpoints(f, (int)c, 0);
		goto out;
	}
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s TRACE [INSTANCES] | --spacing BYTES TRACE"
			" | --positions TRACE\n", argv[0]);
		return 2;
	}
	f = open_trace(argv[1]);
	buf = tdat_buffer_get(f, 0);
	FATAL(buf && buf->ncpus >= 2 && !buf->latency);

	check_checkpoints(f, -1, 0);
	check_checkpoints(f, -1, 3);
	for (c = 0; c < buf->ncpus; c++)
		check_checkpoints(f, (int)c, 0);
	check_checkpoints(f, REPORT, 0);
	check_report_single(f);
	check_like(f);

	src_env_init(&e, f);
	for (c = 0; c < buf->ncpus; c++)
		check_source(f, &e, c);
	text_timestamp_free(e.ts);
	text_tep_free(e.tt);
	tdat_close(f);
	if (argc == 3) {
		f = open_trace(argv[2]);
		check_report_instances(f);
		tdat_close(f);
	}
	goto done;
out:
	tdat_close(f);
done:
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
