/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream-follow.c - a buffer's CPU texts made beside its merged
 * text: each record is formatted once, by the merged text, and each
 * CPU's text takes its line's length from there, making again only the
 * head (its comm as that text's own comm model knows it).
 *
 * A CPU's text read alone consumes its CPU's records in the order the
 * merged text consumes them, and nothing else, so its state at each of
 * its steps (position, comm model, call stacks, account, checkpoints)
 * follows from the merged text's steps of that CPU.  Two things it does
 * not follow from: a marker line (a damaged run lands in the step of
 * whichever record is peeked after it, which differs between the two
 * texts) and a record that looks at the records after it (a
 * function_graph entry: that CPU's text reads every CPU, and the merged
 * line may consume the next record of any CPU).  A CPU that meets a
 * damaged run is dropped, every CPU at the first record that looks
 * ahead, and their texts are made apart.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"
#include "account.h"
#include "comm.h"
#include "ftrace-function.h"
#include "line.h"
#include "source.h"
#include "stream-internal.h"
#include "stream.h"

/* The frontier of one CPU's text: a cursor without sources. */
struct text_follower {
	struct text_stream *st;		/* NULL: this slot is not led */
	struct text_cursor cu;
	uint64_t runs;			/* damaged runs the slot had met */
	bool gone;			/* dropped: made apart */
	bool done;			/* its size and state are known */
};

struct text_follow {
	const struct text_cursor *lead;	/* the leader's frontier cursor */
	unsigned int n;
	struct text_follower f[];
};

/**
 * text_follow_free() - let a stream's followers go
 * @st: the leading stream (its lock held, or being freed)
 *
 * The followers' streams are not the leader's: only what it kept of
 * them is freed.
 */
void text_follow_free(struct text_stream *st)
{
	struct text_follow *fo = st->fol;

	if (!fo)
		return;
	for (unsigned int i = 0; i < fo->n; i++) {
		text_fnstack_free(fo->f[i].cu.fn);
		tdatfs_buf_release(&fo->f[i].cu.line);
	}
	free(fo);
	st->fol = NULL;
}

/* Whether @f is a fresh stream of the slot @s of @st alone. */
static bool fresh_cpu(const struct text_stream *st, unsigned int s,
		      const struct text_stream *f)
{
	if (f == st || f->is_view || f->ckpt_borrowed || f->nparts != 1 ||
	    f->ncpu != 1 || f->only >= 0 || f->trying || f->size_known ||
	    f->front || f->nckpt != 1 || f->fol)
		return false;
	for (int i = 0; i < NCURSORS; i++)
		if (f->cur[i].valid)
			return false;
	return f->parts[0].b == st->parts[0].b && f->cidx[0] == st->cidx[s];
}

/**
 * text_stream_lead() - make CPU texts beside a buffer's merged text
 * @st: a stream of one buffer, all its CPUs merged, nothing produced yet
 * @cpus: for each of its CPUs (in the buffer's order), a fresh stream of
 *	that CPU read alone (text_stream_new() with TEXT_CPU_ALONE), or
 *	NULL; not owned
 *
 * As @st's frontier passes each record, the text of its CPU is made
 * beside it; at @st's end those texts end, their sizes, checkpoints,
 * comm models and accounts as producing each of them to its end would
 * leave them, byte for byte.  Until text_stream_lead_end(), nothing else
 * may read or free the streams of @cpus.  A CPU whose text cannot be
 * made so (see above) is dropped on the way.
 *
 * Return: 0, -EINVAL for streams that are not as said, or -ENOMEM.
 */
int text_stream_lead(struct text_stream *st, struct text_stream **cpus)
{
	struct text_follow *fo;
	unsigned int s;
	int ret = 0;

	pthread_mutex_lock(&st->lock);
	if (st->is_view || st->nparts != 1 || st->only >= 0 || st->trying ||
	    st->size_known || st->front != st->hlen || st->nckpt != 1 || st->fol)
		ret = -EINVAL;
	for (s = 0; !ret && s < st->ncpu; s++)
		if (cpus[s] && !fresh_cpu(st, s, cpus[s]))
			ret = -EINVAL;
	fo = ret ? NULL : calloc(1, sizeof(*fo) + st->ncpu * sizeof(fo->f[0]));
	if (!ret && !fo)
		ret = -ENOMEM;
	for (s = 0; !ret && s < st->ncpu; s++) {
		fo->f[s].st = cpus[s];
		fo->f[s].gone = !cpus[s];
		/* the second part of a split text starts elsewhere */
		if (cpus[s]) {
			fo->f[s].cu.seen = cpus[s]->ckpt_seen[0];
			fo->f[s].cu.fpos = cpus[s]->ckpt_pos[0];
		}
		if (cpus[s] && !(fo->f[s].cu.fn = text_fnstack_new()))
			ret = -ENOMEM;
	}
	if (fo) {
		fo->n = st->ncpu;
		st->fol = fo;
		if (ret)
			text_follow_free(st);
	}
	pthread_mutex_unlock(&st->lock);
	return ret;
}

/**
 * text_stream_lead_end() - which CPU texts were made beside, and no more
 * @st: a stream given to text_stream_lead()
 * @done: set per CPU: true when that CPU's text was made to its end
 *	beside @st (its size known), false when it was not (not led,
 *	dropped, or @st was not produced to its end); its stream must
 *	then be made again to be read
 *
 * Return: how many CPU texts were made.
 */
unsigned int text_stream_lead_end(struct text_stream *st, bool *done)
{
	unsigned int s, n = 0;

	pthread_mutex_lock(&st->lock);
	for (s = 0; s < st->ncpu; s++) {
		done[s] = st->fol && st->fol->f[s].done;
		n += done[s];
	}
	text_follow_free(st);
	pthread_mutex_unlock(&st->lock);
	return n;
}

/*
 * Whether follower @fw goes on with the leader's cursor @cu: the same
 * cursor as before, and no damaged run met on its CPU since its last
 * step.  Its CPU's position is set in *@pos.
 */
static bool follows(struct text_follow *fo, struct text_follower *fw,
		    const struct text_cursor *cu, unsigned int s,
		    struct text_pos *pos)
{
	if (!fo->lead)
		fo->lead = cu;
	if (fw->gone || fo->lead != cu ||
	    text_source_at(cu->src[0], s, pos) != fw->runs)
		fw->gone = true;
	return !fw->gone;
}

/* A checkpoint of @fw where its text's stream would make one. */
static int follower_ckpt(struct text_follower *fw)
{
	struct text_stream *f = fw->st;

	if (fw->cu.off < f->ckpt_off[f->nckpt - 1] + f->ckpt_every)
		return 0;
	return text_stream_ckpt_add(f, fw->cu.off, &fw->cu);
}

/**
 * text_follow_step() - the step the leader just made, made by its CPU's
 *	text
 * @st: the leading stream (lock held)
 * @cu: its cursor at the frontier, past the step
 * @si: the step, with its record and where its lines lie (si->follow)
 *
 * As advance() in text/stream.c of that CPU's stream: a checkpoint when
 * due, the line (its length only), the account.
 *
 * Return: 0 or a negative errno.
 */
int text_follow_step(struct text_stream *st, const struct text_cursor *cu,
		     const struct text_step *si)
{
	struct text_follower *fw = &st->fol->f[si->slot];
	struct text_comm_ctx cc;
	struct text_pos pos;
	size_t len;
	int ret;

	/*
	 * A record that looks ahead: its CPU's text reads every CPU, and
	 * the leader's line may have consumed the record after it, of any
	 * CPU (a leaf's exit), which no follower would then see.  All are
	 * made apart.
	 */
	if (si->id >= 0 && text_fmt_peeks(st->env.fmt, si->id))
		for (unsigned int s = 0; s < st->fol->n; s++)
			st->fol->f[s].gone = true;
	if (!follows(st->fol, fw, cu, si->slot, &pos))
		return 0;
	ret = follower_ckpt(fw);
	if (ret < 0)
		return ret;
	cc.ov = fw->st->ov;
	cc.seen = &fw->cu.seen;
	cc.fn = fw->cu.fn;
	cc.heads = &fw->cu.heads;
	ret = text_format_record_again(st->env.fmt, &si->rec, &si->lp, &cc,
				       &fw->cu.line, &len);
	if (!ret)
		ret = text_account_step(fw->st->acct, si->id, si->key, si->ts, len);
	if (ret < 0)
		return ret;
	fw->cu.off += len;
	fw->st->front = fw->cu.off;
	fw->cu.nrec++;
	fw->cu.fpos = pos;
	return 0;
}

/**
 * text_follow_end() - the leader reached its end: so do its followers
 * @st: the leading stream (lock held)
 * @cu: its cursor, at the end
 *
 * As reach_end() in text/stream.c of each CPU's stream, after the last
 * checkpoint its last step would make.  A follower that cannot end (no
 * memory for that checkpoint, a damaged run at its end) is dropped.
 */
void text_follow_end(struct text_stream *st, const struct text_cursor *cu)
{
	struct text_follow *fo = st->fol;
	struct text_pos pos;

	for (unsigned int s = 0; s < fo->n; s++) {
		struct text_follower *fw = &fo->f[s];
		struct text_stream *f = fw->st;

		if (!follows(fo, fw, cu, s, &pos) || follower_ckpt(fw) < 0) {
			fw->gone = true;
			continue;
		}
		text_account_finish(f->acct, fw->cu.nrec);
		text_stream_ckpt_charge(f);
		f->size_known = true;
		f->size = fw->cu.off;
		fw->done = true;
	}
}
