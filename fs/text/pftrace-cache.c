/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-cache.c - the trace.pftrace files an engine made
 * (text/pftrace-cache.h): each made once by one thread while the others
 * asking for it wait, kept while the bound allows and in use.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "engine.h"
#include "pftrace-cache.h"
#include "pftrace-file.h"

/*
 * Files kept, at most, and their tables' bytes: a whole buffer's table
 * is 16 bytes a page (1.2 MiB for a 300 MB buffer), a window's a few.
 */
#define PF_FILES	256
#define PF_BYTES	(32u << 20)

struct pf_slot {
	size_t buffer;
	uint64_t t0, t1;
	struct text_pf_file *pf;	/* NULL while being made */
	size_t mem;
	unsigned int refs;
	uint64_t used;
};

struct text_pf_cache {
	pthread_mutex_t lock;
	pthread_cond_t made;
	struct tdat_file *f;		/* set by the first file kept */
	struct pf_slot *s;
	size_t n;
	size_t mem;			/* charged to @f's chunk cache */
	uint64_t tick;
	/* whole buffers' sizes an index kept, and their layouts until
	 * their file is made (text_pf_file_load()) */
	struct pf_kept {
		size_t buffer;
		uint64_t size;
		void *layout;
		size_t llen;
	} *kept;
	size_t nkept;
};

/**
 * text_pf_cache_new() - an empty cache
 *
 * Return: the cache (free with text_pf_cache_free()), or NULL with errno set.
 */
struct text_pf_cache *text_pf_cache_new(void)
{
	struct text_pf_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = calloc(PF_FILES, sizeof(*c->s));
	if (!c->s) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->made, NULL);
	return c;
}

/**
 * text_pf_cache_free() - free a cache and its files; NULL is fine
 * @c: cache, none of its files held
 */
void text_pf_cache_free(struct text_pf_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		text_pf_file_free(c->s[i].pf);
	tdat_cache_charge(c->f, c->mem, true);
	pthread_cond_destroy(&c->made);
	pthread_mutex_destroy(&c->lock);
	for (i = 0; i < c->nkept; i++) {
		if (c->kept[i].layout)
			tdat_cache_charge(c->f, c->kept[i].llen, true);
		free(c->kept[i].layout);
	}
	free(c->kept);
	free(c->s);
	free(c);
}

/* The slot of a file, or NULL (lock held). */
static struct pf_slot *slot_find(struct text_pf_cache *c, size_t buffer,
				 uint64_t t0, uint64_t t1)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->s[i].buffer == buffer && c->s[i].t0 == t0 &&
		    c->s[i].t1 == t1)
			return &c->s[i];
	return NULL;
}

/* Forget slot @k: its file freed (lock held, not in use). */
static void slot_drop(struct text_pf_cache *c, struct pf_slot *k)
{
	text_pf_file_free(k->pf);
	c->mem -= k->mem;
	tdat_cache_charge(c->f, k->mem, true);
	*k = c->s[--c->n];
}

/* Room for a file of @mem bytes: the least recently used ones not in
 * use forgotten past the bounds (lock held).  false: all in use. */
static bool room(struct text_pf_cache *c, size_t mem)
{
	while (c->n >= PF_FILES || (c->n && c->mem + mem > PF_BYTES)) {
		struct pf_slot *lru = NULL;
		size_t i;

		for (i = 0; i < c->n; i++)
			if (c->s[i].pf && !c->s[i].refs &&
			    (!lru || c->s[i].used < lru->used))
				lru = &c->s[i];
		if (!lru)
			return c->n < PF_FILES;
		slot_drop(c, lru);
	}
	return true;
}

/* The kept size of buffer @buffer's whole file, or NULL (lock held). */
static struct pf_kept *kept_find(struct text_pf_cache *c, size_t buffer)
{
	size_t i;

	for (i = 0; i < c->nkept; i++)
		if (c->kept[i].buffer == buffer)
			return &c->kept[i];
	return NULL;
}

