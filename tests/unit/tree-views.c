/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree-views.c - the tree's side of the views (SPEC 2.6), whitebox and
 * without the text engine: the tree's files are built with this file's
 * stand-in for the engine (tdatfs-text.h), whose event stats the test
 * sets and whose views are a line naming the view asked for.  Checks the
 * hiding of event views and of an instance's directories, summary.tsv
 * rows and order, the window-name table (parsing, same name same inode,
 * parents, listings, the ENOSPC bound, concurrent lookups), that the
 * engine's errors come through, and that the check reads no view.
 *
 * Usage: test-tree-view INSTANCES.dat
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "check.h"
#include "tree/internal.h"

/* ---- the stand-in engine ------------------------------------------------ */

#define MAX_STATS	8

struct tdatfs_text {
	int unused;
};

/* What the test makes the engine answer, per buffer. */
static struct tdatfs_text_event_stat fake_stats[4][MAX_STATS];
static size_t fake_nstats[4];
static int fake_err;		/* returned by the stats when set */
static int fake_view_reads;	/* tdatfs_text_view_read() calls */
static uint64_t fake_range[4][2];	/* tdatfs_text_time_range()'s answer */
static int fake_unparsed = -1;	/* the id whose format did not parse */

struct tdatfs_text *tdatfs_text_new(struct tdat_file *f,
				    const struct tdatfs_text_opts *opts)
{
	(void)f;
	(void)opts;
	return calloc(1, sizeof(struct tdatfs_text));
}

void tdatfs_text_free(struct tdatfs_text *t)
{
	free(t);
}

ssize_t tdatfs_text_read(struct tdatfs_text *t, size_t buffer, int cpu,
			 char *buf, size_t len, uint64_t off)
{
	(void)t; (void)buffer; (void)cpu; (void)buf; (void)len; (void)off;
	return 0;
}

int tdatfs_text_size(struct tdatfs_text *t, size_t buffer, int cpu,
		     uint64_t *size)
{
	(void)t; (void)buffer; (void)cpu;
	*size = 0;
	return 0;
}

ssize_t tdatfs_text_report_read(struct tdatfs_text *t, char *buf, size_t len,
				uint64_t off)
{
	(void)t; (void)buf; (void)len; (void)off;
	return 0;
}

int tdatfs_text_report_size(struct tdatfs_text *t, uint64_t *size)
{
	(void)t;
	*size = 0;
	return 0;
}

uint64_t tdatfs_text_pages(struct tdatfs_text *t, const struct tdatfs_text_key *k)
{
	(void)t;
	(void)k;
	return 0;
}

int tdatfs_text_event_stats(struct tdatfs_text *t, size_t buffer,
			    const struct tdatfs_text_event_stat **stats,
			    size_t *n)
{
	(void)t;
	if (fake_err)
		return fake_err;
	if (buffer >= 4)
		return -ENOENT;
	*stats = fake_stats[buffer];
	*n = fake_nstats[buffer];
	return 0;
}

/* Every event has fields but fake_unparsed; the stats' errors come first. */
int tdatfs_text_event_has_fields(struct tdatfs_text *t, int id)
{
	(void)t;
	if (fake_err)
		return fake_err;
	return id != fake_unparsed;
}

/* A view's bytes: one line naming it. */
static int fake_view(const struct tdatfs_text_view *v, char *s, size_t len)
{
	return snprintf(s, len, "view %d buffer %zu cpu %d event %d %" PRIu64
			"-%" PRIu64 "\n", (int)v->kind, v->buffer, v->cpu,
			v->event, v->t0, v->t1);
}

ssize_t tdatfs_text_view_read(struct tdatfs_text *t,
			      const struct tdatfs_text_view *v, char *buf,
			      size_t len, uint64_t off)
{
	char s[256];
	int l = fake_view(v, s, sizeof(s));

	(void)t;
	fake_view_reads++;
	if (off >= (uint64_t)l)
		return 0;
	if (len > l - off)
		len = l - off;
	memcpy(buf, s + off, len);
	return len;
}

