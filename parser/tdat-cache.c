/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-cache.c - the chunk cache: hash table + LRU list + single flight.
 *
 * An entry is in one of three states:
 *  FILLING: in the hash table, fill running on one thread, others wait;
 *  READY:   in the hash table, counted in bytes; on the LRU list exactly
 *           when no reference is held;
 *  FAILED:  out of the table, kept only until the waiters have read the
 *           error; the last one frees it.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "tdat-cache.h"

#define CACHE_DEFAULT_BYTES	((size_t)64 << 20)
#define CACHE_MIN_BUCKETS	64u
/* Done entries may hold 1/CACHE_DONE_SHARE of the bound (4 MiB of 64). */
#define CACHE_DONE_SHARE	16u
/* Charges count up to 1/CACHE_CHARGE_SHARE of the bound (32 MiB of 64). */
#define CACHE_CHARGE_SHARE	2u
/* Entries evicted by charges between two trims of the heap (see below). */
#define CACHE_TRIM_BYTES	(4u << 20)

enum entry_state {
	ENTRY_FILLING,
	ENTRY_READY,
	ENTRY_FAILED,
};

struct tdp_cache_entry {
	uint64_t key;
	void *data;
	size_t size;
	unsigned long refs;
	enum entry_state state;
	bool done;		/* unreferenced: on the done list, not the LRU */
	int err;
	struct tdp_cache_entry *hnext;		/* hash chain */
	struct tdp_cache_entry *prev, *next;	/* LRU list, unreferenced only */
};

struct entry_list {
	struct tdp_cache_entry *head, *tail;	/* head = most recent */
};

struct tdp_cache {
	pthread_mutex_t lock;
	pthread_cond_t filled;		/* a fill finished (any key) */
	size_t max_bytes;
	struct tdp_cache_entry **buckets;
	size_t nbuckets;		/* a power of two */
	size_t nhashed;			/* entries in the table */
	struct entry_list lru;		/* unreferenced entries */
	struct entry_list done;		/* unreferenced, read to their end */
	size_t done_bytes;		/* data bytes on the done list */
	size_t done_max;		/* bound on done_bytes */
	size_t charged;			/* memory of others counted in the bound */
	size_t charge_freed;		/* evicted by charges, not trimmed yet */
	uint32_t spaces;		/* key ranges handed out */
	struct tdp_cache_stats st;
};

static size_t cache_hash(const struct tdp_cache *c, uint64_t key)
{
	/* Offsets share low zero bits: mix before masking. */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (c->nbuckets - 1);
}

static struct tdp_cache_entry *cache_lookup(struct tdp_cache *c, uint64_t key)
{
	struct tdp_cache_entry *e;

	for (e = c->buckets[cache_hash(c, key)]; e; e = e->hnext)
		if (e->key == key)
			return e;
	return NULL;
}

/* Growing is best effort: a failed allocation only makes chains longer. */
static void cache_grow(struct tdp_cache *c)
{
	struct tdp_cache_entry **old = c->buckets, **nb, *e, *next;
	size_t oldn = c->nbuckets, i, h;

	if (c->nhashed <= 2 * oldn || oldn > SIZE_MAX / 2 / sizeof(*nb))
		return;
	nb = calloc(oldn * 2, sizeof(*nb));
	if (!nb)
		return;
	c->buckets = nb;
	c->nbuckets = oldn * 2;
	for (i = 0; i < oldn; i++) {
		for (e = old[i]; e; e = next) {
			next = e->hnext;
			h = cache_hash(c, e->key);
			e->hnext = nb[h];
			nb[h] = e;
		}
	}
	free(old);
}

static void cache_hash_add(struct tdp_cache *c, struct tdp_cache_entry *e)
{
	size_t h = cache_hash(c, e->key);

	e->hnext = c->buckets[h];
	c->buckets[h] = e;
	c->nhashed++;
	cache_grow(c);
}

static void cache_hash_del(struct tdp_cache *c, struct tdp_cache_entry *e)
{
	struct tdp_cache_entry **pp = &c->buckets[cache_hash(c, e->key)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == e) {
			*pp = e->hnext;
			e->hnext = NULL;
			c->nhashed--;
			return;
		}
	}
}

/* Take an unreferenced entry off its list (LRU or done). */
static void lru_del(struct tdp_cache *c, struct tdp_cache_entry *e)
{
	struct entry_list *l = e->done ? &c->done : &c->lru;

	if (e->prev)
		e->prev->next = e->next;
	else
		l->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		l->tail = e->prev;
	e->prev = e->next = NULL;
	if (e->done)
		c->done_bytes -= e->size;
}

