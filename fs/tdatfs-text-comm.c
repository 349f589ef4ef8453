/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-comm.c - saved_cmdlines, the sched events whose plugin
 * handler registers comms, and per stream a model of libtraceevent's
 * comm list and sorted array (doc/trace-cmd-parity.md, section 4).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-text-buf.h"
#include "tdatfs-text-bytes.h"
#include "tdatfs-text-comm.h"
#include "tdatfs-text-pack.h"

/* a power of two: the pids a stretch of lines names, and more */
#define HOT_SLOTS	64

/* One registration of a comm. */
struct text_comm {
	int pid;
	size_t seq;		/* order of registration */
	const char *comm;
};

/*
 * A pid with several entries in the array.  Which of them glibc's
 * bsearch() returns depends only on how many entries lie below and
 * above the run (bsearch_pick()).
 */
struct tab_dup {
	int pid;
	size_t below, above;	/* entries of smaller / larger pids */
	size_t n;
	const char **comm;	/* newest first, as the stable sort leaves them */
};

/* Arrays made so far in the process: each array's gen is its count. */
static _Atomic uint64_t tab_gens;

/* The array cmdline_init() makes, one slot per distinct pid. */
struct comm_tab {
	uint64_t gen;		/* this array's own, never reused: tab_hot() */
	size_t n;
	int *pid;		/* sorted */
	const char **comm;	/* NULL for a pid of @dup */
	size_t ndup;
	struct tab_dup *dup;	/* sorted by pid */
	const char **dcomm;	/* the storage of dup[].comm */
};

/* Where a duplicate run stands at the frontier, and what it showed when. */
struct dup_state {
	size_t below, above;	/* with the pids added after the array */
	size_t nh, hcap;
	struct dup_hit {
		size_t from;	/* registrations seen from which ... */
		size_t idx;	/* ... bsearch() returns comm[idx] */
	} *h;
};

/* A field the plugin reads, copied from the format. */
struct comm_field {
	bool have;		/* the format has it */
	uint32_t offset;
	uint32_t size;
};

struct text_comms {
	struct text_comm *saved;	/* saved_cmdlines, in file order */
	size_t nsaved;
	struct comm_tab stab;		/* the array of saved_cmdlines alone */
	/* events whose plugin handler registers comms, and their fields */
	bool big_endian;
	int sw_id, wk_id, wkn_id;
	struct comm_field sw_ppid, sw_pcomm, sw_npid, sw_ncomm;
	struct comm_field wk_pid, wk_comm, wkn_pid, wkn_comm;
};

/*
 * The model of one stream.  Registrations are counted in stream order
 * (text_comm_ctx.seen): first every one made before the array exists
 * (the list), then the pids added to the array after it.
 */
struct text_overlay {
	/* the list: registrations before the array, duplicates included */
	size_t n1, cap1;
	int *pid1;
	char **comm1;
	/* the array, made at the first lookup of a pid other than 0 */
	bool built;
	const struct comm_tab *tab;	/* ->own, or the saved one */
	struct comm_tab *own;
	struct dup_state *ds;		/* tab->ndup of them */
	/* the pids added after it, in stream order */
	size_t n, cap;
	int *pid;
	char **comm;
	size_t hcap;		/* power of two; 0 = empty */
	int32_t *hash;		/* index + 1, 0 = free */
};

/* By pid, newest first: the list is built by prepending and glibc's
 * qsort() (a merge sort) keeps equal pids in list order. */
static int reg_cmp(const void *a, const void *b)
{
	const struct text_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

static void tab_release(struct comm_tab *tb)
{
	free(tb->pid);
	free(tb->comm);
	free(tb->dup);
	free(tb->dcomm);
	memset(tb, 0, sizeof(*tb));
}

/* Length of the run of @e[i]'s pid in sorted @e. */
static size_t run_len(const struct text_comm *e, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && e[j].pid == e[i].pid)
		j++;
	return j - i;
}