int tdatfs_text_view_size(struct tdatfs_text *t, const struct tdatfs_text_view *v,
			  uint64_t *size)
{
	char s[256];

	(void)t;
	*size = fake_view(v, s, sizeof(s));
	return 0;
}

/* Nanoseconds as "S.UUUUUU", as a nanosecond clock's text prints them. */
int tdatfs_text_time_format(struct tdatfs_text *t, size_t buffer, uint64_t ts,
			    char *out, size_t len)
{
	(void)t;
	(void)buffer;
	return snprintf(out, len, "%" PRIu64 ".%06" PRIu64, ts / 1000000000,
			ts % 1000000000 / 1000);
}

/* Digits, then '.' and at most nine digits, to a '-' or the end: ns. */
int tdatfs_text_time_parse(struct tdatfs_text *t, const char *s, const char **end,
			   uint64_t *time)
{
	uint64_t sec = 0, ns = 0, scale = 100000000;
	const char *p = s;

	(void)t;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9')
		sec = sec * 10 + (*p++ - '0');
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (!scale)
				return -EINVAL;
			ns += (*p++ - '0') * scale;
			scale /= 10;
		}
	}
	if (*p && *p != '-')
		return -EINVAL;
	if (end)
		*end = p;
	*time = sec * 1000000000 + ns;
	return 0;
}

/* The range the test set (fake_range), as the stats' errors allow. */
int tdatfs_text_time_range(struct tdatfs_text *t, size_t buffer,
			   uint64_t *first, uint64_t *last)
{
	(void)t;
	if (fake_err)
		return fake_err;
	if (buffer >= 4 || !fake_nstats[buffer])
		return -ENOENT;
	*first = fake_range[buffer][0];
	*last = fake_range[buffer][1];
	return 0;
}

/* ---- helpers ------------------------------------------------------------ */

#define LIST_MAX	512

struct listing {
	char names[LIST_MAX][64];
	uint64_t ino[LIST_MAX];
	size_t n;
};

static int collect(void *ctx, const char *name, uint64_t ino, bool is_dir)
{
	struct listing *l = ctx;

	(void)is_dir;
	if (l->n < LIST_MAX) {
		snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
		l->ino[l->n] = ino;
	}
	l->n++;
	return 0;
}

static struct listing list(struct tdatfs_tree *t, const char *path)
{
	struct listing l = { .n = 0 };
	uint64_t ino;

	CHECK(tdatfs_tree_lookup(t, path, &ino) == 0);
	CHECK(tdatfs_tree_readdir(t, ino, collect, &l) == 0);
	return l;
}

