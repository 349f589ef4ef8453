/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream-split.c - a buffer's merged text made in two parts at
 * once: the first from the start to a time T, the second from where
 * every CPU's records reach T to the end, then joined into one stream.
 *
 * Where a CPU's times rise, the merged text takes every record before T
 * before any at or after it, so the first part ends exactly where each
 * CPU's first record at or after T lies (text_stream_split_point()),
 * which is what the second starts from.  The second part's state there
 * is what the first leaves: the comm models (made by reading the
 * records before T for what printing them registers, and nothing else:
 * text_stream_start_part()), the function tracer's call stacks (empty
 * at T, or no join) and the counts of registrations seen its
 * checkpoints start from; its account's record counts are shifted when
 * they join.  What does not hold (times that fall
 * back, a damaged run at T, a model other than the first part's) makes
 * the join fail with -EXDEV: the caller makes the text in a row.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "account.h"
#include "comm.h"
#include "ftrace-function.h"
#include "line.h"
#include "source.h"
#include "stream-internal.h"
#include "stream.h"

/* A text of fewer pages on its largest CPU does not split: T would be
 * its first record. */
#define SPLIT_MIN_PAGES	2
/*
 * Where T falls in the pages of the largest CPU, in eighths: the second
 * part first reads the first one's records for their comms (two fifths
 * of the time of making them led, on big.dat), so the first part takes
 * more: five eighths balances 5 against 2 + 3.
 */
#define SPLIT_AT_EIGHTHS	5

/*
 * The first record of @src's CPU at or after page @page, peeked.
 * Return: 0 (*@rec NULL: none), -EXDEV for a damaged run met on the way,
 * or a negative errno.
 */
static int first_at(struct text_source *src, uint64_t page,
		    struct tdatfs_buf *mk, const struct text_rec **rec)
{
	const struct text_pos p = { .page = page };
	int ret;

	text_source_seek(src, &p);
	ret = text_source_peek_index(src, 0, mk, rec);
	return ret < 0 ? ret : mk->len ? -EXDEV : 0;
}

/*
 * Where the CPU of @src (@npages pages) reaches @ts: the position of its
 * first record at or after it, found by halving its pages and then
 * reading the page.  Return: 0, -EXDEV (damage), or a negative errno.
 */
static int reach(struct text_source *src, uint64_t npages, uint64_t ts,
		 struct tdatfs_buf *mk, struct text_pos *pos)
{
	const struct text_rec *rec;
	uint64_t lo = 0, hi = npages;
	int ret = 0;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		ret = first_at(src, mid, mk, &rec);
		if (ret < 0)
			return ret;
		if (rec && rec->ts < ts)
			lo = mid;
		else
			hi = mid;
	}
	ret = first_at(src, lo, mk, &rec);
	while (!ret && rec && rec->ts < ts) {
		ret = text_source_consume_index(src, 0, mk);
		if (ret >= 0)
			ret = text_source_peek_index(src, 0, mk, &rec);
		if (!ret && mk->len)
			ret = -EXDEV;
	}
	if (ret < 0)
		return ret;
	text_source_tell(src, pos);
	return 0;
}

/**
 * text_stream_split_point() - where a merged text splits in two
 * @st: a buffer's merged stream
 * @ts: set to the time T: the first record of the page at five eighths
 *	of its CPU with the most pages
 * @pos: set to each CPU's position at T (@st's slots)
 *
 * Return: 0; -EXDEV for a text too short to split, or a damaged page
 * met; or a negative errno.
 */
int text_stream_split_point(struct text_stream *st, uint64_t *ts,
			    struct text_pos *pos)
{
	struct tdatfs_buf mk = { 0 };
	const struct text_rec *rec;
	unsigned int big = 0, s;
	struct text_source *src;
	int ret;

	if (st->nparts != 1 || st->only >= 0 || st->is_view)
		return -EXDEV;
	for (s = 1; s < st->ncpu; s++)
		if (st->npages[s] > st->npages[big])
			big = s;
	if (!st->ncpu || st->npages[big] < SPLIT_MIN_PAGES)
		return -EXDEV;
	ret = 0;
	for (s = 0; !ret && s <= st->ncpu; s++) {
		/* the CPU that picks T first, then every one */
		unsigned int i = s ? s - 1 : big;

		src = text_source_new(st->env.f, st->parts[0].b, &st->cidx[i],
				      &st->npages[i], 1, st->env.pf, st->env.ts);
		if (!src) {
			ret = errno ? -errno : -ENOMEM;
			break;
		}
		if (!s) {
			ret = first_at(src, st->npages[big] * SPLIT_AT_EIGHTHS / 8,
				       &mk, &rec);
			/* T 0 would be no part: every record at or after it */
			if (!ret && (!rec || !rec->ts))
				ret = -EXDEV;
			if (!ret)
				*ts = rec->ts;
		} else {
			ret = reach(src, st->npages[i], *ts, &mk, &pos[i]);
		}
		text_source_free(src);
	}
	tdatfs_buf_release(&mk);
	return ret;
}

