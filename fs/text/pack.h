/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pack.h - the bytes of a saved text state (a stream's
 * checkpoints, a comm model): numbers written in the machine's own byte
 * order into a tdatfs_buf, and read back from untrusted bytes (inline, no
 * state of its own).
 *
 * Invariants:
 *  - A reader never reads past its end: a read that does not fit fails,
 *    sets @bad and leaves the rest unread, so a caller may read a whole
 *    record and check @bad once.
 *  - Counts read from the bytes are checked against what is left
 *    (text_pack_fits()) before anything is allocated for them, so bytes
 *    of any length allocate at most in proportion to that length.
 */
#ifndef TDATFS_TEXT_PACK_H
#define TDATFS_TEXT_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tdatfs-common.h"

struct text_unpack {
	const unsigned char *p;
	size_t left;
	bool bad;
};

/* @n bytes of @v to @b, as they lie in memory. */
static inline int text_pack(struct tdatfs_buf *b, const void *v, size_t n)
{
	return tdatfs_buf_put(b, (const char *)v, n);
}

static inline int text_pack_u64(struct tdatfs_buf *b, uint64_t v)
{
	return text_pack(b, &v, sizeof(v));
}

static inline int text_pack_u32(struct tdatfs_buf *b, uint32_t v)
{
	return text_pack(b, &v, sizeof(v));
}

/* @n bytes to @v, or zeros and @bad when fewer are left. */
static inline void text_unpack(struct text_unpack *u, void *v, size_t n)
{
	if (u->bad || u->left < n) {
		u->bad = true;
		u->left = 0;
		memset(v, 0, n);
		return;
	}
	memcpy(v, u->p, n);
	u->p += n;
	u->left -= n;
}

static inline uint64_t text_unpack_u64(struct text_unpack *u)
{
	uint64_t v;

	text_unpack(u, &v, sizeof(v));
	return v;
}

static inline uint32_t text_unpack_u32(struct text_unpack *u)
{
	uint32_t v;

	text_unpack(u, &v, sizeof(v));
	return v;
}

/* Whether @count items of at least @size bytes each can still be left. */
static inline bool text_pack_fits(const struct text_unpack *u, uint64_t count,
				  size_t size)
{
	return !u->bad && size && count <= u->left / size;
}

#endif /* TDATFS_TEXT_PACK_H */
