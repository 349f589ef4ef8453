/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli/commands.c - tdat's commands over the tree and the index: ls, cat,
 * check and index (commands.h); main.c parses the command line and calls
 * them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-index.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "commands.h"

#define CHUNK	(1024 * 1024)

static const char prog[] = "tdat";

/*
 * What a command wants of the index: nothing (names only), the file when
 * there is a usable one (cat: never pays a build), or exact sizes
 * (ls -l, index: load or build).
 */
enum want_index { INDEX_NONE, INDEX_IF_KEPT, INDEX_SIZES };

/**
 * cli_usage() - the synopsis of every command and the options
 * @out: stdout for --help, stderr after a usage error
 */
void cli_usage(FILE *out)
{
	fprintf(out,
		"usage: %s [-o OPT[,OPT...]] [--progress] ls [-lR] TRACE [PATH]\n"
		"       %s [-o OPT[,OPT...]] cat TRACE PATH...\n"
		"       %s [-o OPT[,OPT...]] [--progress] check [--progress] TRACE\n"
		"       %s [-o OPT[,OPT...]] [--progress] index [--check] [--progress]\n"
		"              TRACE\n"
		"       %s --help | --version\n"
		"\n"
		"Show the tree that tdatfs mounts for a trace-cmd trace.dat file.\n"
		"  ls     list a directory (default /); -l: type, size, name;\n"
		"         -R: recursively, with paths relative to it\n"
		"  cat    write files to stdout, bytes as a read of the mount\n"
		"  check  read every section, option, blob and CPU stream and\n"
		"         decode every trace; exit 0 when sound, else list each\n"
		"         problem (what, where) and exit 1\n"
		"  index  load or build the index tdatfs uses and say where it\n"
		"         is; --check: only check it (exit 1 if none is usable)\n"
		"Index options (-o; ls -l and index build a missing index, cat\n"
		"only uses one that is kept):\n"
		"  index_dir=DIR      where indexes are kept (default\n"
		"                     $XDG_CACHE_HOME/tdatfs, else ~/.cache/tdatfs)\n"
		"  noindex            no index: text sizes 0 until read\n"
		"  threads=N          threads that build it (default: cores)\n"
		"  --progress         the progress line of check and index also\n"
		"                     when stderr is no terminal\n"
		"Debugging options of the text engine (-o, the same text either way):\n"
		"  tep_only           every event through libtraceevent\n"
		"  eager              parse every event format up front\n"
		"  max_checkpoints=N  at most N checkpoints a text (N >= 2)\n"
		"  decode_threads=N   threads that produce a finished text ahead\n"
		"                     of a sequential reader (default: one per\n"
		"                     online CPU; 0: none)\n"
		"Exit status: 0 ok, 1 bad trace or missing path, 2 usage error,\n"
		"128+N when signal N (Ctrl-C: 130) stopped an index build.\n",
		prog, prog, prog, prog, prog);
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

/* Set by a signal during an index build, which polls it. */
static _Atomic bool build_cancel;
/* The signal that stopped a build, 0: none. */
static int build_signal;

/*
 * Give @t's engine its index: load or build it, or with @check_only
 * load a usable file only (its absence is not said).  @res may be NULL.
 * Return: 0, -ENOENT or -EINVAL (check_only: no usable file), -EINTR
 * (stopped by a signal, said), or another negative errno (said).
 */
static int attach_index(struct cli_cfg *cfg, struct tdatfs_tree *t,
			struct tdat_file *f, const char *path, bool check_only,
			struct tdatfs_index_result *res)
{
	struct tdatfs_index_opts o = {
		.prog = prog,
		.dir = cfg->dir,
		/* the environment is read here, in the front end */
		.cache_home = getenv("XDG_CACHE_HOME"),
		.home = getenv("HOME"),
		.threads = cfg->threads,
		.progress = cfg->progress,
		.check_only = check_only,
		.text_opts = &cfg->text,
		.cancel = &build_cancel,
	};
	int err, sig;

	/* A build stopped by a signal leaves no file behind. */
	tdatfs_progress_stop_on_signals(&build_cancel);
	err = tdatfs_index_attach(tdatfs_tree_text(t), f, path, &o, res);
	sig = tdatfs_progress_restore();
	if (sig)
		build_signal = sig;
	if (err == -EINTR || build_signal) {
		fprintf(stderr, "%s: %s: indexing interrupted\n", prog, path);
		return -EINTR;
	}
	if (err && !(check_only && (err == -ENOENT || err == -EINVAL)))
		fprintf(stderr, "%s: %s: no index: %s\n", prog, path,
			strerror(-err));
	return err;
}

/* The exit status for attach_index()'s error @err. */
static int index_status(int err)
{
	return err == -EINTR && build_signal ? 128 + build_signal : 1;
}

/*
 * Open a trace and its tree, with the index @want says.  Return: the
 * tree, or NULL (said) with *@status set to the exit status (untouched
 * on success).
 */
static struct tdatfs_tree *open_tree(struct cli_cfg *cfg, const char *path,
				     struct tdat_file **fp, enum want_index want,
				     int *status)
{
	struct tdatfs_tree *t;
	struct stat st;
	int err = 0;

	*fp = open_trace(path);
	if (!*fp) {
		*status = 1;
		return NULL;
	}
	if (stat(path, &st)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		goto fail;
	}
	t = tdatfs_tree_new(*fp, &st, &cfg->text);
	if (!t) {
		fprintf(stderr, "%s: %s: cannot build the tree: %s\n", prog,
			path, strerror(errno));
		goto fail;
	}
	if (want == INDEX_NONE || cfg->off)
		return t;
	err = attach_index(cfg, t, *fp, path, want == INDEX_IF_KEPT, NULL);
	if (!err || (want == INDEX_IF_KEPT &&
		     (err == -ENOENT || err == -EINVAL)))
		return t;
	tdatfs_tree_free(t);
fail:
	*status = err ? index_status(err) : 1;
	tdat_close(*fp);
	*fp = NULL;
	return NULL;
}

/*
 * open_tree() and a CHUNK-byte read buffer (the caller frees both);
 * *@status as for open_tree().
 */
static struct tdatfs_tree *open_tree_buf(struct cli_cfg *cfg,
					 const char *path,
					 struct tdat_file **fp, char **buf,
					 int *status)
{
	struct tdatfs_tree *t;

	*buf = malloc(CHUNK);
	if (!*buf) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		*status = 1;
		return NULL;
	}
	t = open_tree(cfg, path, fp, INDEX_IF_KEPT, status);
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

/**
 * cli_ls() - `tdat ls [-lR] TRACE [PATH]`: list a directory of the tree
 * @cfg: the global options
 * @argc: words from "ls" on
 * @argv: the words
 *
 * With -l the sizes are exact, so the index is loaded or built.
 *
 * Return: the exit status.
 */
int cli_ls(struct cli_cfg *cfg, int argc, char **argv)
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
			cli_usage(stderr);
			return 2;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		cli_usage(stderr);
		return 2;
	}
	path = argc - optind == 2 ? argv[optind + 1] : "/";
	/*
	 * Sizes are exact only with an index.  Names need none, but which
	 * events have views comes from the event stats, which a kept index
	 * holds (without one, they cost a pass over the buffer's text).
	 */
	c.t = open_tree(cfg, argv[optind], &f, c.lng ? INDEX_SIZES : INDEX_IF_KEPT,
			&ret);
	if (!c.t)
		return ret;
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

