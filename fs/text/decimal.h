/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/decimal.h - decimal digits of unsigned numbers for the hot
 * formatting paths of the text engine (inline, no state).
 *
 * Invariants:
 *  - text_dec_digits(v) is the length of printf("%llu", v).
 *  - text_dec_put(o, v, n) writes exactly @n bytes, printf("%0<n>llu", v);
 *    @v has at most @n digits and the caller has room for them.
 *  - Both give printf's bytes for every value; they only avoid its cost
 *    (two digits per division, and a digit count by comparisons).
 */
#ifndef TDATFS_TEXT_DECIMAL_H
#define TDATFS_TEXT_DECIMAL_H

#include <stdint.h>
#include <string.h>

/* "00" "01" ... "99": the two digits of every value below 100. */
static const char text_dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

/* Decimal digits of @v (1 for 0). */
static inline unsigned int text_dec_digits(uint64_t v)
{
	unsigned int n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

/* @v in @n digits (zeros first) at @o; returns the end. */
static inline char *text_dec_put(char *o, uint64_t v, unsigned int n)
{
	char *end = o + n, *p = end;
	uint32_t w;

	/* 32-bit divisions are cheaper: leave 64 bits as soon as possible */
	while (v > UINT32_MAX) {
		p -= 2;
		memcpy(p, text_dec_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	w = (uint32_t)v;
	while (w >= 100) {
		p -= 2;
		memcpy(p, text_dec_pairs + 2 * (w % 100), 2);
		w /= 100;
	}
	if (w >= 10) {
		p -= 2;
		memcpy(p, text_dec_pairs + 2 * w, 2);
	} else {
		*--p = '0' + w;
	}
	while (p > o)
		*--p = '0';
	return end;
}

/* @v, below 1000000, in six digits (zeros first) at @o; returns the end.
 * Every line's microseconds: three pairs, no loop. */
static inline char *text_dec_put6(char *o, uint32_t v)
{
	uint32_t hi = v / 10000, mid = v / 100 % 100, lo = v % 100;

	memcpy(o, text_dec_pairs + 2 * hi, 2);
	memcpy(o + 2, text_dec_pairs + 2 * mid, 2);
	memcpy(o + 4, text_dec_pairs + 2 * lo, 2);
	return o + 6;
}

#endif /* TDATFS_TEXT_DECIMAL_H */
