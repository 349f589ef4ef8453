/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/windows.c - the time windows of SPEC 2.6: time/T0-T1/ with
 * its trace, timeline.svg, trace.pftrace and per_cpu/cpuN/trace, made
 * when a name is looked up.
 *
 * The table holds one entry per window name looked up in a time/
 * directory (at most TREE_WIN_MAX); window w owns the inodes
 * base + w * win_slots ... base + (w + 1) * win_slots - 1, base being the
 * first inode past the static nodes and the instances' mirrored events/
 * (t->win_first).  Its nodes are not stored: they are
 * made from the entry and the slot (tree_window_node()).  Entries live
 * in chunks that never move and are published by a count stored with
 * release order, so turning an inode into its node takes no lock; only
 * adding a window (and the name index it goes through) takes the table's
 * lock.  A window is never removed nor its inodes reused: the kernel may
 * keep a name's inode as long as it likes (fuse/ops.h), so once the
 * table is full a new name is ENOSPC, never another window's inodes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "internal.h"

#define WIN_CHUNK	256	/* entries per chunk */

struct tree_window {
	char *name;		/* "T0-T1", as looked up */
	uint32_t buffer;
	uint32_t dir;		/* index of the time/ it was looked up in */
	uint64_t t0, t1;	/* tdatfs_text_time_parse() of T0 and T1 */
};

struct tree_windows {
	pthread_mutex_t lock;	/* adding; @slots */
	struct tree_window *chunk[TREE_WIN_MAX / WIN_CHUNK];
	_Atomic uint32_t count;	/* entries published */
	uint32_t *slots;	/* name index: entry + 1; 0 empty */
	size_t nslots;		/* a power of two, or 0 */
};

/**
 * tree_windows_new() - set up the empty window table of a built tree
 * @t: tree, its static nodes and @bufs complete
 *
 * Return: 0 or -ENOMEM.
 */
int tree_windows_new(struct tdatfs_tree *t)
{
	uint32_t most = 0;
	size_t b;

	t->win = calloc(1, sizeof(*t->win));
	if (!t->win)
		return -ENOMEM;
	pthread_mutex_init(&t->win->lock, NULL);
	for (b = 0; b < t->nbufs; b++)
		if (t->bufs[b].ncpus > most)
			most = t->bufs[b].ncpus;
	t->win_slots = TREE_WIN_SLOTS(most);
	return 0;
}

/**
 * tree_windows_free() - free the window table
 * @t: tree; its table may be NULL
 */
void tree_windows_free(struct tdatfs_tree *t)
{
	struct tree_windows *w = t->win;
	uint32_t i, n;

	if (!w)
		return;
	n = atomic_load(&w->count);
	for (i = 0; i < n; i++)
		free(w->chunk[i / WIN_CHUNK][i % WIN_CHUNK].name);
	for (i = 0; i < TREE_WIN_MAX / WIN_CHUNK; i++)
		free(w->chunk[i]);
	free(w->slots);
	pthread_mutex_destroy(&w->lock);
	free(w);
	t->win = NULL;
}

/**
 * tree_windows_count() - windows made so far
 * @t: tree
 *
 * Return: the count.
 */
uint64_t tree_windows_count(const struct tdatfs_tree *t)
{
	return t->win ? atomic_load_explicit(&t->win->count,
					     memory_order_acquire) : 0;
}

/* Entry @i, published. */
static const struct tree_window *win_get(const struct tdatfs_tree *t,
					 uint32_t i)
{
	return &t->win->chunk[i / WIN_CHUNK][i % WIN_CHUNK];
}

/* First inode of window @i's block. */
static uint64_t win_base(const struct tdatfs_tree *t, uint32_t i)
{
	return t->win_first + (uint64_t)i * t->win_slots;
}

/**
 * tree_window_times() - the bounds of a window
 * @t: tree
 * @window: its index
 * @t0: set to its first time
 * @t1: set to its first time past it
 *
 * Return: false for an index not in the table.
 */
