/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-timeline-pass.c - timeline.svg through the text engine's views
 * (TDATFS_VIEW_TIMELINE), without FUSE, on real traces: the size is the
 * bytes a read gives, at any offset, the same every time, also after
 * the engine's cache of pictures dropped them; two windows that split a
 * span draw each task's running time on each CPU as the window of the
 * whole span does (so a window's start, found from the stretches before
 * it, agrees with reading through); a cancelled request stops with
 * EINTR; what is not a picture is ENOENT.
 *
 * Usage: test-timeline-view TRACE...
 *   the first with over 4096 records in its top buffer (the cache and
 *   cancel checks are made on it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-timeline.h"
#include "check.h"
#include "open-trace.h"

#define MAXK	8192

static struct tdatfs_text_view pic(size_t buffer, uint64_t t0, uint64_t t1)
{
	struct tdatfs_text_view v;

	memset(&v, 0, sizeof(v));
	v.kind = TDATFS_VIEW_TIMELINE;
	v.buffer = buffer;
	v.cpu = -1;
	v.t0 = t0;
	v.t1 = t1;
	return v;
}

/* The whole picture, read in odd pieces; its size checked against it. */
static char *slurp(struct tdatfs_text *t, const struct tdatfs_text_view *v,
		   size_t *len)
{
	uint64_t size = 0;
	size_t got = 0, piece = 777;
	char *s;
	ssize_t n;

	FATAL(tdatfs_text_view_size(t, v, &size) == 0);
	FATAL(size > 0 && size <= TDATFS_TIMELINE_MAX_BYTES);
	s = malloc(size + 1);
	FATAL(s);
	while ((n = tdatfs_text_view_read(t, v, s + got, piece, got)) > 0) {
		got += n;
		piece = piece * 3 % 65521 + 1;
		FATAL(got <= size);
	}
	CHECK(n == 0 && got == size);
	CHECK(tdatfs_text_view_read(t, v, s, 10, size + 5) == 0);
	s[got] = '\0';
	CHECK(!strncmp(s, "<?xml", 5) && got > 7 &&
	      !strcmp(s + got - 7, "</svg>\n"));
	*len = got;
	return s;
}

/* A number attribute of the root element. */
static uint64_t root_attr(const char *svg, const char *attr)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=\"", attr);
	p = strstr(svg, pat);
	FATAL(p);
	return strtoull(p + strlen(pat), NULL, 10);
}

/* Running time per (cpu, pid) a picture draws, in the trace's unit. */
struct runs {
	unsigned int cpu[MAXK];
	int pid[MAXK];
	double t[MAXK], tol[MAXK];
	size_t n;
};

/* The entry of (@cpu, @pid) in @r, or r->n. */
static size_t run_find(const struct runs *r, unsigned int cpu, int pid)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->cpu[i] == cpu && r->pid[i] == pid)
			return i;
	return r->n;
}

static size_t run_key(struct runs *r, unsigned int cpu, int pid)
{
	size_t i = run_find(r, cpu, pid);

	if (i < r->n)
		return i;
	FATAL(r->n < MAXK);
	r->cpu[r->n] = cpu;
	r->pid[r->n] = pid;
	r->t[r->n] = r->tol[r->n] = 0;
	return r->n++;
}

static double attr_in(const char *p, const char *end, const char *attr)
{
	char pat[64];
	const char *q;

	snprintf(pat, sizeof(pat), " %s=\"", attr);
	q = strstr(p, pat);
	return q && q < end ? strtod(q + strlen(pat), NULL) : -1;
}

/* Add what @svg draws to @r: widths back to time, with their rounding. */
static void runs_add(struct runs *r, const char *svg)
{
	double unit = (double)(root_attr(svg, "data-t1") - root_attr(svg, "data-t0")) /
		      TDATFS_TIMELINE_WIDTH;
	const char *lane = svg, *next, *task;

	while ((lane = strstr(lane, "<g class=\"lane\"")) != NULL) {
		unsigned int cpu = (unsigned int)attr_in(lane, lane + 100, "data-cpu");

		next = strstr(lane + 1, "<g class=\"lane\"");
		if (!next)
			next = svg + strlen(svg);
		for (task = lane; (task = strstr(task, "<g class=\"task\"")) &&
		     task < next;) {
			const char *end = strstr(task, "</g>"), *q = task;
			size_t k = run_key(r, cpu, (int)attr_in(task, end, "data-pid"));

			/* a picture is within 1 px, + 0.001 px a rect */
			r->tol[k] += unit;
			while ((q = strstr(q, "<rect ")) && q < end) {
				r->t[k] += attr_in(q, end, "width") * unit;
				r->tol[k] += 0.001 * unit;
				q++;
			}
			task = end;
		}
		lane = next;
	}
}

