/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-view.c - views of a buffer's text (SPEC 2.6): one event's
 * lines or fields, a time window.  Placeholder until the view streams
 * land: every view is -ENOSYS.
 */
#include <errno.h>

#include "tdatfs-text.h"

int tdatfs_text_event_stats(struct tdatfs_text *t, size_t buffer,
			    const struct tdatfs_text_event_stat **stats,
			    size_t *n)
{
	(void)t;
	(void)buffer;
	*stats = NULL;
	*n = 0;
	return -ENOSYS;
}

ssize_t tdatfs_text_view_read(struct tdatfs_text *t,
			      const struct tdatfs_text_view *v, char *buf,
			      size_t len, uint64_t off)
{
	(void)t;
	(void)v;
	(void)buf;
	(void)len;
	(void)off;
	return -ENOSYS;
}

int tdatfs_text_view_size(struct tdatfs_text *t, const struct tdatfs_text_view *v,
			  uint64_t *size)
{
	(void)t;
	(void)v;
	*size = 0;
	return -ENOSYS;
}

int tdatfs_text_time_format(struct tdatfs_text *t, size_t buffer, uint64_t ts,
			    char *out, size_t len)
{
	(void)t;
	(void)buffer;
	(void)ts;
	(void)out;
	(void)len;
	return -ENOSYS;
}

int tdatfs_text_time_parse(struct tdatfs_text *t, const char *s, const char **end,
			   uint64_t *time)
{
	(void)t;
	(void)s;
	(void)end;
	(void)time;
	return -ENOSYS;
}

int tdatfs_text_time_range(struct tdatfs_text *t, size_t buffer,
			   uint64_t *first, uint64_t *last)
{
	(void)t;
	(void)buffer;
	(void)first;
	(void)last;
	return -ENOSYS;
}