/*
 * A whole buffer's file from its kept layout, if it has one (lock held,
 * dropped meanwhile; only the maker of the buffer's slot uses it, so it
 * stays).  The layout is let go once used or refused: a refused one
 * leaves the pass to make the file.  Return: 0 with *@pf set or NULL.
 */
static int layout_load(struct text_pf_cache *c, struct tdatfs_text *t,
		       size_t buffer, struct text_pf_file **pf)
{
	struct pf_kept *kp = kept_find(c, buffer);
	void *layout = kp ? kp->layout : NULL;
	size_t llen = kp ? kp->llen : 0;
	uint64_t size = kp ? kp->size : 0;
	int ret;

	*pf = NULL;
	if (!layout)
		return 0;
	pthread_mutex_unlock(&c->lock);
	ret = text_pf_file_load(t, buffer, layout, llen, size, pf);
	pthread_mutex_lock(&c->lock);
	if (ret == -ENOMEM)
		return ret;
	kp = kept_find(c, buffer);
	kp->layout = NULL;
	kp->llen = 0;
	free(layout);
	tdat_cache_charge(c->f, llen, true);
	return 0;
}

/* Make the file of @k, then keep it or wake the waiters (lock held). */
static int slot_make(struct text_pf_cache *c, struct tdatfs_text *t,
		     struct pf_slot *k, struct text_pf_file **out)
{
	size_t buffer = k->buffer;
	uint64_t t0 = k->t0, t1 = k->t1;
	struct text_pf_file *pf = NULL;
	int ret = t1 ? 0 : layout_load(c, t, buffer, &pf);

	pthread_mutex_unlock(&c->lock);
	if (!ret && !pf)
		ret = text_pf_file_make(t, buffer, t0, t1, &pf);
	pthread_mutex_lock(&c->lock);
	/* slots move when one is dropped: find ours again */
	k = slot_find(c, buffer, t0, t1);
	if (ret < 0) {
		*k = c->s[--c->n];
		pthread_cond_broadcast(&c->made);
		return ret;
	}
	k->pf = pf;
	k->mem = text_pf_file_mem(pf);
	k->refs = 1;
	k->used = ++c->tick;
	c->f = text_engine_file(t);
	c->mem += k->mem;
	tdat_cache_charge(c->f, k->mem, false);
	pthread_cond_broadcast(&c->made);
	*out = pf;
	return 0;
}

/**
 * text_pf_cache_get() - a file, made if need be, held
 * @c: cache
 * @t: the engine the cache is of
 * @buffer: as text_pf_file_make()
 * @t0: likewise
 * @t1: likewise
 * @out: set to the file, held until text_pf_cache_put()
 *
 * A file being made by another thread is waited for; one whose making
 * failed is made again by the next asker.
 *
 * Return: 0 or text_pf_file_make()'s negative errno; -ENOMEM when every
 * kept file is in use and the table is full.
 * Context: thread-safe.
 */
int text_pf_cache_get(struct text_pf_cache *c, struct tdatfs_text *t,
		      size_t buffer, uint64_t t0, uint64_t t1,
		      struct text_pf_file **out)
{
	struct pf_slot *k;
	int ret = 0;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		k = slot_find(c, buffer, t0, t1);
		if (!k || k->pf)
			break;
		pthread_cond_wait(&c->made, &c->lock);
	}
	if (k) {
		k->refs++;
		k->used = ++c->tick;
		*out = k->pf;
	} else if (!room(c, 0)) {
		ret = -ENOMEM;
	} else {
		k = &c->s[c->n++];
		memset(k, 0, sizeof(*k));
		k->buffer = buffer;
		k->t0 = t0;
		k->t1 = t1;
		ret = slot_make(c, t, k, out);
		if (!ret)
			room(c, 0);
	}
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/**
 * text_pf_cache_put() - let go of a file text_pf_cache_get() gave
 * @c: cache
 * @pf: the file
 * Context: thread-safe.
 */
void text_pf_cache_put(struct text_pf_cache *c, struct text_pf_file *pf)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->n; i++)
		if (c->s[i].pf == pf && c->s[i].refs)
			c->s[i].refs--;
	room(c, 0);
	pthread_mutex_unlock(&c->lock);
}

