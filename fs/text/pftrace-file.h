/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-file.h - the bytes of a buffer's trace.pftrace, of the
 * whole buffer or of a window (TDATFS_VIEW_PFTRACE): Perfetto's packets
 * (tdatfs-pftrace.h) of the records text/pftrace-event.h maps.
 *
 * Invariants:
 *  - The file is a head (system_info from the UNAME option; the interned
 *    kernel symbols when a record names a kernel function; the process
 *    tree when a record links a thread to a process), then one bundle
 *    packet per ring-buffer page of each CPU holding records the file
 *    shows, CPU by CPU in the buffer's order, pages in order.
 *  - The encoding is canonical, so the pass that makes a file measures
 *    each page's bundle once and keeps only the offsets (16 bytes per
 *    page); a read encodes again the pages it covers, and fails with
 *    -EIO when one does not come out the size measured.
 *  - A page that does not read (damage) is left out and the next bundle
 *    of its CPU says lost_events; so does the bundle of a record with
 *    missed events.
 *  - A window's file holds the records whose time as the window's text
 *    prints it lies in [t0, t1); its head is made of those records only.
 *  - A made file does not change; reads of it are thread-safe.  It
 *    points into the engine it was made on and must not outlive it.
 *  - The pass polls this thread's cancel hook (tdatfs_text_cancel_set()).
 *  - What a whole buffer's pass finds (its layout: the offsets and the
 *    head) can be saved as bytes and given to a later engine of the same
 *    trace, whose file then needs no pass (text_pf_file_load(): the
 *    layout is checked against the buffer and the size first).
 */
#ifndef TDATFS_TEXT_PFTRACE_FILE_H
#define TDATFS_TEXT_PFTRACE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tdatfs_text;
struct text_pf_file;

int text_pf_file_make(struct tdatfs_text *t, size_t buffer, uint64_t t0,
		      uint64_t t1, struct text_pf_file **out);
int text_pf_file_save(const struct text_pf_file *pf, void **bytes, size_t *len);
int text_pf_file_load(struct tdatfs_text *t, size_t buffer, const void *bytes,
		      size_t len, uint64_t size, struct text_pf_file **out);
uint64_t text_pf_file_size(const struct text_pf_file *pf);
size_t text_pf_file_mem(const struct text_pf_file *pf);
ssize_t text_pf_file_read(struct text_pf_file *pf, char *buf, size_t len,
			  uint64_t off);
void text_pf_file_free(struct text_pf_file *pf);

#endif /* TDATFS_TEXT_PFTRACE_FILE_H */
