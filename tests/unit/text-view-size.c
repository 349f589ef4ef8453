/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-view-size.c - whitebox tests of a view's size made by cutting its
 * text on several threads (text/view-size.h), without FUSE.  For each
 * event's fields view and a few time windows of a trace whose full text
 * has a checkpoint every few KiB, cut in one to five parts:
 *  - the view learns the offsets and the size that a read to its end
 *    leaves, and the text handed back is that read's, byte for byte (or
 *    none when the bound is one byte short);
 *  - a mirror of the cut view is finished too and makes the same text
 *    from each of its entries;
 *  - a cut stopped by another part fails with EINTR and leaves the view
 *    unfinished;
 *  - the parts split the entries in order, every entry in one.
 * Through the engine, the size of a fields view made while another
 * thread reads it, and then its reads, give the text of an engine that
 * only reads it.  In the race suite too: the ThreadSanitizer build runs
 * it.
 *
 * Usage: test-text-vcut TRACE...
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
#include "text/account.h"
#include "text/engine.h"
#include "text/line.h"
#include "text/stream.h"
#include "text/view-size.h"

#define SPACING		4096	/* text between the full text's checkpoints */
#define MAX_EVENTS	12	/* fields views checked per trace */
#define MAX_ENTRIES	65536

static const char head[] = "a head of the view\n";

/* The whole text of @st read from 0 in odd-sized pieces. */
static struct tdatfs_buf read_all(struct text_stream *st)
{
	struct tdatfs_buf b = { 0 };
	char tmp[3001];
	ssize_t n;

	while ((n = text_stream_read(st, tmp, sizeof(tmp), b.len)) > 0)
		FATAL(tdatfs_buf_put(&b, tmp, n) == 0);
	CHECK(n == 0);
	return b;
}

/* What a view's reader sees: its text, size and entries' offsets. */
struct seen {
	struct tdatfs_buf text;
	uint64_t size;
	uint64_t *off;
	size_t n;
};

static void seen_of(struct text_stream *v, struct seen *s)
{
	s->text = read_all(v);
	FATAL(text_stream_size(v, &s->size) == 0);
	s->off = calloc(MAX_ENTRIES, sizeof(*s->off));
	FATAL(s->off);
	s->n = text_stream_checkpoints(v, s->off, MAX_ENTRIES);
	FATAL(s->n <= MAX_ENTRIES);
}

/* Each entry of the finished view @v made by its mirror, against @want. */
static void check_mirror(struct text_stream *v, const struct seen *want)
{
	struct text_stream *m = text_stream_new_mirror(v);
	const uint64_t *ckpt;
	uint64_t size;
	size_t n;

	FATAL(m);
	CHECK(text_stream_finished(m, &ckpt, &n, &size) == 0);
	CHECK(n == want->n && size == want->size);
	for (size_t j = n; j-- > 0 && n == want->n;) {
		uint64_t end = j + 1 < n ? ckpt[j + 1] : size;
		size_t len = end - ckpt[j], done = 0;
		char *buf = malloc(len + 1);

		FATAL(buf);
		while (done < len) {
			ssize_t r = text_stream_read(m, buf + done, len - done, ckpt[j] + done);

			FATAL(r > 0);
			done += r;
		}
		CHECK(ckpt[j] == want->off[j]);
		CHECK(!memcmp(buf, want->text.p + ckpt[j], len));
		free(buf);
	}
	text_stream_free(m);
}

static void check_split(struct text_stream *v, size_t parts)
{
	size_t n = text_stream_view_entries(v), *b = calloc(parts + 1, sizeof(*b));

	FATAL(b);
	text_stream_view_split(v, parts, b);
	CHECK(b[0] == 0 && b[parts] == n);
	for (size_t i = 0; i < parts; i++)
		CHECK(b[i] <= b[i + 1]);
	free(b);
}

/* A cut stopped before it began: EINTR, and nothing learned. */
static void check_stopped(struct text_stream *full, const struct text_filter *flt)
{
	struct text_stream *v = text_stream_new_view(full, flt, head);
	_Atomic bool stop = true;
	struct tdatfs_buf keep = { 0 };
	uint64_t *bytes, size;
	size_t n;

	FATAL(v);
	n = text_stream_view_entries(v);
	bytes = calloc(n, sizeof(*bytes));
	FATAL(bytes);
	if (n > 1 || flt->kind == TEXT_FILTER_FIELDS) {
		CHECK(text_stream_view_cut(v, 0, n, bytes, &keep, SIZE_MAX, &stop) == -EINTR);
		CHECK(!keep.len);
		CHECK(text_stream_size(v, &size) == -EAGAIN);
	}
	free(bytes);
	text_stream_free(v);
}

