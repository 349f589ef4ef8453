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

typedef ssize_t (*read_fn)(struct tdat_file *f, size_t a, size_t b, void *buf,
			   size_t len, uint64_t off);

static ssize_t rd_section(struct tdat_file *f, size_t a, size_t b, void *buf,
			  size_t len, uint64_t off)
{
	(void)b;
	return tdat_section_read(f, a, buf, len, off);
}

static ssize_t rd_meta(struct tdat_file *f, size_t a, size_t b, void *buf,
		       size_t len, uint64_t off)
{
	(void)b;
	return tdat_meta_read(f, a, buf, len, off);
}

static ssize_t rd_event(struct tdat_file *f, size_t a, size_t b, void *buf,
			size_t len, uint64_t off)
{
	(void)b;
	return tdat_event_read(f, a, buf, len, off);
}

/*
 * Read a whole stream of @size bytes.  After an error, step over the bad
 * range @step bytes at a time so that each damaged range is reported once
 * and the rest is still checked.
 */
static int check_stream(struct tdat_file *f, read_fn rd, size_t a, size_t b,
			uint64_t size, uint64_t step, const char *what,
			char *buf)
{
	uint64_t off = 0, bad_start = 0;
	bool bad = false;
	int problems = 0;

	if (!step)
		step = 4096;
	while (off < size) {
		size_t want = bad ? step : CHUNK;
		ssize_t n;

		if (want > size - off)
			want = size - off;
		n = rd(f, a, b, buf, want, off);
		if (n > 0 && bad) {
			printf("%s: bytes %" PRIu64 "-%" PRIu64
			       " unreadable\n", what, bad_start, off - 1);
			problems++;
			bad = false;
		}
		if (n > 0) {
			off += n;
			continue;
		}
		if (n == 0) {
			printf("%s: ends at offset %" PRIu64 ", %" PRIu64
			       " bytes expected\n", what, off, size);
			return problems + 1;
		}
		if (!bad && want > step) {
			/* Narrow down: re-read this range in small steps. */
			bad = true;
			bad_start = off;
			continue;
		}
		if (!bad) {
			bad = true;
			bad_start = off;
		}
		off += want;
	}
	if (bad) {
		printf("%s: bytes %" PRIu64 "-%" PRIu64 " unreadable\n", what,
		       bad_start, size - 1);
		problems++;
	}
	return problems;
}

/* Past the damaged range holding @off: the registry knows its end. */
static uint64_t skip_damage(struct tdat_file *f, size_t b, unsigned int c,
			    uint64_t off, uint32_t page)
{
	size_t i, n = tdat_error_count(f);
	struct tdat_error e;

	for (i = 0; i < n; i++) {
		if (tdat_error_get(f, i, &e))
			break;
		if (e.buffer == b && e.cpu == c && e.start <= off &&
		    off - e.start < e.length)
			return e.start + e.length;
	}
	return off + (page ? page : 4096);
}

/*
 * Read every CPU stream to its end.  Damage is not printed here: the
 * parser records each damaged chunk in its registry, listed at the end.
 */
static int check_cpu_streams(struct tdat_file *f, char *buf)
{
	size_t i, n = tdat_buffer_count(f);
	int problems = 0;

	for (i = 0; i < n; i++) {
		const struct tdat_buffer *b = tdat_buffer_get(f, i);
		unsigned int c;

		for (c = 0; b && c < b->ncpus; c++) {
			uint64_t size, off = 0;
			int err = tdat_cpu_size(f, i, c, &size);

			if (err) {
				printf("buffer %s cpu%u (data at file offset %" PRIu64
				       "): unreadable: %s\n",
				       *b->name ? b->name : "top", b->cpus[c].cpu,
				       b->cpus[c].offset, strerror(-err));
				problems++;
				continue;
			}
			while (off < size) {
				ssize_t r = tdat_cpu_read(f, i, c, buf, CHUNK, off);

				if (r > 0) {
					off += r;
				} else if (r == -EIO) {
					off = skip_damage(f, i, c, off, b->page_size);
				} else {
					printf("buffer %s cpu%u (data at file offset %" PRIu64
					       "): read at offset %" PRIu64 ": %s\n",
					       *b->name ? b->name : "top",
					       b->cpus[c].cpu, b->cpus[c].offset, off,
					       r ? strerror((int)-r) : "ends early");
					problems++;
					break;
				}
			}
		}
	}
	return problems;
}

