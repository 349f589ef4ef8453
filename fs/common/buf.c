/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common/buf.c - the growing byte buffer (invariants and API in
 * tdatfs-common.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"

static int buf_grow(struct tdatfs_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (n > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

char *tdatfs_buf_reserve(struct tdatfs_buf *b, size_t n)
{
	if (b->len + n + 1 > b->cap && buf_grow(b, n) < 0)
		return NULL;
	return b->p + b->len;
}

int tdatfs_buf_put(struct tdatfs_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap && buf_grow(b, n) < 0)
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

int tdatfs_buf_printf(struct tdatfs_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	return tdatfs_buf_put(b, tmp, n);
}

void tdatfs_buf_release(struct tdatfs_buf *b)
{
	if (!b)
		return;
	free(b->p);
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
}
