/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline-picture.c - fs/tdatfs-timeline.h without a trace: intervals,
 * prints and records fed inline, the SVG read back.  Merging keeps each
 * task's widths its running time; millions of tiny intervals on many
 * lanes stay within the bound (the threshold doubles); print text is
 * escaped and cut; density columns add up to the records fed; the
 * legend's order; the same model gives the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-timeline.h"
#include "check.h"

#define MAXK	4096

/* Per (lane, pid): width drawn and rects, read back from the SVG. */
struct sums {
	unsigned int lane[MAXK];
	int pid[MAXK];
	double w[MAXK];
	unsigned long rects[MAXK];
	size_t n;
};

static size_t key_of(struct sums *s, unsigned int lane, int pid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->lane[i] == lane && s->pid[i] == pid)
			return i;
	FATAL(s->n < MAXK);
	s->lane[s->n] = lane;
	s->pid[s->n] = pid;
	s->w[s->n] = 0;
	s->rects[s->n] = 0;
	return s->n++;
}

/* The number after @attr=" at or after @p, before @end; -1 when absent. */
static double attr_num(const char *p, const char *end, const char *attr)
{
	char pat[64];
	const char *q;

	snprintf(pat, sizeof(pat), " %s=\"", attr);
	q = strstr(p, pat);
	if (!q || q >= end)
		return -1;
	return strtod(q + strlen(pat), NULL);
}

/* Read the bars of @svg back: per lane (data-cpu) and task. */
static void bars_read(const char *svg, struct sums *s)
{
	const char *lane = svg, *next, *task;

	memset(s, 0, sizeof(*s));
	while ((lane = strstr(lane, "<g class=\"lane\"")) != NULL) {
		unsigned int cpu = (unsigned int)attr_num(lane, lane + 200, "data-cpu");

		next = strstr(lane + 1, "<g class=\"lane\"");
		if (!next)
			next = svg + strlen(svg);
		for (task = lane; (task = strstr(task, "<g class=\"task\"")) &&
		     task < next;) {
			const char *gend = strstr(task, "</g>"), *r = task;
			int pid = (int)attr_num(task, gend, "data-pid");
			size_t k = key_of(s, cpu, pid);

			while ((r = strstr(r, "<rect ")) && r < gend) {
				s->w[k] += attr_num(r, gend, "width");
				s->rects[k]++;
				r++;
			}
			task = gend;
		}
		lane = next;
	}
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what)) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* A small deterministic generator (Knuth's MMIX LCG, high bits). */
static uint64_t rnd_state = 1;

static uint64_t rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return rnd_state >> 17;
}

static struct tdatfs_timeline *make(unsigned int nlanes, uint64_t t0, uint64_t t1)
{
	static unsigned int cpus[1024];
	struct tdatfs_timeline_opts o = { .title = "top", .t0 = t0, .t1 = t1,
				   .in_secs = true, .nlanes = nlanes, .cpus = cpus };
	unsigned int i;
	struct tdatfs_timeline *tl;

	for (i = 0; i < nlanes; i++)
		cpus[i] = i;
	tl = tdatfs_timeline_new(&o);
	FATAL(tl);
	return tl;
}

/* Every (lane, pid) drawn within 1 px (+ rounding) of @ns[lane][pid]. */
static void widths_check(const char *svg, uint64_t t0, uint64_t t1,
			 unsigned int nlanes, unsigned int npids,
			 const uint64_t *ns)
{
	static struct sums s;
	double scale = (double)TDATFS_TIMELINE_WIDTH / (double)(t1 - t0);
	unsigned int l, p;
	int bad = 0;

	bars_read(svg, &s);
	for (l = 0; l < nlanes; l++) {
		for (p = 1; p < npids; p++) {
			size_t k = key_of(&s, l, (int)p);
			double want = (double)ns[l * npids + p] * scale;

			if (want - s.w[k] > 1 + 0.001 * s.rects[k] ||
			    s.w[k] - want > 1 + 0.001 * s.rects[k]) {
				if (bad++ < 5)
					fprintf(stderr, "lane %u pid %u: drawn %.3f, "
						"ran %.3f px\n", l, p, s.w[k], want);
			}
		}
	}
	CHECK(bad == 0);
}