/* One filter: the cut views against a view read to its end. */
static void check_filter(struct text_stream *full, const struct text_filter *flt)
{
	struct text_stream *v0 = text_stream_new_view(full, flt, head);
	struct seen want;

	FATAL(v0);
	seen_of(v0, &want);
	CHECK(want.size == want.text.len);
	for (unsigned int parts = 1; parts <= 5; parts++) {
		struct text_stream *v = text_stream_new_view(full, flt, head);
		struct tdatfs_buf text = { 0 }, short_text = { 0 };
		struct seen got;

		FATAL(v);
		check_split(v, parts);
		CHECK(text_view_size_cut(v, parts, SIZE_MAX, &text) == 0);
		CHECK(text.len == want.text.len &&
		      !memcmp(text.p, want.text.p, text.len));
		seen_of(v, &got);
		CHECK(got.size == want.size && got.n == want.n);
		CHECK(!memcmp(got.off, want.off, want.n * sizeof(*got.off)));
		CHECK(got.text.len == want.text.len &&
		      !memcmp(got.text.p, want.text.p, want.text.len));
		check_mirror(v, &want);
		text_stream_free(v);
		/* one byte short of the text: the size alone */
		v = text_stream_new_view(full, flt, head);
		FATAL(v);
		CHECK(text_view_size_cut(v, parts, want.text.len - 1,
					 &short_text) == 0);
		CHECK(!short_text.len);
		CHECK(text_stream_size(v, &got.size) == 0 && got.size == want.size);
		text_stream_free(v);
		tdatfs_buf_release(&text);
		tdatfs_buf_release(&got.text);
		free(got.off);
	}
	check_stopped(full, flt);
	tdatfs_buf_release(&want.text);
	free(want.off);
	text_stream_free(v0);
}

/* The full text of buffer 0, a checkpoint every SPACING bytes. */
static struct text_stream *full_text(struct tdatfs_text *t)
{
	struct tdatfs_text_key k = { .buffer = 0, .cpu = -1 };
	struct text_stream *st = text_engine_stream(t, 0, -1);

	FATAL(st);
	text_stream_set_spacing(st, SPACING);
	FATAL(tdatfs_text_produce(t, &k, NULL, NULL) == 0);
	return st;
}

static void check_views(struct tdatfs_text *t, struct text_stream *full)
{
	const struct text_account_total *tot;
	const struct text_comms *cm;
	struct text_fmt *fmt;
	size_t n, k;

	tot = text_account_totals(text_stream_acct(full), &n);
	FATAL(text_engine_fmt(t, &fmt, &cm) == 0);
	for (k = 0; k < n && k < MAX_EVENTS; k++) {
		struct text_filter flt = { .kind = TEXT_FILTER_FIELDS, .id = tot[k].id };

		flt.every = text_fmt_folds(fmt, flt.id);
		check_filter(full, &flt);
	}
	/* windows: the span of each of the first two events */
	for (k = 0; k < n && k < 2; k++) {
		struct text_filter win = {
			.kind = TEXT_FILTER_WINDOW,
			.k0 = text_fmt_time_key(fmt, tot[k].first_ts),
			.k1 = text_fmt_time_key(fmt, tot[k].last_ts) + 1,
		};

		check_filter(full, &win);
	}
}

/* The whole of view @v read through @t from 0. */
static struct tdatfs_buf view_text(struct tdatfs_text *t,
				   const struct tdatfs_text_view *v)
{
	struct tdatfs_buf b = { 0 };
	char tmp[4001];
	ssize_t r;

	while ((r = tdatfs_text_view_read(t, v, tmp, sizeof(tmp), b.len)) > 0)
		FATAL(tdatfs_buf_put(&b, tmp, r) == 0);
	CHECK(r == 0);
	return b;
}

struct reader {
	struct tdatfs_text *t;
	const struct tdatfs_text_view *v;
	struct tdatfs_buf got;
};

static void *reader_run(void *arg)
{
	struct reader *r = arg;

	r->got = view_text(r->t, r->v);
	return NULL;
}

/*
 * Through the engine: a fields view's size while another thread reads
 * it, then its reads (from the text kept), against an engine that only
 * reads it.
 */
static void check_engine(struct tdat_file *f, int id)
{
	struct tdatfs_text_view v = { .kind = TDATFS_VIEW_FIELDS, .cpu = -1, .event = id };
	struct tdatfs_text *a = tdatfs_text_new(f, NULL), *b = tdatfs_text_new(f, NULL);
	struct reader r = { .t = a, .v = &v };
	struct tdatfs_buf got, want;
	uint64_t size = 0;
	pthread_t tid;

	FATAL(a && b);
	FATAL(!pthread_create(&tid, NULL, reader_run, &r));
	CHECK(tdatfs_text_view_size(a, &v, &size) == 0);
	pthread_join(tid, NULL);
	got = view_text(a, &v);
	want = view_text(b, &v);
	CHECK(size == got.len && got.len == want.len && want.len > 0);
	CHECK(!memcmp(got.p, want.p, want.len));
	CHECK(r.got.len == want.len && !memcmp(r.got.p, want.p, want.len));
	tdatfs_buf_release(&got);
	tdatfs_buf_release(&want);
	tdatfs_buf_release(&r.got);
	tdatfs_text_free(a);
	tdatfs_text_free(b);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char err[512] = "";
		struct tdat_file *f = tdat_open(argv[i], NULL, err, sizeof(err));
		const struct text_account_total *tot;
		struct tdatfs_text *t;
		struct text_stream *full;
		size_t n;

		if (!f)
			fprintf(stderr, "%s: %s\n", argv[i], err);
		FATAL(f);
		t = tdatfs_text_new(f, NULL);
		FATAL(t);
		full = full_text(t);
		check_views(t, full);
		tot = text_account_totals(text_stream_acct(full), &n);
		FATAL(n > 0);
		check_engine(f, tot[n - 1].id);
		tdatfs_text_free(t);
		tdat_close(f);
		printf("%s: %zu events\n", argv[i], n);
	}
	return failures ? 1 : 0;
}
