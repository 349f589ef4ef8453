/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/timeline-pass.h - the pass over a buffer's records that draws
 * its timeline.svg (tdatfs-timeline.h): each CPU's records read alone,
 * no text formatted, sched_switch and ftrace print fields read straight
 * from the records.
 *
 * Invariants:
 *  - The bytes depend only on the trace and the span: the same request
 *    gives the same bytes (the views layer caches them and may make them
 *    again).
 *  - The whole-buffer picture needs nothing produced before it; a
 *    window's reads the buffer's finished merged text's account (its
 *    checkpoints and which stretches hold sched_switch records) and so
 *    needs the event stats (tdatfs_text_event_stats()).
 *  - Damage reads as the text reads it: the records that read are drawn.
 *  - The pass polls this thread's cancel hook (tdatfs_text_cancel_set()).
 */
#ifndef TDATFS_TEXT_TIMELINE_PASS_H
#define TDATFS_TEXT_TIMELINE_PASS_H

#include <stddef.h>
#include <stdint.h>

struct tdatfs_text;

int text_timeline_make(struct tdatfs_text *t, size_t buffer, uint64_t t0,
		       uint64_t t1, char **out, size_t *len);

#endif /* TDATFS_TEXT_TIMELINE_PASS_H */
