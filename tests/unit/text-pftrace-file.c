/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-pftrace-file.c - trace.pftrace through the text engine's views
 * (TDATFS_VIEW_PFTRACE), without FUSE, on real traces: for each buffer,
 * the size is the bytes a read in odd pieces gives; 400 reads at random
 * offsets and lengths (most of them inside bundles, which a read encodes
 * again) give the same bytes, on an engine that made the file and on one
 * that read nothing before; a second engine gives the same bytes (the
 * encoding depends on the trace alone); a window holding every record
 * is the whole buffer's file byte for byte (the same pages and records,
 * the same head); a window past the last record is the system_info
 * packet alone, the whole file's first bytes; a window with T1 <= T0 is
 * ENOENT; the layout the pass found, given to a fresh engine with the
 * sizes, gives the same bytes, and so do that layout cut short and one
 * whose slot count is forged (refused, a pass made instead); the pass
 * made on one thread and on three (decode_threads, each CPU measured by
 * whichever thread takes it) finds the same layout byte for byte, head
 * and all.  What the
 * bytes mean is checked against trace-cmd and
 * Perfetto's schema by tests/pftrace.
 *
 * Usage: test-text-pftrace-file TRACE...
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "check.h"
#include "open-trace.h"

static struct tdatfs_text_view pf(size_t buffer, uint64_t t0, uint64_t t1)
{
	struct tdatfs_text_view v;

	memset(&v, 0, sizeof(v));
	v.kind = TDATFS_VIEW_PFTRACE;
	v.buffer = buffer;
	v.cpu = -1;
	v.t0 = t0;
	v.t1 = t1;
	return v;
}

/* The whole file, read in odd pieces; its size checked against it. */
static char *slurp(struct tdatfs_text *t, const struct tdatfs_text_view *v,
		   size_t *len)
{
	uint64_t size = 0;
	size_t got = 0, piece = 777;
	char *s;
	ssize_t n;

	FATAL(tdatfs_text_view_size(t, v, &size) == 0);
	FATAL(size > 0 && size < (1u << 30));
	s = malloc(size);
	FATAL(s);
	while ((n = tdatfs_text_view_read(t, v, s + got, piece, got)) > 0) {
		got += n;
		piece = piece * 3 % 65521 + 1;
		FATAL(got <= size);
	}
	CHECK(n == 0 && got == size);
	CHECK(tdatfs_text_view_read(t, v, s, 10, size + 5) == 0);
	/* a Trace is packets: field 1, length-delimited */
	CHECK(s[0] == 0x0a);
	*len = got;
	return s;
}

/* 400 reads at random places of @v equal @whole's bytes there. */
static void random_reads(struct tdatfs_text *t, const struct tdatfs_text_view *v,
			 const char *whole, size_t len, unsigned int seed)
{
	char *buf = malloc(300000);
	int k, bad = 0;

	FATAL(buf);
	srand(seed);
	for (k = 0; k < 400; k++) {
		uint64_t off = (uint64_t)rand() % (len + 16);
		size_t want, n = k % 4 == 0 ? 1 : (size_t)rand() % 300000 + 1;
		ssize_t got = tdatfs_text_view_read(t, v, buf, n, off);

		want = off < len ? (len - off < n ? len - off : n) : 0;
		if (got != (ssize_t)want || (want && memcmp(buf, whole + off, want)))
			bad++;
	}
	CHECK(bad == 0);
	free(buf);
}

/*
 * A fresh engine given buffer @b's sizes and @layout (@llen bytes, as
 * found or forged): its reads, at random and whole, equal @whole whether
 * the layout is taken or refused (then the pass makes the file).
 * Return: what the keep gave.
 */
static int from_layout(struct tdat_file *f, size_t b, uint64_t timeline,
		       const char *whole, size_t len, const void *layout,
		       size_t llen, unsigned int seed)
{
	struct tdatfs_text_view v = pf(b, 0, 0);
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	size_t got;
	char *s;
	int ret;

	FATAL(t);
	/* a layout without the size it goes with is refused */
	CHECK(tdatfs_text_pftrace_layout_keep(t, b, layout, llen) == -EINVAL);
	FATAL(tdatfs_text_whole_sizes_keep(t, b, timeline, len) == 0);
	ret = tdatfs_text_pftrace_layout_keep(t, b, layout, llen);
	/* one layout a buffer */
	CHECK(ret || tdatfs_text_pftrace_layout_keep(t, b, layout, llen) == -EINVAL);
	random_reads(t, &v, whole, len, seed);
	s = slurp(t, &v, &got);
	CHECK(got == len && !memcmp(s, whole, len));
	free(s);
	tdatfs_text_free(t);
	return ret;
}