bool tree_window_times(const struct tdatfs_tree *t, uint32_t window,
		       uint64_t *t0, uint64_t *t1)
{
	const struct tree_window *w;

	if (window >= tree_windows_count(t))
		return false;
	w = win_get(t, window);
	*t0 = w->t0;
	*t1 = w->t1;
	return true;
}

/*
 * The bounds a window name gives: T0 up to the '-', T1 to the end, both
 * as tdatfs_text_time_parse() takes them, T1 > T0.  Return: 0, -ENOENT
 * for a name that is not a window, or the parser's other errors.
 */
static int win_parse(const struct tdatfs_tree *t, const char *name,
		     uint64_t *t0, uint64_t *t1)
{
	const char *end;
	int ret;

	ret = tdatfs_text_time_parse(t->text, name, &end, t0);
	if (!ret && *end != '-')
		ret = -EINVAL;
	if (!ret)
		ret = tdatfs_text_time_parse(t->text, end + 1, &end, t1);
	if (!ret && (*end || *t1 <= *t0))
		ret = -EINVAL;
	return ret == -EINVAL ? -ENOENT : ret;
}

/* The entry named @name in time/ @dir, or -1; under the lock. */
static long win_index_find(const struct tree_windows *w,
			   const struct tdatfs_tree *t, uint32_t dir,
			   const char *name, size_t h)
{
	if (!w->nslots)
		return -1;
	for (;; h++) {
		uint32_t s = w->slots[h & (w->nslots - 1)];
		const struct tree_window *e;

		if (!s)
			return -1;
		e = win_get(t, s - 1);
		if (e->dir == dir && !strcmp(e->name, name))
			return s - 1;
	}
}

/* Room in the name index for one more entry (kept at most half full). */
static int win_index_grow(struct tree_windows *w, const struct tdatfs_tree *t,
			  uint32_t count)
{
	size_t i, n;
	uint32_t *s;

	if ((size_t)(count + 1) * 2 <= w->nslots)
		return 0;
	n = w->nslots ? w->nslots * 2 : 64;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		const struct tree_window *e = win_get(t, i);
		size_t h = tree_name_hash(e->dir, e->name, strlen(e->name));

		while (s[h & (n - 1)])
			h++;
		s[h & (n - 1)] = i + 1;
	}
	free(w->slots);
	w->slots = s;
	w->nslots = n;
	return 0;
}

/* A new entry @count (the lock held, room in the index made). */
static int win_add(struct tree_windows *w, uint32_t count,
		   const struct tree_window *e, size_t h)
{
	struct tree_window **c = &w->chunk[count / WIN_CHUNK];

	if (!*c) {
		*c = calloc(WIN_CHUNK, sizeof(**c));
		if (!*c)
			return -ENOMEM;
	}
	(*c)[count % WIN_CHUNK] = *e;
	while (w->slots[h & (w->nslots - 1)])
		h++;
	w->slots[h & (w->nslots - 1)] = count + 1;
	atomic_store_explicit(&w->count, count + 1, memory_order_release);
	return 0;
}

/**
 * tree_window_find() - the window a name in a time/ directory names
 * @t: tree
 * @dir: the time/ directory (TREE_TIME)
 * @dir_idx: its index
 * @name: the name looked up, @len bytes (not NUL-terminated)
 * @len: its length
 * @ino: set to the window directory's inode
 *
 * The same name in the same directory always gives the same window; a
 * new valid name makes one.
 *
 * Return: 0, -ENOENT for a name that is not T0-T1 with T1 > T0 (or is
 * longer than TREE_NAME_MAX), -ENOSPC when TREE_WIN_MAX windows exist,
 * -ENOMEM, or another error of tdatfs_text_time_parse().
 * Context: thread-safe; takes the table's lock to add.
 */
