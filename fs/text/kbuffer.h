/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/kbuffer.h - the events of one ring-buffer page, walked as
 * libtraceevent 1.7.1's kbuffer walks them, without its indirect calls.
 *
 * Invariants:
 *  - After text_kbuffer_load(), every call returns what the kbuffer call it
 *    is named after returns for the same page: the same payload
 *    pointer, timestamp, event size and missed-events count, also on a
 *    page that does not parse (the same offsets, the same arithmetic).
 *    The text engine prints from these, and trace-cmd reads pages with
 *    kbuffer, so a difference would be a different text.  One exception:
 *    where an event's length does not step on (back, or past the page's
 *    data) kbuffer walks forever or past the data; the walker stops
 *    there instead and says so (@stray, text_kbuffer_walks()).
 *  - The walker only reads: the page is the caller's, and, as with
 *    kbuffer, an event header may be read up to 8 bytes past the page's
 *    data, so the caller's buffer has slack after it.
 *  - The struct is a value: zeroed by text_kbuffer_init(), no memory of its
 *    own, nothing to free.
 */
#ifndef TDATFS_TEXT_KBUFFER_H
#define TDATFS_TEXT_KBUFFER_H

#include <stdbool.h>
#include <stdint.h>

struct text_kbuffer {
	const unsigned char *data;	/* the page's events (NULL: none loaded) */
	uint64_t timestamp;		/* of the current event */
	long long lost;			/* missed events the page says */
	unsigned int size;		/* bytes of events */
	unsigned int curr;		/* current event's header */
	unsigned int index;		/* its payload */
	unsigned int next;		/* the next event's header */
	bool big_endian;
	bool swap;			/* the file's byte order is not ours */
	bool long8;			/* the kernel's long is 8 bytes */
	bool old_format;		/* ring buffer of kernels before 2.6.31 */
	bool stray;			/* the walk ended at an event
					 * that does not step on */
};

void text_kbuffer_init(struct text_kbuffer *kb, bool long8, bool big_endian,
		       bool old_format);
void text_kbuffer_load(struct text_kbuffer *kb, const void *page);
void text_kbuffer_next(struct text_kbuffer *kb);
bool text_kbuffer_walks(const struct text_kbuffer *kb);

/**
 * text_kbuffer_read() - the current event (kbuffer_read_event())
 * @kb: walker, a page loaded
 * @ts: set to its timestamp
 *
 * Return: its payload, or NULL past the page's last event.
 */
static inline const void *text_kbuffer_read(const struct text_kbuffer *kb,
					    uint64_t *ts)
{
	if (!kb->data || kb->curr >= kb->size)
		return NULL;
	*ts = kb->timestamp;
	return kb->data + kb->index;
}

/**
 * text_kbuffer_event_size() - the current event's payload size
 *	(kbuffer_event_size())
 * @kb: walker
 *
 * Return: the size, negative where the header's length is (damage).
 */
static inline int text_kbuffer_event_size(const struct text_kbuffer *kb)
{
	return (int)(kb->next - kb->index);
}

/**
 * text_kbuffer_missed() - events lost before the current one
 *	(kbuffer_missed_events())
 * @kb: walker
 *
 * Return: the count the page stored, -1 for an unknown count, 0 but at
 * the page's first header; an int, as kbuffer's (the count cut to it).
 */
static inline int text_kbuffer_missed(const struct text_kbuffer *kb)
{
	return kb->curr ? 0 : (int)kb->lost;
}

#endif /* TDATFS_TEXT_KBUFFER_H */
