/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pftrace/proto.c - the protobuf wire encoding (tdatfs-pftrace.h): tags,
 * varints, length-delimited fields, nested messages with their length
 * written after the body.  Only wire types 0 and 2 exist here: every
 * field Perfetto's ftrace messages use is a varint or bytes.
 */
#include <errno.h>
#include <string.h>

#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"

/* Field numbers 19000-19999 are reserved by protobuf, the rest valid. */
#define FIELD_MAX ((1u << 29) - 1)

/*
 * Room kept for a nested message's length: 4 varint bytes hold up to
 * 2^28 - 1, far past any bundle (a ring-buffer page is a few KiB).
 */
#define LEN_ROOM 4

enum wire { WIRE_VARINT = 0, WIRE_LEN = 2 };

size_t tdatfs_pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t tdatfs_pb_varint_put(void *at, uint64_t v)
{
	unsigned char *p = at;
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* Appends a tag and, for a varint field, its value: at most 5 + 10 bytes. */
static int head_put(struct tdatfs_buf *b, uint32_t field, enum wire w,
		    uint64_t v)
{
	unsigned char *p;
	size_t n;

	if (!field || field > FIELD_MAX)
		return -EINVAL;
	p = (unsigned char *)tdatfs_buf_reserve(b, 15);
	if (!p)
		return -ENOMEM;
	n = tdatfs_pb_varint_put(p, ((uint64_t)field << 3) | w);
	n += tdatfs_pb_varint_put(p + n, v);
	b->len += n;
	return 0;
}

int tdatfs_pb_varint(struct tdatfs_buf *b, uint32_t field, uint64_t v)
{
	return head_put(b, field, WIRE_VARINT, v);
}

int tdatfs_pb_bytes(struct tdatfs_buf *b, uint32_t field, const void *p,
		    size_t n)
{
	size_t start = b->len;
	int err;

	err = head_put(b, field, WIRE_LEN, n);
	if (err)
		return err;
	err = tdatfs_buf_put(b, p, n);
	if (err)
		b->len = start;
	return err;
}

int tdatfs_pb_open(struct tdatfs_buf *b, uint32_t field, size_t *mark)
{
	unsigned char *p;
	size_t n;

	if (!field || field > FIELD_MAX)
		return -EINVAL;
	p = (unsigned char *)tdatfs_buf_reserve(b, 5 + LEN_ROOM);
	if (!p)
		return -ENOMEM;
	n = tdatfs_pb_varint_put(p, ((uint64_t)field << 3) | WIRE_LEN);
	b->len += n;
	*mark = b->len;
	b->len += LEN_ROOM;
	return 0;
}

/*
 * The body was written after LEN_ROOM reserved bytes; the length goes in
 * their place as a minimal varint and the body moves down onto it, which
 * is what makes the bytes canonical (Perfetto's own writer leaves the
 * padded length, also legal, but then a size depends on the writer).
 */
int tdatfs_pb_close(struct tdatfs_buf *b, size_t mark)
{
	unsigned char *p = (unsigned char *)b->p + mark;
	size_t body = b->len - mark - LEN_ROOM;
	size_t n;

	if (body >> (7 * LEN_ROOM))
		return -EFBIG;
	n = tdatfs_pb_varint_size(body);
	tdatfs_pb_varint_put(p, body);
	if (n < LEN_ROOM)
		memmove(p + n, p + LEN_ROOM, body);
	b->len -= LEN_ROOM - n;
	return 0;
}