/**
 * cli_cat() - `tdat cat TRACE PATH...`: the bytes of files of the tree
 * @cfg: the global options
 * @argc: words from "cat" on
 * @argv: the words
 *
 * Uses a kept index when there is a usable one, never builds one.
 *
 * Return: the exit status.
 */
int cli_cat(struct cli_cfg *cfg, int argc, char **argv)
{
	struct tdatfs_tree *t;
	struct tdat_file *f;
	char *buf;
	int i, ret = 0;

	if (argc < 3) {
		cli_usage(stderr);
		return 2;
	}
	t = open_tree_buf(cfg, argv[1], &f, &buf, &ret);
	if (!t)
		return ret;
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

/* The check's progress line, made once the check knows its total. */
struct check_progress {
	const char *trace;
	bool always;		/* shown also when stderr is no terminal */
	struct tdatfs_progress *p;
	uint64_t done;
	bool failed;
};

static void check_tick(void *ctx, uint64_t done, uint64_t total)
{
	struct check_progress *cp = ctx;

	if (!cp->p && !cp->failed) {
		const struct tdatfs_progress_opts po = {
			.prog = prog,
			.trace = cp->trace,
			.what = "checking",
			.unit = "bytes",
			.unit_bytes = 1,
			.total = total,
			.always = cp->always,
		};

		cp->p = tdatfs_progress_new(&po);
		/* No memory for a line: the check goes on without one. */
		cp->failed = !cp->p;
	}
	cp->done = done;
	tdatfs_progress_update(cp->p, done);
}

/* A problem line comes: the line drawn in place makes room. */
static void check_clear(void *ctx)
{
	struct check_progress *cp = ctx;

	fflush(stdout);
	tdatfs_progress_clear(cp->p);
}

/**
 * cli_check() - `tdat check [--progress] TRACE`: read everything, list
 * damage
 * @cfg: the global options (its --progress raises @cfg->progress)
 * @argc: words from "check" on
 * @argv: the words
 *
 * Return: the exit status (3 when damage was found).
 */
int cli_check(struct cli_cfg *cfg, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "progress", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct check_progress cp = { 0 };
	struct tdatfs_check_opts opts = { .out = stdout };
	struct tdatfs_tree *t;
	struct tdat_file *f;
	int opt, problems, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (opt != 'p') {
			cli_usage(stderr);
			return 2;
		}
		cfg->progress = TDATFS_PROGRESS_ALWAYS;
	}
	if (argc - optind != 1) {
		cli_usage(stderr);
		return 2;
	}
	t = open_tree(cfg, argv[optind], &f, INDEX_NONE, &ret);
	if (!t)
		return ret;
	cp.trace = argv[optind];
	cp.always = cfg->progress == TDATFS_PROGRESS_ALWAYS;
	/* Only a line that will show costs the check its plan. */
	if (cfg->progress == TDATFS_PROGRESS_ALWAYS ||
	    (cfg->progress == TDATFS_PROGRESS_TTY && isatty(STDERR_FILENO))) {
		opts.progress = check_tick;
		opts.progress_clear = check_clear;
		opts.progress_ctx = &cp;
	}
	problems = tdatfs_tree_check(t, &opts);
	tdatfs_progress_end(cp.p, cp.done);
	tdatfs_progress_free(cp.p);
	if (problems < 0)
		fprintf(stderr, "%s: %s: %s\n", prog, argv[optind],
			strerror(-problems));
	tdatfs_tree_free(t);
	tdat_close(f);
	return problems ? 1 : 0;
}

