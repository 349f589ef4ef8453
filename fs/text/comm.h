/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/comm.h - the comm shown for a pid: saved_cmdlines, and the
 * comms trace-cmd learns while printing.
 *
 * Invariants:
 *  - struct text_comms is made once at setup and never changes after:
 *    saved_cmdlines as parsed (every line, in file order, as
 *    tep_parse_saved_cmdlines() registers them) and the sched events
 *    whose plugin handler registers comms, with their fields.  It is read
 *    without a lock.
 *  - Each stream keeps a model of libtraceevent 1.7.1's comms as
 *    trace-cmd, printing that stream alone, leaves them (struct
 *    text_overlay; doc/trace-cmd-parity.md, section 4): the list of
 *    registrations (saved_cmdlines, then what the sched plugin registers)
 *    until the first lookup of a pid other than 0, then the array made of
 *    it (stably sorted by pid, duplicates kept), to which registrations
 *    only add missing pids.  A lookup returns the entry glibc's bsearch()
 *    lands on, so of a duplicated pid the one its neighbours decide.
 *    An array never changes once made: each thread caches what the
 *    last array it looked in says of the pids it looked up, so a
 *    lookup writes nothing that streams share.
 *  - A position in a stream is one count, the registrations met before
 *    it (struct text_comm_ctx.seen): the model only grows at the
 *    stream's frontier and what a position sees is a function of that
 *    count, so text never depends on read order.
 *  - A model belongs to its stream and is used under the stream lock.
 *  - A model is a function of its registrations (the list, whether the
 *    array was made, the pids added after it): saved as those and made
 *    again by replaying them (text_overlay_save(), text_overlay_load(),
 *    and on another engine text_overlay_copy()).
 */
#ifndef TDATFS_TEXT_COMM_H
#define TDATFS_TEXT_COMM_H

#include <stdbool.h>
#include <stddef.h>

struct tep_handle;
struct tdatfs_buf;
struct text_comms;
struct text_fnstack;
struct text_heads;
struct text_overlay;
struct text_unpack;

/*
 * Where a record's comm lookups and registrations go, the function
 * call stacks its position holds (text/ftrace-function.h; NULL: none
 * kept), and the line heads it made last (text/line.h; NULL: none kept).
 */
struct text_comm_ctx {
	struct text_overlay *ov;
	size_t *seen;		/* registrations met before this position */
	struct text_fnstack *fn;
	struct text_heads *heads;
};

struct text_comms *text_comms_new(char *cmdlines);
void text_comms_find_events(struct text_comms *cm, struct tep_handle *tep);
void text_comms_free(struct text_comms *cm);
const char *text_comm_lookup(const struct text_comms *cm,
			     const struct text_comm_ctx *cc, int pid);
bool text_comms_learns(const struct text_comms *cm, int id);
int text_comms_learn(const struct text_comms *cm, int id,
		     struct text_comm_ctx *cc, const unsigned char *data);

struct text_overlay *text_overlay_new(void);
void text_overlay_free(struct text_overlay *ov);
int text_overlay_save(const struct text_overlay *ov, struct tdatfs_buf *out);
int text_overlay_check(struct text_unpack *u, size_t *nreg);
int text_overlay_load(struct text_overlay *ov, const struct text_comms *t,
		      struct text_unpack *u);
struct text_overlay *text_overlay_copy(const struct text_overlay *ov,
				       const struct text_comms *t);
bool text_overlay_built(const struct text_overlay *ov);

#endif /* TDATFS_TEXT_COMM_H */