/*
 * A part's checkpoints bounded to half a stream's: joined, the two
 * parts' tables are those of one stream, with no thinning to copy them
 * again (its copy of the account, beside the parts', made the peak of a
 * build of 16 times big.dat 107 MiB against 91).
 */
static void half_bound(struct text_stream *st)
{
	st->ckpt_max = st->ckpt_max / 2 < 2 ? 2 : st->ckpt_max / 2;
}

/**
 * text_stream_stop_at() - make a fresh stream the first part of a split
 * @st: the stream
 * @ts: its text ends before the first record at or after @ts
 */
void text_stream_stop_at(struct text_stream *st, uint64_t ts)
{
	pthread_mutex_lock(&st->lock);
	st->stop_ts = ts;
	half_bound(st);
	pthread_mutex_unlock(&st->lock);
}

/* Whether @st is as made: nothing produced, no cursor, no leader. */
static bool fresh(const struct text_stream *st)
{
	if (st->is_view || st->ckpt_borrowed || st->size_known || st->hlen ||
	    st->front || st->nckpt != 1 || st->fol || st->only >= 0 ||
	    text_overlay_built(st->ov))
		return false;
	for (int i = 0; i < NCURSORS; i++)
		if (st->cur[i].valid)
			return false;
	return true;
}

/* Checkpoint 0 of a second part: where it starts, and what it has seen. */
static void start_at(struct text_stream *st, const struct text_pos *pos,
		     size_t seen)
{
	memcpy(st->ckpt_pos, pos, st->ncpu * sizeof(*pos));
	st->ckpt_seen[0] = seen;
}

/*
 * The comms printing the records before @ts registers, learned by the
 * models of @m and of its CPU texts @cpus (NULL: none), read in the
 * merged text's order.  *@seen: the registrations each met (@m's first).
 * Return: 0 or a negative errno.
 */
static int learn_before(struct text_stream *m, struct text_stream **cpus,
			uint64_t ts, size_t *seen)
{
	struct tdatfs_buf mk = { 0 }, discard = { 0 };
	struct text_comm_ctx cc = { .ov = m->ov, .seen = &seen[0] };
	struct text_source *src;
	const struct text_rec *rec;
	unsigned int i = 0;
	int ret, id;

	src = text_source_new(m->env.f, m->parts[0].b, m->cidx, m->npages,
			      m->ncpu, m->env.pf, m->env.ts);
	if (!src)
		return errno ? -errno : -ENOMEM;
	for (;;) {
		ret = text_source_peek_first(src, -1, &mk, &discard, &rec, &i);
		mk.len = 0;
		if (ret < 0 || !rec || rec->ts >= ts)
			break;
		ret = text_fmt_record_id(m->env.fmt, rec, &id);
		if (ret >= 0)
			ret = text_learn_line(m->env.fmt, rec, ret ? id : -1, &cc);
		if (ret >= 0 && cpus[i]) {
			struct text_comm_ctx ci = { .ov = cpus[i]->ov,
						    .seen = &seen[1 + i] };

			ret = text_learn_line(m->env.fmt, rec, id, &ci);
		}
		if (ret >= 0)
			ret = text_source_consume_index(src, i, &mk);
		mk.len = 0;
		if (ret < 0)
			break;
	}
	text_source_free(src);
	tdatfs_buf_release(&mk);
	tdatfs_buf_release(&discard);
	return ret < 0 ? ret : 0;
}

/**
 * text_stream_start_part() - make fresh streams the second part of a split
 * @m: a buffer's merged stream
 * @cpus: the streams of its CPUs to be led (NULL for the others)
 * @ts: the time T of the split
 * @pos: where its CPUs start (@m's slots: text_stream_split_point())
 *
 * Reads the records before @ts for the comms printing them registers
 * (the models start as the first part's will end), then makes each
 * stream's checkpoint 0 that start: offsets, records and registrations
 * are counted from there until the part joins the first one.
 *
 * Return: 0, -EINVAL for streams not fresh, or a negative errno.
 * Context: no other thread uses the streams.
 */