/* ---- index --------------------------------------------------------------- */

/* The line of tdat index: where the index is, what was done, its size. */
static void say_index(const struct tdatfs_index_result *r)
{
	if (r->loaded)
		printf("%s: loaded", r->path);
	else if (r->kept)
		printf("%s: built in %.2f s", r->path, r->seconds);
	else
		printf("(in memory): built in %.2f s, not kept: %s",
		       r->seconds, r->why ? r->why : "unknown");
	printf(" (%zu texts, %" PRIu64 " bytes of text, %" PRIu64
	       " bytes of index)%s\n", r->texts, r->bytes, r->file_bytes,
	       r->sizes ? ", sizes kept" : r->kept ? ", no sizes kept" : "");
}

/**
 * cli_index() - `tdat index [--check] [--progress] TRACE`: load or build
 * the index and say where it is
 * @cfg: the global options (its --progress raises @cfg->progress)
 * @argc: words from "index" on
 * @argv: the words
 *
 * Return: the exit status (128+N when signal N stopped the build).
 */
int cli_index(struct cli_cfg *cfg, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "progress", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct tdatfs_index_result res = { 0 };
	struct tdatfs_tree *t;
	struct tdat_file *f;
	bool check = false;
	int opt, err, ret, sig;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (opt == 'c') {
			check = true;
		} else if (opt == 'p') {
			cfg->progress = TDATFS_PROGRESS_ALWAYS;
		} else {
			cli_usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 1) {
		cli_usage(stderr);
		return 2;
	}
	if (cfg->off) {
		fprintf(stderr, "%s: index with -o noindex: nothing to do\n",
			prog);
		return 2;
	}
	t = open_tree(cfg, argv[optind], &f, INDEX_NONE, &ret);
	if (!t)
		return ret;
	err = attach_index(cfg, t, f, argv[optind], check, &res);
	/* not a mount: the sizes are made here, before the line says so */
	if (!err && !check) {
		tdatfs_progress_stop_on_signals(&build_cancel);
		err = tdatfs_index_sizes_keep(tdatfs_tree_text(t), f, argv[optind],
					      prog, &build_cancel, &res);
		sig = tdatfs_progress_restore();
		if (sig)
			build_signal = sig;
		if (sig || err == -EINTR) {
			fprintf(stderr, "%s: %s: indexing interrupted\n", prog,
				argv[optind]);
			err = -EINTR;
		} else {
			err = 0;	/* said; the index itself is kept */
		}
	}
	if (!err) {
		say_index(&res);
		ret = 0;
	} else if (check && (err == -ENOENT || err == -EINVAL)) {
		printf("%s: no usable index: %s\n", argv[optind],
		       res.why ? res.why : strerror(-err));
		ret = 1;
	} else {
		ret = index_status(err);
	}
	tdatfs_index_result_release(&res);
	tdatfs_tree_free(t);
	tdat_close(f);
	return ret;
}