/* The layout the pass found, given to fresh engines, whole and forged. */
static void check_layout(struct tdat_file *f, struct tdatfs_text *t, size_t b,
			 const char *whole, size_t len)
{
	uint64_t timeline, size;
	uint32_t slots;
	size_t llen;
	void *layout = NULL;
	char *forged;

	FATAL(tdatfs_text_whole_sizes(t, b, &timeline, &size) == 0);
	CHECK(size == len);
	FATAL(tdatfs_text_pftrace_layout(t, b, &layout, &llen) == 0);
	/* the head's bytes are in it: at least the file's first packet */
	CHECK(llen >= 24 + 8);
	CHECK(from_layout(f, b, timeline, whole, len, layout, llen, 66 + b) == 0);
	/* refused when the file is read (a pass made instead) */
	CHECK(from_layout(f, b, timeline, whole, len, layout, llen - 1, 77 + b) == 0);
	forged = malloc(llen);
	FATAL(forged);
	memcpy(forged, layout, llen);
	memcpy(&slots, forged + 4, 4);
	slots++;	/* a slot count this buffer does not have */
	memcpy(forged + 4, &slots, 4);
	CHECK(from_layout(f, b, timeline, whole, len, forged, llen, 88 + b) == 0);
	free(forged);
	/* once the file is made, a layout comes too late */
	CHECK(tdatfs_text_pftrace_layout_keep(t, b, layout, llen) == -EINVAL);
	free(layout);
}

/* The layout of buffer @b's pass on an engine whose workers are @threads. */
static void *layout_on(struct tdat_file *f, size_t b, int threads,
		       size_t *llen)
{
	struct tdatfs_text_opts o = { .decode_threads = threads };
	struct tdatfs_text *t = tdatfs_text_new(f, &o);
	void *layout = NULL;

	FATAL(t);
	FATAL(tdatfs_text_pftrace_layout(t, b, &layout, llen) == 0);
	tdatfs_text_free(t);
	return layout;
}

/* One thread's pass and three threads' find the same layout. */
static void check_threads(struct tdat_file *f, size_t b)
{
	size_t l1, l3;
	void *one = layout_on(f, b, -1, &l1);
	void *three = layout_on(f, b, 3, &l3);

	CHECK(l1 == l3 && !memcmp(one, three, l1));
	free(one);
	free(three);
}

static void check_buffer(const char *path, struct tdat_file *f,
			 struct tdatfs_text *t, size_t b)
{
	struct tdatfs_text_view v = pf(b, 0, 0), w;
	struct tdatfs_text *t2;
	uint64_t first, last, size;
	char *whole, *s;
	size_t len, l2;

	whole = slurp(t, &v, &len);
	random_reads(t, &v, whole, len, 33 + b);
	check_layout(f, t, b, whole, len);
	check_threads(f, b);
	/* an engine that made nothing: the first read makes the file */
	t2 = tdatfs_text_new(f, NULL);
	FATAL(t2);
	random_reads(t2, &v, whole, len, 44 + b);
	tdatfs_text_free(t2);
	t2 = tdatfs_text_new(f, NULL);
	FATAL(t2);
	s = slurp(t2, &v, &l2);
	CHECK(l2 == len && !memcmp(s, whole, len));
	free(s);
	tdatfs_text_free(t2);
	if (tdatfs_text_time_range(t, b, &first, &last) == 0) {
		/* the range is of record times, a window of printed ones
		 * (rounded to microseconds): past the last by one more */
		w = pf(b, 0, last + 1000);
		s = slurp(t, &w, &l2);
		CHECK(l2 == len && !memcmp(s, whole, len));
		random_reads(t, &w, s, l2, 55 + b);
		free(s);
		w = pf(b, last + 1000, last + 2000);
		s = slurp(t, &w, &l2);
		CHECK(l2 < len && !memcmp(s, whole, l2));
		free(s);
		w = pf(b, last, first);
		CHECK(first == last || tdatfs_text_view_size(t, &w, &size) == -ENOENT);
	}
	printf("%s: buffer %zu: trace.pftrace of %zu bytes\n", path, b, len);
	free(whole);
}

static void check_trace(const char *path)
{
	struct tdat_file *f = open_trace(path);
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	const struct tdat_buffer *buf;
	size_t b;

	FATAL(t);
	for (b = 0; (buf = tdat_buffer_get(f, b)); b++)
		if (!buf->latency)
			check_buffer(path, f, t, b);
	tdatfs_text_free(t);
	tdat_close(f);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: test-text-pftrace-file TRACE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		check_trace(argv[i]);
	return failures ? 1 : 0;
}
