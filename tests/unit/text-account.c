/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-account.c - the account of a stream's text (fs/text/account.h)
 * on made-up steps: stretches and totals as counted, thinning merging
 * stretches 2k and 2k + 1, an account joined from two parts equal to
 * the one counted in a row at every point, a save and load round trip,
 * and every truncation and every flipped byte of the saved bytes either
 * refused or loading an account that is consistent with itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"
#include "check.h"
#include "text/account.h"
#include "text/pack.h"

/* Five stretches: event 7 in 0, 1, 4; event 3 in 1, 3; nothing in 2. */
static struct text_account *made(void)
{
	struct text_account *a = text_account_new();
	uint64_t nrec = 0;

	FATAL(a);
	CHECK(text_account_open(a, nrec) == 0);
	CHECK(text_account_step(a, 7, 100, 101, 10) == 0);
	CHECK(text_account_step(a, 7, 110, 111, 12) == 0);
	nrec += 2;
	CHECK(text_account_open(a, nrec) == 0);
	CHECK(text_account_step(a, 3, 120, 121, 5) == 0);
	CHECK(text_account_step(a, -1, 90, 91, 8) == 0); /* type not read */
	CHECK(text_account_step(a, 7, 130, 131, 11) == 0);
	nrec += 3;
	CHECK(text_account_open(a, nrec) == 0);
	CHECK(text_account_step(a, INT_MIN, 0, 0, 40) == 0); /* markers only */
	CHECK(text_account_open(a, nrec) == 0);
	CHECK(text_account_step(a, 3, 200, 201, 6) == 0);
	nrec += 1;
	CHECK(text_account_open(a, nrec) == 0);
	CHECK(text_account_step(a, 7, 300, 301, 13) == 0);
	nrec += 1;
	text_account_finish(a, nrec);
	return a;
}

static void test_counts(void)
{
	struct text_account *a = made();
	const struct text_account_total *tot;
	const struct text_account_ev *e;
	uint64_t lo, hi;
	size_t n;

	CHECK(text_account_stretches(a) == 5);
	CHECK(text_account_nrec(a, 0) == 0 && text_account_nrec(a, 1) == 2 &&
	      text_account_nrec(a, 3) == 5 && text_account_nrec(a, 5) == 7);
	CHECK(text_account_times(a, 1, &lo, &hi) && lo == 90 && hi == 130);
	CHECK(!text_account_times(a, 2, &lo, &hi));
	e = text_account_find(a, 1, 3);
	CHECK(e && e->records == 1 && e->bytes == 5);
	CHECK(!text_account_find(a, 2, 7) && !text_account_find(a, 0, 3));
	tot = text_account_totals(a, &n);
	CHECK(n == 2);
	CHECK(tot[0].id == 3 && tot[0].records == 2 && tot[0].bytes == 11 &&
	      tot[0].first_ts == 121 && tot[0].last_ts == 201);
	CHECK(tot[1].id == 7 && tot[1].records == 4 && tot[1].bytes == 46 &&
	      tot[1].first_ts == 101 && tot[1].last_ts == 301);

	/* 0+1, 2+3, 4 */
	CHECK(text_account_thin(a) == 0);
	CHECK(text_account_stretches(a) == 3);
	CHECK(text_account_nrec(a, 1) == 5 && text_account_nrec(a, 2) == 6);
	e = text_account_find(a, 0, 7);
	CHECK(e && e->records == 3 && e->bytes == 33);
	e = text_account_find(a, 1, 3);
	CHECK(e && e->records == 1 && e->bytes == 6);
	CHECK(!text_account_find(a, 1, 7));
	CHECK(text_account_times(a, 0, &lo, &hi) && lo == 90 && hi == 130);
	CHECK(text_account_times(a, 1, &lo, &hi) && lo == 200 && hi == 200);
	tot = text_account_totals(a, &n);
	CHECK(n == 2 && tot[1].records == 4);
	text_account_free(a);
	text_account_free(NULL);
}

/* Whether @a's totals are the sums of its stretches' entries. */
static bool consistent(const struct text_account *a)
{
	const struct text_account_total *tot;
	size_t n, i, k;

	tot = text_account_totals(a, &n);
	for (i = 0; i < n; i++) {
		uint64_t r = 0;

		for (k = 0; k < text_account_stretches(a); k++) {
			const struct text_account_ev *e =
				text_account_find(a, k, tot[i].id);

			r += e ? e->records : 0;
		}
		if (r != tot[i].records)
			return false;
	}
	return true;
}

/*
 * Steps of a text: an id (0 opens a stretch; INT_MIN a step of markers
 * alone) with its key, time and bytes.  Stretches share ids on both
 * sides of each step, so a join's first stretch merges entries met on
 * both sides, on one side alone, and none.
 */
static const struct { int id; uint64_t key, len; } script[] = {
	{ 0, 0, 0 }, { 7, 100, 10 }, { 3, 105, 4 }, { 9, 108, 2 },
	{ 7, 110, 12 }, { 0, 0, 0 }, { 3, 120, 5 }, { -1, 90, 8 },
	{ 5, 125, 3 }, { 7, 130, 11 }, { 0, 0, 0 }, { INT_MIN, 0, 40 },
	{ 0, 0, 0 }, { 3, 200, 6 }, { 11, 205, 1 }, { 1, 206, 9 },
	{ 0, 0, 0 }, { 7, 300, 13 }, { 9, 310, 7 }, { 3, 320, 2 },
};
#define NSCRIPT (sizeof(script) / sizeof(script[0]))

/*
 * The account of script[i0, i1), its records counted from 0; a part that
 * starts inside a stretch opens one of its own at 0 first.
 */