/* Put an entry whose last reference went at the head of its list. */
static void lru_add_head(struct tdp_cache *c, struct tdp_cache_entry *e)
{
	struct entry_list *l = e->done ? &c->done : &c->lru;

	e->prev = NULL;
	e->next = l->head;
	if (l->head)
		l->head->prev = e;
	else
		l->tail = e;
	l->head = e;
	if (e->done)
		c->done_bytes += e->size;
}

static void entry_free(struct tdp_cache_entry *e)
{
	if (!e)
		return;
	free(e->data);
	free(e);
}

/*
 * The entry to evict so that @extra more bytes fit, or NULL: done entries
 * first (oldest first), and those also beyond their own bound.
 */
static struct tdp_cache_entry *cache_victim(const struct tdp_cache *c,
					    size_t extra)
{
	size_t charged = c->charged < c->max_bytes / CACHE_CHARGE_SHARE ?
			 c->charged : c->max_bytes / CACHE_CHARGE_SHARE;
	size_t held = c->st.bytes + charged;
	bool over = extra > c->max_bytes || held > c->max_bytes - extra;

	if (c->done.tail && (over || c->done_bytes > c->done_max))
		return c->done.tail;
	return over ? c->lru.tail : NULL;
}

/* Unlink an unreferenced entry; caller holds the lock and frees it. */
static struct tdp_cache_entry *cache_evict_one(struct tdp_cache *c,
					       struct tdp_cache_entry *e)
{
	lru_del(c, e);
	cache_hash_del(c, e);
	c->st.bytes -= e->size;
	c->st.entries--;
	c->st.evictions++;
	return e;
}

static void cache_evict(struct tdp_cache *c)
{
	struct tdp_cache_entry *e;

	while ((e = cache_victim(c, 0)))
		entry_free(cache_evict_one(c, e));
}

/**
 * tdp_cache_new() - create a cache
 * @max_bytes: bound on unreferenced data bytes kept; 0 means 64 MiB
 *
 * Return: the cache (free with tdp_cache_free()), or NULL with errno set
 * (ENOMEM, or the error of the mutex or condition variable creation).
 */
struct tdp_cache *tdp_cache_new(size_t max_bytes)
{
	struct tdp_cache *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return NULL;
	c->max_bytes = max_bytes ? max_bytes : CACHE_DEFAULT_BYTES;
	c->done_max = c->max_bytes / CACHE_DONE_SHARE;
	c->nbuckets = CACHE_MIN_BUCKETS;
	c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	ret = pthread_mutex_init(&c->lock, NULL);
	if (ret)
		goto fail;
	ret = pthread_cond_init(&c->filled, NULL);
	if (ret) {
		pthread_mutex_destroy(&c->lock);
		goto fail;
	}
	return c;
fail:
	free(c->buckets);
	free(c);
	errno = ret;
	return NULL;
}

/**
 * tdp_cache_free() - free a cache and all its entries; NULL is fine
 * @c: cache
 *
 * Context: no other thread may use @c, and no reference may be held (held
 * entries are freed anyway, so their data pointers go stale).
 */
void tdp_cache_free(struct tdp_cache *c)
{
	struct tdp_cache_entry *e, *next;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nbuckets; i++) {
		for (e = c->buckets[i]; e; e = next) {
			next = e->hnext;
			entry_free(e);
		}
	}
	free(c->buckets);
	pthread_cond_destroy(&c->filled);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Take a reference on a READY entry; caller holds the lock. */
static void entry_get(struct tdp_cache *c, struct tdp_cache_entry *e)
{
	if (e->refs++ == 0) {
		lru_del(c, e);
		/* The next last put decides again where it goes. */
		e->done = false;
	}
}

/* Wait for someone else's fill of @e; caller holds the lock and a ref. */
static int cache_wait(struct tdp_cache *c, struct tdp_cache_entry *e,
		      struct tdp_cache_entry **out)
{
	int err;

	while (e->state == ENTRY_FILLING)
		pthread_cond_wait(&c->filled, &c->lock);
	if (e->state == ENTRY_READY) {
		*out = e;
		return 0;
	}
	err = e->err;
	if (--e->refs == 0)
		entry_free(e);
	return err;
}

/* Run @fill for the new entry @e, unlocked; returns with the lock held. */
static int cache_fill(struct tdp_cache *c, struct tdp_cache_entry *e,
		      tdp_cache_fill_fn fill, void *ctx,
		      struct tdp_cache_entry **out)
{
	void *data = NULL;
	size_t size = 0;
	int ret;

	pthread_mutex_unlock(&c->lock);
	ret = fill(ctx, e->key, &data, &size);
	if (!ret && !data && size)
		ret = -EIO;
	if (ret > 0)
		ret = -EIO;
	pthread_mutex_lock(&c->lock);