static bool listed(const struct listing *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n && i < LIST_MAX; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

/* The whole file at @path, NUL-terminated, or NULL when it does not read. */
static char *slurp(struct tdatfs_tree *t, const char *path, ssize_t *err)
{
	static char buf[65536];
	uint64_t ino;
	size_t n = 0;
	ssize_t r;

	*err = tdatfs_tree_lookup(t, path, &ino);
	if (*err)
		return NULL;
	while ((r = tdatfs_tree_read(t, ino, buf + n, sizeof(buf) - 1 - n,
				     n)) > 0)
		n += r;
	*err = r;
	if (r < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* The id of event SYSTEM/NAME in the trace's formats, or -1. */
static int event_id(struct tdat_file *f, const char *sys, const char *name)
{
	size_t i, n = tdat_event_count(f);

	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(f, i);

		if (e && !strcmp(e->system, sys) && !strcmp(e->name, name))
			return e->id;
	}
	return -1;
}

static void set_stat(size_t b, size_t i, int id, uint64_t records,
		     uint64_t first, uint64_t last)
{
	fake_stats[b][i] = (struct tdatfs_text_event_stat){
		.id = id, .records = records, .bytes = 0,
		.first_ts = first, .last_ts = last };
	if (fake_nstats[b] <= i)
		fake_nstats[b] = i + 1;
}

/* The buffer index of instance @name (tdat_buffer_get() order). */
static size_t buffer_of(struct tdat_file *f, const char *name)
{
	size_t b, n = tdat_buffer_count(f);

	for (b = 0; b < n; b++)
		if (!strcmp(tdat_buffer_get(f, b)->name ? tdat_buffer_get(f, b)->name : "",
			    name))
			break;
	FATAL(b < n && b < 4);
	return b;
}

/* ---- the tests ---------------------------------------------------------- */

/*
 * Stats: the top buffer has sched_switch and irq_handler_entry records,
 * instance tsc sched_waking ones, tdat_inst none; and an id without a
 * format in the top buffer.
 */
static void set_stats(struct tdat_file *f)
{
	size_t top = buffer_of(f, ""), tsc = buffer_of(f, "tsc");
	int sw = event_id(f, "sched", "sched_switch");
	int irq = event_id(f, "irq", "irq_handler_entry");
	int wk = event_id(f, "sched", "sched_waking");

	FATAL(sw >= 0 && irq >= 0 && wk >= 0 && irq < sw);
	memset(fake_nstats, 0, sizeof(fake_nstats));
	set_stat(top, 0, irq, 2, 5000001000, 5000002000);
	set_stat(top, 1, sw, 7, 5000000000, 6000000000);
	set_stat(top, 2, 99999, 1, 5500000000, 5500000000);
	set_stat(tsc, 0, wk, 3, 7000000000, 7999999000);
	fake_range[top][0] = 5000000000;
	fake_range[top][1] = 6000000000;
	fake_range[tsc][0] = 7000000000;
	fake_range[tsc][1] = 7999999000;
}

static void test_hiding(struct tdatfs_tree *t)
{
	struct listing l;
	uint64_t ino, hidden;
	struct stat st;
	ssize_t err;

	/* the top buffer: views of events with records only */
	l = list(t, "/events/sched/sched_switch");
	CHECK(l.n == 4 && listed(&l, "trace") && listed(&l, "fields.tsv") &&
	      listed(&l, "format") && listed(&l, "id"));
	l = list(t, "/events/sched/sched_waking");
	CHECK(l.n == 2 && listed(&l, "format") && listed(&l, "id"));
	CHECK(tdatfs_tree_lookup(t, "/events/sched/sched_waking/trace", &ino) ==
	      -ENOENT);
	CHECK(tdatfs_tree_lookup(t, "/events/sched/sched_switch/fields.tsv",
				 &ino) == 0);
	CHECK(tdatfs_tree_is_text(t, ino));
	CHECK(tdatfs_tree_size_known(t, ino));
	CHECK(tdatfs_tree_stat(t, ino, &st) == 0 && st.st_size > 0);
	l = list(t, "/events");
	CHECK(listed(&l, "summary.tsv") && listed(&l, "sched") &&
	      listed(&l, "header_page"));

	/* an instance: only what has records, and summary.tsv */
	l = list(t, "/instances/tsc/events");
	CHECK(l.n == 2 && listed(&l, "sched") && listed(&l, "summary.tsv"));
	l = list(t, "/instances/tsc/events/sched");
	CHECK(l.n == 1 && listed(&l, "sched_waking"));
	l = list(t, "/instances/tsc/events/sched/sched_waking");
	CHECK(l.n == 2 && listed(&l, "trace") && listed(&l, "fields.tsv"));
	CHECK(tdatfs_tree_lookup(t, "/instances/tsc/events/irq", &ino) ==
	      -ENOENT);
	CHECK(tdatfs_tree_lookup(t, "/instances/tsc/events/sched/sched_switch",
				 &ino) == -ENOENT);
	l = list(t, "/instances/tdat_inst/events");
	CHECK(l.n == 1 && listed(&l, "summary.tsv"));

	/* a hidden node's inode: ENOENT to stat and read */
	hidden = 0;
	FATAL(tdatfs_tree_lookup(t, "/events/sched/sched_waking", &ino) == 0);
	for (uint32_t i = 0; i < t->n && !hidden; i++)
		if (t->nodes[i].kind == TREE_VIEW &&
		    t->nodes[i].parent + TDATFS_TREE_ROOT == ino)
			hidden = i + TDATFS_TREE_ROOT;
	CHECK(hidden != 0);
	CHECK(tdatfs_tree_parent(t, hidden) == ino);
	CHECK(tdatfs_tree_stat(t, hidden, &st) == -ENOENT);
	CHECK(tdatfs_tree_read(t, hidden, &st, 1, 0) == -ENOENT);
	/* an instance's events/ SYSTEM/ without records: made on lookup,
	 * hidden all the same */
	FATAL(tdatfs_tree_lookup(t, "/instances/tdat_inst/events", &ino) == 0);
	{
		const struct tree_node *n = &t->nodes[ino - TDATFS_TREE_ROOT];
		struct listing e = { .n = 0 };
		uint64_t sys;

		FATAL(n->kind == TREE_IEVENTS);
		CHECK(tree_mirror_find(t, n->u.dir.buffer, t->events, "sched", 5,
				       &sys) == 0);
		CHECK(tdatfs_tree_parent(t, sys) == ino);
		CHECK(tdatfs_tree_readdir(t, sys, collect, &e) == -ENOENT);
		CHECK(tdatfs_tree_stat(t, sys, &st) == -ENOENT);
	}
	/* and one with records: its parents lead back */
	FATAL(tdatfs_tree_lookup(t, "/instances/tsc/events/sched/sched_waking/trace",
				 &ino) == 0);
	{
		uint64_t ev, sys, events;

		FATAL(tdatfs_tree_lookup(t, "/instances/tsc/events/sched/sched_waking",
					 &ev) == 0);
		FATAL(tdatfs_tree_lookup(t, "/instances/tsc/events/sched",
					 &sys) == 0);
		FATAL(tdatfs_tree_lookup(t, "/instances/tsc/events",
					 &events) == 0);
		CHECK(tdatfs_tree_parent(t, ino) == ev);
		CHECK(tdatfs_tree_parent(t, ev) == sys);
		CHECK(tdatfs_tree_parent(t, sys) == events);
		CHECK(tdatfs_tree_is_text(t, ino) && !tdatfs_tree_is_dir(t, ino));
		CHECK(tdatfs_tree_is_dir(t, ev) && tdatfs_tree_is_dir(t, sys));
		CHECK(tdatfs_tree_lookup(t, "/instances/tsc/events/sched/sched_waking/../../sched/sched_waking/fields.tsv",
					 &ev) == 0);
		CHECK(tdatfs_tree_lookup(t, "/instances/tsc/events/sched/sched_waking/format",
					 &ev) == -ENOENT);
	}

	/*
	 * an event with records whose format the engine could not parse:
	 * its trace ([UNKNOWN EVENT] lines), no fields.tsv
	 */
	fake_unparsed = event_id(t->f, "irq", "irq_handler_entry");
	l = list(t, "/events/irq/irq_handler_entry");
	CHECK(l.n == 3 && listed(&l, "trace") && !listed(&l, "fields.tsv"));
	CHECK(tdatfs_tree_lookup(t, "/events/irq/irq_handler_entry/fields.tsv",
				 &ino) == -ENOENT);
	CHECK(tdatfs_tree_lookup(t, "/events/irq/irq_handler_entry/trace",
				 &ino) == 0);
	fake_unparsed = -1;
	CHECK(tdatfs_tree_lookup(t, "/events/irq/irq_handler_entry/fields.tsv",
				 &ino) == 0);

	/* a view's bytes are the engine's view of the right event */
	CHECK(slurp(t, "/events/sched/sched_switch/trace", &err) &&
	      strstr(slurp(t, "/events/sched/sched_switch/trace", &err),
		     "view 0 buffer 0 cpu -1 event "));
}

static void test_errors(struct tdatfs_tree *t)
{
	struct listing l;
	uint64_t ino;
	ssize_t err;

	/* the engine's errors come through, and listings leave the node out */
	fake_err = -EIO;
	CHECK(tdatfs_tree_lookup(t, "/events/sched/sched_switch/trace", &ino) ==
	      -EIO);
	CHECK(tdatfs_tree_lookup(t, "/instances/tsc/events/sched", &ino) ==
	      -EIO);
	l = list(t, "/events/sched/sched_switch");
	CHECK(l.n == 2);
	CHECK(!slurp(t, "/instances/tdat_inst/time/README", &err) &&
	      err == -EIO);
	fake_err = 0;
	CHECK(tdatfs_tree_lookup(t, "/events/sched/sched_switch/trace", &ino) ==
	      0);
}

static void test_summary(struct tdatfs_tree *t)
{
	char want[512];
	ssize_t err;
	char *s = slurp(t, "/events/summary.tsv", &err);
	struct tdat_file *f = t->f;

	FATAL(s);
	/* the id without a format first (empty names), then irq, sched */
	snprintf(want, sizeof(want),
		 "system\tevent\tid\trecords\tfirst_time\tlast_time\n"
		 "\t\t99999\t1\t5.500000\t5.500000\n"
		 "irq\tirq_handler_entry\t%d\t2\t5.000001\t5.000002\n"
		 "sched\tsched_switch\t%d\t7\t5.000000\t6.000000\n",
		 event_id(f, "irq", "irq_handler_entry"),
		 event_id(f, "sched", "sched_switch"));
	CHECK(!strcmp(s, want));
	s = slurp(t, "/instances/tdat_inst/events/summary.tsv", &err);
	CHECK(s && !strcmp(s, "system\tevent\tid\trecords\tfirst_time\t"
			   "last_time\n"));
	s = slurp(t, "/instances/tsc/time/README", &err);
	CHECK(s && strstr(s, "first record: 7.000000\n") &&
	      strstr(s, "last record: 7.999999\n") &&
	      strstr(s, "every record: 7.000000-8.000000/\n"));
	s = slurp(t, "/instances/tdat_inst/time/README", &err);
	CHECK(s && strstr(s, "no records"));
}

/* A window's files: names, inodes, parents, the views they read. */
static void test_window_files(struct tdatfs_tree *t)
{
	uint64_t w, w2, pc, cpu1, tr, ino;
	struct listing l;
	struct stat st;
	ssize_t err;
	char *s;

	l = list(t, "/time");
	CHECK(l.n == 1 && listed(&l, "README"));
	FATAL(tdatfs_tree_lookup(t, "/time/5.5-6", &w) == 0);
	CHECK(w >= TDATFS_TREE_ROOT + tdatfs_tree_count(t));
	CHECK(tdatfs_tree_is_dir(t, w));
	CHECK(tdatfs_tree_lookup(t, "time/5.5-6", &w2) == 0 && w2 == w);
	CHECK(tdatfs_tree_child(t, tdatfs_tree_parent(t, w), "5.5-6", &w2) ==
	      0 && w2 == w);
	CHECK(tdatfs_tree_lookup(t, "/time/5.50-6", &w2) == 0 && w2 != w);
	CHECK(tdatfs_tree_lookup(t, "/instances/tsc/time/5.5-6", &w2) == 0 &&
	      w2 != w);
	CHECK(tdatfs_tree_lookup(t, "/time/5.5-6/..", &ino) == 0 &&
	      ino == tdatfs_tree_parent(t, w));
	l = list(t, "/time/5.5-6");
	CHECK(l.n == 4 && !strcmp(l.names[0], "per_cpu") &&
	      !strcmp(l.names[1], "timeline.svg") &&
	      !strcmp(l.names[2], "trace") &&
	      !strcmp(l.names[3], "trace.pftrace"));
	CHECK(tdatfs_tree_stat(t, w, &st) == 0 && S_ISDIR(st.st_mode) &&
	      st.st_nlink == 3 && st.st_ino == w);
	l = list(t, "/time/5.5-6/per_cpu");
	CHECK(l.n == 2 && !strcmp(l.names[0], "cpu0") &&
	      !strcmp(l.names[1], "cpu1"));
	FATAL(tdatfs_tree_lookup(t, "/time/5.5-6/per_cpu", &pc) == 0);
	FATAL(tdatfs_tree_lookup(t, "/time/5.5-6/per_cpu/cpu1", &cpu1) == 0);
	CHECK(tdatfs_tree_parent(t, cpu1) == pc && tdatfs_tree_parent(t, pc) == w);
	CHECK(tdatfs_tree_lookup(t, "/time/5.5-6/per_cpu/cpu1/trace", &tr) == 0);
	CHECK(tdatfs_tree_parent(t, tr) == cpu1);
	CHECK(tdatfs_tree_is_text(t, tr) && !tdatfs_tree_is_dir(t, tr));
	CHECK(tdatfs_tree_lookup(t, "/time/5.5-6/per_cpu/cpu2", &ino) == -ENOENT);
	CHECK(tdatfs_tree_lookup(t, "/time/5.5-6/trace/x", &ino) == -ENOTDIR);
	s = slurp(t, "/time/5.5-6/trace", &err);
	CHECK(s && !strcmp(s, "view 2 buffer 0 cpu -1 event 0 "
			   "5500000000-6000000000\n"));
	s = slurp(t, "/time/5.5-6/per_cpu/cpu1/trace", &err);
	CHECK(s && !strcmp(s, "view 2 buffer 0 cpu 1 event 0 "
			   "5500000000-6000000000\n"));
	s = slurp(t, "/instances/tsc/time/1-1.000000001/trace", &err);
	CHECK(s && !strcmp(s, "view 2 buffer 2 cpu -1 event 0 "
			   "1000000000-1000000001\n"));
	CHECK(tdatfs_tree_stat(t, tr, &st) == 0 && S_ISREG(st.st_mode) &&
	      (uint64_t)st.st_size == strlen("view 2 buffer 0 cpu 1 event 0 "
					     "5500000000-6000000000\n"));
	/* the window's picture: a view of the window, in its directory only */
	FATAL(tdatfs_tree_lookup(t, "/time/5.5-6/timeline.svg", &ino) == 0);
	CHECK(tdatfs_tree_parent(t, ino) == w && !tdatfs_tree_is_dir(t, ino));
	s = slurp(t, "/time/5.5-6/timeline.svg", &err);
	CHECK(s && !strcmp(s, "view 3 buffer 0 cpu -1 event 0 "
			   "5500000000-6000000000\n"));
	s = slurp(t, "/instances/tsc/time/1-1.000000001/timeline.svg", &err);
	CHECK(s && !strcmp(s, "view 3 buffer 2 cpu -1 event 0 "
			   "1000000000-1000000001\n"));
	CHECK(tdatfs_tree_lookup(t, "/time/5.5-6/per_cpu/cpu1/timeline.svg",
				 &ino) == -ENOENT);
	/* each buffer's own, of the whole buffer (t0 = t1 = 0) */
	s = slurp(t, "/timeline.svg", &err);
	CHECK(s && !strcmp(s, "view 3 buffer 0 cpu -1 event 0 0-0\n"));
	s = slurp(t, "/instances/tsc/timeline.svg", &err);
	CHECK(s && !strcmp(s, "view 3 buffer 2 cpu -1 event 0 0-0\n"));
	/* an inode past the windows made is nothing */
	CHECK(tdatfs_tree_stat(t, w + 100000, &st) == -ENOENT);
	CHECK(tdatfs_tree_parent(t, w + 100000) == 0);
}

static uint64_t lookup_time(struct tdatfs_tree *t)
{
	uint64_t ino = 0;

	FATAL(tdatfs_tree_lookup(t, "/time", &ino) == 0);
	return ino;
}

static void test_window_names(struct tdatfs_tree *t)
{
	static const char *const bad[] = {
		"README-", "x", "5", "5-", "-6", "6-5", "5-5", "5.5-5.5",
		"5-6-7", "5-6x", " 5-6", "5-+6", "-5-6", "5..1-6",
		"1.0000000001-2", "5/6",
	};
	char name[300];
	uint64_t ino;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = tdatfs_tree_child(t, lookup_time(t), bad[i], &ino);

		if (ret != -ENOENT)
			fprintf(stderr, "window name \"%s\": %d\n", bad[i], ret);
		CHECK(ret == -ENOENT);
	}
	/* a name past TREE_NAME_MAX bytes is not one */
	memset(name, '1', sizeof(name));
	strcpy(name + 270, "-9");
	name[0] = '0';
	CHECK(tdatfs_tree_child(t, lookup_time(t), name, &ino) == -ENOENT);
	CHECK(tdatfs_tree_child(t, lookup_time(t), "0-1.5", &ino) == 0);
}

/* Threads looking up the same new names get the same inodes. */
struct racer {
	struct tdatfs_tree *t;
	uint64_t ino[200];
	int errors;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	char name[64];
	int i;

	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "/time/100.%d-200", i);
		if (tdatfs_tree_lookup(r->t, name, &r->ino[i]))
			r->errors++;
	}
	return NULL;
}

