/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream-create.c - text streams made: the slots of their parts
 * (which CPUs each reads, and a CPU's text whether alone or among every
 * CPU), their tables, and checkpoint 0.  Reading them is
 * text/stream.c's (text/stream.h has the invariants).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "account.h"
#include "comm.h"
#include "line.h"
#include "source.h"
#include "stream-internal.h"
#include "stream.h"

/**
 * text_stream_cpu_pages() - the page count of a CPU as a stream counts it
 * @f: the trace
 * @b: buffer index
 * @c: cpu index in the buffer, whose page size the caller checked
 * @pages: set to the count
 *
 * Pages follow trace-cmd's get_next_page(); a CPU whose size does not
 * read has none, as trace-cmd shows it: the file's fault.  Memory to
 * describe it is not, and an empty CPU would be other text.
 *
 * Return: 0, or -ENOMEM (then *@pages is 0).
 */
int text_stream_cpu_pages(struct tdat_file *f, size_t b, size_t c,
			  uint64_t *pages)
{
	const struct tdat_buffer *buf = tdat_buffer_get(f, b);
	uint64_t size = 0;
	int ret = tdat_cpu_size(f, b, c, &size);

	*pages = 0;
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0)
		size = 0;
	*pages = (size + buf->page_size - 1) / buf->page_size;
	return 0;
}

/*
 * Part @p's slots: buffer cpu index @cpu alone, or all of them (-1), and
 * their page counts.  Return: 0, -EINVAL for a page size no kernel
 * writes, or -ENOMEM.
 */
