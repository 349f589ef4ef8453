/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream-ckpt.c - a stream's checkpoint tables (text/stream.h,
 * text/stream-internal.h): one added as the frontier passes its spacing,
 * thinned by half past the bound with the account's stretches, grown,
 * and charged to the chunk cache; their offsets for tests.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "account.h"
#include "ftrace-function.h"
#include "source.h"
#include "stream-internal.h"
#include "stream.h"

/* Keep checkpoints 0, 2, 4, ... and double the spacing. */
static void ckpt_thin(struct text_stream *st)
{
	size_t k, n = (st->nckpt + 1) / 2;

	for (k = 1; k < st->nckpt; k += 2) {
		st->fn_bytes -= text_fnsnap_bytes(st->ckpt_fn[k]);
		text_fnsnap_free(st->ckpt_fn[k]);
	}
	for (k = 1; k < n; k++) {
		st->ckpt_off[k] = st->ckpt_off[2 * k];
		st->ckpt_seen[k] = st->ckpt_seen[2 * k];
		st->ckpt_fn[k] = st->ckpt_fn[2 * k];
		memcpy(&st->ckpt_pos[k * st->ncpu], &st->ckpt_pos[2 * k * st->ncpu],
		       st->ncpu * sizeof(*st->ckpt_pos));
	}
	st->nckpt = n;
	st->ckpt_every *= 2;
}

static int ckpt_grow(struct text_stream *st)
{
	size_t cap = st->ckpt_cap ? st->ckpt_cap * 2 : 64;
	uint64_t *o = realloc(st->ckpt_off, cap * sizeof(*o));
	struct text_fnsnap **fn;
	struct text_pos *p;
	size_t *sn;

	if (!o)
		return -ENOMEM;
	st->ckpt_off = o;
	fn = realloc(st->ckpt_fn, cap * sizeof(*fn));
	if (!fn)
		return -ENOMEM;
	st->ckpt_fn = fn;
	sn = realloc(st->ckpt_seen, cap * sizeof(*sn));
	if (!sn)
		return -ENOMEM;
	st->ckpt_seen = sn;
	p = realloc(st->ckpt_pos, cap * st->ncpu * sizeof(*p) + 1);
	if (!p)
		return -ENOMEM;
	st->ckpt_pos = p;
	st->ckpt_cap = cap;
	return 0;
}

/**
 * text_stream_ckpt_charge() - charge the frontier's tables to the chunk
 *	cache as they now stand
 * @st: stream (lock held)
 *
 * The checkpoints, their call stacks and the account are charged to the
 * file's chunk cache as they grow, so that building a text evicts
 * decompressed chunks instead of adding to the peak: the bound then
 * covers both, whatever the trace's size (SPEC 5).  Views and mirrors
 * charge their own tables, or none.
 */
void text_stream_ckpt_charge(struct text_stream *st)
{
	size_t now;

	if (st->is_view || st->ckpt_borrowed)
		return;
	now = st->ckpt_cap * (sizeof(*st->ckpt_off) + sizeof(*st->ckpt_seen) +
			      st->ncpu * sizeof(*st->ckpt_pos) +
			      sizeof(*st->ckpt_fn)) +
	      st->fn_bytes + text_account_bytes(st->acct);
	if (now > st->charged)
		tdat_cache_charge(st->env.f, now - st->charged, false);
	else if (now < st->charged)
		tdat_cache_charge(st->env.f, st->charged - now, true);
	st->charged = now;
}

/**
 * text_stream_ckpt_add() - a checkpoint at @off
 * @st: stream
 * @off: its text offset
 * @cu: the cursor standing there, or NULL for the start (checkpoint 0);
 *	one without sources is a follower's, standing at its @fpos
 *
 * Return: 0 or a negative errno.
 */
