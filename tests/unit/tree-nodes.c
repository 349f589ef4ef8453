/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree-nodes.c - the virtual tree (tdatfs-tree.h) without FUSE, on real
 * traces: path lookup, readdir order and counts, node kinds, sizes
 * against the bytes read, and the whole-trace check.
 *
 * Usage: test-tree SMALL.dat INSTANCES.dat
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tdat.h"
#include "tdatfs-tree.h"
#include "check.h"


struct fixture {
	struct tdat_file *f;
	struct tdatfs_tree *t;
};

static void open_fixture(struct fixture *x, const char *path)
{
	char err[256] = "";
	struct stat st;

	x->f = tdat_open(path, NULL, err, sizeof(err));
	if (!x->f)
		fprintf(stderr, "%s: %s\n", path, err);
	FATAL(x->f);
	FATAL(!stat(path, &st));
	x->t = tdatfs_tree_new(x->f, &st, NULL);
	FATAL(x->t);
}

static void close_fixture(struct fixture *x)
{
	tdatfs_tree_free(x->t);
	tdat_close(x->f);
}

static uint64_t lookup(struct tdatfs_tree *t, const char *path)
{
	uint64_t ino = 0;
	int ret = tdatfs_tree_lookup(t, path, &ino);

	if (ret)
		fprintf(stderr, "lookup %s: %s\n", path, strerror(-ret));
	CHECK(ret == 0);
	return ino;
}

/* Names given by readdir, in order. */
struct listing {
	char names[64][64];
	bool dir[64];
	size_t n;
	size_t stop_after;	/* 0: never stop */
};

static int collect(void *ctx, const char *name, uint64_t ino, bool is_dir)
{
	struct listing *l = ctx;

	(void)ino;
	if (l->n < 64) {
		snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
		l->dir[l->n] = is_dir;
	}
	l->n++;
	return l->stop_after && l->n == l->stop_after ? 7 : 0;
}

static void test_lookup(struct tdatfs_tree *t)
{
	uint64_t ino, root = TDATFS_TREE_ROOT, ev;

	CHECK(lookup(t, "/") == root);
	CHECK(lookup(t, "") == root);
	CHECK(lookup(t, ".") == root);
	CHECK(lookup(t, "..") == root);
	CHECK(lookup(t, "//./../") == root);
	ev = lookup(t, "/events");
	CHECK(lookup(t, "events/") == ev);
	CHECK(lookup(t, "events/sched/..") == ev);
	CHECK(lookup(t, "per_cpu/cpu0/../../events/./") == ev);
	CHECK(lookup(t, "per_cpu//cpu0/trace") ==
	      lookup(t, "/per_cpu/cpu0/trace"));
	CHECK(tdatfs_tree_lookup(t, "/nosuch", &ino) == -ENOENT);
	CHECK(tdatfs_tree_lookup(t, "/events/nosuch/x", &ino) == -ENOENT);
	CHECK(tdatfs_tree_lookup(t, "/README/x", &ino) == -ENOTDIR);
	CHECK(tdatfs_tree_lookup(t, "/README/..", &ino) == -ENOTDIR);
	CHECK(tdatfs_tree_lookup(t, "/instances", &ino) == -ENOENT);

	CHECK(tdatfs_tree_child(t, root, "info", &ino) == 0);
	CHECK(ino == lookup(t, "/info"));
	CHECK(tdatfs_tree_child(t, root, "nosuch", &ino) == -ENOENT);
	CHECK(tdatfs_tree_child(t, lookup(t, "/info"), "x", &ino) == -ENOTDIR);
	CHECK(tdatfs_tree_child(t, 0, "info", &ino) == -ENOENT);
	CHECK(tdatfs_tree_child(t, tdatfs_tree_count(t) + 1, "info", &ino) ==
	      -ENOENT);
}

