/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/kbuffer.c - walking a ring-buffer page's events as kbuffer
 * does (text/kbuffer.h).  The layout is the kernel's: a page header
 * of a timestamp and a commit word (a kernel long), then events, each a
 * 32-bit header of a 5-bit type_len and a 27-bit time delta, the
 * bitfields' order following the byte order.
 */
#include <string.h>

#include "kbuffer.h"

#define COMMIT_MASK	((1u << 27) - 1)
#define MISSING_EVENTS	(1ull << 31)
#define MISSING_STORED	(1ull << 30)
#define TS_SHIFT	27
/* an absolute time stamp lacks the top 5 bits: they are the page's */
#define TS_MSB		(0xf8ull << 56)

enum {
	TYPE_PADDING = 29,
	TYPE_TIME_EXTEND = 30,
	TYPE_TIME_STAMP = 31,
};

/* The types of the old format's 2-bit field. */
enum {
	OLD_PADDING,
	OLD_TIME_EXTEND,
	OLD_TIME_STAMP,
};

static unsigned int read_4(const struct text_kbuffer *kb,
			   const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return kb->swap ? __builtin_bswap32(v) : v;
}

static uint64_t read_8(const struct text_kbuffer *kb, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return kb->swap ? __builtin_bswap64(v) : v;
}

static uint64_t read_long(const struct text_kbuffer *kb, const unsigned char *p)
{
	return kb->long8 ? read_8(kb, p) : read_4(kb, p);
}

/**
 * text_kbuffer_init() - a walker for pages of one layout (kbuffer_alloc())
 * @kb: walker
 * @long8: the kernel's long is 8 bytes
 * @big_endian: the file's byte order
 * @old_format: the ring buffer of kernels before 2.6.31
 *	(kbuffer_set_old_format())
 */
void text_kbuffer_init(struct text_kbuffer *kb, bool long8, bool big_endian,
		       bool old_format)
{
	memset(kb, 0, sizeof(*kb));
	kb->long8 = long8;
	kb->big_endian = big_endian;
	kb->swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	kb->old_format = old_format;
}

/*
 * translate_data() and update_pointers() of kbuffer: the event whose
 * header is at kb->curr.  Return: its type_len.
 */
static unsigned int update(struct text_kbuffer *kb)
{
	const unsigned char *p = kb->data + kb->curr;
	unsigned int tlts = read_4(kb, p), type_len;
	uint64_t delta, extend, msb = 0;
	int length;

	p += 4;
	type_len = kb->big_endian ? tlts >> 27 : tlts & 31;
	delta = kb->big_endian ? tlts & COMMIT_MASK : tlts >> 5;
	switch (type_len) {
	case TYPE_PADDING:
		length = (int)read_4(kb, p);
		break;
	case TYPE_TIME_STAMP:
		msb = kb->timestamp & TS_MSB;
		/* fall through */
	case TYPE_TIME_EXTEND:
		extend = read_4(kb, p);
		p += 4;
		delta = ((extend << TS_SHIFT) + delta) | msb;
		length = 0;
		break;
	case 0:
		/* kbuffer's int arithmetic, in unsigned: no overflow */
		length = (int)((read_4(kb, p) - 4u + 3u) & ~3u);
		p += 4;
		break;
	default:
		length = type_len * 4;
		break;
	}
	if (type_len == TYPE_TIME_STAMP)
		kb->timestamp = delta;
	else
		kb->timestamp += delta;
	kb->index = p - kb->data;
	kb->next = kb->index + length;
	return type_len;
}

/* old_update_pointers() of kbuffer.  Return: the event's type, -1 for a
 * time stamp (which that format never has). */
static int old_update(struct text_kbuffer *kb)
{
	const unsigned char *p = kb->data + kb->curr;
	unsigned int tlts = read_4(kb, p), type, len, length;
	unsigned int delta;
	uint64_t extend;

	p += 4;
	type = kb->big_endian ? (tlts >> 29) & 3 : tlts & 3;
	len = kb->big_endian ? (tlts >> 27) & 7 : (tlts >> 2) & 7;
	delta = kb->big_endian ? tlts & COMMIT_MASK : tlts >> 5;
	switch (type) {
	case OLD_PADDING:
		kb->next = kb->size;
		return 0;
	case OLD_TIME_EXTEND:
		extend = read_4(kb, p);
		extend <<= TS_SHIFT;
		extend += delta;
		delta = extend;		/* cut to 32 bits, as kbuffer does */
		p += 4;
		length = 0;
		break;
	case OLD_TIME_STAMP:
		kb->curr = kb->size;
		kb->next = kb->size;
		kb->index = kb->size;
		return -1;
	default:
		if (len) {
			length = len * 4;
		} else {
			length = read_4(kb, p) - 4;
			p += 4;
		}
		break;
	}
	kb->timestamp += delta;
	kb->index = p - kb->data;
	kb->next = kb->index + length;
	return type;
}

