/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-cache.h - a bounded, thread-safe cache of decompressed chunks.
 *
 * Contract:
 *  - Keys are 64-bit numbers chosen by the caller; tdat keeps one cache
 *    per open file and uses the file offset of a chunk header (below
 *    2^63, unique within the file) for a data chunk, and keys from a range
 *    reserved with tdp_cache_key_space() (top bit set, so never an
 *    offset) for the pieces of one section.
 *  - tdp_cache_get() returns an entry with a reference held; the caller
 *    reads it through tdp_cache_entry_data()/_size() and drops the
 *    reference with tdp_cache_put().  The data never changes and stays
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
 *    tdp_cache_put_done().  Such entries sit on their own list, evicted
 *    before all others and kept only up to a sixteenth of the bound, so a
 *    scan through a large trace does not push out everything else, and
 *    their buffers are recycled at once instead of the cache growing.
 *  - Recycling: a fill may take its buffer from tdp_cache_alloc(), which
 *    makes room for it first, evicting as a finished fill would, and hands
 *    back the buffer of an evicted entry of the same size instead of
 *    freeing it: memory already faulted in is written again instead of
 *    fresh pages.
 *  - Charges: memory its owners hold outside the entries because of the
 *    data they read through the cache (a section's resumable decoders,
 *    view tables above the text engine) is charged with
 *    tdp_cache_charge() and counts as held bytes: entries are evicted
 *    until the entries and the charges fit max_bytes together.  Charges
 *    count up to half the bound, so entries always keep the other half
 *    (a small cache whose decoders' windows are larger than it still
 *    holds the pieces being read).  The memory besides the bound is then
 *    what callers hold referenced and fill, and charges beyond half of it.
 *    The heap pages of entries that charges evicted are given back to
 *    the system every few MiB (malloc_trim()): fills recycle evicted
 *    buffers, so nothing would take those holes again.
 *  - All functions are thread-safe (one internal mutex), except
 *    tdp_cache_free(), which must not race with anything else.
 */
#ifndef TDAT_CACHE_H
#define TDAT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_cache;
struct tdp_cache_entry;

/**
 * typedef tdp_cache_fill_fn - produce the data for a key
 * @ctx: the caller's context given to tdp_cache_get()
 * @key: the key that missed
 * @data: set to a malloc()ed buffer (may be NULL when @size is 0); the
 *	cache owns it once fill returns 0
 * @size: set to the size of @data
 *
 * Return: 0, or a negative errno, which the getters receive (on failure
 * nothing is handed over: fill frees what it allocated).
 */
typedef int (*tdp_cache_fill_fn)(void *ctx, uint64_t key, void **data,
				 size_t *size);

/**
 * struct tdp_cache_stats - counters, for tests and diagnostics
 * @hits: gets served by an entry present or being filled by someone else
 * @misses: gets that called fill
 * @fills: fills that succeeded
 * @evictions: entries freed to respect the bound
 * @bytes: data bytes held now (referenced or not)
 * @entries: entries held now (filled ones)
 * @recycled: buffers of evicted entries handed out by tdp_cache_alloc()
 * @charged: bytes charged now (tdp_cache_charge())
 */
struct tdp_cache_stats {
	uint64_t hits;
	uint64_t misses;
	uint64_t fills;
	uint64_t evictions;
	uint64_t bytes;
	uint64_t entries;
	uint64_t recycled;
	uint64_t charged;
};

struct tdp_cache *tdp_cache_new(size_t max_bytes);

void tdp_cache_free(struct tdp_cache *c);

int tdp_cache_get(struct tdp_cache *c, uint64_t key, tdp_cache_fill_fn fill,
		  void *ctx, struct tdp_cache_entry **out);

size_t tdp_cache_max_bytes(const struct tdp_cache *c);

uint64_t tdp_cache_key_space(struct tdp_cache *c);

void *tdp_cache_alloc(struct tdp_cache *c, size_t size);

void tdp_cache_charge(struct tdp_cache *c, size_t bytes, bool give_back);
void tdp_cache_drop(struct tdp_cache *c);

void tdp_cache_put(struct tdp_cache *c, struct tdp_cache_entry *e);

void tdp_cache_put_done(struct tdp_cache *c, struct tdp_cache_entry *e);

const void *tdp_cache_entry_data(const struct tdp_cache_entry *e);

size_t tdp_cache_entry_size(const struct tdp_cache_entry *e);

void tdp_cache_stats(const struct tdp_cache *c, struct tdp_cache_stats *st);

#endif /* TDAT_CACHE_H */
