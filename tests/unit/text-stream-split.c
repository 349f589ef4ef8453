/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-stream-split.c - a buffer's texts made in two parts at once
 * (tdatfs_text_split_new()) are the texts made in a row: for every
 * buffer that can lead, against tdatfs_text_produce_led() on an engine
 * whose streams checkpoint every step boundary, each text has the same
 * size and bytes, each checkpoint of a joined text holds the state the
 * text made in a row holds at the same offset (the CPUs' positions, the
 * registrations seen, the records consumed, no call stacks copied where
 * the row has none), and the comm model and the account's totals at the
 * end are the same.  The two parts run on two threads at once (the
 * ThreadSanitizer build runs this test).  The state of a joined text,
 * saved and loaded into a new engine, reads the same bytes, read from
 * each of its checkpoints.
 *
 * Usage: test-text-stream-split [--joined] [--again] TRACE...
 *   --joined: some merged text must have joined;
 *   --again: some text must have been made again (a part that did not
 *   join, or a CPU text made apart), so that the way back is tried.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
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
#include "text/account.h"
#include "text/comm.h"
#include "text/engine.h"
#include "text/stream-internal.h"
#include "text/stream.h"
#include "text-compare.h"

/* The small spacing of the parts: many checkpoints, some thinned. */
#define SPACING		4096

static unsigned int joined, again, unsplit;

