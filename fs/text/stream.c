/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream.c - text of one buffer (merged or one CPU), or of
 * several merged, produced on demand from record sources (one per
 * buffer), with checkpoints and a few cursors.  The streams are made in
 * text/stream-create.c, their checkpoint tables kept in
 * text/stream-ckpt.c.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-text.h"
#include "account.h"
#include "comm.h"
#include "fields-row.h"
#include "ftrace-function.h"
#include "line.h"
#include "source.h"
#include "stream-internal.h"
#include "stream.h"

/* Lines produced between two polls of this thread's cancel hook. */
#define CANCEL_EVERY	64

/* The cancel hook of this thread's reads (tdatfs_text_cancel_set()). */
static __thread bool (*cancel_fn)(void *ctx);
static __thread void *cancel_ctx;

void tdatfs_text_cancel_set(bool (*fn)(void *ctx), void *ctx)
{
	cancel_fn = fn;
	cancel_ctx = ctx;
}

/**
 * text_stream_cancelled() - whether this thread's request is to stop now
 *
 * For passes over records outside a stream (the timeline's) and readers
 * that wait for text another thread produces (read-ahead): the hook
 * tdatfs_text_cancel_set() gave, asked now.
 *
 * Return: true when the hook says so.
 */
bool text_stream_cancelled(void)
{
	return cancel_fn && cancel_fn(cancel_ctx);
}

/* Whether this thread's read is to stop now; polled every CANCEL_EVERY. */
static bool cancelled(unsigned int *lines)
{
	return cancel_fn && ++*lines % CANCEL_EVERY == 0 && cancel_fn(cancel_ctx);
}

static void cursor_release(struct text_stream *st, struct text_cursor *cu)
{
	size_t p;

	for (p = 0; cu->src && p < st->nparts; p++)
		text_source_free(cu->src[p]);
	free(cu->src);
	text_fnstack_free(cu->fn);
	tdatfs_buf_release(&cu->line);
	memset(cu, 0, sizeof(*cu));
}

/**
 * text_stream_free() - free a stream; NULL is fine
 * @st: stream
 */
