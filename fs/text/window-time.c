/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/window-time.c - the times a window's name is made of
 * (tdatfs-text.h, "views"): a record time printed as the buffer's trace
 * prints it, parsed back from a window's name, and a buffer's first and
 * last record times.  Parsing takes exactly what printing gives (seconds
 * with up to 9 digits of fraction for ns clocks, a bare count for a raw
 * counter clock), so every window name round-trips.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "tdatfs-text.h"
#include "engine.h"
#include "line.h"

int tdatfs_text_time_format(struct tdatfs_text *t, size_t buffer, uint64_t ts,
			    char *out, size_t len)
{
	const struct text_comms *cm;
	struct text_fmt *fmt;
	int ret;

	(void)buffer;
	if (!t || !out)
		return -EINVAL;
	ret = text_engine_fmt(t, &fmt, &cm);
	if (ret < 0)
		return ret;
	return text_fmt_time_put(fmt, ts, out, len);
}

/* Digits at *@s into *@v (at most @max of them, 0 for any): the count. */
static int digits(const char **s, uint64_t *v, int max)
{
	int n = 0;

	*v = 0;
	while (**s >= '0' && **s <= '9' && (!max || n < max)) {
		if (__builtin_mul_overflow(*v, 10, v) ||
		    __builtin_add_overflow(*v, (uint64_t)(**s - '0'), v))
			return -1;
		(*s)++;
		n++;
	}
	return n;
}

int tdatfs_text_time_parse(struct tdatfs_text *t, const char *s, const char **end,
			   uint64_t *time)
{
	const struct text_comms *cm;
	struct text_fmt *fmt;
	uint64_t sec, frac = 0;
	int ret, nf = 0;

	if (!t || !s || !time)
		return -EINVAL;
	ret = text_engine_fmt(t, &fmt, &cm);
	if (ret < 0)
		return ret;
	if (digits(&s, &sec, 0) <= 0)
		return -EINVAL;
	if (*s == '.') {
		s++;
		nf = digits(&s, &frac, 9);
		/* a raw count has no fraction; more than ns is not a time */
		if (nf <= 0 || !text_fmt_in_usecs(fmt) || (*s >= '0' && *s <= '9'))
			return -EINVAL;
	}
	if (*s && *s != '-')
		return -EINVAL;
	if (text_fmt_in_usecs(fmt)) {
		while (nf++ < 9)
			frac *= 10;
		if (__builtin_mul_overflow(sec, 1000000000ull, &sec) ||
		    __builtin_add_overflow(sec, frac, &sec))
			return -EINVAL;
	}
	*time = sec;
	if (end)
		*end = s;
	return 0;
}

int tdatfs_text_time_range(struct tdatfs_text *t, size_t buffer,
			   uint64_t *first, uint64_t *last)
{
	const struct tdatfs_text_event_stat *s;
	size_t i, n;
	int ret;

	ret = tdatfs_text_event_stats(t, buffer, &s, &n);
	if (ret < 0)
		return ret;
	if (!n)
		return -ENOENT;
	*first = s[0].first_ts;
	*last = s[0].last_ts;
	for (i = 1; i < n; i++) {
		if (s[i].first_ts < *first)
			*first = s[i].first_ts;
		if (s[i].last_ts > *last)
			*last = s[i].last_ts;
	}
	return 0;
}