/* Long and short intervals mixed: the merged runs keep each task's time. */
static void merging_exact(void)
{
	enum { NL = 3, NP = 8 };
	static uint64_t ns[NL * NP];
	uint64_t t0 = 1000000000, t1 = t0 + 1000000000, t;
	struct tdatfs_timeline *tl = make(NL, t0, t1);
	unsigned long fed = 0;
	unsigned int l;
	char *svg;
	size_t len;

	memset(ns, 0, sizeof(ns));
	for (l = 0; l < NL; l++) {
		for (t = t0 - 5000; t < t1 + 5000;) {
			/* mostly tiny (ns to a few us), some long, some idle gaps */
			uint64_t d = rnd() % 16 == 0 ? rnd() % 20000000 : rnd() % 3000;
			int pid = (int)(rnd() % NP);
			uint64_t s = t < t0 ? t0 : t, e = t + d > t1 ? t1 : t + d;

			CHECK(tdatfs_timeline_run(tl, l, pid, t, t + d) == 0);
			if (pid && e > s)
				ns[l * NP + pid] += e - s;
			t += d + (rnd() % 8 == 0 ? rnd() % 400000 : 0);
			fed++;
		}
	}
	CHECK(tdatfs_timeline_render(tl, false, &svg, &len) == 0);
	CHECK(len <= TDATFS_TIMELINE_MAX_BYTES && len == strlen(svg));
	/*
	 * merged: fewer rects than intervals.  About one interval in 16 is
	 * long (a rect of its own); it closes the run of the short ones
	 * before it (spanning well under a pixel), drawn as one rect per
	 * task in it: at most 1 + NP rects per long interval, far fewer than
	 * the 16 intervals fed with it.
	 */
	fprintf(stderr, "merging_exact: %lu intervals fed, %zu rects\n", fed,
		count(svg, "<rect x="));
	CHECK(count(svg, "<rect x=") < fed * (1 + NP) / 16 + NL * 1440);
	CHECK(count(svg, "<rect x=") < fed * 3 / 4);
	widths_check(svg, t0, t1, NL, NP, ns);
	CHECK(count(svg, "<g class=\"lane\"") == NL);
	CHECK(count(svg, "class=\"mark\"") == NL);
	free(svg);
	tdatfs_timeline_free(tl);
}

/* Millions of tiny intervals on many lanes: within the bound. */
static void bound_pathological(void)
{
	enum { NL = 128, NP = 24, PER = 40000 };
	static uint64_t ns[NL * NP];
	uint64_t t0 = 0, t1 = (uint64_t)PER * 1000;
	struct tdatfs_timeline *tl = make(NL, t0, t1);
	unsigned int l, i;
	char *svg, *again;
	size_t len, len2;

	memset(ns, 0, sizeof(ns));
	for (l = 0; l < NL; l++) {
		for (i = 0; i < PER; i++) {
			int pid = 1 + (int)((l + i * 7) % (NP - 1));
			uint64_t s = (uint64_t)i * 1000, d = 1 + rnd() % 999;

			CHECK(tdatfs_timeline_run(tl, l, pid, s, s + d) == 0);
			ns[l * NP + pid] += d;
		}
	}
	CHECK(tdatfs_timeline_render(tl, false, &svg, &len) == 0);
	CHECK(len <= TDATFS_TIMELINE_MAX_BYTES);
	CHECK(tdatfs_timeline_threshold(tl) > 1);
	widths_check(svg, t0, t1, NL, NP, ns);
	/* the same model gives the same bytes */
	CHECK(tdatfs_timeline_render(tl, false, &again, &len2) == 0);
	CHECK(len2 == len && !memcmp(svg, again, len));
	free(again);
	free(svg);
	tdatfs_timeline_free(tl);
}

