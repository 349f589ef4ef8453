/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-progress.h - the progress line of long work (an index build, a
 * whole-trace check) and the signals that stop such work, shared by both
 * front ends.
 *
 * Invariants:
 *  - The line goes to stderr, and only after a second of work: shorter
 *    work stays silent.  On a terminal it is redrawn in place ("\r", the
 *    rest of a longer line blanked) at most five times a second and
 *    finished with a newline by tdatfs_progress_end(); elsewhere, only
 *    when asked for, it is a plain line every two seconds.
 *  - Its figures are the caller's: done out of a total in the caller's
 *    unit, a unit's bytes for the rate; time left assumes the rate so far.
 *  - One progress object is drawn by one thread at a time.
 *  - Signal stopping is process-wide (signal actions are): one
 *    tdatfs_progress_stop_on_signals() at a time, undone by
 *    tdatfs_progress_restore().  A signal ignored when it starts stays
 *    ignored (nohup, a shell's background job).
 */
#ifndef TDATFS_PROGRESS_H
#define TDATFS_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct tdatfs_progress;

/**
 * struct tdatfs_progress_opts - what a progress line says
 * @prog: the program's name, first on the line
 * @trace: the trace's path, second
 * @what: the work, e.g. "indexing"
 * @unit: what @total counts, plural, e.g. "pages"
 * @unit_bytes: bytes of one unit, for the rate in MB/s (0: 1)
 * @total: units of the whole work; 0 shows nothing
 * @always: also when stderr is not a terminal (plain lines)
 *
 * The line reads "PROG: TRACE: WHAT: P% of TOTAL UNIT, R MB/s, S s left".
 * The strings must outlive the object.
 */
struct tdatfs_progress_opts {
	const char *prog;
	const char *trace;
	const char *what;
	const char *unit;
	uint64_t unit_bytes;
	uint64_t total;
	bool always;
};

/**
 * tdatfs_progress_new() - start the clock of a piece of work
 * @o: what the line says (copied; its strings are not)
 *
 * Decides once whether the line is shown at all (stderr a terminal, or
 * @o->always; @o->total not 0); a hidden one costs a clock read an update.
 *
 * Return: the object (free with tdatfs_progress_free()), or NULL with
 * errno set.
 */
struct tdatfs_progress *tdatfs_progress_new(const struct tdatfs_progress_opts *o);

/**
 * tdatfs_progress_update() - the work has reached @done units
 * @p: progress, or NULL (nothing happens)
 * @done: units done so far, at most the total
 *
 * Draws the line when the work has lasted a second and the last line is
 * old enough; otherwise returns at once.
 */
void tdatfs_progress_update(struct tdatfs_progress *p, uint64_t done);

/**
 * tdatfs_progress_end() - the work is over
 * @p: progress, or NULL
 * @done: units done in the end
 *
 * A line left on a terminal is redrawn with these figures and ended
 * with a newline; nothing else is printed.  No update may follow.
 */
void tdatfs_progress_end(struct tdatfs_progress *p, uint64_t done);

/**
 * tdatfs_progress_clear() - make room for another line on the terminal
 * @p: progress, or NULL
 *
 * A line drawn in place is blanked and the cursor put back at its start,
 * so that text printed next starts a clean line; the next update draws
 * the line anew.  Elsewhere nothing happens.
 */
void tdatfs_progress_clear(struct tdatfs_progress *p);

/**
 * tdatfs_progress_free() - free a progress object; NULL is fine
 * @p: progress
 */
void tdatfs_progress_free(struct tdatfs_progress *p);

/**
 * tdatfs_progress_stop_on_signals() - let SIGINT, SIGTERM, SIGHUP stop work
 * @cancel: set to true by the first of them that arrives (the flag a
 *	build polls); must stay valid until tdatfs_progress_restore()
 *
 * Each of the three that is not ignored is caught (SA_RESTART) and
 * remembered; the actions before are saved.  What to do about the
 * signal afterwards (exit 128 + N) is the caller's business.
 */
void tdatfs_progress_stop_on_signals(_Atomic bool *cancel);

/**
 * tdatfs_progress_restore() - put the signal actions saved back
 *
 * Return: the last of the signals that arrived since
 * tdatfs_progress_stop_on_signals(), or 0.
 */
int tdatfs_progress_restore(void);

#endif /* TDATFS_PROGRESS_H */