static int part_cpus(struct text_stream *st, size_t p, int cpu)
{
	const struct stream_part *pt = &st->parts[p];
	const struct tdat_buffer *buf = tdat_buffer_get(st->env.f, pt->b);
	unsigned int i;
	int ret;

	if (buf->page_size < 64 || buf->page_size > (1u << 27))
		return -EINVAL;
	for (i = 0; i < pt->ncpu; i++) {
		size_t s = pt->first + i;

		st->cidx[s] = cpu < 0 ? i : (size_t)cpu;
		ret = text_stream_cpu_pages(st->env.f, pt->b, st->cidx[s],
					    &st->npages[s]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* A stream of @nparts parts, not set up yet (see stream_setup()). */
static struct text_stream *stream_alloc(const struct text_stream_env *env,
					size_t nparts)
{
	struct text_stream *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	pthread_mutex_init(&st->lock, NULL);
	st->env = *env;
	st->nparts = nparts;
	st->only = -1;
	st->parts = calloc(nparts + 1, sizeof(*st->parts));
	if (!st->parts) {
		text_stream_free(st);
		return NULL;
	}
	return st;
}

/* The slot tables once the parts are known, and checkpoint 0. */
static int stream_setup(struct text_stream *st, int cpu)
{
	size_t p;
	int ret;

	st->cidx = calloc(st->ncpu + 1, sizeof(*st->cidx));
	st->npages = calloc(st->ncpu + 1, sizeof(*st->npages));
	if (!st->cidx || !st->npages)
		return -ENOMEM;
	for (p = 0; p < st->nparts; p++) {
		ret = part_cpus(st, p, cpu);
		if (ret < 0)
			return ret;
	}
	st->front = st->hlen;
	st->ckpt_every = CKPT_BYTES;
	st->ckpt_max = CKPT_MEM / (sizeof(*st->ckpt_off) + sizeof(*st->ckpt_seen) +
				   st->ncpu * sizeof(*st->ckpt_pos));
	if (st->ckpt_max < 64)
		st->ckpt_max = 64;
	/* tests make the thinning happen on small traces */
	if (st->env.max_checkpoints)
		st->ckpt_max = st->env.max_checkpoints < 2 ? 2 :
			       st->env.max_checkpoints;
	st->ov = text_overlay_new();
	st->acct = text_account_new();
	if (!st->ov || !st->acct)
		return -ENOMEM;
	/* event views are cut from one buffer's merged text alone */
	if (st->nparts > 1 || cpu >= 0 || st->only >= 0)
		text_account_times_only(st->acct);
	return text_stream_ckpt_add(st, 0, NULL);
}

/* Free @st and fail with @err (a negative errno). */
static struct text_stream *stream_fail(struct text_stream *st, int err)
{
	text_stream_free(st);
	errno = -err;
	return NULL;
}

/*
 * Whether cpu index @c of buffer @b holds a record whose text looks at
 * other CPUs: its records read once, through a source of its own.
 * Return: 1, 0, or a negative errno.
 */
static int cpu_looks_ahead(const struct text_stream_env *env, size_t b, size_t c)
{
	struct text_source *src;
	uint64_t npages;
	int ret;

	if (!text_fmt_lookahead(env->fmt))
		return 0;
	ret = text_stream_cpu_pages(env->f, b, c, &npages);
	if (ret < 0)
		return ret;
	src = text_source_new(env->f, b, &c, &npages, 1, env->pf, env->ts);
	if (!src)
		return errno ? -errno : -ENOMEM;
	ret = text_fmt_cpu_lookahead(env->fmt, src);
	text_source_free(src);
	return ret;
}

/**
 * text_stream_new() - a stream for one buffer
 * @env: what it reads and formats with (copied)
 * @b: buffer index
 * @cpu: buffer cpu index, or -1 for all merged
 * @how: for a @cpu of a buffer of several, whether it reads that CPU
 *	alone or every CPU; TEXT_CPU_LOOK finds out from its records (read
 *	once here, when the trace has the function_graph formats),
 *	TEXT_CPU_TRY_ALONE while producing them
 *
 * Return: the stream, or NULL with errno set.
 */
struct text_stream *text_stream_new(const struct text_stream_env *env,
				    size_t b, int cpu, enum text_cpu_read how)
{
	const struct tdat_buffer *buf = tdat_buffer_get(env->f, b);
	struct text_stream *st;
	int ret;

	if (!buf || (cpu >= 0 && (unsigned int)cpu >= buf->ncpus)) {
		errno = ENOENT;
		return NULL;
	}
	if (cpu >= 0 && buf->ncpus > 1 && how == TEXT_CPU_LOOK) {
		ret = cpu_looks_ahead(env, b, (size_t)cpu);
		if (ret < 0) {
			errno = -ret;
			return NULL;
		}
		how = ret ? TEXT_CPU_AMONG_ALL : TEXT_CPU_ALONE;
	}
	st = stream_alloc(env, 1);
	if (!st)
		return NULL;
	st->ncpu = cpu < 0 ? buf->ncpus : 1;
	st->trying = cpu >= 0 && buf->ncpus > 1 && how == TEXT_CPU_TRY_ALONE &&
		     text_fmt_lookahead(env->fmt);
	if (cpu >= 0 && buf->ncpus > 1 && how == TEXT_CPU_AMONG_ALL) {
		/* trace-cmd --cpu N reads every CPU, prints only N's */
		st->only = cpu;
		st->ncpu = buf->ncpus;
		cpu = -1;
	}
	st->parts[0].b = b;
	st->parts[0].ncpu = st->ncpu;
	ret = stream_setup(st, cpu);
	return ret < 0 ? stream_fail(st, ret) : st;
}

/**
 * text_stream_new_multi() - a stream over several buffers
 * @env: what it reads and formats with (copied)
 * @parts: the buffers, in the order that wins timestamp ties, each with
 *	the text put before every one of its records (copied)
 * @nparts: entries in @parts
 * @head: text before everything else (copied); may be empty
 *
 * Return: the stream, or NULL with errno set.
 */
struct text_stream *text_stream_new_multi(const struct text_stream_env *env,
					  const struct text_stream_part *parts,
					  size_t nparts, const char *head)
{
	struct text_stream *st = stream_alloc(env, nparts);
	size_t p;
	int ret;

	if (!st)
		return NULL;
	st->head = strdup(head);
	if (!st->head)
		return stream_fail(st, -ENOMEM);
	st->hlen = strlen(head);
	for (p = 0; p < nparts; p++) {
		const struct tdat_buffer *buf = tdat_buffer_get(env->f, parts[p].b);
		struct stream_part *pt = &st->parts[p];

		if (!buf)
			return stream_fail(st, -ENOENT);
		pt->b = parts[p].b;
		pt->first = st->ncpu;
		pt->ncpu = buf->ncpus;
		pt->prefix = strdup(parts[p].prefix);
		if (!pt->prefix)
			return stream_fail(st, -ENOMEM);
		pt->plen = strlen(pt->prefix);
		st->ncpu += buf->ncpus;
	}
	ret = stream_setup(st, -1);
	return ret < 0 ? stream_fail(st, ret) : st;
}
