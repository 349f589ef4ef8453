/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index/sizes.c - the sizes section of an index file made after the
 * index itself: each buffer's timeline.svg and trace.pftrace sized by
 * the engine that serves the trace, then the file rewritten with them
 * (on the caller's thread for tdat index, on a thread of low priority
 * for a mount that is ready already).  The public functions are
 * documented in tdatfs-index.h; the section in index/file.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tdat.h"
#include "tdatfs-index.h"
#include "tdatfs-text.h"
#include "file.h"

/* A job on its thread: what it was given, copied, and its stop flag. */
struct tdatfs_index_sizes {
	pthread_t thread;
	struct tdatfs_text *t;
	struct tdat_file *f;
	char *trace, *prog;
	struct tdatfs_index_result res;
	_Atomic bool stop;
	const _Atomic bool *cancel;
};

/* The text engine's cancel hook of the sizing thread. */
static bool stopped(void *ctx)
{
	const _Atomic bool *flag = ctx;

	return flag && *flag;
}

/* Free @n entries and their layouts, charged to @f's cache; NULL is fine. */
static void sizes_free(struct tdat_file *f, struct idx_size *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free((void *)s[i].layout);
		tdat_cache_charge(f, s[i].layout_len, true);
	}
	free(s);
}

/* One buffer's entry: its sizes and its trace.pftrace layout. */
static int size_make(struct tdatfs_text *t, size_t b, struct idx_size *e)
{
	void *layout = NULL;
	int r = tdatfs_text_whole_sizes(t, b, &e->timeline, &e->pftrace);

	if (!r)
		r = tdatfs_text_pftrace_layout(t, b, &layout, &e->layout_len);
	e->buffer = b;
	e->layout = layout;
	return r;
}

/*
 * Every buffer's sizes and layouts, made by the engine (or taken from
 * what its stats made already).  *@s: at most tdat_buffer_count()
 * entries (free with sizes_free()).
 * Return: 0, -EINTR when stopped, or the engine's negative errno.
 */
static int sizes_make(struct tdatfs_text *t, struct tdat_file *f,
		      const _Atomic bool *cancel, struct idx_size **s,
		      size_t *n)
{
	size_t nb = tdat_buffer_count(f), i;
	struct idx_size *out = calloc(nb ? nb : 1, sizeof(*out));
	int r = 0;

	if (!out)
		return -ENOMEM;
	*n = 0;
	tdatfs_text_cancel_set(stopped, (void *)cancel);
	for (i = 0; !r && i < nb; i++) {
		struct idx_size *e = &out[*n];

		r = cancel && *cancel ? -EINTR : size_make(t, i, e);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		/* a copy of what the engine keeps, held to the rewrite: the
		 * cache makes room for it (8.8 MB at 16 times big.dat) */
		tdat_cache_charge(f, e->layout_len, false);
		(*n)++;
	}
	tdatfs_text_cancel_set(NULL, NULL);
	if (r) {
		sizes_free(f, out, *n);
		return r;
	}
	*s = out;
	return 0;
}

/* The directory of @path (its last '/' cut); NULL on -ENOMEM. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
}

/*
 * The file rewritten with @s, if it is still the one @res loaded or
 * wrote (its length and checksum), a block at a time: the engine may
 * hold the file's bytes already, a copy and the new file's would make
 * three times a size that grows with the trace's.  Return: 0, -ESTALE
 * when it is not, or the negative errno of the read or write.
 */
static int rewrite(struct tdatfs_index_result *res, const struct idx_size *s,
		   size_t n)
{
	char *dir = dir_of(res->path);
	size_t nlen = 0;
	uint32_t crc = 0;
	int r;

	if (!dir)
		return -ENOMEM;
	/* the directory holds the file already: its mode is not made here */
	r = idx_sizes_rewrite(dir, res->path, res->file_bytes, res->file_crc,
			      s, n, &nlen, &crc);
	if (!r) {
		res->sizes = true;
		res->file_bytes = nlen;
		res->file_crc = crc;
	}
	free(dir);
	return r;
}

int tdatfs_index_sizes_keep(struct tdatfs_text *t, struct tdat_file *f,
			    const char *trace, const char *prog,
			    const _Atomic bool *cancel,
			    struct tdatfs_index_result *res)
{
	struct idx_size *s = NULL;
	size_t n = 0;
	int r;

	if (!res->kept || !res->path || !*res->path || res->sizes)
		return 0;
	r = sizes_make(t, f, cancel, &s, &n);
	/* damage met making them: the index says it anew every mount */
	if (!r && tdat_error_total(f))
		r = -EIO;
	if (!r)
		r = rewrite(res, s, n);
	sizes_free(f, s, n);
	/* -ESTALE is not said: another mount or tdat index rewrote the file
	 * (with these sizes, or built it again), which is no fault */
	if (r == -EIO)
		fprintf(stderr, "%s: %s: damage found while sizing; the sizes "
			"are not kept\n", prog, trace);
	else if (r && r != -EINTR)
		fprintf(stderr, "%s: %s: cannot keep the sizes in %s: %s\n",
			prog, trace, res->path, strerror(-r));
	return r;
}

static void *sizes_run(void *arg)
{
	struct tdatfs_index_sizes *j = arg;

	/* the mount serves requests meanwhile: this work comes after them
	 * (on Linux a thread's nice value is its own) */
	setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
	tdatfs_index_sizes_keep(j->t, j->f, j->trace, j->prog, &j->stop, &j->res);
	return NULL;
}

struct tdatfs_index_sizes *tdatfs_index_sizes_start(struct tdatfs_text *t,
						    struct tdat_file *f,
						    const char *trace,
						    const char *prog,
						    const struct tdatfs_index_result *res)
{
	struct tdatfs_index_sizes *j;
	int r;

	if (!res->kept || !res->path || !*res->path || res->sizes) {
		errno = 0;
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->t = t;
	j->f = f;
	j->res = *res;
	j->res.path = strdup(res->path);
	j->trace = strdup(trace);
	j->prog = strdup(prog ? prog : "tdatfs");
	r = j->res.path && j->trace && j->prog ? 0 : ENOMEM;
	if (!r)
		r = pthread_create(&j->thread, NULL, sizes_run, j);
	if (r) {
		free(j->res.path);
		free(j->trace);
		free(j->prog);
		free(j);
		errno = r;
		return NULL;
	}
	return j;
}

void tdatfs_index_sizes_stop(struct tdatfs_index_sizes *j)
{
	if (!j)
		return;
	j->stop = true;
	pthread_join(j->thread, NULL);
	free(j->res.path);
	free(j->trace);
	free(j->prog);
	free(j);
}
