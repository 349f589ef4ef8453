/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/view-size.h - the size of a view whose offsets are not known
 * (one of fields, of a time window), made by cutting its text in parts
 * on several threads at once.
 *
 * Invariants:
 *  - A view's entries are stretches of its full text, each starting at
 *    a checkpoint of it; an entry's text does not depend on where it
 *    starts, so its length is made alone, and the lengths summed are the
 *    view's offsets and size (text_stream_view_learn()).
 *  - The calling thread cuts the first part on the view itself (its
 *    cancel hook stops the cut); each other part is cut by a thread of
 *    its own on a view of its own (text_stream_view_alike()), freed
 *    before the call returns.  A part that fails stops the others; the
 *    view then learns nothing, as a read that failed leaves it.
 *  - The text made on the way is handed back when all of it fits in
 *    the bound the caller gives, so a small view is made only once.
 */
#ifndef TDATFS_TEXT_VIEW_SIZE_H
#define TDATFS_TEXT_VIEW_SIZE_H

#include <stddef.h>

struct tdatfs_buf;
struct text_stream;

int text_view_size_cut(struct text_stream *v, unsigned int threads, size_t max,
		       struct tdatfs_buf *text);

#endif /* TDATFS_TEXT_VIEW_SIZE_H */
