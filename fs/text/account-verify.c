/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/account-verify.c - whether bytes are an account, without
 * loading it.
 *
 * The index's states are checked whole before any is taken, and most are
 * taken only later, by the first read of their text (text/engine.c).
 * Loading an account to check it allocated its stretch, entry and total
 * tables and freed them: on big.dat half of a remount's state checks.
 * This walks the same bytes in place and refuses exactly what
 * text_account_load() refuses (tests/unit/test-text-acct.c holds the two
 * to each other over every truncation and every single bit flip).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "pack.h"

#define STRETCH_BYTES	32	/* nrec, kmin, kmax, nev */
#define EV_BYTES	20	/* id, records, bytes */
#define TOT_BYTES	36	/* id, records, bytes, first_ts, last_ts */
/* Totals' ids up to this are found through a table, others by search. */
#define ID_TABLE_MAX	65536

/* A total as the check keeps it: what the entries must add up to. */
struct chk_total {
	int id;
	uint64_t records, bytes;
	uint64_t sum_records, sum_bytes;
};

/* The totals, each sorted and not empty, read into @t (@n of them). */
static int read_totals(struct text_unpack *u, struct chk_total *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		t[i].id = (int)text_unpack_u32(u);
		t[i].records = text_unpack_u64(u);
		t[i].bytes = text_unpack_u64(u);
		text_unpack_u64(u);	/* first_ts */
		text_unpack_u64(u);	/* last_ts */
		if (u->bad || t[i].id < 0 || !t[i].records ||
		    (i && t[i].id <= t[i - 1].id))
			return -EINVAL;
	}
	return 0;
}

static int total_cmp(const void *key, const void *elem)
{
	int id = *(const int *)key, tid = ((const struct chk_total *)elem)->id;

	return (id > tid) - (id < tid);
}

/* Where event @id's total is, or NULL; @map: ids to totals, or NULL. */
static struct chk_total *total_of(struct chk_total *t, size_t n,
				  const int32_t *map, int id)
{
	if (map)
		return id <= t[n - 1].id && map[id] >= 0 ? &t[map[id]] : NULL;
	return n ? bsearch(&id, t, n, sizeof(*t), total_cmp) : NULL;
}

/*
 * Stretch after stretch (@st) with its entries (@ev): records in order,
 * entries sorted within each, each of an event with a total, added up.
 */
static int walk(struct text_unpack *st, struct text_unpack *ev, uint64_t n,
		uint64_t end, uint64_t nev, struct chk_total *t, size_t ntot,
		const int32_t *map)
{
	uint64_t k, i, first = 0, prev = 0;

	for (k = 0; k < n; k++) {
		uint64_t nrec = text_unpack_u64(st), cnt;
		int last = -1;

		text_unpack_u64(st);	/* kmin */
		text_unpack_u64(st);	/* kmax */
		cnt = text_unpack_u64(st);
		if (st->bad || nrec < prev || nrec > end || (k == 0 && nrec) ||
		    cnt > nev - first)
			return -EINVAL;
		first += cnt;
		prev = nrec;
		for (i = 0; i < cnt; i++) {
			int id = (int)text_unpack_u32(ev);
			uint64_t records = text_unpack_u64(ev);
			uint64_t bytes = text_unpack_u64(ev);
			struct chk_total *to = id < 0 ? NULL : total_of(t, ntot, map, id);

			if (!to || !records || (i && id <= last) ||
			    __builtin_add_overflow(to->sum_records, records, &to->sum_records) ||
			    __builtin_add_overflow(to->sum_bytes, bytes, &to->sum_bytes))
				return -EINVAL;
			last = id;
		}
	}
	return first == nev ? 0 : -EINVAL;
}

/* The ids of @t (sorted, the last the largest) to their places. */
static int32_t *id_table(const struct chk_total *t, size_t n)
{
	int32_t *map;
	size_t i;

	if (!n || t[n - 1].id >= ID_TABLE_MAX)
		return NULL;
	map = malloc(((size_t)t[n - 1].id + 1) * sizeof(*map));
	if (!map)
		return NULL;	/* searched instead */
	memset(map, 0xff, ((size_t)t[n - 1].id + 1) * sizeof(*map));
	for (i = 0; i < n; i++)
		map[t[i].id] = (int32_t)i;
	return map;
}

/**
 * text_account_check() - whether bytes are an account text_account_load() takes
 * @u: the bytes, untrusted; on success advanced past the account
 * @nckpt: the checkpoint count of the stream it is for
 *
 * Allocates only the totals (in proportion to the bytes, as the load).
 *
 * Return: 0, -EINVAL for bytes text_account_load() refuses, -ENOMEM.
 */
int text_account_check(struct text_unpack *u, size_t nckpt)
{
	uint64_t n = text_unpack_u64(u), end = text_unpack_u64(u);
	uint64_t nev = text_unpack_u64(u), ntot = text_unpack_u64(u);
	struct text_unpack st, ev, tot;
	struct chk_total *t;
	int32_t *map;
	size_t skip, j;
	int ret;

	if (u->bad || n != nckpt || !text_pack_fits(u, n, STRETCH_BYTES) ||
	    !text_pack_fits(u, nev, EV_BYTES) || !text_pack_fits(u, ntot, TOT_BYTES) ||
	    ntot > nev)
		return -EINVAL;
	/* Each fits alone; the load runs out of bytes when all do not. */
	skip = (size_t)(n * STRETCH_BYTES + nev * EV_BYTES + ntot * TOT_BYTES);
	if (skip > u->left)
		return -EINVAL;
	st = *u;
	ev = (struct text_unpack){ .p = u->p + n * STRETCH_BYTES,
				   .left = (size_t)(nev * EV_BYTES) };
	tot = (struct text_unpack){ .p = ev.p + nev * EV_BYTES,
				    .left = (size_t)(ntot * TOT_BYTES) };
	t = calloc(ntot + 1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	ret = read_totals(&tot, t, (size_t)ntot);
	map = ret ? NULL : id_table(t, (size_t)ntot);
	if (!ret)
		ret = walk(&st, &ev, n, end, nev, t, (size_t)ntot, map);
	for (j = 0; !ret && j < ntot; j++)
		if (t[j].sum_records != t[j].records || t[j].sum_bytes != t[j].bytes)
			ret = -EINVAL;
	free(map);
	free(t);
	if (!ret) {
		u->p += skip;
		u->left -= skip;
	}
	return ret;
}
