/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-compare.h - two engines' texts compared byte for byte, and a
 * buffer's streams made with a checkpoint spacing of the test's, for the
 * unit tests that make one text two ways.
 *
 * Invariants:
 *  - Included after check.h (CHECK() counts a failure, FATAL() ends the
 *    test), once per test file that includes text/engine.h and
 *    text/stream.h.
 *  - same_text() reads both texts to their ends in pieces of 64 KiB.
 */
#ifndef TDAT_TEST_TEXT_COMPARE_H
#define TDAT_TEST_TEXT_COMPARE_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "tdatfs-text.h"

/* Every byte of a text of @a and of @b, read in pieces, the same. */
static void same_text(struct tdatfs_text *a, struct tdatfs_text *b, size_t buf,
		      int cpu)
{
	static char x[65536], y[65536];
	uint64_t off = 0;
	ssize_t n, m;

	do {
		n = tdatfs_text_read(a, buf, cpu, x, sizeof(x), off);
		m = tdatfs_text_read(b, buf, cpu, y, sizeof(y), off);
		CHECK(n == m);
		if (n != m || n <= 0)
			break;
		CHECK(!memcmp(x, y, n));
		off += n;
	} while (n > 0);
	CHECK(n == 0);
}

/* The streams of buffer @b made first, with checkpoints every @spacing
 * (0: as they are). */
static void space_streams(struct tdatfs_text *t, size_t b, unsigned int ncpu,
			  uint64_t spacing)
{
	for (int c = -1; spacing && c < (int)ncpu; c++) {
		struct text_stream *st = text_engine_stream(t, b, c);

		FATAL(st);
		text_stream_set_spacing(st, spacing);
	}
}

#endif /* TDAT_TEST_TEXT_COMPARE_H */