static void test_readdir(struct tdatfs_tree *t)
{
	static const char *const root[] = {
		"README", "errors", "events", "header_event", "header_page",
		"info", "kallsyms", "options", "per_cpu", "printk_formats",
		"report", "saved_cmdlines", "sections", "time", "timeline.svg",
		"trace", "trace.pftrace", "trace_clock",
	};
	struct listing l = { .n = 0 };
	size_t i;
	char buf[4];

	CHECK(tdatfs_tree_readdir(t, TDATFS_TREE_ROOT, collect, &l) == 0);
	CHECK(l.n == sizeof(root) / sizeof(root[0]));
	for (i = 0; i < l.n && i < sizeof(root) / sizeof(root[0]); i++) {
		CHECK(!strcmp(l.names[i], root[i]));
		CHECK(l.dir[i] == (!strcmp(root[i], "events") ||
				   !strcmp(root[i], "options") ||
				   !strcmp(root[i], "per_cpu") ||
				   !strcmp(root[i], "sections") ||
				   !strcmp(root[i], "time")));
	}
	for (i = 1; i < l.n && i < 64; i++)
		CHECK(strcmp(l.names[i - 1], l.names[i]) < 0);

	l = (struct listing){ .stop_after = 3 };
	CHECK(tdatfs_tree_readdir(t, TDATFS_TREE_ROOT, collect, &l) == 7);
	CHECK(l.n == 3);

	l = (struct listing){ .n = 0 };
	CHECK(tdatfs_tree_readdir(t, lookup(t, "/per_cpu/cpu1"), collect,
				  &l) == 0);
	CHECK(l.n == 3);
	CHECK(!strcmp(l.names[0], "stats"));
	CHECK(!strcmp(l.names[1], "trace"));
	CHECK(!strcmp(l.names[2], "trace_pipe_raw"));

	l = (struct listing){ .n = 0 };
	CHECK(tdatfs_tree_readdir(t, lookup(t, "/sections/07-buffer_flyrecord_"),
				  collect, &l) == 0);
	CHECK(l.n == 2);
	CHECK(tdatfs_tree_readdir(t, lookup(t, "/info"), collect, &l) ==
	      -ENOTDIR);
	CHECK(tdatfs_tree_readdir(t, tdatfs_tree_count(t) + 1, collect, &l) ==
	      -ENOENT);
	CHECK(tdatfs_tree_read(t, TDATFS_TREE_ROOT, buf, sizeof(buf), 0) ==
	      -EISDIR);
	CHECK(tdatfs_tree_read(t, 0, buf, sizeof(buf), 0) == -ENOENT);
}

/* Read a whole file; its bytes are returned malloc'd, *len set. */
static char *slurp(struct tdatfs_tree *t, uint64_t ino, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *p = malloc(cap);
	ssize_t r;

	FATAL(p);
	for (;;) {
		if (cap - n < 4096) {
			cap *= 2;
			p = realloc(p, cap);
			FATAL(p);
		}
		r = tdatfs_tree_read(t, ino, p + n, cap - n, n);
		CHECK(r >= 0);
		if (r <= 0)
			break;
		n += r;
	}
	*len = n;
	return p;
}

/* A file whose size is known: stat's size is the bytes a read gives. */
static void check_size(struct tdatfs_tree *t, const char *path)
{
	uint64_t ino = lookup(t, path);
	struct stat st;
	size_t len;
	char *p;

	CHECK(tdatfs_tree_size_known(t, ino));
	CHECK(!tdatfs_tree_is_dir(t, ino));
	CHECK(!tdatfs_tree_is_text(t, ino));
	CHECK(tdatfs_tree_stat(t, ino, &st) == 0);
	CHECK(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0444);
	CHECK(st.st_ino == ino);
	p = slurp(t, ino, &len);
	if ((uint64_t)st.st_size != len)
		fprintf(stderr, "%s: size %jd, %zu bytes read\n", path,
			(intmax_t)st.st_size, len);
	CHECK((uint64_t)st.st_size == len);
	CHECK(len > 0);
	free(p);
}