/* The checkpoint of @st at offset @off, or -1. */
static long ckpt_at(const struct text_stream *st, uint64_t off)
{
	size_t lo = 0, hi = st->nckpt;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->ckpt_off[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nckpt && st->ckpt_off[lo] == off ? (long)lo : -1;
}

/* Whether the comm models of @a and @b saved are the same bytes. */
static bool same_model(const struct text_stream *a, const struct text_stream *b)
{
	struct tdatfs_buf x = { 0 }, y = { 0 };
	bool same;

	FATAL(text_overlay_save(a->ov, &x) == 0 && text_overlay_save(b->ov, &y) == 0);
	same = x.len == y.len && !memcmp(x.p, y.p, x.len);
	tdatfs_buf_release(&x);
	tdatfs_buf_release(&y);
	return same;
}

/* Whether the accounts' totals of @a and @b are the same. */
static bool same_totals(const struct text_stream *a, const struct text_stream *b)
{
	size_t na, nb;
	const struct text_account_total *x = text_account_totals(a->acct, &na);
	const struct text_account_total *y = text_account_totals(b->acct, &nb);

	return na == nb && (!na || !memcmp(x, y, na * sizeof(*x))) &&
	       text_account_nrec(a->acct, a->nckpt) ==
	       text_account_nrec(b->acct, b->nckpt);
}

/*
 * Each checkpoint of the joined stream @s is a step boundary of the row
 * @r (which has one at every step) with the same state there.
 */
static void same_ckpts(const struct text_stream *r, const struct text_stream *s,
		       const char *what)
{
	unsigned int bad = 0;

	for (size_t k = 0; k < s->nckpt; k++) {
		long j = ckpt_at(r, s->ckpt_off[k]);

		if (j < 0 || r->ckpt_seen[j] != s->ckpt_seen[k] ||
		    memcmp(&r->ckpt_pos[j * r->ncpu], &s->ckpt_pos[k * s->ncpu],
			   s->ncpu * sizeof(*s->ckpt_pos)) ||
		    text_account_nrec(r->acct, (size_t)j) !=
		    text_account_nrec(s->acct, k) ||
		    (!r->ckpt_fn[j]) != (!s->ckpt_fn[k])) {
			if (!bad)
				fprintf(stderr, "  %s: checkpoint %zu of %zu at %llu: "
					"%s\n", what, k, s->nckpt,
					(unsigned long long)s->ckpt_off[k],
					j < 0 ? "no step boundary of the row there" :
					r->ckpt_seen[j] != s->ckpt_seen[k] ?
					"registrations seen" :
					text_account_nrec(r->acct, (size_t)j) !=
					text_account_nrec(s->acct, k) ?
					"records consumed" : "positions");
			bad++;
		}
	}
	CHECK(!bad);
	CHECK(same_model(r, s));
	CHECK(same_totals(r, s));
	if (bad || !same_model(r, s) || !same_totals(r, s))
		fprintf(stderr, "  %s: %u of %zu checkpoints differ from the row, "
			"or its model or totals\n", what, bad, s->nckpt);
}

/*
 * The state of text @cpu of @s saved and loaded into a new engine: read
 * from each of its checkpoints, the bytes of @r.
 */
static void reload(struct tdat_file *f, struct tdatfs_text *r,
		   struct tdatfs_text *s, size_t buf, int cpu)
{
	struct tdatfs_text_key k = { .buffer = buf, .cpu = cpu };
	struct tdatfs_text *l = tdatfs_text_new(f, NULL);
	static char x[8192], y[8192];
	struct text_stream *st;
	uint64_t *off;
	size_t n, len;
	void *blob;

	FATAL(l);
	FATAL(tdatfs_text_state_save(s, &k, &blob, &len) == 0);
	FATAL(tdatfs_text_state_load(l, &k, blob, len) == 0);
	free(blob);
	st = text_engine_stream(l, buf, cpu);
	FATAL(st);
	n = text_stream_checkpoints(st, NULL, 0);
	off = calloc(n + 1, sizeof(*off));
	FATAL(off);
	text_stream_checkpoints(st, off, n);
	for (size_t i = 0; i < n; i++) {
		ssize_t a, b;

		text_stream_drop_cursors(st);
		a = tdatfs_text_read(l, buf, cpu, x, sizeof(x), off[i]);
		b = tdatfs_text_read(r, buf, cpu, y, sizeof(y), off[i]);
		CHECK(a == b && a >= 0 && !memcmp(x, y, (size_t)a));
	}
	free(off);
	same_text(r, l, buf, cpu);
	tdatfs_text_free(l);
}

struct part_run {
	struct tdatfs_text_split *s;
	unsigned int part;
	int ret;
};

static void *run_part(void *arg)
{
	struct part_run *p = arg;

	p->ret = tdatfs_text_split_part(p->s, p->part, NULL, NULL);
	return NULL;
}

/* Both parts of @s made at once. */
static void run_parts(struct tdatfs_text_split *s)
{
	struct part_run p[2] = { { s, 0, -1 }, { s, 1, -1 } };
	pthread_t th;

	FATAL(pthread_create(&th, NULL, run_part, &p[1]) == 0);
	run_part(&p[0]);
	pthread_join(th, NULL);
	CHECK(p[0].ret == 0 && p[1].ret == 0);
}

/* Buffer @buf made in a row on one engine and split on two others. */
static void check_buffer(struct tdat_file *f, size_t buf)
{
	/* the row checkpoints every step, and never thins */
	struct tdatfs_text_opts ro = { .max_checkpoints = 1u << 30 };
	struct tdatfs_text *r = tdatfs_text_new(f, &ro);
	struct tdatfs_text *s1 = tdatfs_text_new(f, NULL), *s2 = tdatfs_text_new(f, NULL);
	unsigned int ncpu = tdat_buffer_get(f, buf)->ncpus, checked;
	struct tdatfs_text_split *s;
	int ret;

	FATAL(r && s1 && s2);
	space_streams(r, buf, ncpu, 1);
	space_streams(s1, buf, ncpu, SPACING);
	space_streams(s2, buf, ncpu, SPACING);
	CHECK(tdatfs_text_produce_led(r, buf, NULL, NULL) >= 0);
	s = tdatfs_text_split_new(s1, s2, buf);
	if (!s) {
		CHECK(errno == EXDEV);
		printf("  buffer %zu: not split (%s)\n", buf, strerror(errno));
		unsplit++;
		goto out;
	}
	run_parts(s);
	ret = tdatfs_text_split_join(s, NULL, NULL);
	CHECK(ret >= 0 && ret <= (int)ncpu + 1);
	checked = 0;
	for (int c = -1; c < (int)ncpu; c++) {
		struct text_stream *rs = text_engine_stream(r, buf, c);
		struct text_stream *ss = text_engine_stream(s1, buf, c);
		char what[64];

		FATAL(rs && ss);
		snprintf(what, sizeof(what), "buffer %zu cpu %d", buf, c);
		same_text(r, s1, buf, c);
		/* a text the row made again (a lead drops it) is spaced as usual */
		if (rs->ckpt_every == 1) {
			same_ckpts(rs, ss, what);
			checked++;
		}
		reload(f, r, s1, buf, c);
	}
	printf("  buffer %zu: %d of %u texts made again, %u checked at every "
	       "checkpoint\n", buf, ret, ncpu + 1, checked);
	joined += ret >= 0 && ret <= (int)ncpu;
	again += ret > 0;
	tdatfs_text_split_free(s);
out:
	tdatfs_text_free(r);
	tdatfs_text_free(s1);
	tdatfs_text_free(s2);
}

static void check_trace(const char *path)
{
	struct tdat_file *f = open_trace(path);
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	size_t nb = tdat_buffer_count(f), n = 0;

	FATAL(t);
	printf("%s:\n", path);
	for (size_t b = 0; b < nb; b++) {
		if (!tdatfs_text_can_lead(t, b))
			continue;
		n++;
		check_buffer(f, b);
	}
	if (!n)
		printf("  no buffer of several CPUs\n");
	tdatfs_text_free(t);
	tdat_close(f);
}

int main(int argc, char **argv)
{
	bool want_joined = false, want_again = false;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--joined"))
			want_joined = true;
		else if (!strcmp(argv[i], "--again"))
			want_again = true;
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s [--joined] [--again] TRACE...\n", argv[0]);
		return 2;
	}
	for (; i < argc; i++)
		check_trace(argv[i]);
	printf("%u buffers joined, %u with a text made again, %u not split\n",
	       joined, again, unsplit);
	/* a test of nothing is no test */
	CHECK(joined + again + unsplit > 0);
	CHECK(!want_joined || joined > 0);
	CHECK(!want_again || again > 0);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
