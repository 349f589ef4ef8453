/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-trace.c - libFuzzer target: one input is one trace.dat file.
 *
 * The input is opened with tdat_open() (through a memfd, so no file is
 * written), the virtual tree is built, tdatfs_tree_check() (what `tdat
 * check` runs) reads every table and file in chunks of varying size, then
 * every node is listed, stat'ed and read again at varying offsets, the
 * decoded text files included.  Everything is freed before returning, so
 * LeakSanitizer sees any leak.
 *
 * Invariants:
 *  - The work per input is bounded: at most FUZZ_FILE_MAX bytes are read
 *    from any one file or stream, and at most FUZZ_TOTAL_MAX in all by the
 *    check and as much again by the walk of the tree.
 *  - The read pattern depends only on the input bytes, so a crash replays.
 *  - The same source builds with libFuzzer (clang -fsanitize=fuzzer) and
 *    without it, with fuzz/replay.c providing main().
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "tdat.h"
#include "tdatfs-tree.h"
#include "fuzz-trace.h"

#define FUZZ_FILE_MAX	(4u << 20)
#define FUZZ_TOTAL_MAX	(24u << 20)
#define FUZZ_CACHE	(1u << 20)
#define FUZZ_DEPTH	16

struct fuzz_ctx {
	struct tdatfs_tree *tree;
	uint64_t seed;		/* xorshift state, seeded from the input */
	uint64_t total;		/* bytes read so far, against FUZZ_TOTAL_MAX */
	uint64_t nodes;		/* nodes visited, for FUZZ_TRACE_VERBOSE */
	char *buf;		/* FUZZ_BUF bytes */
};

#define FUZZ_BUF	(128u << 10)

static uint32_t fuzz_rand(struct fuzz_ctx *c)
{
	c->seed ^= c->seed << 13;
	c->seed ^= c->seed >> 7;
	c->seed ^= c->seed << 17;
	return (uint32_t)(c->seed >> 16);
}

/* Chunk sizes: the odd ones catch off-by-one at page and line ends. */
static size_t fuzz_chunk(struct fuzz_ctx *c)
{
	static const size_t sizes[] = { 1, 7, 100, 4095, 4096, 4097, 65536,
					FUZZ_BUF };

	return sizes[fuzz_rand(c) % (sizeof(sizes) / sizeof(sizes[0]))];
}

/*
 * Read a file of the tree from 0 to its end (or the bounds) in varying
 * chunks, then at a few offsets around @size (the size claimed, if any)
 * and past it.
 */
static void fuzz_file(struct fuzz_ctx *c, uint64_t ino, uint64_t size)
{
	uint64_t off = 0, probes[4];
	ssize_t r;

	while (off < FUZZ_FILE_MAX && c->total < FUZZ_TOTAL_MAX) {
		r = tdatfs_tree_read(c->tree, ino, c->buf, fuzz_chunk(c), off);
		if (r <= 0)
			break;
		off += (uint64_t)r;
		c->total += (uint64_t)r;
	}
	probes[0] = size / 2;
	probes[1] = size ? size - 1 : 0;
	probes[2] = size + 1;
	probes[3] = off > 4096 ? off - 4096 + fuzz_rand(c) % 4096 : off / 2;
	for (size_t i = 0; i < 4 && c->total < FUZZ_TOTAL_MAX; i++) {
		if (probes[i] > FUZZ_FILE_MAX)
			continue;
		r = tdatfs_tree_read(c->tree, ino, c->buf, fuzz_chunk(c),
				     probes[i]);
		if (r > 0)
			c->total += (uint64_t)r;
	}
}

/* --- what `tdat check` reads, bounded ----------------------------------- */

static size_t fuzz_check_chunk(void *ctx)
{
	return fuzz_chunk(ctx);
}

/*
 * The parser's tables and every file of the tree, read by the routine
 * `tdat check` uses, in varying chunks, nothing printed.
 */
static void fuzz_check(struct fuzz_ctx *c)
{
	const struct tdatfs_check_opts opts = {
		.chunk = fuzz_check_chunk,
		.ctx = c,
		.file_max = FUZZ_FILE_MAX,
		.total_max = FUZZ_TOTAL_MAX,
	};

	(void)tdatfs_tree_check(c->tree, &opts);
}

/* --- the tree ------------------------------------------------------------ */

struct fuzz_dir {
	uint64_t *ino;
	size_t n, cap;
};

