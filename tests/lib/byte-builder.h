/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * byte-builder.h - a growing byte buffer for writing trace.dat fixtures
 * by hand (tests/unit/parser-input.c, fuzz/gen-corpus.c).
 *
 * Invariants: @d holds @len bytes written so far (NULL while empty), in
 * @cap bytes of malloc'd memory the caller frees; numbers are written in
 * the byte order @be selects; running out of memory exits the program
 * (these are test tools).
 */
#ifndef TDAT_TEST_BYTE_BUILDER_H
#define TDAT_TEST_BYTE_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bb {
	uint8_t *d;
	size_t len, cap;
	bool be;		/* big-endian numbers */
};

static inline void put(struct bb *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->d = realloc(b->d, b->cap);
		if (!b->d) {
			fprintf(stderr, "byte builder: out of memory\n");
			exit(1);
		}
	}
	if (n)
		memcpy(b->d + b->len, p, n);
	b->len += n;
}

/* The low @n bytes of @v in the builder's byte order. */
static inline void putn(struct bb *b, uint64_t v, int n)
{
	uint8_t x[8];

	for (int i = 0; i < n; i++)
		x[b->be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	put(b, x, (size_t)n);
}

static inline void u8(struct bb *b, uint8_t v) { putn(b, v, 1); }
static inline void u16(struct bb *b, uint16_t v) { putn(b, v, 2); }
static inline void u32(struct bb *b, uint32_t v) { putn(b, v, 4); }
static inline void u64(struct bb *b, uint64_t v) { putn(b, v, 8); }
/* A string with its NUL, and one without. */
static inline void str(struct bb *b, const char *s) { put(b, s, strlen(s) + 1); }
static inline void txt(struct bb *b, const char *s) { put(b, s, strlen(s)); }

/* Overwrite @n bytes at @at (already written) with @v. */
static inline void patch(struct bb *b, size_t at, uint64_t v, int n)
{
	size_t save = b->len;

	b->len = at;
	putn(b, v, n);
	b->len = save;
}

/* Zero bytes up to a multiple of @align. */
static inline void pad_to(struct bb *b, size_t align)
{
	while (b->len % align)
		u8(b, 0);
}

#endif /* TDAT_TEST_BYTE_BUILDER_H */
