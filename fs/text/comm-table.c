/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/comm-table.c - the sorted comm array of libtraceevent's
 * cmdline_init() and glibc's bsearch() in it (invariants in
 * text/comm-table.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "comm-table.h"

/* a power of two: the pids a stretch of lines names, and more */
#define HOT_SLOTS	64

/* Arrays made so far in the process: each array's gen is its count. */
static _Atomic uint64_t tab_gens;

/* By pid, newest first: the list is built by prepending and glibc's
 * qsort() (a merge sort) keeps equal pids in list order. */
static int reg_cmp(const void *a, const void *b)
{
	const struct text_comm_reg *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/**
 * text_comm_table_release() - free what an array holds and zero it
 * @tb: array (made or zeroed)
 */
void text_comm_table_release(struct text_comm_table *tb)
{
	free(tb->pid);
	free(tb->comm);
	free(tb->dup);
	free(tb->dcomm);
	memset(tb, 0, sizeof(*tb));
}

/* Length of the run of @e[i]'s pid in sorted @e. */
static size_t run_len(const struct text_comm_reg *e, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && e[j].pid == e[i].pid)
		j++;
	return j - i;
}

/* Fill @tb from @n registrations sorted by reg_cmp(). */
static int tab_fill(struct text_comm_table *tb, const struct text_comm_reg *e,
		    size_t n)
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
		text_comm_table_release(tb);
		return -ENOMEM;
	}
	for (i = 0, k = 0, nd = 0, ndc = 0; i < n; i += r, k++) {
		struct text_comm_table_dup *du = &tb->dup[nd];

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

/**
 * text_comm_table_build() - the array cmdline_init() makes of a list
 * @tb: zeroed array to fill (free with text_comm_table_release())
 * @saved: saved_cmdlines, registered in file order
 * @nsaved: their count
 * @pid1: then @n1 registrations of a stream, pids ...
 * @comm1: ... and comms
 * @n1: their count
 *
 * Return: 0 or -ENOMEM (@tb left zeroed).
 */
int text_comm_table_build(struct text_comm_table *tb,
			  const struct text_comm_reg *saved, size_t nsaved,
			  const int *pid1, char *const *comm1, size_t n1)
{
	size_t i, n = nsaved + n1;
	struct text_comm_reg *e = malloc((n + 1) * sizeof(*e));
	int ret;

	if (!e)
		return -ENOMEM;
	if (nsaved)
		memcpy(e, saved, nsaved * sizeof(*e));
	for (i = 0; i < n1; i++) {
		e[nsaved + i].pid = pid1[i];
		e[nsaved + i].seq = nsaved + i;
		e[nsaved + i].comm = comm1[i];
	}
	qsort(e, n, sizeof(*e), reg_cmp);
	ret = tab_fill(tb, e, n);
	free(e);
	if (!ret)
		tb->gen = atomic_fetch_add(&tab_gens, 1) + 1;
	return ret;
}

/* The slot of @pid in @tb, or -1. */
static long tab_find(const struct text_comm_table *tb, int pid)
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

/* The run in @tb->dup of a pid held several times. */
static size_t dup_find(const struct text_comm_table *tb, int pid)
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

/**
 * text_comm_table_look() - what an array says of a pid
 * @tb: a made array
 * @pid: pid
 *
 * Through the calling thread's cache of the last array it looked in, by
 * pid modulo HOT_SLOTS: a lookup writes nothing that threads share.
 *
 * Return: the answer, valid until the thread's next call.
 */
const struct text_comm_table_hit *
text_comm_table_look(const struct text_comm_table *tb, int pid)
{
	static __thread struct {
		uint64_t gen;
		struct text_comm_table_hit slot[HOT_SLOTS];
	} hot;
	struct text_comm_table_hit *h;
	long i;

	if (hot.gen != tb->gen) {
		memset(hot.slot, 0, sizeof(hot.slot));
		hot.gen = tb->gen;
	}
	h = &hot.slot[(unsigned int)pid % HOT_SLOTS];
	if (h->kind != TEXT_CTAB_NONE && h->pid == pid)
		return h;
	i = tab_find(tb, pid);
	h->pid = pid;
	if (i < 0) {
		h->kind = TEXT_CTAB_ABSENT;
	} else if (tb->comm[i]) {
		h->kind = TEXT_CTAB_ONCE;
		h->comm = tb->comm[i];
	} else {
		h->kind = TEXT_CTAB_DUP;
		h->dup = dup_find(tb, pid);
	}
	return h;
}

/**
 * text_comm_table_pick() - which of a run of equal entries bsearch() returns
 * @below: entries before the run
 * @n: entries in it, at least 1
 * @above: entries after it
 *
 * glibc's bsearch() bisects [l, u) at (l + u) / 2 and stops at the first
 * probe that compares equal.
 *
 * Return: the index in the run.
 */
size_t text_comm_table_pick(size_t below, size_t n, size_t above)
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