	if (ret) {
		free(data);
		cache_hash_del(c, e);
		e->state = ENTRY_FAILED;
		e->err = ret;
		pthread_cond_broadcast(&c->filled);
		if (--e->refs == 0)
			entry_free(e);
		return ret;
	}
	e->data = data;
	e->size = size;
	e->state = ENTRY_READY;
	c->st.fills++;
	c->st.entries++;
	c->st.bytes += size;
	pthread_cond_broadcast(&c->filled);
	/* Our entry is referenced, so it is not among those evicted. */
	cache_evict(c);
	*out = e;
	return 0;
}

/**
 * tdp_cache_get() - look up @key, filling it on a miss
 * @c: cache
 * @key: key
 * @fill: called (without the lock) when @key is neither present nor being
 *	filled
 * @ctx: passed to @fill
 * @out: set to the referenced entry on success
 *
 * Return: 0, or the negative errno of the fill (this caller's or the one it
 * waited for), or -ENOMEM.
 * Context: takes the cache lock; may sleep while another thread fills @key.
 */
int tdp_cache_get(struct tdp_cache *c, uint64_t key, tdp_cache_fill_fn fill,
		  void *ctx, struct tdp_cache_entry **out)
{
	struct tdp_cache_entry *e;
	int ret;

	*out = NULL;
	pthread_mutex_lock(&c->lock);
	e = cache_lookup(c, key);
	if (e) {
		c->st.hits++;
		if (e->state == ENTRY_READY) {
			entry_get(c, e);
			*out = e;
			ret = 0;
		} else {
			e->refs++;
			ret = cache_wait(c, e, out);
		}
		pthread_mutex_unlock(&c->lock);
		return ret;
	}

	e = calloc(1, sizeof(*e));
	if (!e) {
		pthread_mutex_unlock(&c->lock);
		return -ENOMEM;
	}
	e->key = key;
	e->refs = 1;
	e->state = ENTRY_FILLING;
	cache_hash_add(c, e);
	c->st.misses++;
	ret = cache_fill(c, e, fill, ctx, out);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* Drop a reference; caller holds the lock. */
static void entry_put_locked(struct tdp_cache *c, struct tdp_cache_entry *e,
			     bool done)
{
	if (--e->refs == 0) {
		e->done = done;
		lru_add_head(c, e);
		cache_evict(c);
	}
}

/* Fixed at creation, so read without the lock. */
/**
 * tdp_cache_max_bytes() - the bound the cache was created with
 * @c: cache
 *
 * Return: the bound in bytes (the default when 0 was asked for).
 */
size_t tdp_cache_max_bytes(const struct tdp_cache *c)
{
	return c->max_bytes;
}

#define CACHE_KEY_SPACE_BIT	((uint64_t)1 << 63)
#define CACHE_KEY_SPACES	((uint32_t)1 << 31)

/*
 * The ranges are counted, never given back: a caller's entries may stay in
 * the cache after the caller is gone, and must not meet a newcomer's.
 */
/**
 * tdp_cache_key_space() - reserve a range of keys for one caller
 * @c: cache
 *
 * Return: a key B with the top bit set such that no other call on @c
 * returns a key in B .. B + 2^32 - 1; 0 when all 2^31 ranges are taken.
 * Context: takes the cache lock.
 */
uint64_t tdp_cache_key_space(struct tdp_cache *c)
{
	uint64_t key = 0;

	pthread_mutex_lock(&c->lock);
	if (c->spaces < CACHE_KEY_SPACES)
		key = CACHE_KEY_SPACE_BIT | (uint64_t)c->spaces++ << 32;
	pthread_mutex_unlock(&c->lock);
	return key;
}

/**
 * tdp_cache_alloc() - a buffer for a fill, recycled when possible
 * @c: cache
 * @size: bytes wanted
 *
 * Evicts least recently used entries until @size more bytes fit the bound;
 * the first evicted buffer of exactly @size bytes is returned instead of
 * being freed.  The buffer is malloc()-compatible: fill hands it to the
 * cache, or free()s it on failure.
 *
 * Return: the buffer, or NULL (out of memory).
 * Context: takes the cache lock; call it from a fill (unlocked).
 */
void *tdp_cache_alloc(struct tdp_cache *c, size_t size)
{
	struct tdp_cache_entry *e;
	void *p = NULL;

	pthread_mutex_lock(&c->lock);
	/* The eviction this fill would cause when it ends, done now. */
	while ((e = cache_victim(c, size))) {
		e = cache_evict_one(c, e);
		if (!p && e->data && e->size == size) {
			p = e->data;
			e->data = NULL;
			c->st.recycled++;
		}
		entry_free(e);
	}
	pthread_mutex_unlock(&c->lock);
	return p ? p : malloc(size ? size : 1);
}

/**
 * tdp_cache_charge() - count memory held outside the cache in its bound
 * @c: cache
 * @bytes: bytes more (the owner allocated them) or, when @give_back, less
 *	(freed; at most what it charged)
 * @give_back: the charge goes down instead of up
 *
 * A charge up evicts least recently used entries until the entries and
 * all charges fit the bound again, as a fill would.
 *
 * Context: takes the cache lock.
 */
void tdp_cache_charge(struct tdp_cache *c, size_t bytes, bool give_back)
{
	size_t held;
	bool trim = false;

	if (!bytes)
		return;
	pthread_mutex_lock(&c->lock);
	if (give_back) {
		c->charged -= bytes < c->charged ? bytes : c->charged;
	} else {
		c->charged += bytes;
		held = c->st.bytes;
		cache_evict(c);
		c->charge_freed += held - c->st.bytes;
		trim = c->charge_freed >= CACHE_TRIM_BYTES;
		if (trim)
			c->charge_freed = 0;
	}
	c->st.charged = c->charged;
	pthread_mutex_unlock(&c->lock);
	/*
	 * Entries are smaller than the mmap threshold (a chunk is 40 KiB), so
	 * the ones a charge evicts leave holes in the heap that no fill takes
	 * again (fills recycle evicted buffers): without giving their pages
	 * back, the process would hold the entries' high-water mark besides
	 * the charges, the bound counted twice (16 times big.dat: a 106 MiB
	 * index build against 96).
	 */
	if (trim)
		malloc_trim(0);
}

/**
 * tdp_cache_drop() - free every entry no one holds
 * @c: cache
 *
 * For a reader at the end of work whose chunks no one wants next (an
 * index build, before it encodes the index): their memory goes back to
 * the system at once (malloc_trim(), as after charges), instead of
 * staying beside the large allocations that follow until reads need the
 * room.  Referenced entries stay; later reads fill the cache again.
 *
 * Context: takes the cache lock.
 */
void tdp_cache_drop(struct tdp_cache *c)
{
	struct tdp_cache_entry *e;
	bool any = false;

	pthread_mutex_lock(&c->lock);
	while ((e = c->done.tail ? c->done.tail : c->lru.tail)) {
		entry_free(cache_evict_one(c, e));
		any = true;
	}
	pthread_mutex_unlock(&c->lock);
	if (any)
		malloc_trim(0);
}

/**
 * tdp_cache_put() - drop a reference taken by tdp_cache_get()
 * @c: cache
 * @e: entry; NULL is fine
 *
 * The last reference makes the entry the most recently used one, and may
 * trigger eviction.
 *
 * Context: takes the cache lock.
 */
void tdp_cache_put(struct tdp_cache *c, struct tdp_cache_entry *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&c->lock);
	entry_put_locked(c, e, false);
	pthread_mutex_unlock(&c->lock);
}

