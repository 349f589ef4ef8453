/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/view-stream.c - a view's stream, made from a finished stream
 * of the full text: its entries are the stretches of that text holding
 * records the view keeps (text/stream.h).  Above the stream (it
 * reads the stream's inside, text/stream-internal.h), beside its
 * saved states.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "account.h"
#include "source.h"
#include "stream-internal.h"
#include "stream.h"

/*
 * Whether stretch @k of @a holds records @flt keeps; of an event, the
 * bytes of their text in *@bytes.
 */
static bool selects(const struct text_account *a, size_t k,
		    const struct text_filter *flt, uint64_t *bytes)
{
	const struct text_account_ev *e;
	uint64_t lo, hi;

	*bytes = 0;
	if (flt->every)
		return true;
	if (flt->kind == TEXT_FILTER_WINDOW)
		return text_account_times(a, k, &lo, &hi) && hi >= flt->k0 &&
		       lo < flt->k1;
	e = text_account_find(a, k, flt->id);
	if (e)
		*bytes = e->bytes;
	return e;
}

/*
 * Room for @n entries (at least one) in @v's checkpoint tables, charged
 * to the file's chunk cache: a trace has up to a few dozen views open per
 * engine, their tables as large as the full text's, long-lived.
 */
static int entries_alloc(struct text_stream *v, size_t n)
{
	n = n ? n : 1;
	v->charged = n * (sizeof(*v->ckpt_off) + sizeof(*v->ckpt_seen) +
			  v->ncpu * sizeof(*v->ckpt_pos) + sizeof(*v->ckpt_fn) +
			  sizeof(*v->vstart) + sizeof(*v->vend));
	tdat_cache_charge(v->env.f, v->charged, false);
	v->ckpt_off = calloc(n, sizeof(*v->ckpt_off));
	v->ckpt_seen = calloc(n, sizeof(*v->ckpt_seen));
	v->ckpt_pos = calloc(n * v->ncpu + 1, sizeof(*v->ckpt_pos));
	v->ckpt_fn = calloc(n, sizeof(*v->ckpt_fn));
	v->vstart = calloc(n, sizeof(*v->vstart));
	v->vend = calloc(n, sizeof(*v->vend));
	if (!v->ckpt_off || !v->ckpt_seen || !v->ckpt_pos || !v->ckpt_fn ||
	    !v->vstart || !v->vend)
		return -ENOMEM;
	v->ckpt_cap = n;
	return 0;
}

/*
 * The entries of @v: the stretches of @full that @flt selects, with the
 * positions, comms seen, function call stacks and records consumed at
 * their start and end.  A
 * view of an event knows every offset and its size; the others learn
 * them as they are read.  A view of nothing has one empty entry.
 */
static int entries_fill(struct text_stream *v, const struct text_stream *full)
{
	const struct text_account *a = full->acct;
	size_t k, j = 0, n = text_account_stretches(a), nsel = 0;
	uint64_t bytes, off = v->hlen;
	int ret;

	for (k = 0; k < n; k++)
		nsel += selects(a, k, &v->flt, &bytes);
	ret = entries_alloc(v, nsel);
	if (ret < 0)
		return ret;
	for (k = 0; k < n; k++) {
		if (!selects(a, k, &v->flt, &bytes))
			continue;
		v->ckpt_off[j] = off;
		v->ckpt_seen[j] = full->ckpt_seen[k];
		v->ckpt_fn[j] = full->ckpt_fn[k];	/* borrowed */
		memcpy(&v->ckpt_pos[j * v->ncpu], &full->ckpt_pos[k * full->ncpu],
		       v->ncpu * sizeof(*v->ckpt_pos));
		v->vstart[j] = text_account_nrec(a, k);
		v->vend[j] = text_account_nrec(a, k + 1);
		off += bytes;
		j++;
	}
	/* the first entry's text starts with the head, at offset 0 */
	v->ckpt_off[0] = 0;
	v->nsel = nsel ? nsel : 1;
	v->nckpt = 1;
	if (v->flt.kind == TEXT_FILTER_EVENT || !nsel) {
		v->nckpt = v->nsel;
		v->size_known = true;
		v->size = nsel ? off : v->hlen;
	}
	return 0;
}

/*
 * The comm model of @full, borrowed: a finished model is only read (every
 * registration a view meets was made by the full text before, so it only
 * moves the view's count on, and every lookup finds the array made).
 */
static void model_borrow(struct text_stream *v, struct text_stream *full)
{
	v->ov = full->ov;
	v->ov_borrowed = true;
}

/* The slots of @full, copied into the new @v. */
static int slots_copy(struct text_stream *v, const struct text_stream *full)
{
	v->env = full->env;
	v->nparts = 1;
	v->ncpu = full->ncpu;
	v->only = full->only;
	v->parts = calloc(2, sizeof(*v->parts));
	v->cidx = calloc(v->ncpu + 1, sizeof(*v->cidx));
	v->npages = calloc(v->ncpu + 1, sizeof(*v->npages));
	if (!v->parts || !v->cidx || !v->npages)
		return -ENOMEM;
	v->parts[0] = full->parts[0];
	v->parts[0].prefix = strdup("");
	v->parts[0].plen = 0;
	if (!v->parts[0].prefix)
		return -ENOMEM;
	memcpy(v->cidx, full->cidx, v->ncpu * sizeof(*v->cidx));
	memcpy(v->npages, full->npages, v->ncpu * sizeof(*v->npages));
	return 0;
}

/**
 * text_stream_new_view() - a view of a finished stream's text
 * @full: the stream of one buffer's text, produced to its end
 * @flt: what the view keeps (copied)
 * @head: text before everything else (copied): the fields header
 *
 * The view reads @full's comm model and its checkpoints' copies of the
 * function call stacks, so @full must outlive it.
 *
 * Return: the view (free with text_stream_free()), or NULL with errno
 * set: EAGAIN when @full was not produced to its end, EINVAL for a
 * stream of several buffers.
 */
struct text_stream *text_stream_new_view(struct text_stream *full,
					 const struct text_filter *flt,
					 const char *head)
{
	struct text_stream *v = calloc(1, sizeof(*v));
	int ret = -ENOMEM;

	if (!v)
		return NULL;
	pthread_mutex_init(&v->lock, NULL);
	v->is_view = true;
	v->flt = *flt;
	v->vfull = full;
	v->head = strdup(head);
	pthread_mutex_lock(&full->lock);
	if (!full->size_known || !full->acct)
		ret = -EAGAIN;
	else if (full->nparts != 1 || full->hlen)
		ret = -EINVAL;
	else if (v->head)
		ret = slots_copy(v, full);
	if (!ret) {
		v->hlen = strlen(v->head);
		ret = entries_fill(v, full);
	}
	if (!ret)
		model_borrow(v, full);
	pthread_mutex_unlock(&full->lock);
	if (ret < 0) {
		text_stream_free(v);
		errno = -ret;
		return NULL;
	}
	return v;
}

/**
 * text_stream_acct() - the account of a finished stream
 * @st: stream
 *
 * Return: the account, unchanged from now on, or NULL while the text was
 * not produced to its end (and for a view).
 */
const struct text_account *text_stream_acct(struct text_stream *st)
{
	const struct text_account *a = NULL;

	pthread_mutex_lock(&st->lock);
	if (st->size_known)
		a = st->acct;
	pthread_mutex_unlock(&st->lock);
	return a;
}

/* The parts, slots and head of @full, copied into the new mirror @m. */
static int parts_copy(struct text_stream *m, const struct text_stream *full)
{
	size_t p;

	m->env = full->env;
	m->nparts = full->nparts;
	m->ncpu = full->ncpu;
	m->only = full->only;
	m->parts = calloc(m->nparts + 1, sizeof(*m->parts));
	m->cidx = calloc(m->ncpu + 1, sizeof(*m->cidx));
	m->npages = calloc(m->ncpu + 1, sizeof(*m->npages));
	m->head = strdup(full->head ? full->head : "");
	if (!m->parts || !m->cidx || !m->npages || !m->head)
		return -ENOMEM;
	m->hlen = full->hlen;
	for (p = 0; p < m->nparts; p++) {
		m->parts[p] = full->parts[p];
		m->parts[p].prefix = strdup(full->parts[p].prefix ?
					    full->parts[p].prefix : "");
		if (!m->parts[p].prefix) {
			/* text_stream_free() frees the prefixes before @p */
			m->nparts = p;
			return -ENOMEM;
		}
	}
	memcpy(m->cidx, full->cidx, m->ncpu * sizeof(*m->cidx));
	memcpy(m->npages, full->npages, m->ncpu * sizeof(*m->npages));
	return 0;
}

/*
 * Whether @st is a view whose every entry is known (an event's); lock
 * held.
 */
static bool view_finished(const struct text_stream *st)
{
	return st->is_view && st->size_known && st->nckpt == st->nsel;
}

/**
 * text_stream_view_alike() - a second view of the records a view keeps
 * @v: a view (text_stream_new_view())
 *
 * The same view made again from the same full text, which must outlive
 * it; it knows the offsets a new view knows (an event's all, the others
 * none yet).
 *
 * Return: the view (free with text_stream_free()), or NULL with errno
 * set: EINVAL when @v is no view, else as text_stream_new_view().
 */
struct text_stream *text_stream_view_alike(struct text_stream *v)
{
	struct text_filter flt;
	struct text_stream *full;
	char *head;
	bool view;

	pthread_mutex_lock(&v->lock);
	view = v->is_view;
	flt = v->flt;
	full = v->vfull;
	head = view ? strdup(v->head) : NULL;
	pthread_mutex_unlock(&v->lock);
	if (!head) {
		errno = view ? ENOMEM : EINVAL;
		return NULL;
	}
	/* not under @v's lock: the view's full text is locked inside */
	v = text_stream_new_view(full, &flt, head);
	free(head);
	return v;
}

/*
 * The mirror of the finished view @v: the same view made again, knowing
 * the offsets @v learned.
 */
static struct text_stream *view_mirror(struct text_stream *v)
{
	struct text_stream *m = text_stream_view_alike(v);
	int ret = 0;

	if (!m)
		return NULL;
	pthread_mutex_lock(&v->lock);
	if (!view_finished(v) || m->nsel != v->nsel) {
		ret = -EINVAL;
	} else {
		/* @m is no one else's yet: its fields need not its lock */
		memcpy(m->ckpt_off, v->ckpt_off, v->nsel * sizeof(*m->ckpt_off));
		m->nckpt = v->nsel;
		m->size = v->size;
		m->size_known = true;
	}
	pthread_mutex_unlock(&v->lock);
	if (ret < 0) {
		text_stream_free(m);
		errno = -ret;
		return NULL;
	}
	return m;
}

/**
 * text_stream_view_entries() - how many entries a view has
 * @v: a view
 *
 * Return: its entries (at least one), 0 for a stream that is no view.
 */
size_t text_stream_view_entries(struct text_stream *v)
{
	size_t n;

	pthread_mutex_lock(&v->lock);
	n = v->is_view ? v->nsel : 0;
	pthread_mutex_unlock(&v->lock);
	return n;
}

/**
 * text_stream_view_split() - a view's entries in parts of like work
 * @v: a view
 * @parts: how many parts (at least one)
 * @bounds: set to @parts + 1 entries: part i is [@bounds[i], @bounds[i + 1]),
 *	@bounds[0] 0 and @bounds[@parts] text_stream_view_entries()
 *
 * A cut passes over every record of an entry's stretch, so the parts
 * hold about as many records each; a part may be empty.
 */
void text_stream_view_split(struct text_stream *v, size_t parts, size_t *bounds)
{
	uint64_t total = 0, sum = 0;
	size_t j, i = 1;

	pthread_mutex_lock(&v->lock);
	for (j = 0; v->is_view && j < v->nsel; j++)
		total += v->vend[j] - v->vstart[j];
	bounds[0] = 0;
	for (j = 0; v->is_view && j < v->nsel && i < parts; j++) {
		sum += v->vend[j] - v->vstart[j];
		/* part i starts once i / parts of the records are behind */
		while (i < parts && sum * parts >= total * i)
			bounds[i++] = j + 1;
	}
	while (i <= parts)
		bounds[i++] = v->is_view ? v->nsel : 0;
	pthread_mutex_unlock(&v->lock);
}

/**
 * text_stream_view_learn() - a view's offsets from the lengths of its entries
 * @v: a view
 * @bytes: the text length of each entry (text_stream_view_cut())
 * @n: entries in @bytes: all of them (text_stream_view_entries())
 *
 * The view is finished after: its size and every offset known, as a read
 * to its end leaves it.  A view finished before is left as it is.
 *
 * Return: 0, -EINVAL for a wrong count, -EIO when the lengths disagree
 * with an offset the view knew (a bug: text is the same each time).
 */
int text_stream_view_learn(struct text_stream *v, const uint64_t *bytes,
			   size_t n)
{
	uint64_t off = 0;
	int ret = 0;
	size_t j;

	pthread_mutex_lock(&v->lock);
	if (!v->is_view || n != v->nsel)
		ret = -EINVAL;
	for (j = 0; !ret && !v->size_known && j < n; j++) {
		if (j >= v->nckpt)
			v->ckpt_off[j] = off;
		else if (v->ckpt_off[j] != off)
			ret = -EIO;
		off += bytes[j];
	}
	if (!ret && !v->size_known) {
		v->nckpt = n;
		v->size = off;
		v->size_known = true;
	}
	pthread_mutex_unlock(&v->lock);
	return ret;
}

/**
 * text_stream_new_mirror() - a second producer of a finished stream's text
 * @full: a stream produced to its end, or a finished view
 *
 * The mirror's text is @full's, byte for byte: it reads from @full's
 * checkpoints and comm model, which a finished stream only reads, with
 * cursors and a lock of its own.  @full must outlive it; a view's mirror
 * needs only the view's full text.
 *
 * Return: the mirror (free with text_stream_free()), or NULL with errno
 * set: EAGAIN when @full was not produced to its end, EINVAL for a view
 * not finished.
 */
struct text_stream *text_stream_new_mirror(struct text_stream *full)
{
	struct text_stream *m;
	int ret = 0;

	if (full->is_view)
		return view_mirror(full);
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	pthread_mutex_init(&m->lock, NULL);
	m->ckpt_borrowed = true;
	m->ov_borrowed = true;
	pthread_mutex_lock(&full->lock);
	if (!full->size_known)
		ret = -EAGAIN;
	else
		ret = parts_copy(m, full);
	if (!ret) {
		m->nckpt = full->nckpt;
		m->ckpt_cap = full->nckpt;
		m->ckpt_max = full->ckpt_max;
		m->ckpt_every = full->ckpt_every;
		m->ckpt_off = full->ckpt_off;
		m->ckpt_seen = full->ckpt_seen;
		m->ckpt_pos = full->ckpt_pos;
		m->ckpt_fn = full->ckpt_fn;
		m->ov = full->ov;
		m->size_known = true;
		m->size = full->size;
		m->front = full->size;
	}
	pthread_mutex_unlock(&full->lock);
	if (ret < 0) {
		text_stream_free(m);
		errno = -ret;
		return NULL;
	}
	return m;
}

/**
 * text_stream_finished() - the checkpoints of a finished text
 * @st: stream, or a finished view (its entries)
 * @ckpt: set to the text offsets of its checkpoints, in order, the first
 *	0; they do not change any more and live as long as @st
 * @n: set to their count
 * @size: set to the text's size
 *
 * Stretch j of the text is [ckpt[j], ckpt[j + 1]), the last one ending
 * at @size: text_stream_new_mirror() produces any of them alone.
 *
 * Return: 0, -EAGAIN while the text was not produced to its end, -EINVAL
 * for a view whose offsets are not all known yet.
 */
int text_stream_finished(struct text_stream *st, const uint64_t **ckpt,
			 size_t *n, uint64_t *size)
{
	int ret = 0;

	pthread_mutex_lock(&st->lock);
	if (st->is_view && !view_finished(st))
		ret = -EINVAL;
	else if (!st->size_known)
		ret = -EAGAIN;
	if (!ret) {
		*ckpt = st->ckpt_off;
		*n = st->nckpt;
		*size = st->size;
	}
	pthread_mutex_unlock(&st->lock);
	return ret;
}