struct walk_ctx {
	struct tdatfs_tree *t;
	char *buf;
	const char *prefix;
	int problems;
};

/*
 * Decode every "trace" file of the tree to its end (the text engine turns
 * damaged pages into marker lines, which the tree records), and read the
 * rest of the tree too so that nothing reachable fails unnoticed.
 */
static int walk_one(void *ctx, const char *name, uint64_t ino, bool is_dir)
{
	struct walk_ctx *w = ctx;
	char *path;
	uint64_t off = 0;

	if (asprintf(&path, "%s/%s", w->prefix, name) < 0) {
		w->problems++;
		return 1;
	}
	if (is_dir) {
		struct walk_ctx sub = *w;

		sub.prefix = path;
		sub.problems = 0;
		tdatfs_tree_readdir(w->t, ino, walk_one, &sub);
		w->problems += sub.problems;
	} else if (strcmp(path, "/errors")) {
		for (;;) {
			ssize_t r = tdatfs_tree_read(w->t, ino, w->buf, CHUNK, off);

			if (r > 0) {
				off += r;
				continue;
			}
			/* Raw data: damage is in the registry; skip a page. */
			if (r == -EIO && strstr(path, "trace_pipe_raw")) {
				off += 4096;
				continue;
			}
			if (r < 0 && !strstr(path, "/sections/")) {
				printf("%s: read at offset %" PRIu64 ": %s\n",
				       path, off, strerror((int)-r));
				w->problems++;
			}
			break;
		}
	}
	free(path);
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	static const char *const meta_names[] = {
		"header_page", "header_event", "kallsyms", "printk_formats",
		"saved_cmdlines", "btf", "modules",
	};
	struct tdatfs_tree *t;
	struct walk_ctx w;
	struct tdat_file *f;
	struct tdat_error e;
	char what[512];
	int problems = 0;
	uint64_t total;
	size_t i, n;
	char *buf;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	t = open_tree_buf(argv[1], &f, &buf);
	if (!t)
		return 1;
	/* Options were all validated by tdat_open(); sections are read here. */
	n = tdat_section_count(f);
	for (i = 0; i < n; i++) {
		const struct tdat_section *s = tdat_section_get(f, i);
		size_t b;

		if (!s)
			continue;
		for (b = 0; b < tdat_buffer_count(f); b++)
			if (tdat_buffer_get(f, b) &&
			    tdat_buffer_get(f, b)->section == (long)i)
				break;
		if (b < tdat_buffer_count(f))
			continue;	/* buffer section: its CPUs below */
		snprintf(what, sizeof(what), "section %zu (id %u) at offset %"
			 PRIu64, i, s->id, s->offset);
		problems += check_stream(f, rd_section, i, 0, s->data_size,
					 4096, what, buf);
	}
	for (i = 0; i < TDAT_META_COUNT; i++) {
		uint64_t size;

		if (tdat_meta_size(f, i, &size))
			continue;
		snprintf(what, sizeof(what), "%s", meta_names[i]);
		problems += check_stream(f, rd_meta, i, 0, size, 4096, what,
					 buf);
	}
	n = tdat_event_count(f);
	for (i = 0; i < n; i++) {
		const struct tdat_event_format *ev = tdat_event_get(f, i);

		if (!ev)
			continue;
		snprintf(what, sizeof(what), "event format %s/%s", ev->system,
			 ev->name);
		problems += check_stream(f, rd_event, i, 0, ev->size, 4096,
					 what, buf);
	}
	problems += check_cpu_streams(f, buf);
	w = (struct walk_ctx){ .t = t, .buf = buf, .prefix = "" };
	tdatfs_tree_readdir(t, TDATFS_TREE_ROOT, walk_one, &w);
	problems += w.problems;

	/* Everything damaged that the reads above ran into. */
	n = tdat_error_count(f);
	for (i = 0; i < n; i++) {
		if (tdat_error_get(f, i, &e))
			break;
		tdat_error_format(&e, what, sizeof(what));
		fputs(what, stdout);
		problems++;
	}
	total = tdat_error_total(f);
	if (total > n) {
		printf("%" PRIu64 " more damaged ranges not listed\n", total - n);
		problems++;
	}
	tdatfs_tree_free(t);
	tdat_close(f);
	free(buf);
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
