/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-util.h - the bottom of the reader (internal): byte order, whole
 * positional reads and growable arrays.
 *
 * Invariants:
 *  - This module knows nothing of trace files: it uses libc only, and
 *    every other parser file may use it (nothing here calls back up).
 *  - tdp_get16/32/64() read exactly the width they name from a pointer of
 *    any alignment; @big_endian selects the byte order, so one set of
 *    readers serves both kinds of file and the host order never matters.
 *  - tdp_pread_full() fills the whole range or fails: a short read is
 *    never returned as success.
 *  - Growable arrays follow one rule for running out of memory:
 *    tdp_grow() returns an array with room for the elements asked for, or
 *    NULL with errno ENOMEM, and then the old array, its contents and its
 *    capacity are left exactly as they were; the caller still owns the old
 *    array and frees it as it would have.  Capacity at least doubles, so
 *    appending n elements one by one costs O(n).
 */
#ifndef TDAT_UTIL_H
#define TDAT_UTIL_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/**
 * tdp_get16() - the u16 at @p
 * @big_endian: byte order of the data
 * @p: the two bytes, any alignment
 *
 * Return: the value in host order.
 */
static inline uint16_t tdp_get16(bool big_endian, const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return big_endian ? be16toh(v) : le16toh(v);
}

/**
 * tdp_get32() - the u32 at @p
 * @big_endian: byte order of the data
 * @p: the four bytes, any alignment
 *
 * Return: the value in host order.
 */
static inline uint32_t tdp_get32(bool big_endian, const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return big_endian ? be32toh(v) : le32toh(v);
}

/**
 * tdp_get64() - the u64 at @p
 * @big_endian: byte order of the data
 * @p: the eight bytes, any alignment
 *
 * Return: the value in host order.
 */
static inline uint64_t tdp_get64(bool big_endian, const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return big_endian ? be64toh(v) : le64toh(v);
}

int tdp_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *done);
void *tdp_grow(void *v, size_t *cap, size_t need, size_t elem, size_t min);

#endif /* TDAT_UTIL_H */
