/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-out.h - the growing byte buffer the trace generators of
 * tests/damaged write their variants into.
 *
 * Invariants:
 *  - o->d holds o->len bytes of o->cap; a zeroed struct out is empty.
 *  - Every helper dies (exit status 2, with perror) when memory runs out:
 *    a generator has nothing to do without its output.
 *  - Integers are written little-endian (the test traces are).
 */
#ifndef GEN_OUT_H
#define GEN_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	unsigned char *d;
	size_t len, cap;
};

static inline __attribute__((noreturn)) void die(const char *what)
{
	perror(what);
	exit(2);
}

static inline void put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 65536;

		while (cap < o->len + n)
			cap *= 2;
		o->d = realloc(o->d, cap);
		if (!o->d)
			die("realloc");
		o->cap = cap;
	}
	memcpy(o->d + o->len, p, n);
	o->len += n;
}

/* Little-endian integers of @width bytes. */
static inline void putn(struct out *o, uint64_t v, int width)
{
	unsigned char b[8];

	for (int i = 0; i < width; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(o, b, width);
}

/* Little-endian integers stored at, or read from, @p. */
static inline void le_set(unsigned char *p, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t le_get(const unsigned char *p, int width)
{
	uint64_t v = 0;

	for (int i = width - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif /* GEN_OUT_H */
