/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-comm.h - the comm shown for a pid: saved_cmdlines, and the
 * comms trace-cmd learns while printing.
 *
 * Invariants:
 *  - struct text_comms is made once at setup and never changes after:
 *    saved_cmdlines as parsed (sorted by pid, the first line of a pid
 *    wins, as tep_register_comm() does not override) and the sched events
 *    whose plugin handler registers comms, with their fields.  It is read
 *    without a lock.
 *  - The sched_switch plugin registers the comm of each pid it prints
 *    that has none yet, so trace-cmd shows a pid missing from
 *    saved_cmdlines as "<...>" before its first sched_switch or
 *    sched_wakeup line and by name after it.  Those registrations are
 *    kept per stream in a struct text_overlay, first registrations in
 *    stream order; a position in the stream sees the first *seen of
 *    them (struct text_comm_ctx), so text never depends on read order.
 *  - An overlay belongs to its stream and is used under the stream lock.
 */
#ifndef TDATFS_TEXT_COMM_H
#define TDATFS_TEXT_COMM_H

#include <stddef.h>

struct tep_handle;
struct text_comms;
struct text_overlay;

/* Where a record's comm lookups and registrations go. */
struct text_comm_ctx {
	struct text_overlay *ov;
	size_t *seen;		/* registrations visible at this position */
};

struct text_comms *text_comms_new(char *cmdlines);
void text_comms_find_events(struct text_comms *cm, struct tep_handle *tep);
void text_comms_free(struct text_comms *cm);
const char *text_comm_lookup(const struct text_comms *cm,
			     const struct text_comm_ctx *cc, int pid);
int text_comms_learn(const struct text_comms *cm, int id,
		     struct text_comm_ctx *cc, const unsigned char *data);

struct text_overlay *text_overlay_new(void);
void text_overlay_free(struct text_overlay *ov);

#endif /* TDATFS_TEXT_COMM_H */
