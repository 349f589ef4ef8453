/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat.c - the virtual tree of a trace.dat file without FUSE:
 * `tdat ls|cat|check TRACE ...`.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-config.h"
#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"

#define CHUNK	(1024 * 1024)

static const char *prog = "tdat";

/* -o switches of the text engine, for every tree opened */
static struct tdatfs_text_opts text_opts;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [-o OPT[,OPT...]] ls [-lR] TRACE [PATH]\n"
		"       %s [-o OPT[,OPT...]] cat TRACE PATH...\n"
		"       %s [-o OPT[,OPT...]] check TRACE\n"
		"       %s --help | --version\n"
		"\n"
		"Show the tree that tdatfs mounts for a trace-cmd trace.dat file.\n"
		"  ls     list a directory (default /); -l: type, size, name;\n"
		"         -R: recursively, with paths relative to it\n"
		"  cat    write files to stdout, bytes as a read of the mount\n"
		"  check  read every section, option, blob and CPU stream and\n"
		"         decode every trace; exit 0 when sound, else list each\n"
		"         problem (what, where) and exit 1\n"
		"Debugging options of the text engine (-o, the same text either way):\n"
		"  tep_only           every event through libtraceevent\n"
		"  eager              parse every event format up front\n"
		"  max_checkpoints=N  at most N checkpoints a text (N >= 2)\n"
		"Exit status: 0 ok, 1 bad trace or missing path, 2 usage error.\n",
		prog, prog, prog, prog);
}

static struct tdat_file *open_trace(const char *path)
{
	struct tdat_file *f;
	char err[512] = "";

	f = tdat_open(path, NULL, err, sizeof(err));
	if (!f)
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			*err ? err : strerror(errno));
	return f;
}

static struct tdatfs_tree *open_tree(const char *path, struct tdat_file **fp)
{
	struct tdatfs_tree *t;
	struct stat st;

	*fp = open_trace(path);
	if (!*fp)
		return NULL;
	if (stat(path, &st)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		goto fail;
	}
	t = tdatfs_tree_new(*fp, &st, &text_opts);
	if (t)
		return t;
	fprintf(stderr, "%s: %s: cannot build the tree: %s\n", prog, path,
		strerror(errno));
fail:
	tdat_close(*fp);
	*fp = NULL;
	return NULL;
}

/* open_tree() and a CHUNK-byte read buffer (the caller frees both). */
static struct tdatfs_tree *open_tree_buf(const char *path,
					 struct tdat_file **fp, char **buf)
{
	struct tdatfs_tree *t;

	*buf = malloc(CHUNK);
	if (!*buf) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		return NULL;
	}
	t = open_tree(path, fp);
	if (!t) {
		free(*buf);
		*buf = NULL;
	}
	return t;
}

struct ls_ctx {
	struct tdatfs_tree *t;
	bool lng;
	bool rec;
	const char *prefix;	/* path of the listed directory, for -R */
	int ret;
};

static int ls_one(void *ctx, const char *name, uint64_t ino, bool is_dir)
{
	struct ls_ctx *c = ctx;
	char *path = NULL;
	struct stat st;

	if (c->prefix && asprintf(&path, "%s/%s", c->prefix, name) < 0) {
		c->ret = 1;
		return 1;
	}
	if (!c->lng) {
		printf("%s\n", path ? path : name);
	} else {
		if (tdatfs_tree_stat(c->t, ino, &st)) {
			c->ret = 1;
			st.st_size = 0;
		}
		printf("%c %12jd %s%s\n", is_dir ? 'd' : '-',
		       (intmax_t)st.st_size, path ? path : name,
		       is_dir ? "/" : "");
	}
	if (c->rec && is_dir) {
		struct ls_ctx sub = *c;

		sub.prefix = path ? path : name;
		tdatfs_tree_readdir(c->t, ino, ls_one, &sub);
		c->ret |= sub.ret;
	}
	free(path);
	return 0;
}

