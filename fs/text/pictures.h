/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pictures.h - the timeline pictures an engine made (timeline.svg,
 * SPEC 2.7): the size of each once known, its bytes while they fit.
 *
 * Invariants:
 *  - A picture is keyed by its view (struct tdatfs_text_view) as the
 *    caller normalised it: members its kind does not use and the padding
 *    zeroed, so keys compare as bytes.
 *  - At most PICS_MAX entries; their bytes at most PICS_BYTES in all,
 *    charged to the trace's chunk cache (the least recently used ones
 *    dropped first); a size stays known when its bytes are dropped.
 *  - One thread draws a picture at a time: the others wait for it and
 *    take its bytes, rather than draw it again (a stat racing the
 *    index's sizing thread).
 *  - A size kept (text_pics_size_keep()) that a drawing does not have
 *    fails the read with -EIO: the trace changed under us.
 */
#ifndef TDATFS_TEXT_PICTURES_H
#define TDATFS_TEXT_PICTURES_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdatfs_text_view;
struct text_pics;

/*
 * Draws a picture: *@bytes (malloc'd, the caller's) of *@len bytes.
 * Return: 0 or a negative errno.
 */
typedef int (*text_pic_draw_fn)(void *ctx, char **bytes, size_t *len);

struct text_pics *text_pics_new(void);
void text_pics_free(struct text_pics *p);
int text_pics_get(struct text_pics *p, struct tdat_file *f,
		  const struct tdatfs_text_view *k, text_pic_draw_fn draw,
		  void *ctx, char *buf, size_t len, uint64_t off, size_t *got,
		  uint64_t *size);
int text_pics_size_keep(struct text_pics *p, const struct tdatfs_text_view *k,
			uint64_t size);

#endif /* TDATFS_TEXT_PICTURES_H */
