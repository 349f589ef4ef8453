/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-kbuffer.c - the page walk of fs/text/kbuffer.h against
 * libtraceevent's kbuffer, which trace-cmd reads pages with: on pages
 * built here event by event (data of every length encoding, padding,
 * time extends, absolute time stamps, missed events stored and not) and
 * on pages of random bytes, in both byte orders, with 4- and 8-byte
 * longs and in the old format.  At every step both give the same
 * payload offset, timestamp, event size and missed-events count, and
 * they reach the page's end together; except on a page where an event's
 * length steps back, nowhere or past the page's data, which kbuffer walks
 * for ever or past the data: there text_kbuffer_walks() is false and the
 * walker ends.  Built pages never are such a page; pages with an event
 * turned into such lengths always are.
 *
 * Usage: test-kbuf
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/kbuffer.h>

#include "check.h"
#include "text/kbuffer.h"

#define PAGE		4096
#define SLACK		64
#define NPAGES		3000
#define MAXSTEPS	(PAGE / 4 + 8)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* A page being written in one layout. */
struct page {
	unsigned char b[PAGE + SLACK];
	unsigned int len;		/* bytes of events so far */
	bool be, long8;
};

static void put(struct page *pg, unsigned int at, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		pg->b[at + i] = pg->be ? v >> (8 * (n - 1 - i)) : v >> (8 * i);
}

static unsigned int hdr(const struct page *pg)
{
	return pg->long8 ? 16 : 12;
}

/* An event header: type_len and delta packed as the byte order packs them. */
static bool put_head(struct page *pg, unsigned int type_len, uint32_t delta,
		     unsigned int more)
{
	unsigned int at = hdr(pg) + pg->len;
	uint32_t w;

	if (at + 4 + more > PAGE)
		return false;
	delta &= (1u << 27) - 1;
	w = pg->be ? (type_len << 27) | delta : (delta << 5) | type_len;
	put(pg, at, w, 4);
	pg->len += 4;
	return true;
}

/* One random event of the current format. */
static bool put_event(struct page *pg)
{
	unsigned int at, n, k = rnd() % 10;
	uint32_t delta = rnd() % 4 ? rnd() % 5000 : rnd();

	switch (k) {
	case 0:		/* time extend */
	case 1:		/* absolute time stamp */
		if (!put_head(pg, k ? 31 : 30, delta, 4))
			return false;
		put(pg, hdr(pg) + pg->len, rnd(), 4);
		pg->len += 4;
		return true;
	case 2:		/* padding with its length */
		n = 4 * (rnd() % 8);
		if (!put_head(pg, 29, delta, 4 + n))
			return false;
		put(pg, hdr(pg) + pg->len, n + 4, 4);
		pg->len += 4 + n;
		return true;
	case 3:		/* a long event: its length in a word */
		n = 1 + rnd() % 300;
		if (!put_head(pg, 0, delta, 4 + ((n + 3) & ~3u)))
			return false;
		put(pg, hdr(pg) + pg->len, n + 4, 4);
		pg->len += 4;
		break;
	default:	/* length in the type: 4 to 112 bytes */
		n = 4 * (1 + rnd() % 28);
		if (!put_head(pg, n / 4, delta, n))
			return false;
		break;
	}
	at = hdr(pg) + pg->len;
	n = (n + 3) & ~3u;
	while (n--)
		pg->b[at++] = rnd();
	pg->len = at - hdr(pg);
	return true;
}

/* A page of events, its commit word saying how it ends. */
static void build(struct page *pg, bool be, bool long8)
{
	unsigned int lsz = long8 ? 8 : 4, nev = rnd() % 200;
	uint64_t commit, missed = rnd() % 4;

	memset(pg, 0, sizeof(*pg));
	pg->be = be;
	pg->long8 = long8;
	put(pg, 0, ((uint64_t)rnd() << 32) | rnd(), 8);
	while (nev-- && put_event(pg))
		;
	commit = pg->len;
	if (missed == 1)
		commit |= 1ull << 31;
	if (missed == 2 && hdr(pg) + pg->len + lsz <= PAGE) {
		commit |= 3ull << 30;
		put(pg, hdr(pg) + pg->len, rnd() % 100000, lsz);
	}
	put(pg, 8, commit, lsz);
}

/* Random bytes: the same answers for what does not parse. */
static void garbage(struct page *pg, bool be, bool long8)
{
	unsigned int i;

	memset(pg, 0, sizeof(*pg));
	pg->be = be;
	pg->long8 = long8;
	for (i = 0; i < PAGE; i++)
		pg->b[i] = rnd();
	/*
	 * Half the pages without a word with its top bit set: a negative
	 * length steps back, and those pages are never compared.
	 */
	if (rnd() % 2)
		for (i = 0; i < PAGE; i += 4)
			pg->b[i + (be ? 0 : 3)] &= 0x7f;
	/* a size inside the page, or the walk would read far past it */
	put(pg, 8, (rnd() % (PAGE - hdr(pg))) | (rnd() & (3u << 30)),
	    long8 ? 8 : 4);
}

static int steps_checked, strays, steps_back;