static int fuzz_fill(void *ctx, const char *name, uint64_t ino, bool is_dir)
{
	struct fuzz_dir *d = ctx;
	uint64_t *p;

	(void)name;
	(void)is_dir;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		p = realloc(d->ino, d->cap * sizeof(*p));
		if (!p)
			return 1;
		d->ino = p;
	}
	d->ino[d->n++] = ino;
	return 0;
}

static void fuzz_node(struct fuzz_ctx *c, uint64_t ino, int depth)
{
	struct fuzz_dir d = { 0 };
	struct stat st;

	c->nodes++;
	if (tdatfs_tree_stat(c->tree, ino, &st))
		return;
	if (!tdatfs_tree_is_dir(c->tree, ino)) {
		fuzz_file(c, ino, (uint64_t)st.st_size);
		/* Decoded text knows its size only once produced: ask again. */
		if (!tdatfs_tree_stat(c->tree, ino, &st) &&
		    tdatfs_tree_size_known(c->tree, ino) && st.st_size > 0 &&
		    c->total < FUZZ_TOTAL_MAX)
			(void)tdatfs_tree_read(c->tree, ino, c->buf, 4096,
					       (uint64_t)st.st_size / 3);
		return;
	}
	if (depth >= FUZZ_DEPTH)
		return;
	if (tdatfs_tree_readdir(c->tree, ino, fuzz_fill, &d) == 0)
		for (size_t i = 0; i < d.n; i++)
			fuzz_node(c, d.ino[i], depth + 1);
	free(d.ino);
}

static void fuzz_lookups(struct fuzz_ctx *c)
{
	static const char *const paths[] = {
		"trace", "per_cpu/cpu0/trace", "per_cpu/cpu0/trace_pipe_raw",
		"events/sched/sched_switch/format", "../..//./events",
		"options", "instances/x/trace", "README/x", "",
	};
	uint64_t ino;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!tdatfs_tree_lookup(c->tree, paths[i], &ino))
			(void)tdatfs_tree_child(c->tree, ino, "format", &ino);
	(void)tdatfs_tree_read(c->tree, tdatfs_tree_count(c->tree) + 1, c->buf,
			       16, 0);
}

static uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	/* Enough of the input to vary the pattern, cheap on big inputs. */
	for (size_t i = 0; i < size && i < 4096; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h ^ size;
}

static bool fuzz_last_ok;

bool fuzz_trace_last_ok(void)
{
	return fuzz_last_ok;
}

static void fuzz_quiet(void)
{
	static bool done;

	if (!done) {
		tep_set_loglevel(TEP_LOG_NONE);
		done = true;
	}
}

/**
 * LLVMFuzzerTestOneInput() - run one input through the parser and the tree
 * @data: the input, taken as a whole trace.dat file
 * @size: its size
 *
 * Return: 0 always (libFuzzer's convention; -1 would drop the input).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdat_open_opts opts = { .cache_size = FUZZ_CACHE };
	struct fuzz_ctx c = { 0 };
	struct tdat_file *f;
	struct stat st;
	char path[64], err[256];
	size_t done = 0;
	ssize_t w;
	int fd;

	fuzz_quiet();
	fuzz_last_ok = false;
	fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	if (fd < 0)
		abort();	/* not the input's fault: stop loudly */
	while (done < size) {
		w = write(fd, data + done, size - done);
		if (w <= 0)
			abort();
		done += (size_t)w;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = tdat_open(path, &opts, err, sizeof(err));
	if (!f) {
		if (getenv("FUZZ_TRACE_VERBOSE"))
			fprintf(stderr, "  refused: %s\n", err);
		goto out;
	}
	c.seed = fuzz_hash(data, size) | 1;
	c.buf = malloc(FUZZ_BUF);
	if (!c.buf)
		abort();
	if (fstat(fd, &st))
		abort();
	c.tree = tdatfs_tree_new(f, &st, NULL);
	if (c.tree) {
		fuzz_check(&c);
		fuzz_lookups(&c);
		fuzz_node(&c, TDATFS_TREE_ROOT, 0);
		tdatfs_tree_free(c.tree);
		fuzz_last_ok = true;
	}
	/* the replay driver's proof that an input went all the way */
	if (getenv("FUZZ_TRACE_VERBOSE"))
		fprintf(stderr, "  opened; tree %s, %llu nodes, %llu bytes read\n",
			c.tree ? "built" : "refused",
			(unsigned long long)c.nodes,
			(unsigned long long)c.total);
	free(c.buf);
	tdat_close(f);
out:
	close(fd);
	return 0;
}