/**
 * text_pf_cache_size_keep() - keep the size of a buffer's whole file, made
 * on another mount, so that its stat needs no pass
 * @c: cache
 * @buffer: buffer index
 * @size: the file's size
 *
 * Return: 0, -EINVAL when another size is kept already, or -ENOMEM.
 * Context: thread-safe.
 */
int text_pf_cache_size_keep(struct text_pf_cache *c, size_t buffer,
			    uint64_t size)
{
	struct pf_kept *k;
	int ret = 0;

	pthread_mutex_lock(&c->lock);
	k = kept_find(c, buffer);
	if (k) {
		ret = k->size == size ? 0 : -EINVAL;
	} else {
		k = realloc(c->kept, (c->nkept + 1) * sizeof(*k));
		if (!k) {
			ret = -ENOMEM;
		} else {
			c->kept = k;
			c->kept[c->nkept++] = (struct pf_kept){ buffer, size,
								 NULL, 0 };
		}
	}
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/**
 * text_pf_cache_size_kept() - the kept size of a buffer's whole file
 * @c: cache
 * @buffer: buffer index
 * @size: set to it when kept
 *
 * Return: whether one is kept.
 * Context: thread-safe.
 */
bool text_pf_cache_size_kept(struct text_pf_cache *c, size_t buffer,
			     uint64_t *size)
{
	struct pf_kept *k;

	pthread_mutex_lock(&c->lock);
	k = kept_find(c, buffer);
	if (k)
		*size = k->size;
	pthread_mutex_unlock(&c->lock);
	return k != NULL;
}

/**
 * text_pf_cache_layout_keep() - keep the layout of a buffer's whole file,
 * found on another mount, so that its first read needs no pass
 * @c: cache
 * @t: the engine the cache is of (its file's chunk cache is charged for
 *	the copy until the file is made)
 * @buffer: buffer index, whose size is kept (text_pf_cache_size_keep())
 * @bytes: the layout (text_pf_file_save()); copied
 * @len: its size
 *
 * It is checked when the file is first made (text_pf_file_load()), and
 * the pass makes the file when it is refused then.
 *
 * Return: 0, -EINVAL when no size is kept or the file is made already,
 * or -ENOMEM.
 * Context: thread-safe.
 */
int text_pf_cache_layout_keep(struct text_pf_cache *c, struct tdatfs_text *t,
			      size_t buffer, const void *bytes, size_t len)
{
	struct pf_kept *k;
	void *p = malloc(len ? len : 1);
	int ret = 0;

	if (!p)
		return -ENOMEM;
	memcpy(p, bytes, len);
	pthread_mutex_lock(&c->lock);
	k = kept_find(c, buffer);
	if (!k || k->layout || slot_find(c, buffer, 0, 0)) {
		ret = -EINVAL;
	} else {
		k->layout = p;
		k->llen = len;
		p = NULL;
		/* held until the file is made, perhaps never: the cache
		 * makes room (8.8 MB at 16 times big.dat) */
		c->f = text_engine_file(t);
		tdat_cache_charge(c->f, len, false);
	}
	pthread_mutex_unlock(&c->lock);
	free(p);
	return ret;
}

/**
 * text_pf_cache_layout() - the layout of a buffer's whole file, made if
 * need be
 * @c: cache
 * @t: the engine the cache is of
 * @buffer: buffer index
 * @bytes: set to it (text_pf_file_save(); the caller frees it)
 * @len: set to its size
 *
 * Return: 0 or a negative errno of text_pf_cache_get() or
 * text_pf_file_save().
 * Context: thread-safe.
 */
int text_pf_cache_layout(struct text_pf_cache *c, struct tdatfs_text *t,
			 size_t buffer, void **bytes, size_t *len)
{
	struct text_pf_file *pf;
	int ret = text_pf_cache_get(c, t, buffer, 0, 0, &pf);

	if (ret < 0)
		return ret;
	ret = text_pf_file_save(pf, bytes, len);
	text_pf_cache_put(c, pf);
	return ret;
}
