/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser-cache.c - the chunk cache: LRU order, the byte bound, references,
 * failed fills, single flight, done entries, a drop, recycled buffers
 * and a concurrent stress run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat-cache.h"
#include "check.h"

static unsigned char pattern(uint64_t key, size_t i)
{
	return (unsigned char)(key * 31 + i * 7 + 1);
}

/* Fill context: the size to produce for every key, and call counters. */
struct fill_ctx {
	size_t size;		/* 0: derive from the key */
	int fail;		/* negative errno to return instead */
	useconds_t delay;	/* sleep first, to widen races */
	atomic_uint calls;
	atomic_uint per_key[64];
};

static size_t key_size(const struct fill_ctx *fc, uint64_t key)
{
	return fc->size ? fc->size : (size_t)(key % 256) + 1;
}

static int fill(void *ctx, uint64_t key, void **data, size_t *size)
{
	struct fill_ctx *fc = ctx;
	unsigned char *p;
	size_t i, n = key_size(fc, key);

	atomic_fetch_add(&fc->calls, 1);
	if (key < 64)
		atomic_fetch_add(&fc->per_key[key], 1);
	if (fc->delay)
		usleep(fc->delay);
	if (fc->fail)
		return fc->fail;
	p = malloc(n);
	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		p[i] = pattern(key, i);
	*data = p;
	*size = n;
	return 0;
}