int text_stream_ckpt_add(struct text_stream *st, uint64_t off,
			 const struct text_cursor *cu)
{
	struct text_pos *pos;
	size_t p;
	int ret;

	if (st->nckpt >= st->ckpt_max || st->fn_bytes > CKPT_FN_MEM) {
		ret = text_account_thin(st->acct);
		if (ret < 0)
			return ret;
		ckpt_thin(st);
	}
	if (st->nckpt == st->ckpt_cap) {
		ret = ckpt_grow(st);
		if (ret < 0)
			return ret;
	}
	pos = &st->ckpt_pos[st->nckpt * st->ncpu];
	st->ckpt_off[st->nckpt] = off;
	st->ckpt_seen[st->nckpt] = cu ? cu->seen : 0;
	memset(pos, 0, st->ncpu * sizeof(*pos));
	/* a follower's cursor has no sources, and its stream one slot */
	if (cu && !cu->src)
		pos[0] = cu->fpos;
	for (p = 0; cu && cu->src && p < st->nparts; p++)
		text_source_tell(cu->src[p], pos + st->parts[p].first);
	st->ckpt_fn[st->nckpt] = NULL;
	if (cu) {
		ret = text_fnstack_snap(cu->fn, &st->ckpt_fn[st->nckpt]);
		if (ret < 0)
			return ret;
	}
	ret = text_account_open(st->acct, cu ? cu->nrec : 0);
	if (ret < 0) {
		text_fnsnap_free(st->ckpt_fn[st->nckpt]);
		return ret;
	}
	st->fn_bytes += text_fnsnap_bytes(st->ckpt_fn[st->nckpt]);
	st->nckpt++;
	text_stream_ckpt_charge(st);
	return 0;
}

/**
 * text_stream_ckpt_join() - the checkpoints and account of the next part
 *	of a split text appended
 * @st: the finished text up to where @part starts (lock held)
 * @part: the finished part (lock held), its offsets from 0; its counts
 *	of registrations seen are the text's already, as it learned the
 *	models before it started (text_stream_start_part())
 *
 * The part's checkpoint 0, where it starts, is not kept: its CPUs'
 * positions are those of their next records, looked for, where the text
 * made in a row holds the CPU of the last record where that record
 * left it (text_account_join() runs its stretch on in @st's last).  The
 * call stacks' copies move to @st.  Past the bound, the tables are
 * thinned as the frontier would.
 *
 * Return: 0 or -ENOMEM (then @st is beyond use: the caller drops it).
 */
int text_stream_ckpt_join(struct text_stream *st, struct text_stream *part)
{
	size_t n, k;
	int ret;

	ret = text_account_join(st->acct, part->acct);
	while (!ret && st->ckpt_cap < st->nckpt + part->nckpt)
		ret = ckpt_grow(st);
	if (ret < 0)
		return ret;
	n = st->nckpt - 1;
	for (k = 1; k < part->nckpt; k++) {
		st->ckpt_off[n + k] = st->size + part->ckpt_off[k];
		st->ckpt_seen[n + k] = part->ckpt_seen[k];
		st->ckpt_fn[n + k] = part->ckpt_fn[k];
		part->ckpt_fn[k] = NULL;
		memcpy(&st->ckpt_pos[(n + k) * st->ncpu],
		       &part->ckpt_pos[k * part->ncpu], st->ncpu * sizeof(*st->ckpt_pos));
	}
	st->fn_bytes += part->fn_bytes;
	part->fn_bytes = 0;
	st->nckpt += part->nckpt - 1;
	if (part->ckpt_every > st->ckpt_every)
		st->ckpt_every = part->ckpt_every;
	while (st->nckpt > st->ckpt_max) {
		ret = text_account_thin(st->acct);
		if (ret < 0)
			return ret;
		ckpt_thin(st);
	}
	text_stream_ckpt_charge(st);
	return 0;
}

/**
 * text_stream_set_spacing() - text bytes between checkpoints from now on
 * @st: stream
 * @bytes: spacing (not 0); thinning doubles it as usual
 *
 * For tests, which want many checkpoints of a small trace.
 */
void text_stream_set_spacing(struct text_stream *st, uint64_t bytes)
{
	pthread_mutex_lock(&st->lock);
	st->ckpt_every = bytes ? bytes : 1;
	pthread_mutex_unlock(&st->lock);
}

/**
 * text_stream_checkpoints() - the text offsets of the checkpoints
 * @st: stream
 * @off: set to up to @max offsets, in order
 * @max: room in @off
 *
 * Return: the count of checkpoints (may be more than @max).
 */
size_t text_stream_checkpoints(struct text_stream *st, uint64_t *off, size_t max)
{
	size_t n;

	pthread_mutex_lock(&st->lock);
	n = st->nckpt;
	/* memcpy() of nothing still wants pointers: a count alone is asked */
	if (off && max)
		memcpy(off, st->ckpt_off, (n < max ? n : max) * sizeof(*off));
	pthread_mutex_unlock(&st->lock);
	return n;
}