int text_stream_start_part(struct text_stream *m, struct text_stream **cpus,
			   uint64_t ts, const struct text_pos *pos)
{
	size_t *seen = calloc(m->ncpu + 1, sizeof(*seen));
	int ret = seen && fresh(m) && m->nparts == 1 ? 0 : -EINVAL;

	if (!seen)
		return -ENOMEM;
	for (unsigned int c = 0; !ret && c < m->ncpu; c++)
		if (cpus[c] && (!fresh(cpus[c]) || cpus[c]->ncpu != 1))
			ret = -EINVAL;
	if (!ret)
		ret = learn_before(m, cpus, ts, seen);
	if (!ret) {
		start_at(m, pos, seen[0]);
		half_bound(m);
		for (unsigned int c = 0; c < m->ncpu; c++)
			if (cpus[c])
				start_at(cpus[c], &pos[c], seen[1 + c]);
	}
	free(seen);
	return ret;
}

/**
 * text_stream_model_save() - the bytes of a stream's comm model
 * @st: the stream (its lock is taken)
 * @out: where they are appended
 *
 * Return: 0 or -ENOMEM.
 */
int text_stream_model_save(struct text_stream *st, struct tdatfs_buf *out)
{
	int ret;

	pthread_mutex_lock(&st->lock);
	ret = text_overlay_save(st->ov, out);
	pthread_mutex_unlock(&st->lock);
	return ret;
}

/**
 * text_stream_ends_at() - whether a first part ended where the second began
 * @st: the first part, produced to its end
 * @pos: where the second part starts (its slots)
 *
 * Also that no call stack is open there: the second part started with
 * none.
 *
 * Return: true when so.
 */
bool text_stream_ends_at(struct text_stream *st, const struct text_pos *pos)
{
	struct text_pos *at = calloc(st->ncpu + 1, sizeof(*at));
	struct text_fnsnap *fn = NULL;
	bool ok = false;

	pthread_mutex_lock(&st->lock);
	for (int i = 0; at && i < NCURSORS && st->size_known; i++) {
		struct text_cursor *cu = &st->cur[i];

		if (!cu->valid || !cu->eof || cu->off != st->size || !cu->src)
			continue;
		text_source_tell(cu->src[0], at);
		ok = !memcmp(at, pos, st->ncpu * sizeof(*at)) &&
		     text_fnstack_snap(cu->fn, &fn) == 0 && !fn;
		break;
	}
	pthread_mutex_unlock(&st->lock);
	text_fnsnap_free(fn);
	free(at);
	return ok;
}

/**
 * text_stream_join() - the second part of a split text appended to the first
 * @st: the first part, produced to its end (text_stream_ends_at() said
 *	so for the merged text; a CPU's text follows it)
 * @part: the second part, produced to its end; its account is freed
 *	(it is not read again: only freed)
 * @cm: the comms of @st's engine
 * @model: the bytes of @part's comm model as it started
 *	(text_stream_model_save() after text_stream_start_part())
 *
 * Return: 0; -EXDEV when the first part's model at its end is not the
 * one the part started from (@st as it was: make the text in a row);
 * -EINVAL for parts not finished; -ENOMEM (then @st is beyond use).
 */
int text_stream_join(struct text_stream *st, struct text_stream *part,
		     const struct text_comms *cm, const struct tdatfs_buf *model)
{
	struct tdatfs_buf b = { 0 };
	struct text_overlay *ov = NULL;
	size_t extra;
	int ret = -EINVAL;

	pthread_mutex_lock(&st->lock);
	pthread_mutex_lock(&part->lock);
	/*
	 * Both parts' tables, their join and its thinning are held at once:
	 * the chunk cache makes room for them first, so that the build's
	 * peak stays within its bound (SPEC 5).
	 */
	extra = 2 * (st->charged + part->charged);
	tdat_cache_charge(st->env.f, extra, false);
	if (st->size_known && part->size_known && !st->is_view &&
	    !part->is_view && st->ncpu == part->ncpu && !st->fol && !part->fol)
		ret = text_overlay_save(st->ov, &b);
	if (!ret && (b.len != model->len || memcmp(b.p, model->p, b.len)))
		ret = -EXDEV;
	/* the part's model at its end is the whole text's, on @st's engine */
	if (!ret && !(ov = text_overlay_copy(part->ov, cm)))
		ret = errno == EINVAL ? -EXDEV : -ENOMEM;
	if (!ret)
		ret = text_stream_ckpt_join(st, part);
	if (!ret) {
		text_overlay_free(st->ov);
		st->ov = ov;
		ov = NULL;
		st->size += part->size;
		st->front = st->size;
		st->stop_ts = 0;
		for (int i = 0; i < NCURSORS; i++)
			st->cur[i].valid = false;
		/* what is left of the part is not read again: its account goes */
		text_account_free(part->acct);
		part->acct = NULL;
		text_stream_ckpt_charge(part);
	}
	tdat_cache_charge(st->env.f, extra, true);
	pthread_mutex_unlock(&part->lock);
	pthread_mutex_unlock(&st->lock);
	text_overlay_free(ov);
	tdatfs_buf_release(&b);
	return ret;
}