static int entry_ok(const struct tdp_cache_entry *e, uint64_t key, size_t n)
{
	const unsigned char *p = tdp_cache_entry_data(e);
	size_t i;

	if (tdp_cache_entry_size(e) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (p[i] != pattern(key, i))
			return 0;
	return 1;
}

/* get + check + put; returns how many fills the get caused (1 or 0). */
static unsigned int touch(struct tdp_cache *c, struct fill_ctx *fc, uint64_t key)
{
	struct tdp_cache_entry *e;
	unsigned int before = atomic_load(&fc->calls);
	int ret = tdp_cache_get(c, key, fill, fc, &e);

	CHECK(ret == 0);
	if (ret)
		return 0;
	CHECK(entry_ok(e, key, key_size(fc, key)));
	tdp_cache_put(c, e);
	return atomic_load(&fc->calls) - before;
}

static void test_lru(void)
{
	struct fill_ctx fc = { .size = 100 };
	struct tdp_cache *c = tdp_cache_new(300);
	struct tdp_cache_stats st;

	CHECK(c);
	if (!c)
		return;
	CHECK(touch(c, &fc, 1) == 1);
	CHECK(touch(c, &fc, 2) == 1);
	CHECK(touch(c, &fc, 3) == 1);
	tdp_cache_stats(c, &st);
	CHECK(st.entries == 3 && st.bytes == 300 && st.evictions == 0);
	/* 1 becomes the most recent: the LRU order is now 2, 3, 1. */
	CHECK(touch(c, &fc, 1) == 0);
	/* 4 pushes the total over 300: 2 (least recent) must go. */
	CHECK(touch(c, &fc, 4) == 1);
	tdp_cache_stats(c, &st);
	CHECK(st.evictions == 1 && st.entries == 3 && st.bytes == 300);
	/* Order is now 3, 1, 4; touching them keeps the order, all hit. */
	CHECK(touch(c, &fc, 3) == 0);
	CHECK(touch(c, &fc, 1) == 0);
	CHECK(touch(c, &fc, 4) == 0);
	/* 2 was evicted: a miss, which evicts 3, the least recent now. */
	CHECK(touch(c, &fc, 2) == 1);
	CHECK(touch(c, &fc, 1) == 0);
	CHECK(touch(c, &fc, 4) == 0);
	CHECK(touch(c, &fc, 2) == 0);
	CHECK(touch(c, &fc, 3) == 1);
	tdp_cache_stats(c, &st);
	CHECK(st.hits == 7 && st.misses == 6 && st.fills == 6);
	CHECK(st.evictions == 3);
	tdp_cache_free(c);
}

static void test_bound(void)
{
	struct fill_ctx fc = { 0 };
	struct tdp_cache *c = tdp_cache_new(10000);
	struct tdp_cache_stats st;
	unsigned int i, fills = 0;
	uint64_t key;

	CHECK(c);
	if (!c)
		return;
	srand(1);
	for (i = 0; i < 5000; i++) {
		key = (uint64_t)(rand() % 2000);
		touch(c, &fc, key);
		tdp_cache_stats(c, &st);
		if (st.bytes > 10000) {
			fprintf(stderr, "bound: %llu bytes held after get %u\n",
				(unsigned long long)st.bytes, i);
			failures++;
			break;
		}
	}
	fills = atomic_load(&fc.calls);
	tdp_cache_stats(c, &st);
	CHECK(st.hits + st.misses == 5000);
	CHECK(st.misses == fills && st.fills == fills);
	CHECK(st.fills - st.evictions == st.entries);
	CHECK(st.evictions > 0);
	tdp_cache_free(c);
}

static void test_refs(void)
{
	struct fill_ctx fc = { .size = 100 };
	struct tdp_cache *c = tdp_cache_new(200);
	struct tdp_cache_entry *held;
	struct tdp_cache_stats st;
	uint64_t k;

	CHECK(c);
	if (!c)
		return;
	CHECK(tdp_cache_get(c, 5, fill, &fc, &held) == 0);
	for (k = 10; k < 40; k++) {
		touch(c, &fc, k);
		tdp_cache_stats(c, &st);
		/* The bound, plus what we hold. */
		CHECK(st.bytes <= 200 + 100);
	}
	/* The held entry survived all that pressure, intact. */
	CHECK(entry_ok(held, 5, 100));
	CHECK(touch(c, &fc, 5) == 0);
	CHECK(atomic_load(&fc.per_key[5]) == 1);
	tdp_cache_put(c, held);
	tdp_cache_stats(c, &st);
	CHECK(st.bytes <= 200);
	/* Now unreferenced and least recent after two newer keys: evicted. */
	touch(c, &fc, 41);
	touch(c, &fc, 42);
	CHECK(touch(c, &fc, 5) == 1);
	tdp_cache_put(c, NULL);	/* NULL is fine */
	tdp_cache_free(c);
	tdp_cache_free(NULL);
}

static void test_failed_fill(void)
{
	struct fill_ctx bad = { .size = 10, .fail = -EBADMSG };
	struct fill_ctx good = { .size = 10 };
	struct tdp_cache *c = tdp_cache_new(0);
	struct tdp_cache_entry *e = (void *)1;
	struct tdp_cache_stats st;

	CHECK(c);
	if (!c)
		return;
	CHECK(tdp_cache_get(c, 7, fill, &bad, &e) == -EBADMSG);
	CHECK(e == NULL);
	CHECK(tdp_cache_get(c, 7, fill, &bad, &e) == -EBADMSG);
	CHECK(atomic_load(&bad.calls) == 2);	/* not cached: retried */
	tdp_cache_stats(c, &st);
	CHECK(st.entries == 0 && st.bytes == 0 && st.fills == 0 && st.misses == 2);
	CHECK(tdp_cache_get(c, 7, fill, &good, &e) == 0);
	CHECK(e && entry_ok(e, 7, 10));
	tdp_cache_put(c, e);
	CHECK(atomic_load(&good.calls) == 1);
	tdp_cache_free(c);
}

struct sf_arg {
	struct tdp_cache *c;
	struct fill_ctx *fc;
	pthread_barrier_t *bar;
	struct tdp_cache_entry *got;
	int ret;
};

static void *sf_thread(void *p)
{
	struct sf_arg *a = p;

	pthread_barrier_wait(a->bar);
	a->ret = tdp_cache_get(a->c, 42, fill, a->fc, &a->got);
	return NULL;
}

static void single_flight(int fail)
{
	struct fill_ctx fc = { .size = 1000, .delay = 200000, .fail = fail };
	struct tdp_cache *c = tdp_cache_new(0);
	struct sf_arg a[8];
	pthread_barrier_t bar;
	pthread_t t[8];
	int i;

	CHECK(c);
	if (!c)
		return;
	pthread_barrier_init(&bar, NULL, 8);
	for (i = 0; i < 8; i++) {
		a[i] = (struct sf_arg){ .c = c, .fc = &fc, .bar = &bar };
		pthread_create(&t[i], NULL, sf_thread, &a[i]);
	}
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	CHECK(atomic_load(&fc.calls) == 1);
	for (i = 0; i < 8; i++) {
		CHECK(a[i].ret == fail);
		if (fail) {
			CHECK(a[i].got == NULL);
		} else {
			CHECK(a[i].got == a[0].got);
			CHECK(a[i].got && entry_ok(a[i].got, 42, 1000));
			tdp_cache_put(c, a[i].got);
		}
	}
	pthread_barrier_destroy(&bar);
	tdp_cache_free(c);
}

struct stress_arg {
	struct tdp_cache *c;
	struct fill_ctx *fc;
	unsigned int seed;
	int bad;
};

#define STRESS_THREADS	8
#define STRESS_GETS	20000

static void *stress_thread(void *p)
{
	struct stress_arg *a = p;
	struct tdp_cache_entry *e;
	unsigned int i;
	uint64_t key;

	for (i = 0; i < STRESS_GETS; i++) {
		key = 64 + rand_r(&a->seed) % 1000;
		if (tdp_cache_get(a->c, key, fill, a->fc, &e)) {
			a->bad++;
			continue;
		}
		if (!entry_ok(e, key, key_size(a->fc, key)))
			a->bad++;
		tdp_cache_put(a->c, e);
	}
	return NULL;
}

static void test_stress(void)
{
	struct fill_ctx fc = { 0 };
	struct tdp_cache *c = tdp_cache_new(4096);
	struct stress_arg a[STRESS_THREADS];
	pthread_t t[STRESS_THREADS];
	struct tdp_cache_stats st;
	int i;

	CHECK(c);
	if (!c)
		return;
	for (i = 0; i < STRESS_THREADS; i++) {
		a[i] = (struct stress_arg){ .c = c, .fc = &fc, .seed = (unsigned int)i + 1 };
		pthread_create(&t[i], NULL, stress_thread, &a[i]);
	}
	for (i = 0; i < STRESS_THREADS; i++) {
		pthread_join(t[i], NULL);
		CHECK(a[i].bad == 0);
	}
	tdp_cache_stats(c, &st);
	CHECK(st.hits + st.misses == (uint64_t)STRESS_THREADS * STRESS_GETS);
	CHECK(st.misses == atomic_load(&fc.calls));
	CHECK(st.fills == st.misses);
	CHECK(st.fills - st.evictions == st.entries);
	CHECK(st.bytes <= 4096);
	CHECK(st.evictions > 0 && st.hits > 0);
	tdp_cache_free(c);
}

/* --- done entries and recycling ---------------------------------------- */

/* get + put_done; returns how many fills the get caused. */
static unsigned int touch_done(struct tdp_cache *c, struct fill_ctx *fc,
			       uint64_t key)
{
	struct tdp_cache_entry *e;
	unsigned int before = atomic_load(&fc->calls);

	CHECK(tdp_cache_get(c, key, fill, fc, &e) == 0);
	CHECK(e && entry_ok(e, key, key_size(fc, key)));
	tdp_cache_put_done(c, e);
	return atomic_load(&fc->calls) - before;
}

static void test_done(void)
{
	struct fill_ctx fc = { .size = 100 };
	/* The done list may hold a sixteenth: 100 bytes, one entry. */
	struct tdp_cache *c = tdp_cache_new(1600);
	struct tdp_cache_stats st;
	uint64_t k;

	CHECK(c);
	if (!c)
		return;
	for (k = 1; k <= 3; k++)
		CHECK(touch(c, &fc, k) == 1);
	CHECK(touch_done(c, &fc, 10) == 1);
	tdp_cache_stats(c, &st);
	CHECK(st.entries == 4 && st.evictions == 0);
	/* A second done entry pushes the first out; LRU entries stay. */
	CHECK(touch_done(c, &fc, 11) == 1);
	tdp_cache_stats(c, &st);
	CHECK(st.entries == 4 && st.evictions == 1);
	CHECK(touch(c, &fc, 1) == 0 && touch(c, &fc, 2) == 0);
	CHECK(touch(c, &fc, 3) == 0);
	/* Taken back by a get and put plainly: an LRU entry again. */
	CHECK(touch(c, &fc, 11) == 0);
	CHECK(touch_done(c, &fc, 10) == 1);
	tdp_cache_stats(c, &st);
	CHECK(st.entries == 5 && st.evictions == 1);
	/* Filling the bound evicts done entries before the LRU ones. */
	for (k = 20; k < 31; k++)
		CHECK(touch(c, &fc, k) == 1);
	tdp_cache_stats(c, &st);
	CHECK(st.bytes == 1600 && st.evictions == 1);
	CHECK(touch(c, &fc, 31) == 1);
	CHECK(touch(c, &fc, 1) == 0);
	CHECK(touch(c, &fc, 10) == 1);	/* the done one went */
	tdp_cache_free(c);
}

/* A drop frees every entry no one holds, done or not; a held one stays. */
static void test_drop(void)
{
	struct fill_ctx fc = { .size = 100 };
	struct tdp_cache *c = tdp_cache_new(1600);
	struct tdp_cache_entry *held;
	struct tdp_cache_stats st;
	uint64_t k;

	CHECK(c);
	if (!c)
		return;
	for (k = 1; k <= 3; k++)
		CHECK(touch(c, &fc, k) == 1);
	CHECK(touch_done(c, &fc, 10) == 1);
	CHECK(tdp_cache_get(c, 5, fill, &fc, &held) == 0);
	tdp_cache_stats(c, &st);
	CHECK(st.entries == 5 && st.bytes == 500);
	tdp_cache_drop(c);
	tdp_cache_stats(c, &st);
	CHECK(st.entries == 1 && st.bytes == 100 && st.evictions == 4);
	CHECK(entry_ok(held, 5, 100));
	tdp_cache_put(c, held);
	/* filled again as read */
	CHECK(touch(c, &fc, 1) == 1 && touch(c, &fc, 5) == 0);
	tdp_cache_drop(c);
	tdp_cache_stats(c, &st);
	CHECK(st.entries == 0 && st.bytes == 0);
	tdp_cache_free(c);
}

static void test_alloc(void)
{
	struct fill_ctx fc = { .size = 100 };
	struct tdp_cache *c = tdp_cache_new(300);
	struct tdp_cache_entry *e;
	struct tdp_cache_stats st;
	const void *old;
	void *p;

	CHECK(c);
	if (!c)
		return;
	CHECK(tdp_cache_get(c, 1, fill, &fc, &e) == 0);
	old = e ? tdp_cache_entry_data(e) : NULL;
	tdp_cache_put(c, e);
	CHECK(touch(c, &fc, 2) == 1 && touch(c, &fc, 3) == 1);
	/* Full: room for 100 more evicts 1, whose buffer comes back. */
	p = tdp_cache_alloc(c, 100);
	CHECK(p && p == old);
	tdp_cache_stats(c, &st);
	CHECK(st.recycled == 1 && st.evictions == 1 && st.bytes == 200);
	free(p);
	/* Room left: nothing evicted, a fresh buffer. */
	p = tdp_cache_alloc(c, 50);
	CHECK(p != NULL);
	free(p);
	tdp_cache_stats(c, &st);
	CHECK(st.evictions == 1 && st.entries == 2);
	/* Another size: evicted but not handed out. */
	p = tdp_cache_alloc(c, 200);
	CHECK(p != NULL);
	free(p);
	tdp_cache_stats(c, &st);
	CHECK(st.recycled == 1 && st.evictions == 2 && st.bytes == 100);
	CHECK(touch(c, &fc, 3) == 0 && touch(c, &fc, 2) == 1);
	tdp_cache_free(c);
}

int main(void)
{
	test_lru();
	test_bound();
	test_refs();
	test_failed_fill();
	single_flight(0);
	single_flight(-EIO);
	test_stress();
	test_done();
	test_drop();
	test_alloc();
	if (failures) {
		fprintf(stderr, "test-cache: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test-cache: all checks passed\n");
	return 0;
}