void text_stream_free(struct text_stream *st)
{
	size_t p;
	int i;

	if (!st)
		return;
	for (i = 0; i < NCURSORS; i++)
		cursor_release(st, &st->cur[i]);
	for (p = 0; st->parts && p < st->nparts; p++)
		free(st->parts[p].prefix);
	free(st->parts);
	free(st->head);
	tdatfs_buf_release(&st->discard);
	free(st->cidx);
	free(st->npages);
	if (!st->ckpt_borrowed) {
		for (p = 0; st->ckpt_fn && !st->is_view && p < st->nckpt; p++)
			text_fnsnap_free(st->ckpt_fn[p]);
		free(st->ckpt_fn);
		free(st->ckpt_off);
		free(st->ckpt_seen);
		free(st->ckpt_pos);
	}
	free(st->vstart);
	free(st->vend);
	if (st->charged)
		tdat_cache_charge(st->env.f, st->charged, true);
	text_account_free(st->acct);
	text_follow_free(st);
	if (!st->ov_borrowed)
		text_overlay_free(st->ov);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/*
 * Put a cursor at checkpoint @k.  At checkpoint 0 its line is the head,
 * which no record's step makes.
 */
static int cursor_seek(struct text_stream *st, struct text_cursor *cu, size_t k)
{
	size_t p;

	for (p = 0; p < st->nparts; p++)
		text_source_seek(cu->src[p],
				 &st->ckpt_pos[k * st->ncpu + st->parts[p].first]);
	cu->off = st->ckpt_off[k];
	cu->seen = st->ckpt_seen[k];
	cu->valid = false;
	if (text_fnstack_restore(cu->fn, st->ckpt_fn[k]) < 0)
		return -ENOMEM;
	if (st->is_view)
		cu->nrec = st->vstart[k];
	else
		cu->nrec = st->acct ? text_account_nrec(st->acct, k) : 0;
	cu->j = k;
	cu->line.len = 0;
	cu->eof = false;
	cu->valid = true;
	if (k == 0 && st->hlen &&
	    tdatfs_buf_put(&cu->line, st->head, st->hlen) < 0) {
		cu->valid = false;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The slot of the next record: smallest timestamp, ties to the first
 * slot (the first part, then its first CPU).  Markers met on the way go
 * to cu->line.  Return: 0 with *@best NULL at the end, or a negative errno.
 */
static int next_slot(struct text_stream *st, struct text_cursor *cu,
		     const struct text_rec **best, size_t *bp, unsigned int *bi)
{
	const struct text_rec *r;
	unsigned int i = 0;
	size_t p;
	int ret;

	*best = NULL;
	for (p = 0; p < st->nparts; p++) {
		ret = text_source_peek_first(cu->src[p], st->only, &cu->line,
					     &st->discard, &r, &i);
		if (ret < 0)
			return ret;
		if (ret) {
			/* the CPU printed has no more records */
			*best = NULL;
			return 0;
		}
		/* ties to the first part */
		if (r && (!*best || r->ts < (*best)->ts)) {
			*best = r;
			*bp = p;
			*bi = i;
		}
	}
	return 0;
}

/* Records consumed by a cursor's sources so far. */
static uint64_t consumed(const struct text_stream *st, const struct text_cursor *cu)
{
	uint64_t n = 0;
	size_t p;

	/* one part: a text's own stream, asked twice a record */
	if (st->nparts == 1)
		return text_source_consumed(cu->src[0]);
	for (p = 0; p < st->nparts; p++)
		n += text_source_consumed(cu->src[p]);
	return n;
}

/* Whether a view keeps the record of @si. */
static bool keeps(const struct text_filter *flt, const struct text_step *si)
{
	if (flt->kind == TEXT_FILTER_WINDOW)
		return si->key >= flt->k0 && si->key < flt->k1;
	return si->id == flt->id;
}

/*
 * The next record to print: consumed, with its part and slot.  Return: 1,
 * 0 at the end of the text, or a negative errno.
 */
static int next_record(struct text_stream *st, struct text_cursor *cu,
		       struct text_rec *rec, size_t *p, unsigned int *slot)
{
	const struct text_rec *best;
	unsigned int bi = 0;
	int ret;

	/* a stream of one CPU that reads all of them passes over the others' */
	do {
		ret = next_slot(st, cu, &best, p, &bi);
		if (ret < 0 || !best)
			return ret;
		/* the first part of a split text ends here */
		if (st->stop_ts && best->ts >= st->stop_ts)
			return 0;
		/* consumed first, so a formatter's peek sees the record after it */
		*rec = *best;
		ret = text_source_consume_index(cu->src[*p], bi,
						st->only < 0 || (int)bi == st->only ?
						&cu->line : &st->discard);
		st->discard.len = 0;
		if (ret < 0)
			return ret;
	} while (st->only >= 0 && (int)bi != st->only);
	*slot = bi;
	return 1;
}

/*
 * A record a view does not keep: passed over as printing it would, its
 * markers dropped.  Return: 0 or a negative errno.
 */
static int step_skip(struct text_stream *st, struct text_cursor *cu,
		     const struct text_rec *rec, int id, size_t p,
		     struct text_comm_ctx *cc)
{
	int ret;

	if (st->flt.kind == TEXT_FILTER_FIELDS)
		ret = text_learn_record(st->env.fmt, rec, id, cc);
	else
		ret = text_skip_record(st->env.fmt, rec, id, cu->src[p], cc,
				       &st->discard);
	st->discard.len = 0;
	if (!ret)
		ret = text_source_flush(cu->src[p], &st->discard);
	st->discard.len = 0;
	return ret;
}

/*
 * The text of a kept record, and the damage it shows recorded; where its
 * lines lie told in @si when it asks.
 */
static int step_print(struct text_stream *st, struct text_cursor *cu,
		      const struct text_rec *rec, size_t p, unsigned int bi,
		      struct text_comm_ctx *cc, struct text_step *si)
{
	const struct stream_part *pt = &st->parts[p];
	int ret;

	if (pt->plen && tdatfs_buf_put(&cu->line, pt->prefix, pt->plen) < 0)
		return -ENOMEM;
	if (st->is_view && st->flt.kind == TEXT_FILTER_FIELDS) {
		ret = text_fields_row(st->env.fmt, rec, cc, &cu->line);
	} else if (si->follow) {
		si->slot = st->parts[p].first + bi;
		si->rec = *rec;
		ret = text_format_record_parts(st->env.fmt, rec, cu->src[p], cc,
					       &cu->line, &si->lp);
	} else {
		ret = text_format_record(st->env.fmt, rec, cu->src[p], cc, &cu->line);
	}
	if (ret < 0)
		return ret;
	if (ret && rec->size)
		tdat_cpu_mark_damaged(st->env.f, pt->b,
				      st->cidx[pt->first + bi],
				      rec->offset, rec->size,
				      "holds a record that does not parse");
	return text_source_flush(cu->src[p], &cu->line);
}

/*
 * One step: the lines of the next record (and markers met on the way)
 * appended to cu->line, or in a view nothing for a record it does not
 * keep; @si says what the step met (and, when si->follow is set, where
 * the record's lines lie).  Return: 1 a step made, 0 end of text, <0
 * error.
 */
static int step(struct text_stream *st, struct text_cursor *cu,
		struct text_step *si)
{
	size_t before = cu->line.len, p = 0;
	uint64_t c0 = consumed(st, cu);
	struct text_comm_ctx cc;
	struct text_rec rec;
	unsigned int bi = 0;
	int ret, id;

	si->id = INT_MIN;
	ret = next_record(st, cu, &rec, &p, &bi);
	if (ret <= 0) {
		cu->nrec += consumed(st, cu) - c0;
		if (ret < 0)
			return ret;
		if (st->is_view)
			cu->line.len = before;
		return cu->line.len > before ? 1 : 0;
	}
	ret = text_fmt_record_id(st->env.fmt, &rec, &id);
	if (ret < 0)
		return ret;
	/* a stream that tried its CPU alone cannot print this one */
	if (st->trying && ret && text_fmt_peeks(st->env.fmt, id)) {
		st->must_look = true;
		return -EXDEV;
	}
	si->id = ret ? id : -1;
	si->ts = rec.ts;
	si->key = text_fmt_time_key(st->env.fmt, rec.ts);
	cc.ov = st->ov;
	cc.seen = &cu->seen;
	cc.fn = cu->fn;
	cc.heads = &cu->heads;
	if (st->is_view && !keeps(&st->flt, si)) {
		cu->line.len = before;
		ret = step_skip(st, cu, &rec, si->id, p, &cc);
	} else {
		ret = step_print(st, cu, &rec, p, bi, &cc, si);
	}
	cu->nrec += consumed(st, cu) - c0;
	return ret < 0 ? ret : 1;
}

/* The record sources of a cursor, one per part. */
static int cursor_sources(struct text_stream *st, struct text_cursor *cu)
{
	size_t p;

	cu->src = calloc(st->nparts + 1, sizeof(*cu->src));
	cu->fn = text_fnstack_new();
	if (!cu->src || !cu->fn)
		return -ENOMEM;
	for (p = 0; p < st->nparts; p++) {
		const struct stream_part *pt = &st->parts[p];

		cu->src[p] = text_source_new(st->env.f, pt->b, &st->cidx[pt->first],
					     &st->npages[pt->first], pt->ncpu,
					     st->env.pf, st->env.ts);
		if (!cu->src[p])
			return errno ? -errno : -ENOMEM;
	}
	return 0;
}

/* The cursor to serve a read at @off, positioned at or before it. */
static struct text_cursor *pick_cursor(struct text_stream *st, uint64_t off, int *err)
{
	struct text_cursor *cu = NULL, *victim = NULL;
	size_t lo = 0, hi = st->nckpt;
	int i;

	for (i = 0; i < NCURSORS; i++) {
		struct text_cursor *c = &st->cur[i];

		if (!c->valid) {
			if (!victim || victim->valid)
				victim = c;
			continue;
		}
		if (c->off <= off && (!cu || c->off > cu->off))
			cu = c;
		if (!victim || (victim->valid && c->used < victim->used))
			victim = c;
	}
	/* last checkpoint at or before off */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (st->ckpt_off[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (cu && cu->off >= st->ckpt_off[lo])
		return cu;
	if (!victim->src) {
		*err = cursor_sources(st, victim);
		if (*err < 0) {
			cursor_release(st, victim);
			return NULL;
		}
	}
	*err = cursor_seek(st, victim, lo);
	return *err < 0 ? NULL : victim;
}

/*
 * The text's end reached by @cu: the size is known.  A size known before
 * (given by the index, or by a cursor that got there first) is the text's
 * for good: stat and earlier reads told it.  A decode that ends elsewhere
 * is of other bytes than the ones that size was made from (a trace
 * rewritten in place under its index): -EIO, never a cut or padded text.
 * Return: 0 or -EIO (@cu dropped).
 */
static int reach_end(struct text_stream *st, struct text_cursor *cu)
{
	if (st->size_known && cu->off != st->size) {
		cu->valid = false;
		return -EIO;
	}
	cu->eof = true;
	if (!st->size_known && !st->is_view) {
		text_account_finish(st->acct, cu->nrec);
		text_stream_ckpt_charge(st);
		if (st->fol)
			text_follow_end(st, cu);
	}
	st->size_known = true;
	st->size = cu->off;
	return 0;
}

/*
 * The first checkpoint after cu->off (the last one lies after it): the
 * cursor's hint, the one its last line had, when it still is; else
 * searched and kept as the hint.  Out of line: most lines keep the hint.
 */
static __attribute__((noinline)) size_t next_ckpt(struct text_stream *st,
						  struct text_cursor *cu)
{
	size_t lo = 0, hi = cu->ck;

	if (hi < st->nckpt && st->ckpt_off[hi] > cu->off &&
	    (!hi || st->ckpt_off[hi - 1] <= cu->off))
		return hi;
	hi = st->nckpt;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (st->ckpt_off[mid] <= cu->off)
			lo = mid;
		else
			hi = mid;
	}
	cu->ck = hi;
	return hi;
}

/*
 * Whether the line @cu just made keeps to the offsets known of the text:
 * it ends at or before a known size, and no checkpoint falls inside it
 * (each checkpoint is a step boundary of the text; a view's are its
 * entries, checked where they are entered).  A line that breaks either
 * is decoded from other bytes than those the offsets were made from.
 * Inline: every line asks, and most answers need no search.
 * Return: 0 or -EIO (@cu dropped).
 */
static inline int line_fits(struct text_stream *st, struct text_cursor *cu)
{
	uint64_t end = cu->off + cu->line.len;

	if (st->size_known && end > st->size)
		goto bad;
	if (st->is_view || !cu->line.len || st->ckpt_off[st->nckpt - 1] <= cu->off)
		return 0;
	if (st->ckpt_off[next_ckpt(st, cu)] >= end)
		return 0;
bad:
	cu->valid = false;
	return -EIO;
}

/*
 * Move @cu past its line, checkpoint if due, and make the next line; at
 * the frontier, count the step in the account.
 */
static int advance(struct text_stream *st, struct text_cursor *cu)
{
	bool front;
	struct text_step si;
	int ret;

	cu->off += cu->line.len;
	cu->line.len = 0;
	front = !st->size_known && cu->off == st->front;
	if (front && cu->off >= st->ckpt_off[st->nckpt - 1] + st->ckpt_every) {
		ret = text_stream_ckpt_add(st, cu->off, cu);
		if (ret < 0)
			return ret;
	}
	si.follow = front && st->fol;
	ret = step(st, cu, &si);
	if (ret > 0 && front) {
		ret = text_account_step(st->acct, si.id, si.key, si.ts,
					cu->line.len);
		if (!ret && si.follow && si.id != INT_MIN)
			ret = text_follow_step(st, cu, &si);
		if (!ret)
			ret = 1;
	}
	if (ret < 0) {
		/* the cursor's state is unknown now: drop it */
		cu->valid = false;
		return ret;
	}
	if (front)
		st->front += cu->line.len;
	return ret == 0 ? reach_end(st, cu) : line_fits(st, cu);
}

/* A view's cursor at the end of its entry: on to the next one. */
static int view_next(struct text_stream *st, struct text_cursor *cu)
{
	size_t p, j = cu->j + 1;

	if (j >= st->nsel)
		return reach_end(st, cu);
	if (j == st->nckpt && !st->size_known)
		st->ckpt_off[st->nckpt++] = cu->off;
	else if (j < st->nckpt && st->ckpt_off[j] != cu->off) {
		/* an entry known to start elsewhere: see line_fits() */
		cu->valid = false;
		return -EIO;
	}
	if (st->vstart[j] != cu->nrec) {
		for (p = 0; p < st->nparts; p++)
			text_source_seek(cu->src[p],
					 &st->ckpt_pos[j * st->ncpu + st->parts[p].first]);
		cu->seen = st->ckpt_seen[j];
		cu->nrec = st->vstart[j];
		if (text_fnstack_restore(cu->fn, st->ckpt_fn[j]) < 0) {
			cu->valid = false;
			return -ENOMEM;
		}
	}
	cu->j = j;
	return 1;
}

/* advance() in a view: steps until one keeps text or the view ends. */
static int view_advance(struct text_stream *st, struct text_cursor *cu)
{
	struct text_step si;
	int ret;

	si.follow = false;
	cu->off += cu->line.len;
	cu->line.len = 0;
	for (;;) {
		if (cu->nrec >= st->vend[cu->j]) {
			ret = view_next(st, cu);
			if (ret <= 0)
				return ret;
		}
		ret = step(st, cu, &si);
		if (ret < 0) {
			cu->valid = false;
			return ret;
		}
		if (ret == 0)
			return reach_end(st, cu);
		if (cu->line.len)
			return line_fits(st, cu);
	}
}

/*
 * The line @cu holds, counted in *@bytes and appended to @keep while
 * @keep stays within @max bytes (past it @keep is emptied for good: a
 * cut keeps all of its text or none).  Return: 0 or -ENOMEM.
 */
static int cut_take(struct text_cursor *cu, uint64_t *bytes,
		    struct tdatfs_buf *keep, size_t max, bool *whole)
{
	*bytes += cu->line.len;
	if (*whole && keep->len + cu->line.len > max) {
		*whole = false;
		tdatfs_buf_release(keep);
	}
	if (*whole && cu->line.len &&
	    tdatfs_buf_put(keep, cu->line.p, cu->line.len) < 0)
		return -ENOMEM;
	cu->line.len = 0;
	return 0;
}

/* Whether a cut is to stop: another part failed, or this thread's read. */
static bool cut_stops(const _Atomic bool *stop, unsigned int *lines)
{
	return (stop && atomic_load_explicit(stop, memory_order_relaxed)) ||
	       cancelled(lines);
}

/*
 * Entries [@j0, @j1) of the view @v, as text_stream_view_cut() says, with
 * the cursor @cu that has its sources; lock held.
 */
static int cut_entries(struct text_stream *v, struct text_cursor *cu,
		       size_t j0, size_t j1, uint64_t *bytes,
		       struct tdatfs_buf *keep, size_t max,
		       const _Atomic bool *stop)
{
	unsigned int lines = 0;
	struct text_step si;
	bool whole = true;
	int ret = 0;

	si.follow = false;
	for (size_t j = j0; j < j1; j++) {
		bytes[j - j0] = 0;
		/* as view_next() goes on: from where the last entry ended */
		if (j == j0 || v->vstart[j] != cu->nrec)
			ret = cursor_seek(v, cu, j);
		if (!ret)
			ret = cut_take(cu, &bytes[j - j0], keep, max, &whole);
		while (!ret && cu->nrec < v->vend[j]) {
			if (cut_stops(stop, &lines))
				return -EINTR;
			ret = step(v, cu, &si);
			if (ret <= 0)
				break;
			ret = cut_take(cu, &bytes[j - j0], keep, max, &whole);
		}
		if (ret < 0)
			return ret;
		if (ret == 0 && cu->nrec < v->vend[j]) {
			/* the text ended: the entries after hold nothing */
			while (++j < j1)
				bytes[j - j0] = 0;
			break;
		}
		ret = 0;
	}
	return 0;
}

/**
 * text_stream_view_cut() - the text of some entries of a view, made alone
 * @v: a view (text_stream_new_view())
 * @j0: its first entry cut
 * @j1: the entry after the last one, at most text_stream_view_entries()
 * @bytes: set to the text length of each entry, @bytes[j - @j0]
 * @keep: the text appended, when all of it fits in @max bytes; else
 *	left empty
 * @max: bytes @keep may hold
 * @stop: set by another thread to stop this cut (NULL: none)
 *
 * An entry's text does not depend on the offset it starts at, so a view
 * whose offsets are not known yet (one of fields or of a window) can be
 * cut in parts on several threads, each with a view of its own, and the
 * lengths give its offsets (text_stream_view_learn()).  The cut uses a
 * cursor of its own: @v's stay where they are.
 *
 * Return: 0, -EINVAL, -EINTR when @stop was set or this thread's cancel
 * hook says so, or the errno of producing the text.
 * Context: holds @v's lock for the whole cut.
 */
int text_stream_view_cut(struct text_stream *v, size_t j0, size_t j1,
			 uint64_t *bytes, struct tdatfs_buf *keep, size_t max,
			 const _Atomic bool *stop)
{
	struct text_cursor cu;
	int ret = -EINVAL;

	memset(&cu, 0, sizeof(cu));
	pthread_mutex_lock(&v->lock);
	if (v->is_view && j0 <= j1 && j1 <= v->nsel)
		ret = cursor_sources(v, &cu);
	if (!ret)
		ret = cut_entries(v, &cu, j0, j1, bytes, keep, max, stop);
	cursor_release(v, &cu);
	pthread_mutex_unlock(&v->lock);
	if (ret < 0)
		tdatfs_buf_release(keep);
	return ret;
}

/*
 * A read that came to @end, the known size of the text: the decode must
 * end there too, not go on past it (line_fits() catches a line across
 * the size, not one that starts at it).  One step more, once per read
 * of the text's end.  Return: 0 or -EIO.
 */
static int end_fits(struct text_stream *st, struct text_cursor *cu, uint64_t end)
{
	int err;

	if (!st->size_known || end != st->size || cu->eof || !cu->valid)
		return 0;
	if (cu->off + cu->line.len != end)
		return -EIO;
	err = st->is_view ? view_advance(st, cu) : advance(st, cu);
	if (err < 0)
		return err;
	if (!cu->eof) {
		cu->valid = false;
		return -EIO;
	}
	return 0;
}

/*
 * Text from @off, up to @len bytes, into @buf, or passed over when @buf is
 * NULL (producing the text costs the same; copying it is what is saved).
 * Return: bytes read (0 at end), or a negative errno.
 */
static ssize_t stream_read(struct text_stream *st, char *buf, size_t len,
			   uint64_t off)
{
	struct text_cursor *cu;
	unsigned int lines = 0;
	size_t done = 0;
	int err = 0;

	pthread_mutex_lock(&st->lock);
	if (st->must_look) {
		pthread_mutex_unlock(&st->lock);
		return -EXDEV;
	}
	if ((st->size_known && off >= st->size) || !len) {
		pthread_mutex_unlock(&st->lock);
		return 0;
	}
	cu = pick_cursor(st, off, &err);
	if (!cu) {
		pthread_mutex_unlock(&st->lock);
		return err ? err : -ENOMEM;
	}
	cu->used = ++st->tick;
	while (done < len) {
		uint64_t pos = off + done;

		if (pos < cu->off + cu->line.len) {
			size_t n = cu->off + cu->line.len - pos;

			if (n > len - done)
				n = len - done;
			if (buf)
				memcpy(buf + done, cu->line.p + (pos - cu->off), n);
			done += n;
			continue;
		}
		/* the cursor stands at a line: the text stays as it was */
		if (cancelled(&lines)) {
			err = -EINTR;
			done = 0;
			break;
		}
		if (cu->eof)
			break;
		err = st->is_view ? view_advance(st, cu) : advance(st, cu);
		if (err < 0)
			break;
	}
	if (!err && done)
		err = end_fits(st, cu, off + done);
	pthread_mutex_unlock(&st->lock);
	/* a text that breaks its known offsets is wrong before the break too */
	if (err == -EIO || (!done && err))
		return err;
	return done;
}

/**
 * text_stream_read() - read text of a stream
 * @st: stream
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the text
 *
 * Return: bytes read (0 at end), or a negative errno: -EINTR, and no
 * bytes, when this thread's cancel hook (tdatfs_text_cancel_set()) says so;
 * -EIO, and no bytes, when the text decoded breaks its known size or
 * checkpoints (text/stream.h).
 * Context: takes the stream lock, and the tep lock per record that
 * libtraceevent prints.
 */
ssize_t text_stream_read(struct text_stream *st, char *buf, size_t len, uint64_t off)
{
	return stream_read(st, buf, len, off);
}

/**
 * text_stream_produce() - produce text of a stream without copying it
 * @st: stream
 * @len: bytes to pass over
 * @off: offset in the text
 *
 * As text_stream_read() into nowhere: the checkpoints, the comm model and
 * the size (at the end) are what that read would leave.
 *
 * Return: bytes passed over (0 at end), or a negative errno.
 * Context: as text_stream_read().
 */
ssize_t text_stream_produce(struct text_stream *st, size_t len, uint64_t off)
{
	return stream_read(st, NULL, len, off);
}

/**
 * text_stream_size() - size of a stream's text, when known
 * @st: stream
 * @size: set to the size
 *
 * Return: 0, or -EAGAIN while the text was not produced to its end.
 */
int text_stream_size(struct text_stream *st, uint64_t *size)
{
	int ret = -EAGAIN;

	pthread_mutex_lock(&st->lock);
	if (st->size_known) {
		*size = st->size;
		ret = 0;
	}
	pthread_mutex_unlock(&st->lock);
	return ret;
}

/**
 * text_stream_drop_cursors() - forget where every cursor stands
 * @st: stream
 *
 * The next read starts from the checkpoint before it: for tests, which
 * compare that text with the text made on the way there.
 */
void text_stream_drop_cursors(struct text_stream *st)
{
	int i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < NCURSORS; i++)
		st->cur[i].valid = false;
	pthread_mutex_unlock(&st->lock);
}

/**
 * text_stream_frontier_pages() - how far the text was produced, in pages
 * @st: stream
 *
 * The sum over the slots the text prints (of a one-CPU stream that reads
 * every CPU, only that CPU) of the page the furthest cursor stands at, a
 * CPU at its end counting all its pages: a measure of progress.
 *
 * Return: the count; every page once the size is known.
 */
uint64_t text_stream_frontier_pages(struct text_stream *st)
{
	struct text_cursor *cu = NULL;
	struct text_pos *pos;
	uint64_t sum = 0;
	unsigned int s;
	size_t p;
	int i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < NCURSORS; i++)
		if (st->cur[i].valid && st->cur[i].src &&
		    (!cu || st->cur[i].off > cu->off))
			cu = &st->cur[i];
	pos = calloc(st->ncpu + 1, sizeof(*pos));
	for (p = 0; pos && cu && !st->size_known && p < st->nparts; p++)
		text_source_tell(cu->src[p], pos + st->parts[p].first);
	for (s = 0; pos && s < st->ncpu; s++) {
		if (st->only >= 0 && (int)s != st->only)
			continue;
		if (st->size_known || pos[s].done || pos[s].page > st->npages[s])
			sum += st->npages[s];
		else
			sum += pos[s].page;
	}
	pthread_mutex_unlock(&st->lock);
	free(pos);
	return sum;
}