int tree_window_find(const struct tdatfs_tree *t, const struct tree_node *dir,
		     uint32_t dir_idx, const char *name, size_t len,
		     uint64_t *ino)
{
	struct tree_window e = { .buffer = dir->u.dir.buffer, .dir = dir_idx };
	struct tree_windows *w = t->win;
	char s[TREE_NAME_MAX + 1];
	uint32_t count;
	size_t h;
	long i;
	int ret;

	if (!w || len > TREE_NAME_MAX || e.buffer >= t->nbufs)
		return -ENOENT;
	memcpy(s, name, len);
	s[len] = '\0';
	ret = win_parse(t, s, &e.t0, &e.t1);
	if (ret)
		return ret;
	h = tree_name_hash(dir_idx, s, len);
	pthread_mutex_lock(&w->lock);
	count = atomic_load_explicit(&w->count, memory_order_relaxed);
	i = win_index_find(w, t, dir_idx, s, h);
	if (i < 0 && count >= TREE_WIN_MAX)
		ret = -ENOSPC;
	else if (i < 0 && (ret = win_index_grow(w, t, count)) == 0) {
		e.name = strdup(s);
		ret = e.name ? win_add(w, count, &e, h) : -ENOMEM;
		if (ret)
			free(e.name);
		i = count;
	}
	pthread_mutex_unlock(&w->lock);
	if (!ret)
		*ino = win_base(t, i);
	return ret;
}

/*
 * The window and slot of inode @ino, and the window's entry; false for
 * an inode no window holds.
 */
static bool win_of(const struct tdatfs_tree *t, uint64_t ino, uint32_t *wi,
		   uint32_t *slot, const struct tree_window **e)
{
	uint64_t base = win_base(t, 0), off;

	if (!t->win || ino < base)
		return false;
	off = ino - base;
	if (off / t->win_slots >= tree_windows_count(t))
		return false;
	*wi = off / t->win_slots;
	*slot = off % t->win_slots;
	*e = win_get(t, *wi);
	return *slot < TREE_WIN_SLOTS(t->bufs[(*e)->buffer].ncpus);
}

/**
 * tree_window_node() - the node of an inode of a window
 * @t: tree
 * @ino: an inode past the static nodes
 * @n: filled in: a TREE_WINDOW directory or a TREE_VIEW trace; its name
 *	lives as long as the tree, its parent member is the time/ directory
 *	(tree_window_parent() gives the real parent)
 *
 * Return: false for an inode no window holds.
 * Context: thread-safe, takes no lock.
 */
bool tree_window_node(const struct tdatfs_tree *t, uint64_t ino,
		      struct tree_node *n)
{
	const struct tree_window *e;
	const struct tree_buf *b;
	uint32_t w, slot;

	if (!win_of(t, ino, &w, &slot, &e))
		return false;
	b = &t->bufs[e->buffer];
	memset(n, 0, sizeof(*n));
	n->parent = e->dir;
	if (slot == TREE_WIN_PIC(b->ncpus)) {
		n->kind = TREE_VIEW;
		n->name = (char *)"timeline.svg";
		n->u.view.what = TDATFS_VIEW_TIMELINE;
		n->u.view.buffer = e->buffer;
		n->u.view.window = w;
		n->u.view.cpu = -1;
		return true;
	}
	if (slot == TREE_WIN_PF(b->ncpus)) {
		n->kind = TREE_VIEW;
		n->name = (char *)"trace.pftrace";
		n->u.view.what = TDATFS_VIEW_PFTRACE;
		n->u.view.buffer = e->buffer;
		n->u.view.window = w;
		n->u.view.cpu = -1;
		return true;
	}
	if (slot == 2 || (slot > 2 && slot % 2 == 0)) {
		n->kind = TREE_VIEW;
		n->name = (char *)"trace";
		n->u.view.what = TDATFS_VIEW_WINDOW;
		n->u.view.buffer = e->buffer;
		n->u.view.window = w;
		n->u.view.cpu = slot == 2 ? -1 : (int32_t)b->cpu[(slot - 4) / 2];
		return true;
	}
	n->kind = TREE_WINDOW;
	n->u.win.window = w;
	n->u.win.slot = slot;
	if (slot == 0)
		n->name = e->name;
	else if (slot == 1)
		n->name = (char *)"per_cpu";
	else
		n->name = (char *)b->cpu_name[(slot - 3) / 2];
	return true;
}

/**
 * tree_window_parent() - the parent of an inode of a window
 * @t: tree
 * @ino: the inode
 *
 * Return: the parent's inode (the time/ directory for a window's own),
 * or 0 for an inode no window holds.
 */
