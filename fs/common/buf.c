/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-buf.c - the growing byte buffer of the text engine.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-text-buf.h"

static int buf_grow(struct text_buf *b, size_t n)
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

/**
 * text_buf_reserve() - room for @n more bytes
 * @b: buffer
 * @n: bytes the caller will write at the returned pointer
 *
 * The caller writes at most @n bytes there and then sets @b->len; the
 * point is to write a line without a copy through a temporary.
 *
 * Return: b->p + b->len, or NULL when out of memory.
 */
char *text_buf_reserve(struct text_buf *b, size_t n)
{
	if (b->len + n + 1 > b->cap && buf_grow(b, n) < 0)
		return NULL;
	return b->p + b->len;
}

/**
 * text_buf_put() - append bytes
 * @b: buffer
 * @s: bytes
 * @n: count
 *
 * Return: 0 or -ENOMEM.
 */
int text_buf_put(struct text_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap && buf_grow(b, n) < 0)
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/**
 * text_buf_printf() - append formatted text, at most 255 bytes of it
 * @b: buffer
 * @fmt: printf format
 *
 * Only for the engine's own short lines (markers, dropped events): the
 * bound keeps them off the heap.
 *
 * Return: 0, -EINVAL on a format error, or -ENOMEM.
 */
int text_buf_printf(struct text_buf *b, const char *fmt, ...)
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
	return text_buf_put(b, tmp, n);
}

/**
 * text_buf_release() - free the text and empty the buffer
 * @b: buffer, or NULL; the struct itself is not freed
 */
void text_buf_release(struct text_buf *b)
{
	if (!b)
		return;
	free(b->p);
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
}
