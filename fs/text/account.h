/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/account.h - what a stream's text holds between its
 * checkpoints: per stretch (the text from one checkpoint to the next),
 * the records consumed before it, the range of their times and, per
 * event, how many records and bytes of text; per event over the whole
 * text, the totals and the first and last times.  The views
 * (text/views.c) pass over the stretches that hold nothing of
 * theirs.
 *
 * Invariants:
 *  - Stretch k starts at checkpoint k of its stream; the last one is
 *    open (records are added to it) until the text ends.  There are as
 *    many stretches as checkpoints.
 *  - Only the stream's frontier adds: a step is counted once, in text
 *    order.  A step's bytes are all the text it added (markers met, the
 *    dropped-events line, the record's lines), counted for the event of
 *    its record; a step without a record (markers at the end) counts
 *    for no event.
 *  - text_account_thin() merges stretches 2k and 2k + 1 into k, as the
 *    stream drops every other checkpoint; text_account_join() runs the
 *    first stretch of a split text's second part on in the first part's
 *    last, as the stream keeps no checkpoint where the parts meet.
 *  - An account of times only (text_account_times_only(): the texts no
 *    event view is cut from) has no events, so its index stays small.
 *  - Used under the stream's lock; a finished account (the text's size
 *    known) is only read, so views read it without one.
 */
#ifndef TDATFS_TEXT_ACCOUNT_H
#define TDATFS_TEXT_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdatfs_buf;
struct text_unpack;

/* One event's records in a stretch, or in the whole text. */
struct text_account_ev {
	int id;
	uint64_t records;
	uint64_t bytes;
};

/* One event over the whole text. */
struct text_account_total {
	int id;
	uint64_t records, bytes;
	uint64_t first_ts, last_ts;
};

struct text_account;

struct text_account *text_account_new(void);
void text_account_times_only(struct text_account *a);
size_t text_account_bytes(const struct text_account *a);
void text_account_free(struct text_account *a);
int text_account_open(struct text_account *a, uint64_t nrec);
int text_account_step(struct text_account *a, int id, uint64_t key, uint64_t ts,
		      uint64_t bytes);
void text_account_finish(struct text_account *a, uint64_t nrec);
int text_account_thin(struct text_account *a);
int text_account_join(struct text_account *a, const struct text_account *b);

size_t text_account_stretches(const struct text_account *a);
uint64_t text_account_nrec(const struct text_account *a, size_t k);
bool text_account_times(const struct text_account *a, size_t k, uint64_t *kmin,
			uint64_t *kmax);
const struct text_account_ev *text_account_find(const struct text_account *a,
						size_t k, int id);
const struct text_account_total *
text_account_totals(const struct text_account *a, size_t *n);

int text_account_save(const struct text_account *a, struct tdatfs_buf *out);
int text_account_load(struct text_account *a, struct text_unpack *u,
		      size_t nckpt);
int text_account_check(struct text_unpack *u, size_t nckpt);

#endif /* TDATFS_TEXT_ACCOUNT_H */
