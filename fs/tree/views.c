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
 * An event's views exist when the buffer has records of it, its
 * fields.tsv only when the engine has its format too: the records of an
 * event whose format libtraceevent could not parse have no fields (they
 * print as [UNKNOWN EVENT] in its trace), and a file listed must read to
 * its size.  A window's traces, the timelines and trace.pftrace always
 * exist (they may be empty).
 *
 * Return: 1, 0 or a negative errno, as tree_event_shown().
 */
int tree_view_shown(const struct tdatfs_tree *t, const struct tree_node *n)
{
	int ret;

	if (n->u.view.what == TDATFS_VIEW_WINDOW ||
	    n->u.view.what == TDATFS_VIEW_TIMELINE ||
	    n->u.view.what == TDATFS_VIEW_PFTRACE)
		return 1;
	ret = tree_event_shown(t, n->u.view.buffer, n->u.view.event);
	if (ret != 1 || n->u.view.what != TDATFS_VIEW_FIELDS)
		return ret;
	return tdatfs_text_event_has_fields(t->text, n->u.view.event);
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

/* ---- an instance's events/, mirrored from the root's ---------------------- */

/* Inodes of one buffer's mirror block. */
static uint64_t mirror_span(const struct tdatfs_tree *t)
{
	return (uint64_t)TREE_MIRROR_SLOTS * (t->ev_hi - t->ev_lo);
}

/**
 * tree_mirror_inodes() - inodes the instances' mirrored events/ take
 * @t: tree, its static nodes and @bufs complete
 *
 * Return: a block per buffer when an instance has an events/, else 0.
 */
uint64_t tree_mirror_inodes(const struct tdatfs_tree *t)
{
	size_t b;

	for (b = 0; b < t->nbufs; b++)
		if (t->bufs[b].events)
			return (uint64_t)t->nbufs * mirror_span(t);
	return 0;
}

/* Whether root node @r is an events/SYSTEM/ directory. */
static bool is_root_system(const struct tdatfs_tree *t, uint32_t r)
{
	return r >= t->ev_lo && r < t->ev_hi && t->nodes[r].kind == TREE_DIR &&
	       t->nodes[r].parent == t->events;
}

/* Whether root node @r is an events/SYSTEM/EVENT/ directory. */
static bool is_root_event(const struct tdatfs_tree *t, uint32_t r)
{
	return r >= t->ev_lo && r < t->ev_hi && t->nodes[r].kind == TREE_DIR &&
	       is_root_system(t, t->nodes[r].parent);
}

/* The inode of slot @k of root node @r mirrored for buffer @b. */
static uint64_t mirror_ino(const struct tdatfs_tree *t, uint32_t b,
			   uint32_t r, unsigned int k)
{
	return TDATFS_TREE_ROOT + (uint64_t)t->n + b * mirror_span(t) +
	       (uint64_t)(r - t->ev_lo) * TREE_MIRROR_SLOTS + k;
}

/* The buffer, root node and slot of a mirrored inode; false for another. */
static bool mirror_of(const struct tdatfs_tree *t, uint64_t ino, uint32_t *b,
		      uint32_t *r, unsigned int *k)
{
	uint64_t first = TDATFS_TREE_ROOT + (uint64_t)t->n, off;

	if (ino < first || ino >= t->win_first || !mirror_span(t))
		return false;
	off = ino - first;
	*b = off / mirror_span(t);
	off %= mirror_span(t);
	*r = t->ev_lo + off / TREE_MIRROR_SLOTS;
	*k = off % TREE_MIRROR_SLOTS;
	if (*b >= t->nbufs || !t->bufs[*b].events)
		return false;
	return *k ? is_root_event(t, *r) :
	       is_root_system(t, *r) || is_root_event(t, *r);
}

/* The id of the event of root events/SYSTEM/EVENT/ @r (its format's). */
static int root_event_id(const struct tdatfs_tree *t, uint32_t r)
{
	const struct tree_node *d = &t->nodes[r];
	uint32_t i;

	for (i = 0; i < d->u.dir.nkids; i++) {
		const struct tree_node *k = &t->nodes[d->u.dir.kids[i]];

		if (k->kind == TREE_EVENT)
			return tdat_event_get(t->f, k->u.event.event)->id;
	}
	return -1;
}

/**
 * tree_mirror_node() - the node of an inode of an instance's events/
 * @t: tree
 * @ino: an inode past the static nodes
 * @n: filled in: a TREE_MIRROR directory or a TREE_VIEW of an event; its
 *	name lives as long as the tree, its parent member is not set
 *	(tree_mirror_parent() gives the parent)
 *
 * Return: false for an inode no instance's events/ holds.
 * Context: thread-safe, takes no lock.
 */
bool tree_mirror_node(const struct tdatfs_tree *t, uint64_t ino,
		      struct tree_node *n)
{
	uint32_t b, r;
	unsigned int k;

	if (!mirror_of(t, ino, &b, &r, &k))
		return false;
	memset(n, 0, sizeof(*n));
	if (!k) {
		n->kind = TREE_MIRROR;
		n->name = t->nodes[r].name;
		n->u.mirror.buffer = b;
		n->u.mirror.root = r;
		return true;
	}
	n->kind = TREE_VIEW;
	n->name = (char *)(k == 1 ? "trace" : "fields.tsv");
	n->u.view.buffer = b;
	n->u.view.event = root_event_id(t, r);
	n->u.view.what = k == 1 ? TDATFS_VIEW_EVENT : TDATFS_VIEW_FIELDS;
	return true;
}

/**
 * tree_mirror_parent() - the parent of an inode of an instance's events/
 * @t: tree
 * @ino: the inode
 *
 * Return: the parent's inode (the instance's events/ for a SYSTEM/), or
 * 0 for an inode no instance's events/ holds.
 */
uint64_t tree_mirror_parent(const struct tdatfs_tree *t, uint64_t ino)
{
	uint32_t b, r;
	unsigned int k;

	if (!mirror_of(t, ino, &b, &r, &k))
		return 0;
	if (k)
		return mirror_ino(t, b, r, 0);
	if (is_root_system(t, r))
		return (uint64_t)t->bufs[b].events + TDATFS_TREE_ROOT;
	return mirror_ino(t, b, t->nodes[r].parent, 0);
}

/**
 * tree_mirror_find() - a directory of an instance's events/ by name
 * @t: tree
 * @buffer: the instance's buffer
 * @dir: the root directory whose kid is looked for: the root's events/
 *	(for a SYSTEM/) or an events/SYSTEM/ (for an EVENT/)
 * @name: the name, @len bytes (not NUL-terminated)
 * @len: its length
 * @ino: set to the mirrored directory's inode
 *
 * Return: 0, or -ENOENT when @dir has no such SYSTEM/ or EVENT/.
 */
int tree_mirror_find(const struct tdatfs_tree *t, uint32_t buffer,
		     uint32_t dir, const char *name, size_t len, uint64_t *ino)
{
	long k = tree_kid_find(t, &t->nodes[dir], name, len);

	if (k < 0 || !(dir == t->events ? is_root_system(t, k) :
		       is_root_event(t, k)))
		return -ENOENT;
	*ino = mirror_ino(t, buffer, k, 0);
	return 0;
}

/*
 * Whether mirrored directory @r of buffer @b is shown: an EVENT/ when the
 * buffer has records of it, a SYSTEM/ when one of its EVENT/ is; when
 * none is, the first error met in asking (when there was one).
 */
static int mirror_shown(const struct tdatfs_tree *t, uint32_t b, uint32_t r)
{
	const struct tree_node *d = &t->nodes[r];
	uint32_t i;
	int err = 0;

	if (is_root_event(t, r))
		return tree_event_shown(t, b, root_event_id(t, r));
	for (i = 0; i < d->u.dir.nkids; i++) {
		int s;

		if (!is_root_event(t, d->u.dir.kids[i]))
			continue;
		s = mirror_shown(t, b, d->u.dir.kids[i]);
		if (s == 1)
			return 1;
		if (s < 0 && !err)
			err = s;
	}
	return err;
}

/**
 * tree_mirror_shown() - the shown operation of TREE_MIRROR
 * @t: tree
 * @n: the directory's node
 *
 * Return: 1, 0 or a negative errno, as tree_event_shown().
 */
int tree_mirror_shown(const struct tdatfs_tree *t, const struct tree_node *n)
{
	return mirror_shown(t, n->u.mirror.buffer, n->u.mirror.root);
}

/**
 * tree_mirror_child() - the child operation of TREE_MIRROR
 * @t: tree
 * @n: the directory's node
 * @name: the child's name, @len bytes
 * @len: its length
 * @ino: set to the child's inode, shown or not
 *
 * Return: 0 or -ENOENT.
 */
int tree_mirror_child(const struct tdatfs_tree *t, const struct tree_node *n,
		      const char *name, size_t len, uint64_t *ino)
{
	uint32_t b = n->u.mirror.buffer, r = n->u.mirror.root;

	if (!is_root_event(t, r))
		return tree_mirror_find(t, b, r, name, len, ino);
	if (len == 5 && !memcmp(name, "trace", 5))
		*ino = mirror_ino(t, b, r, 1);
	else if (len == 10 && !memcmp(name, "fields.tsv", 10))
		*ino = mirror_ino(t, b, r, 2);
	else
		return -ENOENT;
	return 0;
}

/**
 * tree_mirror_subdirs() - subdirectories of a TREE_MIRROR directory
 * @t: tree
 * @n: the directory's node
 *
 * Return: a SYSTEM/'s EVENT/ directories (shown or not, as a static
 * directory counts its kids), 0 for an EVENT/.
 */
uint32_t tree_mirror_subdirs(const struct tdatfs_tree *t,
			     const struct tree_node *n)
{
	uint32_t r = n->u.mirror.root;

	return is_root_event(t, r) ? 0 : t->nodes[r].u.dir.ndirs;
}

/*
 * Fills @fill with the shown mirrored kids of root directory @dir for
 * buffer @b whose names sort from @from (inclusive, NULL: the first) to
 * @to (exclusive, NULL: the last), from kid @*i on; @*i is left at the
 * first kid not filled.
 */
static int mirror_fill(const struct tdatfs_tree *t, uint32_t b, uint32_t dir,
		       const char *to, uint32_t *i, tdatfs_tree_filler fill,
		       void *ctx)
{
	const struct tree_node *d = &t->nodes[dir];
	int ret;

	for (; *i < d->u.dir.nkids; (*i)++) {
		uint32_t k = d->u.dir.kids[*i];

		if (to && strcmp(t->nodes[k].name, to) >= 0)
			break;
		if (!(dir == t->events ? is_root_system(t, k) :
		      is_root_event(t, k)) || mirror_shown(t, b, k) != 1)
			continue;
		ret = fill(ctx, t->nodes[k].name, mirror_ino(t, b, k, 0), true);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * tree_mirror_list() - the list operation of TREE_MIRROR
 * @t: tree
 * @n: the directory's node
 * @fill: called per shown child, in name order
 * @ctx: passed to @fill
 *
 * Return: 0, or what @fill returned to stop.
 */
int tree_mirror_list(const struct tdatfs_tree *t, const struct tree_node *n,
		     tdatfs_tree_filler fill, void *ctx)
{
	uint32_t b = n->u.mirror.buffer, r = n->u.mirror.root, i = 0;
	int ret;

	if (!is_root_event(t, r))
		return mirror_fill(t, b, r, NULL, &i, fill, ctx);
	ret = tree_event_shown(t, b, root_event_id(t, r));
	if (ret != 1)
		return 0;
	ret = fill(ctx, "fields.tsv", mirror_ino(t, b, r, 2), false);
	return ret ? ret : fill(ctx, "trace", mirror_ino(t, b, r, 1), false);
}

/**
 * tree_ievents_list() - the list operation of TREE_IEVENTS
 * @t: tree
 * @n: an instance's events/
 * @fill: called per shown child, in name order: its own files and the
 *	mirrored SYSTEM/ directories merged
 * @ctx: passed to @fill
 *
 * Return: 0, or what @fill returned to stop.
 */
int tree_ievents_list(const struct tdatfs_tree *t, const struct tree_node *n,
		      tdatfs_tree_filler fill, void *ctx)
{
	uint32_t b = n->u.dir.buffer, i = 0, j;
	int ret;

	for (j = 0; j < n->u.dir.nkids; j++) {
		const struct tree_node *k = &t->nodes[n->u.dir.kids[j]];

		/* its own files are summary.tsv alone: always shown */
		ret = mirror_fill(t, b, t->events, k->name, &i, fill, ctx);
		if (!ret)
			ret = fill(ctx, k->name,
				   (uint64_t)n->u.dir.kids[j] + TDATFS_TREE_ROOT,
				   false);
		if (ret)
			return ret;
	}
	return mirror_fill(t, b, t->events, NULL, &i, fill, ctx);
}
