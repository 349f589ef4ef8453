/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pictures.c - the table of timeline pictures (text/pictures.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-text.h"
#include "pictures.h"

#define PICS_MAX	4096
#define PICS_BYTES	(8u << 20)	/* bytes kept, at most */

/* A picture: its size once known, its bytes while they fit. */
struct pic_entry {
	struct tdatfs_text_view key;
	char *bytes;			/* NULL: not kept */
	size_t len;			/* valid when @sized */
	uint64_t used;
	bool sized;
	bool making;			/* a thread draws it now */
};

struct text_pics {
	pthread_mutex_t lock;
	pthread_cond_t made;		/* a picture's making ended */
	struct pic_entry *e;
	size_t n, cap;
	size_t bytes;			/* charged to @f's chunk cache */
	struct tdat_file *f;		/* set by the first bytes kept */
	uint64_t tick;
};

/**
 * text_pics_new() - an empty table
 *
 * Return: the table (free with text_pics_free()), or NULL with errno set.
 */
struct text_pics *text_pics_new(void)
{
	struct text_pics *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->made, NULL);
	return p;
}

/**
 * text_pics_free() - free a table, giving its bytes back to the cache
 * @p: table, or NULL
 */
void text_pics_free(struct text_pics *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->e[i].bytes);
	tdat_cache_charge(p->f, p->bytes, true);
	free(p->e);
	pthread_cond_destroy(&p->made);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* The entry of @k, or NULL (lock held). */
static struct pic_entry *pic_find(struct text_pics *p,
				  const struct tdatfs_text_view *k)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!memcmp(&p->e[i].key, k, sizeof(*k)))
			return &p->e[i];
	return NULL;
}

/* A new entry for @k, neither sized nor kept (lock held); NULL when the
 * table is full or cannot grow. */
static struct pic_entry *pic_add(struct text_pics *p,
				 const struct tdatfs_text_view *k)
{
	struct pic_entry *e;

	if (p->n >= PICS_MAX)
		return NULL;
	if (p->n == p->cap) {
		size_t c = p->cap ? p->cap * 2 : 16;

		e = realloc(p->e, c * sizeof(*e));
		if (!e)
			return NULL;
		p->e = e;
		p->cap = c;
	}
	e = &p->e[p->n++];
	memset(e, 0, sizeof(*e));
	e->key = *k;
	return e;
}

/* Drop the bytes of the least recently used pictures past the bound. */
static void pics_trim(struct text_pics *p, size_t room)
{
	while (p->bytes + room > PICS_BYTES) {
		struct pic_entry *lru = NULL;
		size_t i;

		for (i = 0; i < p->n; i++)
			if (p->e[i].bytes && (!lru || p->e[i].used < lru->used))
				lru = &p->e[i];
		if (!lru)
			return;
		p->bytes -= lru->len;
		tdat_cache_charge(p->f, lru->len, true);
		free(lru->bytes);
		lru->bytes = NULL;
	}
}

/*
 * Keep @bytes of picture @k of @f (taken: freed when not kept), charged
 * to @f's chunk cache; lock held.
 */
static void pic_keep(struct text_pics *p, struct tdat_file *f,
		     const struct tdatfs_text_view *k, char *bytes, size_t len)
{
	struct pic_entry *e = pic_find(p, k);

	if (!e)
		e = pic_add(p, k);
	if (e) {
		e->sized = true;
		e->len = len;
	}
	if (!e || e->bytes || len > PICS_BYTES) {
		free(bytes);
		return;
	}
	pics_trim(p, len);
	p->f = f;
	tdat_cache_charge(f, len, false);
	e->bytes = bytes;
	e->used = ++p->tick;
	p->bytes += len;
}

/* Copy what of @n bytes at @bytes falls in [@off, @off + @len). */
static size_t copy_out(char *buf, size_t len, uint64_t off,
		       const char *bytes, size_t n)
{
	size_t got = off < n ? (n - off < len ? n - off : len) : 0;

	if (got)
		memcpy(buf, bytes + off, got);
	return got;
}

/**
 * text_pics_get() - a picture's bytes or size, drawn if need be
 * @p: table
 * @f: the trace (its chunk cache is charged for the bytes kept)
 * @k: the picture's key, normalised (text/pictures.h)
 * @draw: draws it when neither its bytes are kept nor, for a size only,
 *	its size known
 * @ctx: @draw's argument
 * @buf: where a read copies to, or NULL for the size only
 * @len: bytes wanted
 * @off: from this offset
 * @got: set to the bytes copied
 * @size: set to the picture's size
 *
 * A picture another thread draws is waited for.
 *
 * Return: 0, @draw's negative errno, or -EIO when the drawing's size is
 * not the size known.
 * Context: thread-safe; @draw runs without the table's lock.
 */
int text_pics_get(struct text_pics *p, struct tdat_file *f,
		  const struct tdatfs_text_view *k, text_pic_draw_fn draw,
		  void *ctx, char *buf, size_t len, uint64_t off, size_t *got,
		  uint64_t *size)
{
	uint64_t known = UINT64_MAX;
	struct pic_entry *e;
	char *bytes = NULL;
	size_t n = 0;
	int ret;

	*got = 0;
	pthread_mutex_lock(&p->lock);
	while ((e = pic_find(p, k)) && e->making)
		pthread_cond_wait(&p->made, &p->lock);
	if (e && e->sized)
		known = e->len;
	if (e && e->sized && (e->bytes || !buf)) {
		*size = e->len;
		if (buf)
			*got = copy_out(buf, len, off, e->bytes, e->len);
		e->used = ++p->tick;
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	if (!e)
		e = pic_add(p, k);
	if (e)
		e->making = true;	/* else drawn here unclaimed: no harm */
	pthread_mutex_unlock(&p->lock);
	ret = draw(ctx, &bytes, &n);
	if (!ret && known != UINT64_MAX && known != n)
		ret = -EIO;
	if (!ret) {
		*size = n;
		if (buf)
			*got = copy_out(buf, len, off, bytes, n);
	}
	pthread_mutex_lock(&p->lock);
	e = pic_find(p, k);	/* the table may have moved */
	if (e)
		e->making = false;
	if (!ret)
		pic_keep(p, f, k, bytes, n);
	else
		free(bytes);
	pthread_cond_broadcast(&p->made);
	pthread_mutex_unlock(&p->lock);
	return ret;
}

/**
 * text_pics_size_keep() - the size of a picture known beforehand
 * @p: table
 * @k: the picture's key, normalised (text/pictures.h)
 * @size: its size (an index's); the bytes are drawn by the first read
 *
 * Return: 0, -EINVAL for a size unlike the one already known, -ENOMEM.
 * Context: thread-safe.
 */
int text_pics_size_keep(struct text_pics *p, const struct tdatfs_text_view *k,
			uint64_t size)
{
	struct pic_entry *e;
	int ret = 0;

	if (size > SIZE_MAX)
		return -EINVAL;
	pthread_mutex_lock(&p->lock);
	e = pic_find(p, k);
	if (e && e->sized && e->len != size) {
		ret = -EINVAL;
	} else {
		if (!e)
			e = pic_add(p, k);
		if (e) {
			e->sized = true;
			e->len = (size_t)size;
		} else {
			ret = -ENOMEM;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}
