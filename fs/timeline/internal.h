/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline/internal.h - the inside of a picture, shared by its model
 * (timeline/model.c: feeding, merging, coarsening) and its drawing
 * (timeline/svg.c).  Not a public header.
 *
 * Invariants:
 *  - x positions and widths are px from the plot's left edge, doubles.
 *  - A lane's segments are in x order; segment k owns the pieces
 *    [first, first + n) of the lane, in order of first appearance.  A
 *    segment of one piece whose span is at least the threshold is a
 *    long interval; any other is a run.  Only the last one may be open
 *    (still gathering).
 *  - A lane's ticks are in column order (px columns), one per column.
 *  - The model calls the drawing, never the other way (the drawing may
 *    coarsen nothing: it only reads).
 */
#ifndef TDATFS_TIMELINE_INTERNAL_H
#define TDATFS_TIMELINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdatfs-timeline.h"

#define TL_COMM		16
#define TL_LEFT		TDATFS_TIMELINE_LEFT
#define TL_W		TDATFS_TIMELINE_WIDTH

struct tl_piece {
	int32_t pid;
	double w;
};

struct tl_seg {
	double x0, x1;
	uint32_t first, n;
};

struct tl_tick {
	uint32_t col;		/* px column */
	uint32_t n;		/* prints in it */
	char *text;		/* the first one's, cut (PRINT_MAX) */
	uint32_t len;
	bool cut;		/* it was longer */
};

struct tl_lane {
	unsigned int cpu;
	struct tl_seg *segs;
	size_t nsegs, csegs;
	struct tl_piece *pcs;
	size_t npcs, cpcs;
	bool open;
	uint32_t *dens;		/* records per px column, or NULL */
	uint64_t records;
	struct tl_tick *ticks;
	size_t nticks, cticks;
};

struct tl_task {
	int32_t pid;		/* -1: empty slot */
	bool has_comm;
	uint64_t ns;		/* running time in the span, all lanes */
	uint64_t comm_ts;
	char comm[TL_COMM + 1];
};

struct tl_cache {
	uint32_t lane;
	int32_t pid;
	uint32_t idx;
};

struct tdatfs_timeline {
	char *title;
	uint64_t t0, t1;
	bool in_secs;
	size_t max_bytes;
	double scale;		/* px per unit of time */
	double th;		/* merging threshold, px */
	bool th_max;		/* doubling no longer gathers anything */
	double min_w;		/* pieces narrower are not drawn (past th_max) */
	bool bare;		/* nothing but the title fits the bound */
	unsigned int pw;	/* print columns, px */
	unsigned int dw;	/* density columns, px */
	unsigned int nlanes;
	struct tl_lane *lanes;
	size_t npieces;
	struct tl_task *tasks;	/* open addressing by pid */
	size_t ntasks, ctasks;
	struct tl_cache *cache;	/* direct mapped: the run's piece of a pid */
};

#define TL_CACHE	4096

/* The task table's hash of a pid (the model fills it, the drawing reads). */
static inline size_t tl_pid_hash(int pid)
{
	uint32_t h = (uint32_t)pid * 2654435761u;

	return h ^ (h >> 16);
}

/* The drawing's look-ups (timeline/svg.c). */
const struct tl_task *tl_task_find(const struct tdatfs_timeline *tl, int pid);
uint32_t tl_colour(int pid);

/* The drawing (timeline/svg.c), into @out; per part the bytes. */
struct tdatfs_buf;
struct tl_bytes {
	size_t bars, dens, prints;
};
int tl_draw(struct tdatfs_timeline *tl, bool density, struct tdatfs_buf *out,
	    struct tl_bytes *by);

#endif /* TDATFS_TIMELINE_INTERNAL_H */