/* A print's title: escaped, control and non-UTF-8 bytes as \xNN, cut. */
static void print_escaping(void)
{
	struct tdatfs_timeline *tl = make(2, 0, 1440000);
	char longtext[300];
	char *svg;
	size_t len;

	memset(longtext, 'a', sizeof(longtext));
	CHECK(tdatfs_timeline_print(tl, 0, 1000, "a<b>&\"c'\x01\xff\xc3\xa9\n",
				    13) == 0);
	CHECK(tdatfs_timeline_print(tl, 1, 5000, longtext, sizeof(longtext)) == 0);
	/* the same pixel column (1000 units): counted on the first tick */
	CHECK(tdatfs_timeline_print(tl, 1, 5500, "second", 6) == 0);
	CHECK(tdatfs_timeline_print(tl, 1, 5900, "third", 5) == 0);
	CHECK(tdatfs_timeline_render(tl, false, &svg, &len) == 0);
	CHECK(strstr(svg, "<title>a&lt;b&gt;&amp;&quot;c&apos;"
			  "\\x01\\xff\xc3\xa9</title>"));
	CHECK(count(svg, "stroke=\"#d00000\"") == 2);
	/* 200 bytes, then "...", then the count of the others */
	{
		char want[256];

		memset(want, 'a', 200);
		strcpy(want + 200, "... (+2 more)</title>");
		CHECK(strstr(svg, want) != NULL);
	}
	CHECK(strstr(svg, "data-n=\"3\""));
	CHECK(!strstr(svg, "<title>second"));
	free(svg);
	tdatfs_timeline_free(tl);
}

/* Density: the columns of a lane add up to its records. */
static void density_mode(void)
{
	enum { NL = 4 };
	uint64_t t0 = 500, t1 = 500 + 10000000, fed[NL] = { 0 };
	struct tdatfs_timeline *tl = make(NL, t0, t1);
	const char *p;
	unsigned int l, i;
	char *svg;
	size_t len;

	for (l = 0; l < NL; l++) {
		for (i = 0; i < 20000 * (l + 1); i++) {
			uint64_t ts = t0 + rnd() % (t1 - t0 + 2000);

			CHECK(tdatfs_timeline_record(tl, l, ts) == 0);
			fed[l] += ts < t1;
		}
	}
	/* outside: not counted */
	CHECK(tdatfs_timeline_record(tl, 0, t0 - 1) == 0);
	CHECK(tdatfs_timeline_render(tl, true, &svg, &len) == 0);
	CHECK(count(svg, "<g class=\"density\"") == NL);
	CHECK(!strstr(svg, "class=\"task\""));
	for (p = svg, l = 0; (p = strstr(p, "<g class=\"density\"")); l++) {
		const char *end = strstr(p, "</g>"), *r = p;
		uint64_t sum = 0;
		unsigned int cols = 0;

		while ((r = strstr(r, "<rect ")) && r < end) {
			double h = attr_num(r, end, "height");

			sum += (uint64_t)attr_num(r, end, "data-n");
			CHECK(h >= 1 && h <= 18);
			cols++;
			r++;
		}
		CHECK(l < NL && sum == fed[l]);
		CHECK(cols <= TDATFS_TIMELINE_WIDTH);
		p = end;
	}
	CHECK(l == NL);
	free(svg);
	tdatfs_timeline_free(tl);
}