static void test_window_threads(struct tdatfs_tree *t)
{
	static struct racer r[4];
	pthread_t th[4];
	int i, k;

	for (i = 0; i < 4; i++) {
		r[i].t = t;
		FATAL(!pthread_create(&th[i], NULL, race, &r[i]));
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 4; i++) {
		CHECK(r[i].errors == 0);
		for (k = 0; k < 200; k++)
			CHECK(r[i].ino[k] == r[0].ino[k]);
	}
	for (k = 1; k < 200; k++)
		CHECK(r[0].ino[k] != r[0].ino[k - 1]);
}

/* Past TREE_WIN_MAX windows a new name is ENOSPC; the old ones stay. */
static void test_window_limit(struct tdatfs_tree *t)
{
	uint64_t first, ino, dir = lookup_time(t);
	char name[64];
	unsigned int i;
	int ret = 0;

	FATAL(tdatfs_tree_child(t, dir, "0-1", &first) == 0);
	for (i = 0; !ret && i < TREE_WIN_MAX + 10; i++) {
		snprintf(name, sizeof(name), "%u-%u", i + 1000, i + 1001);
		ret = tdatfs_tree_child(t, dir, name, &ino);
	}
	CHECK(ret == -ENOSPC);
	CHECK(tree_windows_count(t) == TREE_WIN_MAX);
	CHECK(tdatfs_tree_child(t, dir, "0-1", &ino) == 0 && ino == first);
	CHECK(tdatfs_tree_lookup(t, "/time/1000-1001/per_cpu/cpu0/trace",
				 &ino) == 0);
}

/* The check reads no view, and finds nothing wrong with them. */
static void test_check(struct tdatfs_tree *t)
{
	fake_view_reads = 0;
	CHECK(tdatfs_tree_check(t, NULL) == 0);
	CHECK(fake_view_reads == 0);
}

int main(int argc, char **argv)
{
	char err[256] = "";
	struct tdatfs_tree *t;
	struct tdat_file *f;
	struct stat st;

	if (argc != 2) {
		fprintf(stderr, "usage: %s INSTANCES.dat\n", argv[0]);
		return 2;
	}
	f = tdat_open(argv[1], NULL, err, sizeof(err));
	if (!f)
		fprintf(stderr, "%s: %s\n", argv[1], err);
	FATAL(f);
	FATAL(!stat(argv[1], &st));
	set_stats(f);
	t = tdatfs_tree_new(f, &st, NULL);
	FATAL(t);
	test_hiding(t);
	test_errors(t);
	test_summary(t);
	test_window_files(t);
	test_window_names(t);
	test_window_threads(t);
	test_check(t);
	test_window_limit(t);
	tdatfs_tree_free(t);
	tdat_close(f);
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