static int cmd_ls(int argc, char **argv)
{
	struct ls_ctx c = { 0 };
	struct tdat_file *f;
	const char *path;
	uint64_t ino;
	int opt, ret;

	optind = 1;
	while ((opt = getopt(argc, argv, "+lR")) != -1) {
		if (opt == 'l') {
			c.lng = true;
		} else if (opt == 'R') {
			c.rec = true;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		usage(stderr);
		return 2;
	}
	path = argc - optind == 2 ? argv[optind + 1] : "/";
	c.t = open_tree(argv[optind], &f);
	if (!c.t)
		return 1;
	ret = tdatfs_tree_lookup(c.t, path, &ino);
	if (ret) {
		fprintf(stderr, "%s: %s: %s: %s\n", prog, argv[optind], path,
			strerror(-ret));
		ret = 1;
	} else if (!tdatfs_tree_is_dir(c.t, ino)) {
		bool rec = c.rec;

		c.rec = false;
		ls_one(&c, path, ino, false);
		c.rec = rec;
		ret = c.ret;
	} else {
		tdatfs_tree_readdir(c.t, ino, ls_one, &c);
		ret = c.ret;
	}
	tdatfs_tree_free(c.t);
	tdat_close(f);
	return ret;
}

static int write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= w;
	}
	return 0;
}

static int cmd_cat(int argc, char **argv)
{
	struct tdatfs_tree *t;
	struct tdat_file *f;
	char *buf;
	int i, ret = 0;

	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	t = open_tree_buf(argv[1], &f, &buf);
	if (!t)
		return 1;
	for (i = 2; i < argc; i++) {
		uint64_t ino, off = 0;
		ssize_t n;
		int err;

		err = tdatfs_tree_lookup(t, argv[i], &ino);
		if (!err && tdatfs_tree_is_dir(t, ino))
			err = -EISDIR;
		while (!err) {
			n = tdatfs_tree_read(t, ino, buf, CHUNK, off);
			if (n <= 0) {
				err = n;
				break;
			}
			err = write_all(buf, n);
			if (err) {
				fprintf(stderr, "%s: write: %s\n", prog,
					strerror(-err));
				ret = 1;
				goto out;
			}
			off += n;
		}
		if (err) {
			fprintf(stderr, "%s: %s: %s: %s", prog, argv[1],
				argv[i], strerror(-err));
			if (off)
				fprintf(stderr, " at offset %" PRIu64, off);
			fputc('\n', stderr);
			ret = 1;
		}
	}
out:
	tdatfs_tree_free(t);
	tdat_close(f);
	free(buf);
	return ret;
}

/* ---- check --------------------------------------------------------------- */

static int cmd_check(int argc, char **argv)
{
	const struct tdatfs_check_opts opts = { .out = stdout };
	struct tdatfs_tree *t;
	struct tdat_file *f;
	int problems;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	t = open_tree(argv[1], &f);
	if (!t)
		return 1;
	problems = tdatfs_tree_check(t, &opts);
	if (problems < 0)
		fprintf(stderr, "%s: %s: %s\n", prog, argv[1],
			strerror(-problems));
	tdatfs_tree_free(t);
	tdat_close(f);
	return problems ? 1 : 0;
}

/* One -o argument: comma-separated tep_only, eager, max_checkpoints=N. */
static int parse_opts(const char *arg, struct tdatfs_text_opts *o)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long n;

		if (!strcmp(tok, "tep_only")) {
			o->tep_only = true;
		} else if (!strcmp(tok, "eager")) {
			o->eager = true;
		} else if (!strncmp(tok, "max_checkpoints=", 16)) {
			errno = 0;
			n = strtoul(tok + 16, &end, 10);
			if (errno || end == tok + 16 || *end || n < 2 ||
			    (unsigned int)n != n) {
				fprintf(stderr, "%s: bad max_checkpoints '%s' "
					"(want a number >= 2)\n", prog, tok + 16);
				ret = -EINVAL;
			}
			o->max_checkpoints = n;
		} else {
			fprintf(stderr, "%s: unknown option '%s'\n", prog, tok);
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret;
}

int main(int argc, char **argv)
{
	/* -o OPTS or -oOPTS, any number of times, before the command */
	while (argc >= 2 && !strncmp(argv[1], "-o", 2)) {
		const char *arg = argv[1][2] ? argv[1] + 2 : argv[2];
		int shift = argv[1][2] ? 1 : 2;

		if (!arg) {
			fprintf(stderr, "%s: -o needs an argument\n", prog);
			usage(stderr);
			return 2;
		}
		if (parse_opts(arg, &text_opts) < 0)
			return 2;
		argv[shift] = argv[0];
		argc -= shift;
		argv += shift;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("tdat %s\n", TDAT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "ls"))
		return cmd_ls(argc - 1, argv + 1);
	if (!strcmp(argv[1], "cat"))
		return cmd_cat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
