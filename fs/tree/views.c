/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/views.c - the kinds of the views of SPEC 2.6: an event's
 * trace and fields.tsv, a window's traces, the timeline.svg and
 * trace.pftrace of a buffer and of a window (TREE_VIEW, read through the
 * text engine's views), and where the texts made from the event stats,
 * events/summary.tsv and time/README, are kept and how they are made
 * (tree/nodes.c renders them when first asked).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "internal.h"
#include "render.h"

/**
 * tree_event_shown() - whether a buffer has records of an event
 * @t: tree
 * @buffer: buffer index
 * @id: event id
 *
 * From the event stats: without an index the first call produces the
 * buffer's text.
 *
 * Return: 1 when it has, 0 when not (or the buffer has no text), or a
 * negative errno of the stats.
 */
int tree_event_shown(const struct tdatfs_tree *t, size_t buffer, int id)
{
	const struct tdatfs_text_event_stat *s;
	size_t n, lo = 0, hi;
	int ret = tdatfs_text_event_stats(t->text, buffer, &s, &n);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].id == id)
			return s[mid].records > 0;
		if (s[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/**
 * tree_view_shown() - the shown operation of TREE_VIEW
 * @t: tree
 * @n: the view's node
 *
 * An event's views exist when the buffer has records of it; a window's
 * traces, the timelines and trace.pftrace always (they may be empty).
 *
 * Return: 1, 0 or a negative errno, as tree_event_shown().
 */
int tree_view_shown(const struct tdatfs_tree *t, const struct tree_node *n)
{
	if (n->u.view.what == TDATFS_VIEW_WINDOW ||
	    n->u.view.what == TDATFS_VIEW_TIMELINE ||
	    n->u.view.what == TDATFS_VIEW_PFTRACE)
		return 1;
	return tree_event_shown(t, n->u.view.buffer, n->u.view.event);
}

/* The engine's view of node @n; false for a window not in the table. */
static bool view_of(const struct tdatfs_tree *t, const struct tree_node *n,
		    struct tdatfs_text_view *v)
{
	memset(v, 0, sizeof(*v));
	v->kind = n->u.view.what;
	v->buffer = n->u.view.buffer;
	v->cpu = -1;
	if (v->kind != TDATFS_VIEW_WINDOW && v->kind != TDATFS_VIEW_TIMELINE &&
	    v->kind != TDATFS_VIEW_PFTRACE) {
		v->event = n->u.view.event;
		return true;
	}
	if (v->kind != TDATFS_VIEW_WINDOW && n->u.view.window == TREE_WHOLE)
		return true;	/* the whole buffer: t0 = t1 = 0 */
	if (v->kind == TDATFS_VIEW_WINDOW)
		v->cpu = n->u.view.cpu;
	return tree_window_times(t, n->u.view.window, &v->t0, &v->t1);
}

/**
 * tree_view_size() - the size operation of TREE_VIEW
 * @t: tree
 * @n: the view's node
 * @size: set to the view's exact size
 *
 * Return: 0 or the engine's negative errno (tdatfs_text_view_size()).
 */
int tree_view_size(struct tdatfs_tree *t, const struct tree_node *n,
		   uint64_t *size)
{
	struct tdatfs_text_view v;

	*size = 0;
	if (!view_of(t, n, &v))
		return -ENOENT;
	return tdatfs_text_view_size(t->text, &v, size);
}

/**
 * tree_view_read() - the read operation of TREE_VIEW
 * @t: tree
 * @n: the view's node
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the view
 *
 * Return: bytes read, or the engine's negative errno.
 */
ssize_t tree_view_read(struct tdatfs_tree *t, const struct tree_node *n,
		       void *buf, size_t len, uint64_t off)
{
	struct tdatfs_text_view v;

	if (!view_of(t, n, &v))
		return -ENOENT;
	return tdatfs_text_view_read(t->text, &v, buf, len, off);
}

/**
 * tree_read_mem() - a read from bytes in memory
 * @data: the bytes
 * @size: their count
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in @data
 *
 * Return: bytes copied (0 at or past the end).
 */
ssize_t tree_read_mem(const char *data, uint64_t size, void *buf, size_t len,
		      uint64_t off)
{
	if (off >= size)
		return 0;
	if (len > size - off)
		len = size - off;
	memcpy(buf, data + off, len);
	return len;
}

/**
 * tree_buf_lazy() - where a buffer's summary.tsv or time/README is kept
 * @t: tree
 * @n: a TREE_SUMMARY or TREE_TIME_README node
 *
 * Return: its lazy text, or NULL for a buffer out of range.
 */
struct tree_lazy *tree_buf_lazy(struct tdatfs_tree *t, const struct tree_node *n)
{
	struct tree_buf *b;

	if (n->u.view.buffer >= t->nbufs)
		return NULL;
	b = &t->bufs[n->u.view.buffer];
	return n->kind == TREE_SUMMARY ? &b->summary : &b->readme;
}

/**
 * tree_buf_render() - make a buffer's summary.tsv or time/README
 * @t: tree
 * @n: a TREE_SUMMARY or TREE_TIME_README node
 * @len: set to its length
 *
 * Return: a malloc'd text (render_summary(), render_time_readme()), or
 * NULL with errno set.
 */
char *tree_buf_render(struct tdatfs_tree *t, const struct tree_node *n,
		      size_t *len)
{
	if (n->kind == TREE_SUMMARY)
		return render_summary(t->f, t->text, n->u.view.buffer, len);
	return render_time_readme(t->text, n->u.view.buffer, len);
}

/**
 * tree_bufs_free() - free the per-buffer table of the views
 * @t: tree; its table may be NULL
 */
void tree_bufs_free(struct tdatfs_tree *t)
{
	size_t b;

	for (b = 0; t->bufs && b < t->nbufs; b++) {
		free(t->bufs[b].cpu_name);
		free(t->bufs[b].cpu);
		free(t->bufs[b].summary.text);
		free(t->bufs[b].readme.text);
	}
	free(t->bufs);
	t->bufs = NULL;
}
