/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-util.c - whole positional reads and growable arrays (see
 * tdat-util.h for the rules they keep).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "tdat-util.h"

/**
 * tdp_pread_full() - read exactly @len bytes at @off of @fd
 * @fd: file open for reading
 * @buf: destination
 * @len: bytes wanted
 * @off: file offset
 * @done: set to the bytes read before a failure (@len on success); may
 *	be NULL
 *
 * Interrupted and short reads are retried.  Callers that check the range
 * against the file size first read -EIO as "the file shrank".
 *
 * Return: 0, -EIO when the file ends before @off + @len, -EINVAL when the
 * range does not fit a file offset, or the negative errno of pread().
 */
int tdp_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *done)
{
	unsigned char *p = buf;
	size_t got = 0;
	int r = 0;

	while (got < len) {
		ssize_t n;

		if (off + got > (uint64_t)INT64_MAX) {
			r = -EINVAL;
			break;
		}
		n = pread(fd, p + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0) {
			r = -EIO;
			break;
		}
		got += (size_t)n;
	}
	if (done)
		*done = got;
	return r;
}

/**
 * tdp_grow() - make room for @need elements in a growable array
 * @v: the array (NULL while empty)
 * @cap: its capacity in elements; updated on success
 * @need: elements it must hold
 * @elem: size of one element
 * @min: capacity of a first allocation (when it exceeds @need)
 *
 * The new capacity is the largest of @need, twice *@cap and @min.  See
 * tdat-util.h for the allocation-failure rule.
 *
 * Return: the array, moved or not (assign it back), or NULL with errno
 * set to ENOMEM, @v and *@cap untouched.
 */
void *tdp_grow(void *v, size_t *cap, size_t need, size_t elem, size_t min)
{
	size_t n = *cap;
	void *p;

	if (need <= n && v)
		return v;
	n = n > SIZE_MAX / 2 ? SIZE_MAX : n * 2;
	if (n < need)
		n = need;
	if (n < min)
		n = min;
	if (!n)
		n = 1;
	if (!elem || n > SIZE_MAX / elem) {
		errno = ENOMEM;
		return NULL;
	}
	p = realloc(v, n * elem);
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	*cap = n;
	return p;
}