/*
 * Whether the event at kb->curr ends where a next one can start: past its
 * header and its payload's start, within the page's data.  kbuffer stops
 * only at next >= size, so a length word that steps back (a padding
 * length of 0xfffffffc, a type_len 0 length under 4) makes it walk the
 * same events forever; one that runs past the data makes it read bytes
 * no event holds.  Neither is written by a kernel.
 */
static bool steps_on(const struct text_kbuffer *kb)
{
	return kb->next > kb->curr && kb->next >= kb->index &&
	       kb->next <= kb->size;
}

/* next_event() of kbuffer: on to the next data event.  Return: 0, or -1
 * past the last one, or at an event that does not step on (kb->stray set,
 * the walk ends there). */
static int next_event(struct text_kbuffer *kb)
{
	int type;

	for (;;) {
		kb->curr = kb->next;
		if (kb->next >= kb->size)
			return -1;
		if (kb->old_format) {
			type = old_update(kb);
			/* -1, a time stamp: the walk ended, as kbuffer's */
			if (type >= 0 && !steps_on(kb))
				break;
			if (type != OLD_TIME_EXTEND && type != OLD_PADDING)
				return 0;
		} else {
			type = update(kb);
			if (!steps_on(kb))
				break;
			if (type < TYPE_PADDING)
				return 0;
		}
	}
	kb->stray = true;
	kb->curr = kb->size;
	kb->next = kb->size;
	return -1;
}

/**
 * text_kbuffer_load() - start on a page (kbuffer_load_subbuffer())
 * @kb: walker
 * @page: the page, with slack after it (see the invariants)
 *
 * The current event is the page's first.
 */
void text_kbuffer_load(struct text_kbuffer *kb, const void *page)
{
	const unsigned char *p = page;
	uint64_t flags;

	kb->timestamp = read_8(kb, p);
	kb->curr = 0;
	kb->data = p + (kb->long8 ? 16 : 12);
	flags = read_long(kb, p + 8);
	kb->size = (unsigned int)flags & COMMIT_MASK;
	if (flags & MISSING_EVENTS)
		kb->lost = flags & MISSING_STORED ?
			   (long long)read_long(kb, kb->data + kb->size) : -1;
	else
		kb->lost = 0;
	kb->index = 0;
	kb->next = 0;
	kb->stray = false;
	next_event(kb);
}

/**
 * text_kbuffer_next() - on to the next event (kbuffer_next_event())
 * @kb: walker, a page loaded
 */
void text_kbuffer_next(struct text_kbuffer *kb)
{
	if (kb->data)
		next_event(kb);
}

/*
 * text_kbuffer_walks() of the current format, from the lengths alone: the
 * walk of next_event() and update() without the timestamps, which no
 * check reads.  Every page is walked twice (this check, then the
 * records), so the check is kept to the few loads it needs.
 */
static bool walks_lengths(const struct text_kbuffer *kb)
{
	unsigned int size = kb->size, curr = kb->curr, next = kb->next;

	while (curr < size) {
		unsigned int tlts, type_len, index, length;

		curr = next;
		if (next >= size)
			break;
		tlts = read_4(kb, kb->data + curr);
		type_len = kb->big_endian ? tlts >> 27 : tlts & 31;
		index = curr + 4;
		switch (type_len) {
		case TYPE_PADDING:
			length = read_4(kb, kb->data + index);
			break;
		case TYPE_TIME_STAMP:
		case TYPE_TIME_EXTEND:
			index += 4;
			length = 0;
			break;
		case 0:
			length = (read_4(kb, kb->data + index) - 4u + 3u) & ~3u;
			index += 4;
			break;
		default:
			length = type_len * 4;
			break;
		}
		next = index + length;
		/* steps_on() */
		if (!(next > curr && next >= index && next <= size))
			return false;
	}
	return true;
}

/**
 * text_kbuffer_walks() - whether every event of the loaded page steps on
 * @kb: walker, a page just loaded (not moved on)
 *
 * Walks a copy of @kb over the page's events; @kb is not changed.  A page
 * where this is false is one kbuffer would walk forever, or past the
 * page's data: its events are not to be read.
 *
 * Return: true when the walk from the first event reaches the end of the
 * data, each event ending past its own header and start and within it.
 */
bool text_kbuffer_walks(const struct text_kbuffer *kb)
{
	struct text_kbuffer w = *kb;

	if (!w.data)
		return true;
	if (!w.old_format && !w.stray)
		return walks_lengths(kb);
	while (!w.stray && w.curr < w.size)
		next_event(&w);
	return !w.stray;
}