static struct text_account *scripted(size_t i0, size_t i1)
{
	struct text_account *a = text_account_new();
	uint64_t nrec = 0;
	size_t i;

	FATAL(a);
	if (script[i0].id)
		CHECK(text_account_open(a, 0) == 0);
	for (i = i0; i < i1; i++) {
		if (!script[i].id) {
			CHECK(text_account_open(a, nrec) == 0);
			continue;
		}
		CHECK(text_account_step(a, script[i].id, script[i].key,
					script[i].key + 1, script[i].len) == 0);
		nrec += script[i].id != INT_MIN;
	}
	text_account_finish(a, nrec);
	return a;
}

/* Whether @x and @y count alike, stretch by stretch and in total. */
static bool same_account(const struct text_account *x,
			 const struct text_account *y)
{
	const struct text_account_total *tx, *ty;
	size_t k, nx, ny;
	int id;

	if (text_account_stretches(x) != text_account_stretches(y))
		return false;
	for (k = 0; k <= text_account_stretches(x); k++) {
		uint64_t lx, hx, ly, hy;
		bool bx, by;

		if (text_account_nrec(x, k) != text_account_nrec(y, k))
			return false;
		if (k == text_account_stretches(x))
			break;
		bx = text_account_times(x, k, &lx, &hx);
		by = text_account_times(y, k, &ly, &hy);
		if (bx != by || (bx && (lx != ly || hx != hy)))
			return false;
		for (id = -1; id < 12; id++) {
			const struct text_account_ev *ex = text_account_find(x, k, id);
			const struct text_account_ev *ey = text_account_find(y, k, id);

			if (!ex != !ey || (ex && (ex->records != ey->records ||
						  ex->bytes != ey->bytes)))
				return false;
		}
	}
	tx = text_account_totals(x, &nx);
	ty = text_account_totals(y, &ny);
	if (nx != ny)
		return false;
	for (k = 0; k < nx; k++)
		if (tx[k].id != ty[k].id || tx[k].records != ty[k].records ||
		    tx[k].bytes != ty[k].bytes ||
		    tx[k].first_ts != ty[k].first_ts ||
		    tx[k].last_ts != ty[k].last_ts)
			return false;
	return true;
}

/*
 * Split before every step that opens no stretch (a part's start is never
 * a checkpoint of the text: its stretch 0 runs on in the first part's
 * last): joined, the account in a row.
 */
static void test_join(void)
{
	struct text_account *whole = scripted(0, NSCRIPT);
	size_t i;

	for (i = 1; i < NSCRIPT; i++) {
		struct text_account *a, *b;

		if (!script[i].id)
			continue;
		a = scripted(0, i);
		b = scripted(i, NSCRIPT);

		CHECK(text_account_join(a, b) == 0);
		if (!same_account(a, whole))
			fprintf(stderr, "join before step %zu differs\n", i);
		CHECK(same_account(a, whole));
		CHECK(consistent(a));
		text_account_free(a);
		text_account_free(b);
	}
	text_account_free(whole);
}

static void test_save_load(void)
{
	struct text_account *a = made(), *b;
	struct tdatfs_buf s = { 0 }, s2 = { 0 };
	struct text_unpack u;
	size_t i, len, refused = 0;

	CHECK(text_account_save(a, &s) == 0);
	b = text_account_new();
	u = (struct text_unpack){ .p = (const unsigned char *)s.p, .left = s.len };
	CHECK(text_account_load(b, &u, 5) == 0 && !u.left);
	CHECK(text_account_save(b, &s2) == 0);
	CHECK(s2.len == s.len && !memcmp(s.p, s2.p, s.len));
	text_account_free(b);

	/* for another checkpoint count */
	b = text_account_new();
	u = (struct text_unpack){ .p = (const unsigned char *)s.p, .left = s.len };
	CHECK(text_account_load(b, &u, 4) == -EINVAL);
	text_account_free(b);

	/* the check takes what the load takes, and as many bytes */
	u = (struct text_unpack){ .p = (const unsigned char *)s.p, .left = s.len };
	CHECK(text_account_check(&u, 5) == 0 && !u.left);
	u = (struct text_unpack){ .p = (const unsigned char *)s.p, .left = s.len };
	CHECK(text_account_check(&u, 4) == -EINVAL);

	for (len = 0; len < s.len; len++) {
		b = text_account_new();
		u = (struct text_unpack){ .p = (const unsigned char *)s.p, .left = len };
		CHECK(text_account_load(b, &u, 5) == -EINVAL);
		u = (struct text_unpack){ .p = (const unsigned char *)s.p, .left = len };
		CHECK(text_account_check(&u, 5) == -EINVAL);
		text_account_free(b);
	}
	for (i = 0; i < s.len * 8; i++) {
		size_t left;
		int r, rc;

		s.p[i / 8] ^= 1 << (i % 8);
		b = text_account_new();
		u = (struct text_unpack){ .p = (const unsigned char *)s.p, .left = s.len };
		r = text_account_load(b, &u, 5);
		CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
		left = u.left;
		u = (struct text_unpack){ .p = (const unsigned char *)s.p, .left = s.len };
		rc = text_account_check(&u, 5);
		CHECK(rc == r && (r || u.left == left));
		/* what loads is an account, if not the one saved */
		if (r == 0)
			CHECK(consistent(b));
		refused += r != 0;
		text_account_free(b);
		s.p[i / 8] ^= 1 << (i % 8);
	}
	/* the counts, sums and order refuse most single flips */
	CHECK(refused > s.len * 8 / 2);
	tdatfs_buf_release(&s);
	tdatfs_buf_release(&s2);
	text_account_free(a);
}

int main(void)
{
	test_counts();
	test_join();
	test_save_load();
	return failures ? 1 : 0;
}