/* Windows [a, m) and [m, b) draw what [a, b) draws, per CPU and task. */
static void split_check(struct tdatfs_text *t, size_t b, uint64_t a,
			uint64_t m, uint64_t e)
{
	static struct runs whole, parts;
	struct tdatfs_text_view v;
	size_t i, k, len;
	char *s;
	int bad = 0;

	whole.n = parts.n = 0;
	v = pic(b, a, e);
	s = slurp(t, &v, &len);
	runs_add(&whole, s);
	free(s);
	v = pic(b, a, m);
	s = slurp(t, &v, &len);
	runs_add(&parts, s);
	free(s);
	v = pic(b, m, e);
	s = slurp(t, &v, &len);
	runs_add(&parts, s);
	free(s);
	for (i = 0; i < whole.n; i++) {
		k = run_key(&parts, whole.cpu[i], whole.pid[i]);
		if (whole.t[i] - parts.t[k] > whole.tol[i] + parts.tol[k] ||
		    parts.t[k] - whole.t[i] > whole.tol[i] + parts.tol[k]) {
			if (bad++ < 5)
				fprintf(stderr, "%" PRIu64 "-%" PRIu64 "-%" PRIu64
					": cpu %u pid %d: %.0f whole, %.0f split\n",
					a, m, e, whole.cpu[i], whole.pid[i],
					whole.t[i], parts.t[k]);
		}
	}
	/* nothing drawn in the halves that the whole does not draw */
	for (k = 0; k < parts.n; k++)
		if (parts.t[k] > parts.tol[k] &&
		    run_find(&whole, parts.cpu[k], parts.pid[k]) == whole.n)
			bad++;
	CHECK(bad == 0);
}

static bool always(void *ctx)
{
	(void)ctx;
	return true;
}

/*
 * More pictures than the engine's cache keeps (8 MiB): the first one
 * made again after is the same bytes.
 */
static void evict_check(struct tdatfs_text *t, uint64_t t0, uint64_t t1)
{
	struct tdatfs_text_view v = pic(0, t0, t1 + 1);
	size_t len, len2, total = 0;
	char *first = slurp(t, &v, &len), *s;
	uint64_t size;
	unsigned int i;

	for (i = 2; total < (9u << 20) && i < 4000; i++) {
		v = pic(0, t0, t1 + i);
		CHECK(tdatfs_text_view_size(t, &v, &size) == 0);
		total += size;
	}
	CHECK(total >= (9u << 20));
	v = pic(0, t0, t1 + 1);
	s = slurp(t, &v, &len2);
	CHECK(len2 == len && !memcmp(s, first, len));
	free(s);
	free(first);
}

/* A request whose reader has gone stops (the pass polls every 4096). */
static void cancel_check(struct tdat_file *f)
{
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	struct tdatfs_text_view v = pic(0, 0, 0);
	uint64_t size = 0;

	FATAL(t);
	tdatfs_text_cancel_set(always, NULL);
	CHECK(tdatfs_text_view_size(t, &v, &size) == -EINTR);
	tdatfs_text_cancel_set(NULL, NULL);
	CHECK(tdatfs_text_view_size(t, &v, &size) == 0 && size > 0);
	tdatfs_text_free(t);
}

static void check_trace(const char *path, bool whole_checks)
{
	struct tdat_file *f = open_trace(path);
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	struct tdatfs_text_view v;
	uint64_t t0, t1, size, span;
	size_t b, len, len2, pics = 0;
	char *s, *again;
	unsigned int i;

	FATAL(t);
	for (b = 0; b < tdat_buffer_count(f); b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(f, b);

		if (!buf || buf->latency)
			continue;
		v = pic(b, 0, 0);
		s = slurp(t, &v, &len);
		again = slurp(t, &v, &len2);
		CHECK(len == len2 && !memcmp(s, again, len));
		free(again);
		t0 = root_attr(s, "data-t0");
		t1 = root_attr(s, "data-t1");
		free(s);
		span = t1 - t0;
		if (span < 8)
			continue;
		pics++;
		for (i = 1; i <= 5; i++)
			split_check(t, b, t0 + span / 16 * i, t0 + span / 7 * i,
				    t0 + span / 5 * i + span / 3);
		split_check(t, b, t0 - span / 2, t0 + span / 2, t1 + span);
	}
	CHECK(pics > 0);
	if (whole_checks) {
		v = pic(0, 0, 0);
		s = slurp(t, &v, &len);
		evict_check(t, root_attr(s, "data-t0"), root_attr(s, "data-t1"));
		free(s);
		cancel_check(f);
	}
	/* not pictures */
	v = pic(0, 5, 5);
	CHECK(tdatfs_text_view_size(t, &v, &size) == -ENOENT);
	v = pic(0, 0, 0);
	v.cpu = 0;
	CHECK(tdatfs_text_view_size(t, &v, &size) == -ENOENT);
	tdatfs_text_free(t);
	tdat_close(f);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: test-timeline-view TRACE...\n");
		return 2;
	}
	/* the cache and cancel checks on the first (over 4096 records) */
	for (i = 1; i < argc; i++)
		check_trace(argv[i], i == 1);
	return failures ? 1 : 0;
}
