/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream-internal.h - the inside of a text stream, shared by
 * text/stream.c (producing text) and text/stream-state.c (saving
 * and loading a stream's state).  Not a public header.
 *
 * Invariants:
 *  - Every field is used under the stream's @lock; a stream a merged one
 *    leads (text/stream-follow.c) is changed under its leader's, and
 *    nothing else uses it until the lead ends.
 *  - Checkpoint 0 is the start of the text (offset 0, nothing seen,
 *    every position zero, no function call stacks); checkpoint offsets
 *    rise strictly, each a step boundary, and ckpt_seen never falls.
 *  - A cursor's function call stacks are those of its position: set from
 *    the checkpoint it seeks to, changed by each step.
 *  - Once @size_known, no checkpoint is added.
 */
#ifndef TDATFS_TEXT_STREAM_INTERNAL_H
#define TDATFS_TEXT_STREAM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdatfs-common.h"
#include "line.h"
#include "source.h"
#include "stream.h"

struct text_account;
struct text_follow;

#define NCURSORS	4
#define CKPT_BYTES	(64 * 1024)	/* text between checkpoints, at first */
/*
 * Checkpoint memory of one stream, at most: past it every other
 * checkpoint is dropped and the spacing doubles, so memory stays flat
 * however long the text (a read then decodes at most the spacing from
 * the checkpoint before it: 512 KiB for 16 copies of big.dat).
 */
#define CKPT_MEM	(512 * 1024)
/*
 * The copies of the function tracer's call stacks at the checkpoints, at
 * most (past it they are thinned out with the checkpoints): a few
 * hundred bytes each, so at the usual spacing only a text of gigabytes
 * reaches it.
 */
#define CKPT_FN_MEM	(4 * CKPT_MEM)

struct text_cursor {
	bool valid;
	uint64_t used;		/* LRU tick */
	struct text_source **src;	/* one per part */
	struct tdatfs_buf line;	/* text [off, off + line.len) */
	uint64_t off;
	size_t seen;		/* learned comms visible here */
	struct text_fnstack *fn;	/* function call stacks here */
	struct text_heads heads;	/* line heads made last (text/line.h) */
	uint64_t nrec;		/* records consumed before here */
	size_t j;		/* a view's entry the cursor is in */
	size_t ck;		/* a hint: the first checkpoint after @off,
				 * checked before use (line_fits()) */
	bool eof;
	struct text_pos fpos;	/* a follower's: its CPU's position (it has
				 * no sources, text/stream-follow.c) */
};

/*
 * What a step met: its record's event and times (text/account.h); and,
 * when @follow was asked, the record, its slot and where its lines lie,
 * for the texts made beside (text/stream-follow.c).
 */
struct text_step {
	int id;			/* INT_MIN: no record; -1: its type not read */
	uint64_t key, ts;
	bool follow;
	unsigned int slot;
	struct text_rec rec;
	struct text_line_parts lp;
};

/*
 * A buffer of the stream: its CPUs are the slots [first, first + ncpu),
 * and the text of each of its records starts with @prefix.
 */
struct stream_part {
	size_t b;
	unsigned int first;
	unsigned int ncpu;
	char *prefix;
	size_t plen;
};

struct text_stream {
	pthread_mutex_t lock;
	struct text_stream_env env;
	size_t nparts;
	struct stream_part *parts;
	unsigned int ncpu;	/* slots: the CPUs of every part */
	size_t *cidx;		/* buffer cpu index of each slot */
	int only;		/* the one slot printed, or -1: all of them */
	bool trying;		/* TEXT_CPU_TRY_ALONE */
	bool must_look;		/* ...and a record that looks ahead was met */
	struct tdatfs_buf discard;	/* markers of slots not printed */
	uint64_t *npages;
	char *head;		/* text before the first record's */
	size_t hlen;

	size_t nckpt;
	size_t ckpt_cap;
	size_t ckpt_max;		/* thinned out when reached */
	uint64_t ckpt_every;		/* text bytes between checkpoints */
	uint64_t *ckpt_off;
	size_t *ckpt_seen;
	struct text_pos *ckpt_pos;	/* nckpt * ncpu */
	/* function call stacks at each checkpoint (NULL: all empty); a
	 * view's are its full text's, only its array is its own */
	struct text_fnsnap **ckpt_fn;
	size_t fn_bytes;		/* memory of the stacks' copies */
	struct text_overlay *ov;

	bool size_known;
	uint64_t size;

	/* what the text holds between checkpoints; NULL in a view */
	struct text_account *acct;
	uint64_t front;		/* text produced at the frontier */

	/*
	 * A view: its checkpoints are its entries, each the start of a
	 * stretch of the full text that holds records it keeps (the
	 * offsets of the first @nckpt known), and the records consumed at
	 * each one's start and end; the cursors pass from an entry's end
	 * to the next one's start.
	 */
	bool is_view;
	bool ov_borrowed;	/* @ov is the full text's, finished: read only */
	/*
	 * A mirror (text_stream_new_mirror()): the checkpoint tables are the
	 * finished full text's, only read, and there is no account.
	 */
	bool ckpt_borrowed;
	struct text_filter flt;
	struct text_stream *vfull;	/* a view's full text, not owned */
	size_t nsel;
	uint64_t *vstart, *vend;
	/* bytes of the tables of a view, or of a state loaded, charged to
	 * the file's chunk cache (tdat_cache_charge()) */
	size_t charged;

	/* the texts made beside this one's frontier; NULL: none */
	struct text_follow *fol;
	/* the first part of a split text ends before a record at or after
	 * this time (text/stream-split.c); 0: not split */
	uint64_t stop_ts;

	uint64_t tick;
	struct text_cursor cur[NCURSORS];
};

int text_stream_ckpt_add(struct text_stream *st, uint64_t off,
			 const struct text_cursor *cu);
void text_stream_ckpt_charge(struct text_stream *st);
int text_stream_ckpt_join(struct text_stream *st, struct text_stream *part);

int text_follow_step(struct text_stream *st, const struct text_cursor *cu,
		     const struct text_step *si);
void text_follow_end(struct text_stream *st, const struct text_cursor *cu);
void text_follow_free(struct text_stream *st);

#endif /* TDATFS_TEXT_STREAM_INTERNAL_H */
