/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/account.c - the account of a stream's text, stretch by
 * stretch and event by event (text/account.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"
#include "account.h"
#include "pack.h"

/* The stretch from one checkpoint to the next. */
struct acct_stretch {
	uint64_t nrec;		/* records consumed before it */
	uint64_t kmin, kmax;	/* its records' key times; kmin > kmax: none */
	size_t first, nev;	/* its entries in ev[], sorted by id */
};

/*
 * Where an event's entries were found last: only a hint, checked against
 * the arrays before use (entries move as others are inserted and as
 * stretches merge), so any content is safe.
 */
#define ACCT_MEMO	256	/* a trace of syscall events meets hundreds of ids */

struct acct_memo {
	uint32_t ev;		/* its entry in the open stretch, from first */
	uint32_t tot;		/* its total */
};

struct text_account {
	struct acct_memo memo[ACCT_MEMO];	/* by id modulo ACCT_MEMO */
	struct acct_stretch *st;
	size_t n, cap;
	struct text_account_ev *ev;
	size_t nev, evcap;
	struct text_account_total *tot;	/* sorted by id */
	size_t ntot, totcap;
	uint64_t end_nrec;
	bool finished;
	bool times_only;
};

/**
 * text_account_new() - an empty account, without stretches
 *
 * Return: the account (free with text_account_free()), or NULL with errno set.
 */
struct text_account *text_account_new(void)
{
	return calloc(1, sizeof(struct text_account));
}

/**
 * text_account_bytes() - the memory of an account's tables
 * @a: account, or NULL
 *
 * Return: the bytes its arrays hold (their capacity); 0 for NULL.
 */
size_t text_account_bytes(const struct text_account *a)
{
	if (!a)
		return 0;
	return a->cap * sizeof(*a->st) + a->evcap * sizeof(*a->ev) +
	       a->totcap * sizeof(*a->tot);
}

/**
 * text_account_times_only() - count times and records, not events
 * @a: a new account
 */
void text_account_times_only(struct text_account *a)
{
	a->times_only = true;
}

/**
 * text_account_free() - free an account; NULL is fine
 * @a: account
 */
void text_account_free(struct text_account *a)
{
	if (!a)
		return;
	free(a->st);
	free(a->ev);
	free(a->tot);
	free(a);
}

/* Room for one more item of @size bytes in *@p (count @n, room @cap). */
static int grow(void **p, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *q;

	if (n < *cap)
		return 0;
	q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/**
 * text_account_open() - start the stretch of a new checkpoint
 * @a: account
 * @nrec: records the stream consumed before the checkpoint
 *
 * Return: 0 or -ENOMEM.
 */
int text_account_open(struct text_account *a, uint64_t nrec)
{
	struct acct_stretch *s;

	if (grow((void **)&a->st, a->n, &a->cap, sizeof(*a->st)) < 0)
		return -ENOMEM;
	s = &a->st[a->n++];
	s->nrec = nrec;
	s->kmin = UINT64_MAX;
	s->kmax = 0;
	s->first = a->nev;
	s->nev = 0;
	return 0;
}

/* Index of the first entry of @e[0, n) with an id >= @id. */
static size_t ev_lower(const struct text_account_ev *e, size_t n, int id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (e[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first total with an id >= @id. */
static size_t tot_lower(const struct text_account *a, int id)
{
	size_t lo = 0, hi = a->ntot;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a->tot[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The total of event @id, made if new; NULL when out of memory. */
static struct text_account_total *total_get(struct text_account *a, int id,
					    uint64_t ts)
{
	size_t lo = tot_lower(a, id);
	struct text_account_total *t;

	if (lo < a->ntot && a->tot[lo].id == id)
		return &a->tot[lo];
	if (grow((void **)&a->tot, a->ntot, &a->totcap, sizeof(*a->tot)) < 0)
		return NULL;
	memmove(&a->tot[lo + 1], &a->tot[lo], (a->ntot - lo) * sizeof(*a->tot));
	a->ntot++;
	t = &a->tot[lo];
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->first_ts = ts;
	return t;
}

/**
 * text_account_step() - count one step of the text, in the open stretch
 * @a: account, with a stretch open
 * @id: the event id of the step's record; -1 for a record whose type
 *	does not read (its time counts, no event); INT_MIN for a step
 *	without a record
 * @key: the record's time as a window compares it
 * @ts: the record's timestamp (the event's first and last)
 * @bytes: the text the step added
 *
 * Return: 0 or -ENOMEM.
 */
int text_account_step(struct text_account *a, int id, uint64_t key, uint64_t ts,
		      uint64_t bytes)
{
	struct acct_stretch *s = &a->st[a->n - 1];
	struct text_account_total *t;
	struct acct_memo *m;
	struct text_account_ev *e;
	size_t i;

	if (id == INT_MIN)
		return 0;
	if (key < s->kmin)
		s->kmin = key;
	if (key > s->kmax)
		s->kmax = key;
	if (id < 0 || a->times_only)
		return 0;
	/* two searches a record without it: a sixth of a merged text's step */
	m = &a->memo[(unsigned int)id % ACCT_MEMO];
	if (m->ev < s->nev && a->ev[s->first + m->ev].id == id)
		i = m->ev;
	/* no events yet: a->ev may be NULL, and NULL + 0 is undefined */
	else
		i = s->nev ? ev_lower(&a->ev[s->first], s->nev, id) : 0;
	if (i == s->nev || a->ev[s->first + i].id != id) {
		if (grow((void **)&a->ev, a->nev, &a->evcap, sizeof(*a->ev)) < 0)
			return -ENOMEM;
		e = &a->ev[s->first + i];
		memmove(e + 1, e, (s->nev - i) * sizeof(*e));
		memset(e, 0, sizeof(*e));
		e->id = id;
		s->nev++;
		a->nev++;
	}
	if (m->tot < a->ntot && a->tot[m->tot].id == id)
		t = &a->tot[m->tot];
	else
		t = total_get(a, id, ts);
	if (!t)
		return -ENOMEM;
	m->ev = (uint32_t)i;
	m->tot = (uint32_t)(t - a->tot);
	e = &a->ev[s->first + i];
	e->records++;
	e->bytes += bytes;
	t->records++;
	t->bytes += bytes;
	t->last_ts = ts;
	return 0;
}

/**
 * text_account_finish() - the text ended
 * @a: account
 * @nrec: records the stream consumed in all
 */
void text_account_finish(struct text_account *a, uint64_t nrec)
{
	a->end_nrec = nrec;
	a->finished = true;
}

/* Merge the sorted entries @x (@nx) and @y (@ny) into @out; the count. */
static size_t ev_merge(const struct text_account_ev *x, size_t nx,
		       const struct text_account_ev *y, size_t ny,
		       struct text_account_ev *out)
{
	size_t i = 0, j = 0, n = 0;

	while (i < nx || j < ny) {
		if (j == ny || (i < nx && x[i].id < y[j].id)) {
			out[n++] = x[i++];
		} else if (i == nx || y[j].id < x[i].id) {
			out[n++] = y[j++];
		} else {
			out[n] = x[i++];
			out[n].records += y[j].records;
			out[n++].bytes += y[j++].bytes;
		}
	}
	return n;
}

/*
 * Merge the sorted @y (@ny) into the sorted @x (@nx) in place, @x having
 * room for @nx + @ny entries: filled from the end, so no entry of @x is
 * overwritten before it is read, then moved down over what entries met
 * on both sides left unused.  Return: the count.
 */
static size_t ev_merge_into(struct text_account_ev *x, size_t nx,
			    const struct text_account_ev *y, size_t ny)
{
	size_t i = nx, j = ny, w = nx + ny;

	while (i || j) {
		if (!i || (j && x[i - 1].id < y[j - 1].id)) {
			x[--w] = y[--j];
		} else if (!j || y[j - 1].id < x[i - 1].id) {
			x[--w] = x[--i];
		} else {
			x[--w] = x[--i];
			x[w].records += y[--j].records;
			x[w].bytes += y[j].bytes;
		}
	}
	if (w)
		memmove(x, x + w, (nx + ny - w) * sizeof(*x));
	return nx + ny - w;
}

/**
 * text_account_thin() - merge stretches 2k and 2k + 1 into k
 * @a: account
 *
 * Return: 0 or -ENOMEM (then the account is as it was).
 */
int text_account_thin(struct text_account *a)
{
	struct text_account_ev *ev = malloc((a->nev + 1) * sizeof(*ev));
	size_t k, m = (a->n + 1) / 2, nev = 0;

	if (!ev)
		return -ENOMEM;
	for (k = 0; k < m; k++) {
		const struct acct_stretch *x = &a->st[2 * k];
		const struct acct_stretch *y = 2 * k + 1 < a->n ? x + 1 : NULL;
		struct acct_stretch s = *x;

		s.first = nev;
		s.nev = ev_merge(&a->ev[x->first], x->nev,
				 y ? &a->ev[y->first] : NULL, y ? y->nev : 0,
				 &ev[nev]);
		if (y && y->kmin < s.kmin)
			s.kmin = y->kmin;
		if (y && y->kmax > s.kmax)
			s.kmax = y->kmax;
		nev += s.nev;
		a->st[k] = s;
	}
	free(a->ev);
	a->ev = ev;
	a->nev = a->evcap = nev;
	if (!a->evcap) {
		a->ev = NULL;
		free(ev);
	}
	a->n = m;
	return 0;
}

/* Room for @n more items of @size bytes in *@p (count @cnt, room @cap). */
static int grow_by(void **p, size_t cnt, size_t n, size_t *cap, size_t size)
{
	while (*cap < cnt + n)
		if (grow(p, *cap, cap, size) < 0)
			return -ENOMEM;
	return 0;
}

/* Event @x's total of a later part added to @a's. */
static int total_join(struct text_account *a, const struct text_account_total *x)
{
	size_t lo = tot_lower(a, x->id);
	struct text_account_total *t;

	if (lo < a->ntot && a->tot[lo].id == x->id) {
		t = &a->tot[lo];
		t->records += x->records;
		t->bytes += x->bytes;
		t->last_ts = x->last_ts;
		return 0;
	}
	if (grow((void **)&a->tot, a->ntot, &a->totcap, sizeof(*a->tot)) < 0)
		return -ENOMEM;
	memmove(&a->tot[lo + 1], &a->tot[lo], (a->ntot - lo) * sizeof(*a->tot));
	a->tot[lo] = *x;
	a->ntot++;
	return 0;
}

/**
 * text_account_join() - the account of the next part of a split text
 *	appended
 * @a: the finished account of the text up to where the part starts
 * @b: the part's finished account, its records counted from 0
 *
 * The part's first stretch runs on in @a's last one (the part's
 * checkpoint 0 is not kept: a checkpoint of the text in a row there
 * would hold its CPUs' positions as they stand before the next record is
 * looked for, which the part cannot know); its other stretches follow,
 * their records counted after @a's.  The totals add up, an event's
 * first time from the first part that has it and its last from the last
 * one.
 *
 * Return: 0 or -ENOMEM (then @a holds part of @b: the caller drops it).
 */
int text_account_join(struct text_account *a, const struct text_account *b)
{
	uint64_t nrec = a->end_nrec;
	struct acct_stretch *last;
	const struct acct_stretch *b0 = &b->st[0];
	size_t k;

	if (grow_by((void **)&a->st, a->n, b->n, &a->cap, sizeof(*a->st)) < 0 ||
	    grow_by((void **)&a->ev, a->nev, b->nev, &a->evcap, sizeof(*a->ev)) < 0)
		return -ENOMEM;
	last = &a->st[a->n - 1];
	/* no events on either side (an account of times): a->ev may be NULL */
	if (last->nev + b0->nev) {
		last->nev = ev_merge_into(&a->ev[last->first], last->nev,
					  b->ev, b0->nev);
		a->nev = last->first + last->nev;
	}
	if (b0->kmin < last->kmin)
		last->kmin = b0->kmin;
	if (b0->kmax > last->kmax)
		last->kmax = b0->kmax;
	for (k = 1; k < b->n; k++) {
		struct acct_stretch *s = &a->st[a->n++];

		*s = b->st[k];
		s->nrec += nrec;
		s->first = a->nev;
		/* no events: b->ev may be NULL */
		if (s->nev)
			memcpy(&a->ev[a->nev], &b->ev[b->st[k].first],
			       s->nev * sizeof(*a->ev));
		a->nev += s->nev;
	}
	for (k = 0; k < b->ntot; k++)
		if (total_join(a, &b->tot[k]) < 0)
			return -ENOMEM;
	a->end_nrec = nrec + b->end_nrec;
	a->finished = b->finished;
	return 0;
}

/**
 * text_account_stretches() - the count of stretches
 * @a: account
 *
 * Return: the count (the stream's checkpoint count).
 */
size_t text_account_stretches(const struct text_account *a)
{
	return a->n;
}

/**
 * text_account_nrec() - records consumed before stretch @k
 * @a: account
 * @k: stretch, or the count of stretches for the end of the text
 *
 * Return: the count.
 */
uint64_t text_account_nrec(const struct text_account *a, size_t k)
{
	return k < a->n ? a->st[k].nrec : a->end_nrec;
}

/**
 * text_account_times() - the key times of stretch @k's records
 * @a: account
 * @k: stretch
 * @kmin: set to the smallest
 * @kmax: set to the largest
 *
 * Return: false when the stretch holds no record.
 */
bool text_account_times(const struct text_account *a, size_t k, uint64_t *kmin,
			uint64_t *kmax)
{
	*kmin = a->st[k].kmin;
	*kmax = a->st[k].kmax;
	return a->st[k].kmin <= a->st[k].kmax;
}

/**
 * text_account_find() - event @id's records in stretch @k
 * @a: account
 * @k: stretch
 * @id: event id
 *
 * Return: the entry, or NULL when the stretch has none of them.
 */
const struct text_account_ev *text_account_find(const struct text_account *a,
						size_t k, int id)
{
	const struct acct_stretch *s = &a->st[k];
	size_t i = ev_lower(&a->ev[s->first], s->nev, id);

	return i < s->nev && a->ev[s->first + i].id == id ?
	       &a->ev[s->first + i] : NULL;
}

/**
 * text_account_totals() - every event's records over the whole text
 * @a: account
 * @n: set to the count
 *
 * Return: the totals, sorted by id, owned by the account.
 */
const struct text_account_total *
text_account_totals(const struct text_account *a, size_t *n)
{
	*n = a->ntot;
	return a->tot;
}

/**
 * text_account_save() - the bytes of a finished account
 * @a: account
 * @out: where they are appended, in this machine's byte order
 *
 * Return: 0 or -ENOMEM.
 */
int text_account_save(const struct text_account *a, struct tdatfs_buf *out)
{
	size_t i;
	int ret;

	ret = text_pack_u64(out, a->n) | text_pack_u64(out, a->end_nrec) |
	      text_pack_u64(out, a->nev) | text_pack_u64(out, a->ntot);
	for (i = 0; !ret && i < a->n; i++)
		ret = text_pack_u64(out, a->st[i].nrec) |
		      text_pack_u64(out, a->st[i].kmin) |
		      text_pack_u64(out, a->st[i].kmax) |
		      text_pack_u64(out, a->st[i].nev);
	for (i = 0; !ret && i < a->nev; i++)
		ret = text_pack_u32(out, (uint32_t)a->ev[i].id) |
		      text_pack_u64(out, a->ev[i].records) |
		      text_pack_u64(out, a->ev[i].bytes);
	for (i = 0; !ret && i < a->ntot; i++)
		ret = text_pack_u32(out, (uint32_t)a->tot[i].id) |
		      text_pack_u64(out, a->tot[i].records) |
		      text_pack_u64(out, a->tot[i].bytes) |
		      text_pack_u64(out, a->tot[i].first_ts) |
		      text_pack_u64(out, a->tot[i].last_ts);
	return ret ? -ENOMEM : 0;
}

/* The stretches' fixed fields; their entry counts must add up to @nev. */
static int load_stretches(struct text_account *a, struct text_unpack *u,
			  size_t nev)
{
	size_t k, first = 0;
	uint64_t prev = 0;

	for (k = 0; k < a->n; k++) {
		struct acct_stretch *s = &a->st[k];

		s->nrec = text_unpack_u64(u);
		s->kmin = text_unpack_u64(u);
		s->kmax = text_unpack_u64(u);
		s->nev = text_unpack_u64(u);
		if (u->bad || s->nrec < prev || s->nrec > a->end_nrec ||
		    (k == 0 && s->nrec) || s->nev > nev - first)
			return -EINVAL;
		s->first = first;
		first += s->nev;
		prev = s->nrec;
	}
	return first == nev ? 0 : -EINVAL;
}

/* Index of event @id in the totals, or a->ntot. */
static size_t total_index(const struct text_account *a, int id)
{
	size_t lo = tot_lower(a, id);

	return lo < a->ntot && a->tot[lo].id == id ? lo : a->ntot;
}

/* The entries of each stretch sorted, and their sums the totals. */
static int check_sums(const struct text_account *a)
{
	uint64_t *sum = calloc(2 * a->ntot + 1, sizeof(*sum));
	size_t i, k, j;
	int ret = 0;

	if (!sum)
		return -ENOMEM;
	for (k = 0; !ret && k < a->n; k++) {
		const struct acct_stretch *s = &a->st[k];

		for (i = s->first; !ret && i < s->first + s->nev; i++) {
			const struct text_account_ev *e = &a->ev[i];

			j = total_index(a, e->id);
			if (e->id < 0 || !e->records || j == a->ntot ||
			    (i > s->first && e->id <= e[-1].id))
				ret = -EINVAL;
			else if (__builtin_add_overflow(sum[2 * j], e->records, &sum[2 * j]) ||
				 __builtin_add_overflow(sum[2 * j + 1], e->bytes,
							&sum[2 * j + 1]))
				ret = -EINVAL;
		}
	}
	for (j = 0; !ret && j < a->ntot; j++)
		if (sum[2 * j] != a->tot[j].records ||
		    sum[2 * j + 1] != a->tot[j].bytes)
			ret = -EINVAL;
	free(sum);
	return ret;
}

/* The entries and totals, each sorted, the totals the entries' sums. */
static int load_events(struct text_account *a, struct text_unpack *u)
{
	struct text_account_total *t;
	size_t i;

	for (i = 0; i < a->nev; i++) {
		a->ev[i].id = (int)text_unpack_u32(u);
		a->ev[i].records = text_unpack_u64(u);
		a->ev[i].bytes = text_unpack_u64(u);
	}
	for (i = 0; i < a->ntot; i++) {
		t = &a->tot[i];
		t->id = (int)text_unpack_u32(u);
		t->records = text_unpack_u64(u);
		t->bytes = text_unpack_u64(u);
		t->first_ts = text_unpack_u64(u);
		t->last_ts = text_unpack_u64(u);
		if (u->bad || t->id < 0 || !t->records ||
		    (i && t->id <= a->tot[i - 1].id))
			return -EINVAL;
	}
	return check_sums(a);
}

/**
 * text_account_load() - an account from text_account_save()'s bytes
 * @a: an empty account (text_account_new())
 * @u: the bytes, untrusted
 * @nckpt: the checkpoint count of the stream it is for
 *
 * Every count is checked against what is left before anything is
 * allocated, and the whole account against itself: stretch counts,
 * records in order, entries sorted, totals their sums.
 *
 * Return: 0, -EINVAL for bytes that are not such an account, -ENOMEM;
 * on an error the account is left empty.
 */
int text_account_load(struct text_account *a, struct text_unpack *u,
		      size_t nckpt)
{
	uint64_t n = text_unpack_u64(u), end = text_unpack_u64(u);
	uint64_t nev = text_unpack_u64(u), ntot = text_unpack_u64(u);
	int ret = -EINVAL;

	if (u->bad || n != nckpt || !text_pack_fits(u, n, 32) ||
	    !text_pack_fits(u, nev, 20) || !text_pack_fits(u, ntot, 36) ||
	    ntot > nev)
		return -EINVAL;
	a->st = malloc((n + 1) * sizeof(*a->st));
	a->ev = malloc((nev + 1) * sizeof(*a->ev));
	a->tot = malloc((ntot + 1) * sizeof(*a->tot));
	if (!a->st || !a->ev || !a->tot) {
		ret = -ENOMEM;
		goto fail;
	}
	a->n = a->cap = n;
	a->nev = a->evcap = nev;
	a->ntot = a->totcap = ntot;
	a->end_nrec = end;
	a->finished = true;
	ret = load_stretches(a, u, nev);
	if (!ret)
		ret = load_events(a, u);
	if (!ret)
		return 0;
fail:
	free(a->st);
	free(a->ev);
	free(a->tot);
	memset(a, 0, sizeof(*a));
	return ret;
}