uint64_t tree_window_parent(const struct tdatfs_tree *t, uint64_t ino)
{
	const struct tree_window *e;
	uint32_t w, slot;

	if (!win_of(t, ino, &w, &slot, &e))
		return 0;
	if (slot == 0)
		return (uint64_t)e->dir + TDATFS_TREE_ROOT;
	if (slot <= 2 || slot == TREE_WIN_PIC(t->bufs[e->buffer].ncpus) ||
	    slot == TREE_WIN_PF(t->bufs[e->buffer].ncpus))
		return win_base(t, w);
	if (slot % 2)
		return win_base(t, w) + 1;
	return ino - 1;
}

/**
 * tree_window_subdirs() - subdirectories of a window's directory
 * @t: tree
 * @n: a TREE_WINDOW node
 *
 * Return: 1 for the window (per_cpu/), the CPU count for per_cpu/, 0 for
 * a cpuN/.
 */
uint32_t tree_window_subdirs(const struct tdatfs_tree *t,
			     const struct tree_node *n)
{
	const struct tree_window *e = win_get(t, n->u.win.window);

	if (n->u.win.slot == 0)
		return 1;
	return n->u.win.slot == 1 ? t->bufs[e->buffer].ncpus : 0;
}

/* Calls @fn on each child of window directory @n (name, inode, is_dir)
 * until it returns non-zero; returns that. */
static int win_kids(const struct tdatfs_tree *t, const struct tree_node *n,
		    int (*fn)(void *ctx, const char *name, uint64_t ino,
			      bool is_dir), void *ctx)
{
	const struct tree_window *e = win_get(t, n->u.win.window);
	const struct tree_buf *b = &t->bufs[e->buffer];
	uint64_t base = win_base(t, n->u.win.window);
	uint32_t k;
	int ret;

	if (n->u.win.slot == 0) {
		ret = fn(ctx, "per_cpu", base + 1, true);
		if (!ret)
			ret = fn(ctx, "timeline.svg", base + TREE_WIN_PIC(b->ncpus),
				 false);
		if (!ret)
			ret = fn(ctx, "trace", base + 2, false);
		return ret ? ret : fn(ctx, "trace.pftrace",
				      base + TREE_WIN_PF(b->ncpus), false);
	}
	if (n->u.win.slot > 1)
		return fn(ctx, "trace", base + n->u.win.slot + 1, false);
	for (k = 0; k < b->ncpus; k++) {
		ret = fn(ctx, b->cpu_name[k], base + 3 + 2 * (uint64_t)k, true);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * tree_window_list() - list a window's directory
 * @t: tree
 * @n: a TREE_WINDOW node
 * @fill: called per child, in name order
 * @ctx: passed to @fill
 *
 * Return: 0, or what @fill returned to stop.
 */
int tree_window_list(const struct tdatfs_tree *t, const struct tree_node *n,
		     tdatfs_tree_filler fill, void *ctx)
{
	return win_kids(t, n, fill, ctx);
}

/* What tree_window_child() looks for, and what it found. */
struct win_want {
	const char *name;
	size_t len;
	uint64_t ino;
};

static int win_match(void *ctx, const char *name, uint64_t ino, bool is_dir)
{
	struct win_want *w = ctx;

	(void)is_dir;
	if (strlen(name) != w->len || memcmp(name, w->name, w->len))
		return 0;
	w->ino = ino;
	return 1;
}

/**
 * tree_window_child() - one child of a window's directory
 * @t: tree
 * @n: a TREE_WINDOW node
 * @name: the child's name, @len bytes
 * @len: its length
 * @ino: set to the child's inode
 *
 * Return: 0 or -ENOENT.
 */
int tree_window_child(const struct tdatfs_tree *t, const struct tree_node *n,
		      const char *name, size_t len, uint64_t *ino)
{
	struct win_want w = { .name = name, .len = len };

	if (win_kids(t, n, win_match, &w) != 1)
		return -ENOENT;
	*ino = w.ino;
	return 0;
}
