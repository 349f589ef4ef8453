/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/bytes.h - the two byte-level readings every layer of the
 * text engine makes the way libtraceevent makes them (inline, no state).
 *
 * Invariants:
 *  - text_read_num() reads exactly as tep_read_number() does for a
 *    file of the given byte order; the caller has checked that @size
 *    bytes are readable at @p.
 *  - text_is_ident() is libtraceevent's notion of an identifier byte.
 */
#ifndef TDATFS_TEXT_BYTES_H
#define TDATFS_TEXT_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A number of @size bytes in the file's byte order. */
static inline uint64_t text_read_num(bool big_endian, const unsigned char *p,
				     unsigned int size)
{
	uint64_t v = 0;
	unsigned int i;
	bool swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint16_t v16;
	uint32_t v32;

	/* the sizes of fields, as one load each (the loop's value exactly) */
	switch (size) {
	case 1:
		return p[0];
	case 2:
		memcpy(&v16, p, 2);
		return swap ? __builtin_bswap16(v16) : v16;
	case 4:
		memcpy(&v32, p, 4);
		return swap ? __builtin_bswap32(v32) : v32;
	case 8:
		memcpy(&v, p, 8);
		return swap ? __builtin_bswap64(v) : v;
	}
	if (big_endian) {
		for (i = 0; i < size; i++)
			v = (v << 8) | p[i];
	} else {
		for (i = size; i > 0; i--)
			v = (v << 8) | p[i - 1];
	}
	return v;
}

/* A character of a libtraceevent identifier token (names, fields). */
static inline bool text_is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

#endif /* TDATFS_TEXT_BYTES_H */