/* Fill @tb from @n registrations sorted by reg_cmp(). */
static int tab_fill(struct comm_tab *tb, const struct text_comm *e, size_t n)
{
	size_t i, r, m, k = 0, nd = 0, ndc = 0;

	for (i = 0; i < n; i += r) {
		r = run_len(e, n, i);
		k++;
		nd += r > 1;
		ndc += r > 1 ? r : 0;
	}
	tb->pid = malloc((k + 1) * sizeof(*tb->pid));
	tb->comm = malloc((k + 1) * sizeof(*tb->comm));
	tb->dup = malloc((nd + 1) * sizeof(*tb->dup));
	tb->dcomm = malloc((ndc + 1) * sizeof(*tb->dcomm));
	if (!tb->pid || !tb->comm || !tb->dup || !tb->dcomm) {
		tab_release(tb);
		return -ENOMEM;
	}
	for (i = 0, k = 0, nd = 0, ndc = 0; i < n; i += r, k++) {
		struct tab_dup *du = &tb->dup[nd];

		r = run_len(e, n, i);
		tb->pid[k] = e[i].pid;
		tb->comm[k] = r == 1 ? e[i].comm : NULL;
		if (r == 1)
			continue;
		du->pid = e[i].pid;
		du->below = i;
		du->above = n - i - r;
		du->n = r;
		du->comm = tb->dcomm + ndc;
		for (m = 0; m < r; m++)
			tb->dcomm[ndc++] = e[i + m].comm;
		nd++;
	}
	tb->n = k;
	tb->ndup = nd;
	return 0;
}

/*
 * The array cmdline_init() makes of the list: saved_cmdlines registered
 * in file order, then @n1 registrations of the stream.
 */
static int tab_build(struct comm_tab *tb, const struct text_comms *t,
		     const int *pid1, char *const *comm1, size_t n1)
{
	size_t i, n = t->nsaved + n1;
	struct text_comm *e = malloc((n + 1) * sizeof(*e));
	int ret;

	if (!e)
		return -ENOMEM;
	if (t->nsaved)
		memcpy(e, t->saved, t->nsaved * sizeof(*e));
	for (i = 0; i < n1; i++) {
		e[t->nsaved + i].pid = pid1[i];
		e[t->nsaved + i].seq = t->nsaved + i;
		e[t->nsaved + i].comm = comm1[i];
	}
	qsort(e, n, sizeof(*e), reg_cmp);
	ret = tab_fill(tb, e, n);
	free(e);
	if (!ret)
		tb->gen = atomic_fetch_add(&tab_gens, 1) + 1;
	return ret;
}

