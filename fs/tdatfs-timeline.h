/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-timeline.h - the picture of timeline.svg (doc/TIMELINE.md,
 * README "timeline.svg"): a model of what runs on each lane, fed
 * intervals, prints and record times, and the SVG bytes drawn from it.
 * It knows nothing of traces: the text engine's gatherer feeds it
 * (text/timeline-pass.c), the unit test feeds it inline data.
 *
 * Invariants:
 *  - Times are in the trace's unit (ns on a nanosecond clock), inside
 *    the span [t0, t1) given at creation; what is fed outside it is
 *    clipped (an interval) or dropped (a record, a print).
 *  - Each lane's intervals are fed in time order and do not overlap;
 *    pid 0 (idle) is never drawn.  A task's running time, the sum of the
 *    widths drawn for it on a lane, is kept exact by the merging of
 *    short intervals into runs (TIMELINE.md "Merging"), to the rounding
 *    of 3 decimals per rectangle.
 *  - Memory while feeding is bounded by the merging threshold: past
 *    TDATFS_TIMELINE_PIECES_MAX pieces it doubles and the runs are gathered
 *    again (the per-task table grows with the distinct pids, as the
 *    legend needs).
 *  - tdatfs_timeline_render() gives at most TDATFS_TIMELINE_MAX_BYTES: it coarsens
 *    (bars, density columns, print columns) until the bytes fit.  The
 *    bytes depend only on what was fed, never on the order of lanes.
 */
#ifndef TDATFS_TIMELINE_H
#define TDATFS_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TDATFS_TIMELINE_LEFT		90	/* x of the plot's left edge, px */
#define TDATFS_TIMELINE_WIDTH		1440	/* plot width, px */
#define TDATFS_TIMELINE_SVG_WIDTH	1600
#define TDATFS_TIMELINE_MAX_BYTES	2000000	/* the file's bound (2 MB) */
#define TDATFS_TIMELINE_PIECES_MAX	(1u << 16)
#define TDATFS_TIMELINE_PRINT_MAX	200	/* bytes of a print's text shown */

struct tdatfs_timeline;

/**
 * struct tdatfs_timeline_opts - what a picture shows
 * @title: the buffer's name ("top" for the top buffer); copied
 * @t0: first time of the span
 * @t1: first time past it, > @t0
 * @in_secs: the unit is ns (the axis in seconds); else a raw count
 * @nlanes: lanes (CPUs); 0 draws a picture without lanes (a buffer
 *	without CPUs)
 * @cpus: the CPU number of each lane, @nlanes of them; copied
 * @max_bytes: the bound; 0 for TDATFS_TIMELINE_MAX_BYTES (tests make it small)
 */
struct tdatfs_timeline_opts {
	const char *title;
	uint64_t t0, t1;
	bool in_secs;
	unsigned int nlanes;
	const unsigned int *cpus;
	size_t max_bytes;
};

/**
 * tdatfs_timeline_new() - an empty picture
 * @o: what it shows
 *
 * Return: the picture (free with tdatfs_timeline_free()), or NULL with errno
 * set (EINVAL for a span or lanes that are not as documented).
 */
struct tdatfs_timeline *tdatfs_timeline_new(const struct tdatfs_timeline_opts *o);

/**
 * tdatfs_timeline_free() - free a picture; NULL is fine
 * @tl: picture
 */
void tdatfs_timeline_free(struct tdatfs_timeline *tl);

/**
 * tdatfs_timeline_run() - a task ran on a lane
 * @tl: picture
 * @lane: lane index (not the CPU number)
 * @pid: the task; 0 (idle) is not drawn
 * @start: first time
 * @end: first time past it; an empty interval is ignored
 *
 * Return: 0, -EINVAL for a lane out of range, or -ENOMEM.
 */
int tdatfs_timeline_run(struct tdatfs_timeline *tl, unsigned int lane, int pid,
		 uint64_t start, uint64_t end);

/**
 * tdatfs_timeline_comm() - the comm of a task as a switch names it
 * @tl: picture
 * @pid: the task
 * @comm: its name, @len bytes (cut at a NUL)
 * @len: at most 16 bytes are kept
 * @ts: the switch's time: the latest one's comm is shown
 *
 * Return: 0 or -ENOMEM.
 */
int tdatfs_timeline_comm(struct tdatfs_timeline *tl, int pid, const char *comm,
			  size_t len,
		  uint64_t ts);

/**
 * tdatfs_timeline_record() - a record on a lane, for density mode
 * @tl: picture
 * @lane: lane index
 * @ts: its time
 *
 * Return: 0, -EINVAL for a lane out of range, or -ENOMEM.
 */
int tdatfs_timeline_record(struct tdatfs_timeline *tl, unsigned int lane, uint64_t ts);

/**
 * tdatfs_timeline_print() - a print (trace_marker) record on a lane
 * @tl: picture
 * @lane: lane index
 * @ts: its time
 * @text: its text, @len bytes (a trailing newline is dropped)
 * @len: its length
 *
 * Prints of one lane come in time order (a later one in a pixel column
 * already ticked is counted on that tick).
 *
 * Return: 0, -EINVAL for a lane out of range, or -ENOMEM.
 */
int tdatfs_timeline_print(struct tdatfs_timeline *tl, unsigned int lane, uint64_t ts,
		   const char *text, size_t len);

/**
 * tdatfs_timeline_render() - the SVG bytes
 * @tl: picture
 * @density: draw the records per pixel column instead of the bars (a
 *	buffer without sched_switch records)
 * @out: set to the bytes (malloc'd, the caller frees them), followed by
 *	a NUL not counted in @len
 * @len: set to their count, at most the bound
 *
 * May coarsen the model (the bars' merging threshold doubles) to fit the
 * bound; rendering again gives the same bytes.
 *
 * Return: 0 or -ENOMEM.
 */
int tdatfs_timeline_render(struct tdatfs_timeline *tl, bool density,
			    char **out, size_t *len);

/**
 * tdatfs_timeline_threshold() - the bars' merging threshold now, in px
 * @tl: picture
 *
 * Return: 1 at first, doubled at each coarsening.
 */
double tdatfs_timeline_threshold(const struct tdatfs_timeline *tl);

#endif /* TDATFS_TIMELINE_H */