/**
 * tdp_cache_put_done() - drop a reference to an entry read to its end
 * @c: cache
 * @e: entry; NULL is fine
 *
 * Like tdp_cache_put(), but when this is the last reference the entry
 * goes to the done list: evicted before any other, and kept only while the
 * done list holds at most a sixteenth of the bound.  A later get takes it
 * back as usual.
 *
 * Context: takes the cache lock.
 */
void tdp_cache_put_done(struct tdp_cache *c, struct tdp_cache_entry *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&c->lock);
	entry_put_locked(c, e, true);
	pthread_mutex_unlock(&c->lock);
}

/**
 * tdp_cache_entry_data() - the data of a held entry
 * @e: entry
 *
 * Return: the data, valid until the reference is dropped; NULL when the
 * size is 0.
 */
const void *tdp_cache_entry_data(const struct tdp_cache_entry *e)
{
	return e->data;
}

/**
 * tdp_cache_entry_size() - the size of a held entry's data
 * @e: entry
 *
 * Return: the size in bytes.
 */
size_t tdp_cache_entry_size(const struct tdp_cache_entry *e)
{
	return e->size;
}

/**
 * tdp_cache_stats() - copy the counters
 * @c: cache
 * @st: filled in
 *
 * Context: takes the cache lock.
 */
void tdp_cache_stats(const struct tdp_cache *c, struct tdp_cache_stats *st)
{
	/* The lock is the only thing touched: the cache stays logically const. */
	struct tdp_cache *mc = (struct tdp_cache *)c;

	pthread_mutex_lock(&mc->lock);
	*st = mc->st;
	pthread_mutex_unlock(&mc->lock);
}