static void test_sizes(struct tdatfs_tree *t)
{
	static const char *const files[] = {
		"/header_page", "/header_event", "/events/header_page",
		"/kallsyms", "/printk_formats", "/saved_cmdlines", "/info",
		"/README", "/trace_clock", "/events/sched/sched_switch/format",
		"/events/sched/sched_switch/id", "/options/uname",
		"/options/cpustat/cpu0", "/per_cpu/cpu0/stats",
		"/per_cpu/cpu0/trace_pipe_raw", "/sections/00-headers",
		"/sections/07-buffer_flyrecord_/cpu1", "/sections/index",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_size(t, files[i]);
}

static void test_kinds(struct tdatfs_tree *t)
{
	uint64_t ino = lookup(t, "/trace"), errors = lookup(t, "/errors");
	struct stat st;
	size_t len;
	char *p;

	CHECK(tdatfs_tree_is_dir(t, TDATFS_TREE_ROOT));
	CHECK(tdatfs_tree_is_dir(t, lookup(t, "/events/sched")));
	CHECK(!tdatfs_tree_is_dir(t, tdatfs_tree_count(t) + 1));
	CHECK(!tdatfs_tree_is_text(t, tdatfs_tree_count(t) + 1));
	CHECK(tdatfs_tree_stat(t, TDATFS_TREE_ROOT, &st) == 0);
	CHECK(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0555);
	/* events options per_cpu sections time */
	CHECK(st.st_nlink == 2 + 5);
	CHECK(tdatfs_tree_stat(t, tdatfs_tree_count(t) + 1, &st) == -ENOENT);

	/* decoded text: size 0 and unknown until produced, then exact */
	CHECK(tdatfs_tree_is_text(t, ino));
	CHECK(tdatfs_tree_is_text(t, lookup(t, "/per_cpu/cpu1/trace")));
	CHECK(!tdatfs_tree_size_known(t, ino));
	CHECK(tdatfs_tree_stat(t, ino, &st) == 0 && st.st_size == 0);
	p = slurp(t, ino, &len);
	CHECK(len > 0);
	CHECK(tdatfs_tree_size_known(t, ino));
	CHECK(tdatfs_tree_stat(t, ino, &st) == 0 &&
	      (uint64_t)st.st_size == len);
	free(p);

	/* the errors file: never a known size, empty on a sound trace */
	CHECK(!tdatfs_tree_is_text(t, errors));
	CHECK(!tdatfs_tree_size_known(t, errors));
	p = slurp(t, errors, &len);
	CHECK(len == 0);
	free(p);
}

/* instances/: each buffer's own directory, with a bracketed trace_clock */
static void test_instances(struct tdatfs_tree *t)
{
	struct listing l = { .n = 0 };
	size_t len;
	char *p;

	CHECK(tdatfs_tree_readdir(t, lookup(t, "/instances"), collect, &l) == 0);
	CHECK(l.n == 2);
	CHECK(!strcmp(l.names[0], "tdat_inst") && l.dir[0]);
	CHECK(!strcmp(l.names[1], "tsc") && l.dir[1]);
	l = (struct listing){ .n = 0 };
	CHECK(tdatfs_tree_readdir(t, lookup(t, "/instances/tsc"), collect,
				  &l) == 0);
	/* events per_cpu time timeline.svg trace trace.pftrace trace_clock */
	CHECK(l.n == 7);
	CHECK(tdatfs_tree_is_text(t, lookup(t, "/instances/tsc/trace")));
	check_size(t, "/instances/tsc/trace_clock");
	p = slurp(t, lookup(t, "/instances/tsc/trace_clock"), &len);
	CHECK(len > 0 && memmem(p, len, "[", 1) && p[len - 1] == '\n');
	free(p);
	check_size(t, "/instances/tsc/per_cpu/cpu0/trace_pipe_raw");
	check_size(t, "/options/buffer/tsc");
}

static void test_check(struct tdatfs_tree *t)
{
	CHECK(tdatfs_tree_check(t, NULL) == 0);
}

int main(int argc, char **argv)
{
	struct fixture x;

	if (argc != 3) {
		fprintf(stderr, "usage: %s SMALL.dat INSTANCES.dat\n", argv[0]);
		return 2;
	}
	open_fixture(&x, argv[1]);
	test_lookup(x.t);
	test_readdir(x.t);
	test_sizes(x.t);
	test_kinds(x.t);
	test_check(x.t);
	close_fixture(&x);

	open_fixture(&x, argv[2]);
	test_instances(x.t);
	test_check(x.t);
	close_fixture(&x);
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
