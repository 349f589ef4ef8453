/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-buf.h - the growing byte buffer the text engine writes its
 * lines into; the bottom layer of the engine (it calls nothing else).
 *
 * Invariants:
 *  - @p holds @len bytes of text; when @cap is not 0, @p has room for
 *    @cap bytes and @len < @cap (one byte is always free after the text,
 *    so a caller may put a NUL there; the buffer never does).
 *  - A zeroed struct is an empty buffer; it allocates on first growth.
 *  - The text is bytes, not a C string: it may hold NULs.
 *  - Appending never shortens the text; on -ENOMEM the text is as it was.
 *  - The owner frees @p with text_buf_release(); the struct itself is
 *    the owner's (usually embedded).
 */
#ifndef TDATFS_TEXT_BUF_H
#define TDATFS_TEXT_BUF_H

#include <stddef.h>

struct text_buf {
	char *p;
	size_t len;
	size_t cap;
};

int text_buf_put(struct text_buf *b, const char *s, size_t n);
char *text_buf_reserve(struct text_buf *b, size_t n);
int text_buf_printf(struct text_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void text_buf_release(struct text_buf *b);

#endif /* TDATFS_TEXT_BUF_H */