/* The slot of @pid in @tb, or -1. */
static long tab_find(const struct comm_tab *tb, int pid)
{
	size_t lo = 0, hi = tb->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (tb->pid[mid] == pid)
			return (long)mid;
		if (tb->pid[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static size_t dup_find(const struct comm_tab *tb, int pid)
{
	size_t lo = 0, hi = tb->ndup;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (tb->dup[mid].pid <= pid)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Which of @n equal entries, with @below entries before them and @above
 * after, glibc's bsearch() returns: it bisects [l, u) at (l + u) / 2
 * and stops at the first probe that compares equal.
 */
static size_t bsearch_pick(size_t below, size_t n, size_t above)
{
	size_t l = 0, u = below + n + above;

	while (l < u) {
		size_t i = (l + u) / 2;

		if (i < below)
			l = i + 1;
		else if (i >= below + n)
			u = i;
		else
			return i - below;
	}
	return 0;	/* not reached: n > 0 */
}

/* The comm of dup run @k when @seen registrations are visible. */
static const char *dup_comm(const struct comm_tab *tb,
			    const struct dup_state *ds, size_t k, size_t seen)
{
	const struct tab_dup *du = &tb->dup[k];
	size_t lo = 0, hi;

	if (!ds)
		return du->comm[bsearch_pick(du->below, du->n, du->above)];
	hi = ds[k].nh;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ds[k].h[mid].from <= seen)
			lo = mid;
		else
			hi = mid;
	}
	return du->comm[ds[k].h[lo].idx];
}

/* What an array says of a pid. */
struct hot_comm {
	int pid;
	enum { HOT_EMPTY, HOT_ONCE, HOT_DUP, HOT_ABSENT } kind;
	const char *comm;	/* HOT_ONCE: its only entry */
	size_t dup;		/* HOT_DUP: its run in dup[] */
};

/*
 * tab_find() (and dup_find()) of @pid in @tb, through the cache of the
 * last array this thread looked in, by pid modulo HOT_SLOTS.  An array
 * never changes once made and no two share a gen, so the entries are
 * good while the gen matches.  The cache is the thread's: models stay
 * read-only for the streams that share them (mirrors, views).
 */
static const struct hot_comm *tab_hot(const struct comm_tab *tb, int pid)
{
	static __thread struct {
		uint64_t gen;
		struct hot_comm slot[HOT_SLOTS];
	} hot;
	struct hot_comm *h;
	long i;

	if (hot.gen != tb->gen) {
		memset(hot.slot, 0, sizeof(hot.slot));
		hot.gen = tb->gen;
	}
	h = &hot.slot[(unsigned int)pid % HOT_SLOTS];
	if (h->kind != HOT_EMPTY && h->pid == pid)
		return h;
	i = tab_find(tb, pid);
	h->pid = pid;
	if (i < 0) {
		h->kind = HOT_ABSENT;
	} else if (tb->comm[i]) {
		h->kind = HOT_ONCE;
		h->comm = tb->comm[i];
	} else {
		h->kind = HOT_DUP;
		h->dup = dup_find(tb, pid);
	}
	return h;
}

/* The comm of @pid in @tb, or NULL when the array has none. */
static const char *tab_comm(const struct comm_tab *tb,
			    const struct dup_state *ds, int pid, size_t seen)
{
	const struct hot_comm *h = tab_hot(tb, pid);

	if (h->kind == HOT_ONCE)
		return h->comm;
	return h->kind == HOT_DUP ? dup_comm(tb, ds, h->dup, seen) : NULL;
}

/*
 * saved_cmdlines as tep_parse_saved_cmdlines() reads it: lines "PID
 * COMM", up to the first bad line, every line registered (duplicates
 * too), then the array libtraceevent makes of them alone.
 */
static int build_saved(struct text_comms *t, char *buf)
{
	char *line, *next = NULL;
	size_t cap = 0;

	for (line = strtok_r(buf, "\n", &next); line;
	     line = strtok_r(NULL, "\n", &next)) {
		char *comm = NULL;
		int pid, n;

		errno = 0;
		n = sscanf(line, "%d %m[^\n]s", &pid, &comm);
		if (errno || n != 2 || !comm) {
			free(comm);
			break;
		}
		if (t->nsaved == cap) {
			struct text_comm *c;

			cap = cap ? cap * 2 : 256;
			c = realloc(t->saved, cap * sizeof(*c));
			if (!c) {
				free(comm);
				return -ENOMEM;
			}
			t->saved = c;
		}
		t->saved[t->nsaved].pid = pid;
		t->saved[t->nsaved].seq = t->nsaved;
		t->saved[t->nsaved].comm = comm;
		t->nsaved++;
	}
	return 0;
}

static size_t ov_slot(const struct text_overlay *ov, int pid)
{
	size_t h = ((uint32_t)pid * 2654435761u) & (ov->hcap - 1);

	while (ov->hash[h] && ov->pid[ov->hash[h] - 1] != pid)
		h = (h + 1) & (ov->hcap - 1);
	return h;
}

/* Index of @pid among the pids added after the array, or -1. */
static long ov_find(const struct text_overlay *ov, int pid)
{
	size_t h;

	if (!ov->hcap)
		return -1;
	h = ov_slot(ov, pid);
	return ov->hash[h] ? ov->hash[h] - 1 : -1;
}

static int ov_add(struct text_overlay *ov, int pid, const char *comm, size_t len)
{
	size_t i;

	if (ov->n >= INT32_MAX - 1)
		return -ENOSPC;
	if ((ov->n + 1) * 2 > ov->hcap) {
		size_t cap = ov->hcap ? ov->hcap * 2 : 64;
		int32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -ENOMEM;
		free(ov->hash);
		ov->hash = h;
		ov->hcap = cap;
		for (i = 0; i < ov->n; i++)
			ov->hash[ov_slot(ov, ov->pid[i])] = i + 1;
	}
	if (ov->n == ov->cap) {
		size_t cap = ov->cap ? ov->cap * 2 : 64;
		int *p = realloc(ov->pid, cap * sizeof(*p));
		char **c;

		if (!p)
			return -ENOMEM;
		ov->pid = p;
		c = realloc(ov->comm, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		ov->comm = c;
		ov->cap = cap;
	}
	ov->comm[ov->n] = strndup(comm, len);
	if (!ov->comm[ov->n])
		return -ENOMEM;
	ov->pid[ov->n] = pid;
	ov->hash[ov_slot(ov, pid)] = ov->n + 1;
	ov->n++;
	return 0;
}

/* Prepend to the list (appended here: the order is kept by seq). */
static int list_add(struct text_overlay *ov, int pid, const char *comm, size_t len)
{
	if (ov->n1 == ov->cap1) {
		size_t cap = ov->cap1 ? ov->cap1 * 2 : 16;
		int *p = realloc(ov->pid1, cap * sizeof(*p));
		char **c;

		if (!p)
			return -ENOMEM;
		ov->pid1 = p;
		c = realloc(ov->comm1, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		ov->comm1 = c;
		ov->cap1 = cap;
	}
	ov->comm1[ov->n1] = strndup(comm, len);
	if (!ov->comm1[ov->n1])
		return -ENOMEM;
	ov->pid1[ov->n1++] = pid;
	return 0;
}

static void dup_states_free(struct dup_state *ds, size_t n)
{
	size_t k;

	if (!ds)
		return;
	for (k = 0; k < n; k++)
		free(ds[k].h);
	free(ds);
}

/* What each duplicate run shows from the array's making on. */
static struct dup_state *dup_states_new(const struct comm_tab *tb, size_t from)
{
	struct dup_state *ds = calloc(tb->ndup + 1, sizeof(*ds));
	size_t k;

	if (!ds)
		return NULL;
	for (k = 0; k < tb->ndup; k++) {
		ds[k].h = malloc(4 * sizeof(*ds[k].h));
		if (!ds[k].h) {
			dup_states_free(ds, tb->ndup);
			return NULL;
		}
		ds[k].hcap = 4;
		ds[k].nh = 1;
		ds[k].below = tb->dup[k].below;
		ds[k].above = tb->dup[k].above;
		ds[k].h[0].from = from;
		ds[k].h[0].idx = bsearch_pick(ds[k].below, tb->dup[k].n,
					      ds[k].above);
	}
	return ds;
}

/*
 * cmdline_init() at the first lookup of a pid other than 0: the array
 * of saved_cmdlines and the stream's list.  Only the stream's frontier
 * gets here (behind it the array exists), so the list is complete.
 */
static int model_build(const struct text_comms *t, struct text_overlay *ov)
{
	if (ov->n1) {
		ov->own = calloc(1, sizeof(*ov->own));
		if (!ov->own)
			return -ENOMEM;
		if (tab_build(ov->own, t, ov->pid1, ov->comm1, ov->n1) < 0) {
			free(ov->own);
			ov->own = NULL;
			return -ENOMEM;
		}
	}
	ov->tab = ov->own ? ov->own : &t->stab;
	ov->ds = dup_states_new(ov->tab, ov->n1);
	if (!ov->ds) {
		if (ov->own)
			tab_release(ov->own);
		free(ov->own);
		ov->own = NULL;
		return -ENOMEM;
	}
	ov->built = true;
	return 0;
}

/* Room for one more hit in every duplicate run, before an addition. */
static int dup_reserve(struct text_overlay *ov)
{
	size_t k;

	for (k = 0; k < ov->tab->ndup; k++) {
		struct dup_state *d = &ov->ds[k];
		struct dup_hit *h;

		if (d->nh < d->hcap)
			continue;
		h = realloc(d->h, 2 * d->hcap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		d->h = h;
		d->hcap *= 2;
	}
	return 0;
}

/*
 * add_new_comm() inserts @pid at its sorted place: the runs of other
 * pids shift, and bsearch() may land on another of their entries from
 * @from registrations on.
 */
static void dup_shift(struct text_overlay *ov, int pid, size_t from)
{
	size_t k;

	for (k = 0; k < ov->tab->ndup; k++) {
		struct dup_state *d = &ov->ds[k];
		size_t idx;

		if (pid < ov->tab->dup[k].pid)
			d->below++;
		else
			d->above++;
		idx = bsearch_pick(d->below, ov->tab->dup[k].n, d->above);
		if (idx != d->h[d->nh - 1].idx) {
			d->h[d->nh].from = from;
			d->h[d->nh].idx = idx;
			d->nh++;
		}
	}
}

/**
 * text_overlay_new() - an empty model for a stream
 *
 * Return: the model (free with text_overlay_free()), or NULL.
 */
struct text_overlay *text_overlay_new(void)
{
	return calloc(1, sizeof(struct text_overlay));
}

/**
 * text_overlay_free() - free the model of a stream; NULL is fine
 * @ov: model
 */
void text_overlay_free(struct text_overlay *ov)
{
	if (!ov)
		return;
	if (ov->tab)
		dup_states_free(ov->ds, ov->tab->ndup);
	if (ov->own)
		tab_release(ov->own);
	free(ov->own);
	while (ov->n1)
		free(ov->comm1[--ov->n1]);
	free(ov->comm1);
	free(ov->pid1);
	while (ov->n)
		free(ov->comm[--ov->n]);
	free(ov->comm);
	free(ov->pid);
	free(ov->hash);
	free(ov);
}

/* One registration's bytes: pid, length, the comm without its NUL. */
static int pack_comm(struct text_buf *out, int pid, const char *comm)
{
	size_t len = strlen(comm);

	if (text_pack_u32(out, (uint32_t)pid) < 0 ||
	    text_pack_u32(out, (uint32_t)len) < 0 ||
	    text_pack(out, comm, len) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * text_overlay_save() - the registrations a model was made of
 * @ov: model
 * @out: where the bytes are appended
 *
 * The model is a function of its registrations (tdatfs-text-comm.h): the
 * list before the array, whether the array was made, and the pids added
 * after it.  text_overlay_load() replays them.
 *
 * Return: 0 or -ENOMEM (then @out holds part of the bytes).
 * Context: the caller holds the stream lock.
 */
int text_overlay_save(const struct text_overlay *ov, struct text_buf *out)
{
	size_t i;

	if (text_pack_u64(out, ov->n1) < 0)
		return -ENOMEM;
	for (i = 0; i < ov->n1; i++)
		if (pack_comm(out, ov->pid1[i], ov->comm1[i]) < 0)
			return -ENOMEM;
	if (text_pack_u32(out, ov->built) < 0 || text_pack_u64(out, ov->n) < 0)
		return -ENOMEM;
	for (i = 0; i < ov->n; i++)
		if (pack_comm(out, ov->pid[i], ov->comm[i]) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * A count of registrations and then each one, checked to fit: *@n set
 * to the count.  With @cb, it is called for each in turn (the comm is
 * not NUL-terminated: @len bytes); without, they are only checked.
 */
static int unpack_regs(struct text_unpack *u, uint64_t *n,
		       int (*cb)(void *arg, int pid, const char *comm, size_t len),
		       void *arg)
{
	uint64_t i;
	int ret;

	*n = text_unpack_u64(u);
	/* each registration is at least a pid and a length */
	if (!text_pack_fits(u, *n, 8) || *n >= INT32_MAX - 1)
		return -EINVAL;
	for (i = 0; i < *n; i++) {
		int pid = (int)text_unpack_u32(u);
		uint32_t len = text_unpack_u32(u);
		const char *comm = (const char *)u->p;

		if (u->bad || len > u->left || memchr(comm, 0, len))
			return -EINVAL;
		u->p += len;
		u->left -= len;
		if (cb) {
			ret = cb(arg, pid, comm, len);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/**
 * text_overlay_check() - whether bytes are a saved model, and its size
 * @u: the bytes, read past the model's on success
 * @nreg: set to the count of registrations the model was made of (the
 *	most a position of its stream may see)
 *
 * Checks the layout only: whether the pids fit the array needs the comms
 * (text_overlay_load()).
 *
 * Return: 0 or -EINVAL.
 */
int text_overlay_check(struct text_unpack *u, size_t *nreg)
{
	uint64_t n1, n;
	uint32_t built;

	if (unpack_regs(u, &n1, NULL, NULL) < 0)
		return -EINVAL;
	built = text_unpack_u32(u);
	if (u->bad || built > 1 || unpack_regs(u, &n, NULL, NULL) < 0 ||
	    (!built && n))
		return -EINVAL;
	*nreg = n1 + n;
	return 0;
}

static int replay_list(void *arg, int pid, const char *comm, size_t len)
{
	return list_add(arg, pid, comm, len);
}

/* register_after() at the frontier, as the pid was first met there. */
static int replay_after(void *arg, int pid, const char *comm, size_t len)
{
	struct text_overlay *ov = arg;

	/* register_after() adds only a pid that is neither 0 nor known */
	if (!pid || tab_find(ov->tab, pid) >= 0 || ov_find(ov, pid) >= 0)
		return -EINVAL;
	if (dup_reserve(ov) < 0 || ov_add(ov, pid, comm, len) < 0)
		return -ENOMEM;
	dup_shift(ov, pid, ov->n1 + ov->n);
	return 0;
}

/**
 * text_overlay_load() - make a model again from its saved registrations
 * @ov: an empty model (text_overlay_new())
 * @t: the comms of the engine the model was saved from
 * @u: bytes text_overlay_save() wrote, read past the model
 *
 * Replays the registrations in their order as the stream met them, so
 * the model ends as the saved one was.
 *
 * Return: 0, -EINVAL for bytes that are not a model of these comms (a pid
 * added after the array that it could not add), -ENOMEM.  On an error
 * @ov holds part of the model: the caller frees it.
 */
int text_overlay_load(struct text_overlay *ov, const struct text_comms *t,
		      struct text_unpack *u)
{
	uint64_t n1, n;
	uint32_t built;
	int ret;

	if (ov->n1 || ov->built)
		return -EINVAL;
	ret = unpack_regs(u, &n1, replay_list, ov);
	if (ret < 0)
		return ret;
	built = text_unpack_u32(u);
	if (u->bad || built > 1)
		return -EINVAL;
	if (built) {
		ret = model_build(t, ov);
		if (ret < 0)
			return ret;
	}
	ret = unpack_regs(u, &n, built ? replay_after : NULL, ov);
	if (ret < 0)
		return ret;
	return !built && n ? -EINVAL : 0;
}

/**
 * text_comm_lookup() - the comm trace-cmd shows for a pid at a position
 * @t: the comms
 * @cc: the stream's model and the registrations visible here, or NULL
 *	for saved_cmdlines alone
 * @pid: pid
 *
 * find_cmdline(): "<idle>" for pid 0; else, the array made first if it
 * does not exist yet, the entry glibc's bsearch() finds in it, or
 * "<...>".
 *
 * Return: the comm, valid while the stream is, or NULL when out of
 * memory.
 * Context: the caller holds the stream lock (for @cc).
 */
const char *text_comm_lookup(const struct text_comms *t,
			     const struct text_comm_ctx *cc, int pid)
{
	struct text_overlay *ov;
	const char *c;
	long i;

	if (!pid)
		return "<idle>";
	if (!cc) {
		c = tab_comm(&t->stab, NULL, pid, 0);
		return c ? c : "<...>";
	}
	ov = cc->ov;
	if (!ov->built && model_build(t, ov) < 0)
		return NULL;
	c = tab_comm(ov->tab, ov->ds, pid, *cc->seen);
	if (c)
		return c;
	i = ov_find(ov, pid);
	if (i >= 0 && (size_t)i + ov->n1 < *cc->seen)
		return ov->comm[i];
	return "<...>";
}

/*
 * tep_register_comm() after the array exists (add_new_comm()): pid 0
 * and pids the array has are ignored, others inserted.  Only the
 * stream's frontier meets a pid first; behind it the addition is
 * already known and only counted.
 */
static int register_after(struct text_overlay *ov, size_t *seen, int pid,
			  const char *comm, size_t len)
{
	size_t vis = *seen - ov->n1;
	long i;

	if (!pid || tab_hot(ov->tab, pid)->kind != HOT_ABSENT)
		return 0;
	i = ov_find(ov, pid);
	if (i >= 0) {
		if ((size_t)i == vis)
			(*seen)++;
		return 0;
	}
	if (vis != ov->n)
		return 0;
	if (dup_reserve(ov) < 0 || ov_add(ov, pid, comm, len) < 0)
		return -ENOMEM;
	(*seen)++;
	dup_shift(ov, pid, *seen);
	return 0;
}

/*
 * What the plugin's write_and_save_comm() does: register the comm of
 * @pidf's pid, the field's text up to its size or a NUL.  Before the
 * array exists every registration goes to the list (known already
 * behind the frontier: only counted).  The pid is read as
 * tep_read_number_field() reads it; 1: it does not read (the plugin's
 * handler stops there).
 */
static int comm_register(const struct text_comms *t, struct text_comm_ctx *cc,
			 const struct comm_field *pidf,
			 const struct comm_field *commf,
			 const unsigned char *data)
{
	struct text_overlay *ov = cc->ov;
	const char *comm;
	int pid;

	if (!pidf->have || (pidf->size != 1 && pidf->size != 2 &&
			    pidf->size != 4 && pidf->size != 8))
		return 1;
	if (!commf->have)
		return 0;
	pid = (int)text_read_num(t->big_endian, data + pidf->offset, pidf->size);
	comm = (const char *)data + commf->offset;
	if (ov->built && *cc->seen >= ov->n1)
		return register_after(ov, cc->seen, pid, comm, commf->size);
	if (*cc->seen == ov->n1 && list_add(ov, pid, comm, commf->size) < 0)
		return -ENOMEM;
	(*cc->seen)++;
	return 0;
}

/* @name of @ev as tep_find_field() (or, @any, tep_find_any_field()) finds
 * it. */
static struct comm_field comm_field(struct tep_event *ev, const char *name,
				    bool any)
{
	struct tep_format_field *f = any ? tep_find_any_field(ev, name) :
				     tep_find_field(ev, name);
	struct comm_field cf = { false, 0, 0 };

	if (f && f->offset >= 0 && f->size >= 0) {
		cf.have = true;
		cf.offset = f->offset;
		cf.size = f->size;
	}
	return cf;
}

/**
 * text_comms_find_events() - the events whose handler registers comms
 * @t: comms
 * @tep: the handle, after the sched formats were parsed
 *
 * sched_switch, sched_wakeup and sched_wakeup_new, when a plugin handler
 * is attached to them.
 *
 * Context: at setup.
 */
void text_comms_find_events(struct text_comms *t, struct tep_handle *tep)
{
	struct tep_event *ev;

	t->big_endian = tep_is_file_bigendian(tep);
	t->sw_id = t->wk_id = t->wkn_id = -1;
	ev = tep_find_event_by_name(tep, "sched", "sched_switch");
	if (ev && ev->handler) {
		t->sw_id = ev->id;
		t->sw_ppid = comm_field(ev, "prev_pid", false);
		t->sw_pcomm = comm_field(ev, "prev_comm", true);
		t->sw_npid = comm_field(ev, "next_pid", false);
		t->sw_ncomm = comm_field(ev, "next_comm", true);
	}
	ev = tep_find_event_by_name(tep, "sched", "sched_wakeup");
	if (ev && ev->handler) {
		t->wk_id = ev->id;
		t->wk_pid = comm_field(ev, "pid", false);
		t->wk_comm = comm_field(ev, "comm", true);
	}
	ev = tep_find_event_by_name(tep, "sched", "sched_wakeup_new");
	if (ev && ev->handler) {
		t->wkn_id = ev->id;
		t->wkn_pid = comm_field(ev, "pid", false);
		t->wkn_comm = comm_field(ev, "comm", true);
	}
}

/**
 * text_comms_learn() - the comms the sched plugin registers for a record
 * @t: comms
 * @id: the record's event id
 * @cc: the stream's model and the registrations visible here, or NULL
 * @data: the record
 *
 * Return: 0 or -ENOMEM.
 * Context: the caller holds the stream lock; reads the fields copied at
 * setup only, so no tep lock is needed.
 */
int text_comms_learn(const struct text_comms *t, int id,
		     struct text_comm_ctx *cc, const unsigned char *data)
{
	int ret = 0;

	if (!cc)
		return 0;
	if (id == t->sw_id) {
		/* no next registration when prev_pid does not read */
		ret = comm_register(t, cc, &t->sw_ppid, &t->sw_pcomm, data);
		if (!ret)
			ret = comm_register(t, cc, &t->sw_npid, &t->sw_ncomm, data);
	} else if (id == t->wk_id) {
		ret = comm_register(t, cc, &t->wk_pid, &t->wk_comm, data);
	} else if (id == t->wkn_id) {
		ret = comm_register(t, cc, &t->wkn_pid, &t->wkn_comm, data);
	}
	return ret < 0 ? ret : 0;
}

/**
 * text_comms_learns() - whether records of an event register comms
 * @t: the comms
 * @id: event id
 *
 * Return: true for the events text_comms_learn() registers from.
 */
bool text_comms_learns(const struct text_comms *t, int id)
{
	return id >= 0 && (id == t->sw_id || id == t->wk_id || id == t->wkn_id);
}

/**
 * text_comms_new() - the comms of saved_cmdlines
 * @cmdlines: the blob's text, or NULL for none; changed (split in lines)
 *
 * Until text_comms_find_events() no event registers comms.
 *
 * Return: the comms (free with text_comms_free()), or NULL with errno set.
 */
struct text_comms *text_comms_new(char *cmdlines)
{
	struct text_comms *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sw_id = t->wk_id = t->wkn_id = -1;
	if ((cmdlines && build_saved(t, cmdlines) < 0) ||
	    tab_build(&t->stab, t, NULL, NULL, 0) < 0) {
		text_comms_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

/**
 * text_comms_free() - free the comms; NULL is fine
 * @t: comms
 */
void text_comms_free(struct text_comms *t)
{
	if (!t)
		return;
	tab_release(&t->stab);
	while (t->nsaved)
		free((char *)t->saved[--t->nsaved].comm);
	free(t->saved);
	free(t);
}