/* The legend: most running time first, then the lower pid; at most 20. */
static void legend_order(void)
{
	struct tdatfs_timeline *tl = make(1, 0, 100000);
	const char *p;
	uint64_t last_ns = UINT64_MAX;
	int last_pid = 0, items = 0;
	char *svg;
	size_t len;
	int pid;

	for (pid = 1; pid <= 30; pid++)
		CHECK(tdatfs_timeline_run(tl, 0, pid, pid * 3000,
				   pid * 3000 + 100 * (pid % 7 + 1)) == 0);
	CHECK(tdatfs_timeline_comm(tl, 5, "old", 3, 10) == 0);
	CHECK(tdatfs_timeline_comm(tl, 5, "new<x>", 6, 20) == 0);
	CHECK(tdatfs_timeline_comm(tl, 5, "older", 5, 15) == 0);
	CHECK(tdatfs_timeline_render(tl, false, &svg, &len) == 0);
	for (p = svg; (p = strstr(p, "<g class=\"legend-item\"")); p++) {
		uint64_t ns = (uint64_t)attr_num(p, p + 300, "data-ns");

		pid = (int)attr_num(p, p + 300, "data-pid");
		CHECK(ns == (uint64_t)100 * (pid % 7 + 1));
		CHECK(ns < last_ns || (ns == last_ns && pid > last_pid));
		last_ns = ns;
		last_pid = pid;
		items++;
	}
	CHECK(items == 20);
	CHECK(strstr(svg, "data-pid=\"5\" data-comm=\"new&lt;x&gt;\""));
	free(svg);
	tdatfs_timeline_free(tl);
}

/* Prints on many lanes with long texts: within the bound too. */
static void bound_prints(void)
{
	enum { NL = 300 };
	struct tdatfs_timeline *tl = make(NL, 0, TDATFS_TIMELINE_WIDTH);
	char text[250];
	unsigned int l, c;
	char *svg;
	size_t len;

	memset(text, '&', sizeof(text));
	for (l = 0; l < NL; l++)
		for (c = 0; c < TDATFS_TIMELINE_WIDTH; c++)
			CHECK(tdatfs_timeline_print(tl, l, c, text, sizeof(text)) == 0);
	CHECK(tdatfs_timeline_render(tl, false, &svg, &len) == 0);
	CHECK(len <= TDATFS_TIMELINE_MAX_BYTES);
	CHECK(count(svg, "<g class=\"lane\"") == NL);
	free(svg);
	tdatfs_timeline_free(tl);
}

/* No lanes (a buffer without CPUs): still a picture, with an axis. */
static void no_lanes(void)
{
	struct tdatfs_timeline_opts o = { .title = "top", .t0 = 0, .t1 = 1,
					  .in_secs = true };
	struct tdatfs_timeline *tl = tdatfs_timeline_new(&o);
	char *svg;
	size_t len;

	FATAL(tl);
	CHECK(tdatfs_timeline_render(tl, true, &svg, &len) == 0);
	CHECK(!strstr(svg, "class=\"lane\"") && strstr(svg, "class=\"axis\""));
	CHECK(strstr(svg, "</svg>\n") == svg + len - 7);
	free(svg);
	tdatfs_timeline_free(tl);
}

/* Bad arguments. */
static void errors(void)
{
	unsigned int cpu = 0;
	struct tdatfs_timeline_opts o = { .t0 = 5, .t1 = 5, .nlanes = 1, .cpus = &cpu };
	struct tdatfs_timeline *tl;

	CHECK(!tdatfs_timeline_new(&o));
	o.t1 = 6;
	o.cpus = NULL;
	CHECK(!tdatfs_timeline_new(&o));
	o.cpus = &cpu;
	tl = tdatfs_timeline_new(&o);
	FATAL(tl);
	CHECK(tdatfs_timeline_run(tl, 1, 3, 5, 6) == -EINVAL);
	CHECK(tdatfs_timeline_print(tl, 2, 5, "x", 1) == -EINVAL);
	CHECK(tdatfs_timeline_record(tl, 1, 5) == -EINVAL);
	tdatfs_timeline_free(tl);
	tdatfs_timeline_free(NULL);
}

int main(void)
{
	merging_exact();
	bound_pathological();
	print_escaping();
	density_mode();
	legend_order();
	bound_prints();
	no_lanes();
	errors();
	return failures ? 1 : 0;
}
