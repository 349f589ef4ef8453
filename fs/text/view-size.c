/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/view-size.c - a view's size made on several threads: its
 * entries cut in parts of like work, their lengths learned by the view
 * (invariants in text/view-size.h).  Above the view's stream, below
 * the views.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"
#include "stream.h"
#include "view-size.h"

/* One part of a cut: entries [j0, j1) of a view. */
struct part {
	struct text_stream *v;		/* the caller's view, or one of its own */
	size_t j0, j1;
	uint64_t *bytes;		/* into the cut's table, at j0 */
	struct tdatfs_buf text;
	size_t max;
	_Atomic bool *stop;
	bool started;			/* a thread of its own cuts it */
	pthread_t tid;
	int ret;
};

static void part_cut(struct part *p)
{
	p->ret = text_stream_view_cut(p->v, p->j0, p->j1, p->bytes, &p->text,
				      p->max, p->stop);
	if (p->ret < 0)
		atomic_store(p->stop, true);
}

static void *part_thread(void *arg)
{
	part_cut(arg);
	return NULL;
}

/*
 * Parts 1 and on started on threads of their own, each with a view of its
 * own; a part that cannot have one is left to the caller's thread.
 */
static void parts_start(struct text_stream *v, struct part *parts, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct part *p = &parts[i];

		if (p->j0 == p->j1)
			continue;
		p->v = text_stream_view_alike(v);
		if (!p->v) {
			p->v = v;
			continue;
		}
		p->started = !pthread_create(&p->tid, NULL, part_thread, p);
	}
}

/* The caller's share, then the other threads', in part order. */
static int parts_run(struct part *parts, size_t n)
{
	int ret = 0;

	part_cut(&parts[0]);
	for (size_t i = 1; i < n; i++)
		if (parts[i].started)
			pthread_join(parts[i].tid, NULL);
	for (size_t i = 1; i < n; i++)
		if (!parts[i].started && parts[i].j0 < parts[i].j1 &&
		    !atomic_load(parts[0].stop))
			part_cut(&parts[i]);
	/* the first failure, not a part it stopped */
	for (size_t i = 0; i < n; i++)
		if (parts[i].j0 < parts[i].j1 && parts[i].ret < 0 &&
		    (!ret || ret == -EINTR))
			ret = parts[i].ret;
	return ret;
}

/*
 * The parts' texts joined into @text, allocated at its size, when they
 * are whole and fit in @max; @text is left empty otherwise.  Each part's
 * is freed once copied, so the join holds little more than the text.
 */
static int parts_join(struct part *parts, size_t n, uint64_t size, size_t max,
		      struct tdatfs_buf *text)
{
	uint64_t sum = 0;
	char *o;

	for (size_t i = 0; i < n; i++)
		sum += parts[i].text.len;
	if (sum != size || size > max || !size)
		return 0;
	/* the exact size, not a tdatfs_buf's doubling: the views keep it */
	o = malloc(size + 1);
	if (!o)
		return -ENOMEM;
	*text = (struct tdatfs_buf){ .p = o, .cap = size + 1 };
	for (size_t i = 0; i < n; i++) {
		/* a part whose entries printed nothing may have no buffer */
		if (parts[i].text.len)
			memcpy(o, parts[i].text.p, parts[i].text.len);
		o += parts[i].text.len;
		tdatfs_buf_release(&parts[i].text);
	}
	text->len = size;
	return 0;
}

static void parts_free(struct text_stream *v, struct part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (parts[i].v && parts[i].v != v)
			text_stream_free(parts[i].v);
		tdatfs_buf_release(&parts[i].text);
	}
	free(parts);
}

/* The view's parts of like work, their tables into @bytes. */
static struct part *parts_make(struct text_stream *v, size_t n, size_t max,
			       uint64_t *bytes, _Atomic bool *stop)
{
	struct part *parts = calloc(n, sizeof(*parts));
	size_t *bounds = calloc(n + 1, sizeof(*bounds));

	if (!parts || !bounds) {
		free(parts);
		free(bounds);
		return NULL;
	}
	text_stream_view_split(v, n, bounds);
	for (size_t i = 0; i < n; i++) {
		parts[i].v = i ? NULL : v;
		parts[i].j0 = bounds[i];
		parts[i].j1 = bounds[i + 1];
		parts[i].bytes = bytes + bounds[i];
		/* its share: the parts' texts together stay within @max */
		parts[i].max = max / n;
		parts[i].stop = stop;
	}
	free(bounds);
	return parts;
}

/**
 * text_view_size_cut() - make a view's size by cutting its text on several threads
 * @v: a view (text_stream_new_view()) of the engine's, read by others too
 * @threads: threads to cut on, the caller's one of them (0 counts as 1)
 * @max: bytes of text to hand back, at most (each part keeps its share)
 * @text: empty; set to the view's whole text when it is at most @max
 *	bytes (the caller's, tdatfs_buf_release()), else left empty
 *
 * On success @v is finished: its size and offsets known, as a read to its
 * end leaves it (text_stream_size()).
 *
 * Return: 0, -EINTR when this thread's cancel hook said to stop, or the
 * negative errno of the first part that failed.
 * Context: takes @v's lock while the caller's part is cut, and its full
 * text's as each other view is made.
 */
int text_view_size_cut(struct text_stream *v, unsigned int threads, size_t max,
		       struct tdatfs_buf *text)
{
	size_t n = text_stream_view_entries(v), nparts = threads ? threads : 1;
	_Atomic bool stop = false;
	struct part *parts;
	uint64_t *bytes, size = 0;
	int ret;

	if (!n)
		return -EINVAL;
	if (nparts > n)
		nparts = n;
	bytes = calloc(n, sizeof(*bytes));
	parts = bytes ? parts_make(v, nparts, max, bytes, &stop) : NULL;
	if (!parts) {
		free(bytes);
		return -ENOMEM;
	}
	parts_start(v, parts, nparts);
	ret = parts_run(parts, nparts);
	if (!ret)
		ret = text_stream_view_learn(v, bytes, n);
	if (!ret)
		ret = text_stream_size(v, &size);
	if (!ret)
		ret = parts_join(parts, nparts, size, max, text);
	parts_free(v, parts, nparts);
	free(bytes);
	return ret;
}
