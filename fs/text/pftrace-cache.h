/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-cache.h - the trace.pftrace files (text/pftrace-file.h)
 * an engine made, kept by the views (text/views.c) so that a stat after
 * a read, and every read, costs no pass.
 *
 * Invariants:
 *  - A file is made at most once at a time: askers of a file being made
 *    wait for it.  A file held (get without put) is never freed.
 *  - At most PF_FILES files and PF_BYTES of their tables are kept; past
 *    that the least recently used ones not held are forgotten (made
 *    again when asked for).  Their memory is charged to the trace's
 *    chunk cache, as the views' pictures are.
 *  - A whole buffer's size may be kept apart from its file (an index
 *    kept it): a stat then costs no pass, and the file made by the first
 *    read must come out that size, else the read fails with -EIO.  Its
 *    layout may be kept too: the first read then makes the file from it
 *    (text_pf_file_load()) without a pass, and lets it go.
 *  - All calls are thread-safe.
 */
#ifndef TDATFS_TEXT_PFTRACE_CACHE_H
#define TDATFS_TEXT_PFTRACE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdatfs_text;
struct text_pf_file;
struct text_pf_cache;

struct text_pf_cache *text_pf_cache_new(void);
void text_pf_cache_free(struct text_pf_cache *c);
int text_pf_cache_get(struct text_pf_cache *c, struct tdatfs_text *t,
		      size_t buffer, uint64_t t0, uint64_t t1,
		      struct text_pf_file **out);
void text_pf_cache_put(struct text_pf_cache *c, struct text_pf_file *pf);
int text_pf_cache_size_keep(struct text_pf_cache *c, size_t buffer,
			    uint64_t size);
bool text_pf_cache_size_kept(struct text_pf_cache *c, size_t buffer,
			     uint64_t *size);
int text_pf_cache_layout_keep(struct text_pf_cache *c, struct tdatfs_text *t,
			      size_t buffer, const void *bytes, size_t len);
int text_pf_cache_layout(struct text_pf_cache *c, struct tdatfs_text *t,
			 size_t buffer, void **bytes, size_t *len);

#endif /* TDATFS_TEXT_PFTRACE_CACHE_H */
