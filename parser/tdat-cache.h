/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-cache.h - a bounded, thread-safe cache of decompressed chunks.
 *
 * Contract:
 *  - Keys are 64-bit numbers chosen by the caller; tdat keeps one cache
 *    per open file and uses the file offset of a chunk header (below
 *    2^63, unique within the file) for a data chunk, and keys from a range
 *    reserved with tdat_cache_key_space() (top bit set, so never an
 *    offset) for the pieces of one section.
 *  - tdat_cache_get() returns an entry with a reference held; the caller
 *    reads it through tdat_cache_entry_data()/_size() and drops the
 *    reference with tdat_cache_put().  The data never changes and stays
 *    valid while the reference is held.
 *  - On a miss the caller's fill function runs without the cache lock held
 *    and hands over a malloc()ed buffer, which the cache then owns and
 *    frees.  Single flight: while a key is being filled, other getters of
 *    that key wait and then receive the same entry, or the same error.  A
 *    failed fill is not remembered: a later get calls fill again.
 *  - Eviction: whenever the data bytes held exceed max_bytes, unreferenced
 *    entries are freed, least recently used first.  Referenced entries are
 *    never freed, so the memory held is at most max_bytes plus the entries
 *    callers hold at that moment (and the ones being filled).
 *  - Lookup is a hash table; the LRU list holds only unreferenced entries,
 *    so get, put and each eviction are O(1) on average.
 *  - Done entries: a reader that read an entry to its end and does not
 *    expect to come back (a bulk sequential read) drops it with
 *    tdat_cache_put_done().  Such entries sit on their own list, evicted
 *    before all others and kept only up to a sixteenth of the bound, so a
 *    scan through a large trace does not push out everything else, and
 *    their buffers are recycled at once instead of the cache growing.
 *  - Recycling: a fill may take its buffer from tdat_cache_alloc(), which
 *    makes room for it first, evicting as a finished fill would, and hands
 *    back the buffer of an evicted entry of the same size instead of
 *    freeing it: memory already faulted in is written again instead of
 *    fresh pages.
 *  - All functions are thread-safe (one internal mutex), except
 *    tdat_cache_free(), which must not race with anything else.
 */
#ifndef TDAT_CACHE_H
#define TDAT_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct tdat_cache;
struct tdat_cache_entry;

/**
 * typedef tdat_cache_fill_fn - produce the data for a key
 * @ctx: the caller's context given to tdat_cache_get()
 * @key: the key that missed
 * @data: set to a malloc()ed buffer (may be NULL when @size is 0); the
 *	cache owns it once fill returns 0
 * @size: set to the size of @data
 *
 * Return: 0, or a negative errno, which the getters receive (on failure
 * nothing is handed over: fill frees what it allocated).
 */
typedef int (*tdat_cache_fill_fn)(void *ctx, uint64_t key, void **data,
				  size_t *size);

/**
 * struct tdat_cache_stats - counters, for tests and diagnostics
 * @hits: gets served by an entry present or being filled by someone else
 * @misses: gets that called fill
 * @fills: fills that succeeded
 * @evictions: entries freed to respect the bound
 * @bytes: data bytes held now (referenced or not)
 * @entries: entries held now (filled ones)
 * @recycled: buffers of evicted entries handed out by tdat_cache_alloc()
 */
struct tdat_cache_stats {
	uint64_t hits;
	uint64_t misses;
	uint64_t fills;
	uint64_t evictions;
	uint64_t bytes;
	uint64_t entries;
	uint64_t recycled;
};

/**
 * tdat_cache_new() - create a cache
 * @max_bytes: bound on unreferenced data bytes kept; 0 means 64 MiB
 *
 * Return: the cache (free with tdat_cache_free()), or NULL with errno set.
 */
struct tdat_cache *tdat_cache_new(size_t max_bytes);

/**
 * tdat_cache_free() - free a cache and all its entries; NULL is fine
 * @c: cache
 *
 * Context: no other thread may use @c, and no reference may be held.
 */
void tdat_cache_free(struct tdat_cache *c);

/**
 * tdat_cache_get() - look up @key, filling it on a miss
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
int tdat_cache_get(struct tdat_cache *c, uint64_t key, tdat_cache_fill_fn fill,
		   void *ctx, struct tdat_cache_entry **out);

/**
 * tdat_cache_max_bytes() - the bound the cache was created with
 * @c: cache
 *
 * Return: the bound in bytes (the default when 0 was asked for).
 */
size_t tdat_cache_max_bytes(const struct tdat_cache *c);

/**
 * tdat_cache_key_space() - reserve a range of keys for one caller
 * @c: cache
 *
 * Return: a key B with the top bit set such that no other call on @c
 * returns a key in B .. B + 2^32 - 1; 0 when all 2^31 ranges are taken.
 * Context: takes the cache lock.
 */
uint64_t tdat_cache_key_space(struct tdat_cache *c);

/**
 * tdat_cache_alloc() - a buffer for a fill, recycled when possible
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
void *tdat_cache_alloc(struct tdat_cache *c, size_t size);

/**
 * tdat_cache_put() - drop a reference taken by tdat_cache_get()
 * @c: cache
 * @e: entry; NULL is fine
 *
 * Context: takes the cache lock.
 */
void tdat_cache_put(struct tdat_cache *c, struct tdat_cache_entry *e);

/**
 * tdat_cache_put_done() - drop a reference to an entry read to its end
 * @c: cache
 * @e: entry; NULL is fine
 *
 * The last reference puts the entry on the done list (see above).
 *
 * Context: takes the cache lock.
 */
void tdat_cache_put_done(struct tdat_cache *c, struct tdat_cache_entry *e);

/** tdat_cache_entry_data() - Return: the entry's data (valid while held) */
const void *tdat_cache_entry_data(const struct tdat_cache_entry *e);

/** tdat_cache_entry_size() - Return: the size of the entry's data */
size_t tdat_cache_entry_size(const struct tdat_cache_entry *e);

/**
 * tdat_cache_stats() - copy the counters
 * @c: cache
 * @st: filled in
 *
 * Context: takes the cache lock.
 */
void tdat_cache_stats(const struct tdat_cache *c, struct tdat_cache_stats *st);

#endif /* TDAT_CACHE_H */
