/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event-fmt.h - what the C unit tests that parse event formats written
 * in the test share: the common fields ftrace writes first, and a
 * repeatable random number source for the records they build.
 *
 * Invariants:
 *  - EVENT_FMT_COMMON is the "format:" line and the four common fields
 *    of an 8-byte kernel, byte for byte as ftrace writes them, followed
 *    by the blank line that ends them.
 *  - test_xorshift() gives the same sequence for the same seed on every
 *    run (no clock, no /dev/urandom); the seed must not be 0.
 */
#ifndef TDAT_TEST_EVENT_FMT_H
#define TDAT_TEST_EVENT_FMT_H

#include <stdint.h>

#define EVENT_FMT_COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* Marsaglia's xorshift64: the next number of the sequence in *@state. */
static inline uint64_t test_xorshift(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif /* TDAT_TEST_EVENT_FMT_H */