/* Whether the walker ends on @pg (within MAXSTEPS events): it must. */
static bool walker_ends(struct text_kbuffer *tk)
{
	unsigned int n;
	uint64_t ts;

	for (n = 0; n < MAXSTEPS && text_kbuffer_read(tk, &ts); n++)
		text_kbuffer_next(tk);
	return n < MAXSTEPS;
}

/*
 * Walk @pg with both, comparing every step; a page that does not walk
 * (kbuffer might go round for ever) only with ours, which must end.
 * Return: whether the page walks.
 */
static bool compare(struct page *pg, bool old)
{
	struct kbuffer *kb = kbuffer_alloc(pg->long8 ? KBUFFER_LSIZE_8 :
					   KBUFFER_LSIZE_4,
					   pg->be ? KBUFFER_ENDIAN_BIG :
					   KBUFFER_ENDIAN_LITTLE);
	struct text_kbuffer tk;
	unsigned int n;

	FATAL(kb);
	if (old)
		kbuffer_set_old_format(kb);
	text_kbuffer_init(&tk, pg->long8, pg->be, old);
	text_kbuffer_load(&tk, pg->b);
	if (!text_kbuffer_walks(&tk)) {
		CHECK(walker_ends(&tk));
		strays++;
		kbuffer_free(kb);
		return false;
	}
	kbuffer_load_subbuffer(kb, pg->b);
	for (n = 0; n < MAXSTEPS; n++) {
		unsigned long long ts = 0;
		uint64_t ts2 = 0;
		void *d = kbuffer_read_event(kb, &ts);
		const void *d2 = text_kbuffer_read(&tk, &ts2);

		CHECK(d == d2);
		if (d != d2 || !d)
			break;
		CHECK(ts == ts2);
		CHECK(kbuffer_event_size(kb) == text_kbuffer_event_size(&tk));
		CHECK(kbuffer_missed_events(kb) == text_kbuffer_missed(&tk));
		steps_checked++;
		kbuffer_next_event(kb, NULL);
		text_kbuffer_next(&tk);
	}
	kbuffer_free(kb);
	return true;
}

static uint32_t get4(const struct page *pg, unsigned int at)
{
	uint32_t v = 0;
	unsigned int i;

	for (i = 0; i < 4; i++)
		v |= (uint32_t)pg->b[at + i] << (pg->be ? 8 * (3 - i) : 8 * i);
	return v;
}

/* The bytes of the built event at @at, header included. */
static unsigned int event_len(const struct page *pg, unsigned int at)
{
	uint32_t w = get4(pg, at);
	unsigned int t = pg->be ? w >> 27 : w & 31;

	if (t == 29)
		return 4 + get4(pg, at + 4);
	if (t >= 30)
		return 8;
	if (t == 0)
		return 8 + ((get4(pg, at + 4) - 4 + 3) & ~3u);
	return 4 + 4 * t;
}

/*
 * A built page whose first data event of 20 bytes or more is changed to
 * a header of @type and @word after it (for type 2: a 12-byte event
 * followed by padding of length @word, which goes back to it): the page
 * walks no more, and the walker ends.
 */
static void step_back(struct page *pg, unsigned int type, uint32_t word)
{
	unsigned int at = hdr(pg), end = hdr(pg) + pg->len, t;

	for (; at < end; at += event_len(pg, at)) {
		t = pg->be ? get4(pg, at) >> 27 : get4(pg, at) & 31;
		if (t && t < 29 && 4 + 4 * t >= 20)
			break;
	}
	if (at >= end)
		return;
	pg->len = at - hdr(pg);	/* where put_head() writes */
	if (type == 2) {
		put_head(pg, 2, 1, 8);
		pg->len += 8;
		type = 29;
	}
	put_head(pg, type, 1, 4);
	put(pg, hdr(pg) + pg->len, word, 4);
	CHECK(!compare(pg, false));
	steps_back++;
}

int main(void)
{
	static struct page pg;
	int i, layout;

	for (i = 0; i < NPAGES; i++) {
		for (layout = 0; layout < 4; layout++) {
			bool be = layout & 1, long8 = layout & 2;

			build(&pg, be, long8);
			CHECK(compare(&pg, false));
			compare(&pg, true);
			if (i % 10 == 0) {
				static const uint32_t back[][2] = {
					{ 29, 0xfffffffc }, { 2, 0xfffffff0 },
					{ 0, 0 }, { 0, 0xfffffff8 },
					{ 29, 0x7ffffff0 }, { 0, 0x7ffffff0 },
				};
				struct page copy = pg;

				for (size_t k = 0; k < 6; k++) {
					pg = copy;
					step_back(&pg, back[k][0], back[k][1]);
				}
			}
			garbage(&pg, be, long8);
			compare(&pg, false);
			compare(&pg, true);
		}
	}
	printf("test-kbuf: %d steps compared, %d pages not walked "
	       "(%d changed to step back), %d failures\n",
	       steps_checked, strays, steps_back, failures);
	/* most built pages hold an event of 20 bytes to change */
	CHECK(steps_back > NPAGES / 10 * 6 / 2);
	/*
	 * The walks went somewhere: most built pages hold events (about 40
	 * on average; random pages mostly do not walk).
	 */
	CHECK(steps_checked > NPAGES * 4 * 30);
	return failures ? 1 : 0;
}
