/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-line.c - the report line(s) of one record, exactly as
 * trace-cmd report (3.1.6) prints them, and the growing line buffer.
 *
 * The fixed part of a line ("%16s-%-5d [%03d] %5llu.%06llu: %s: " and the
 * padding of the name) is written here without printf; the info text of
 * an event compiled by tdatfs-text-fast.c is written without printf and
 * without the tep lock; every other event goes through libtraceevent.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text-int.h"

static int buf_grow(struct text_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (n > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/**
 * text_buf_reserve() - room for @n more bytes
 * @b: buffer
 * @n: bytes the caller will write at the returned pointer
 *
 * The caller writes at most @n bytes there and then sets @b->len.
 *
 * Return: b->p + b->len, or NULL when out of memory.
 */
char *text_buf_reserve(struct text_buf *b, size_t n)
{
	if (b->len + n + 1 > b->cap && buf_grow(b, n) < 0)
		return NULL;
	return b->p + b->len;
}

/**
 * text_buf_put() - append bytes
 * @b: buffer
 * @s: bytes
 * @n: count
 *
 * Return: 0 or -ENOMEM.
 */
int text_buf_put(struct text_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap && buf_grow(b, n) < 0)
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/**
 * text_buf_printf() - append formatted text, at most 255 bytes of it
 * @b: buffer
 * @fmt: printf format
 *
 * Return: 0, -EINVAL on a format error, or -ENOMEM.
 */
int text_buf_printf(struct text_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	return text_buf_put(b, tmp, n);
}

static bool field_fits(const struct tdatfs_text *t, const struct tep_format_field *fl,
		       const unsigned char *data, size_t n)
{
	uint64_t off, len;
	uint32_t v;

	if (fl->offset < 0 || fl->size < 0 || (uint64_t)fl->offset + fl->size > n)
		return false;
	if (!(fl->flags & TEP_FIELD_IS_DYNAMIC))
		return true;
	if (fl->size < 4)
		return false;
	v = tdat_get32(t->f, data + fl->offset);
	off = v & 0xffff;
	len = v >> 16;
	if (fl->flags & TEP_FIELD_IS_RELATIVE)
		off += fl->offset + fl->size;
	return off + len <= n;
}

/*
 * Whether every field of @ev lies inside the record.  Always true for
 * data the kernel wrote; a damaged record can make libtraceevent compute
 * a negative length (a flexible array past the end) and crash.
 */
static bool record_fits(const struct tdatfs_text *t, const struct tep_event *ev,
			const unsigned char *data, size_t n)
{
	const struct tep_format_field *fl;

	for (fl = ev->format.common_fields; fl; fl = fl->next)
		if (!field_fits(t, fl, data, n))
			return false;
	for (fl = ev->format.fields; fl; fl = fl->next)
		if (!field_fits(t, fl, data, n))
			return false;
	return true;
}

/* Decimal digits of @v at @o; returns the end. */
static char *put_u64(char *o, uint64_t v)
{
	char tmp[20];
	unsigned int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*o++ = tmp[--n];
	return o;
}

static unsigned int digits_u64(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static char *put_chars(char *o, char c, unsigned int n)
{
	memset(o, c, n);
	return o + n;
}

/* printf("%<width>llu") and printf("%0<width>llu") */
static char *put_u64_width(char *o, uint64_t v, unsigned int width, char pad)
{
	unsigned int nd = digits_u64(v);

	if (nd < width)
		o = put_chars(o, pad, width - nd);
	return put_u64(o, v);
}

/* printf("%-5d") */
static char *put_pid(char *o, int pid)
{
	uint64_t v = pid < 0 ? -(int64_t)pid : pid;
	unsigned int len = digits_u64(v) + (pid < 0);

	if (pid < 0)
		*o++ = '-';
	o = put_u64(o, v);
	return len < 5 ? put_chars(o, ' ', 5 - len) : o;
}

/* printf("%03d") */
static char *put_cpu(char *o, int cpu)
{
	uint64_t v = cpu < 0 ? -(int64_t)cpu : cpu;
	unsigned int len = digits_u64(v) + (cpu < 0);

	if (cpu < 0)
		*o++ = '-';
	if (len < 3)
		o = put_chars(o, '0', 3 - len);
	return put_u64(o, v);
}

/*
 * The fixed part, as trace-cmd's "%16s-%-5d [%03d]", " %6.1000d:" (or
 * "%12d:" for a clock not in nanoseconds) and " %s: " with the name
 * padded to 20.  libtraceevent 1.7.1 prints "%5llu.%06llu" only when the
 * time in microseconds is above 1000000, "%12llu" otherwise.
 */
static int put_header(const struct tdatfs_text *t, const struct text_comm_ctx *cc,
		      int pid, unsigned int cpu, uint64_t ts, const char *name,
		      size_t nlen, struct text_buf *out)
{
	const char *comm = text_comm_lookup(t, cc, pid);
	size_t clen = strlen(comm);
	char *o, *start;

	/* 16 + 1 + 11 + 2 + 11 + 1 + 2 * 20 + 2 + 2 + 20 */
	o = start = text_buf_reserve(out, clen + nlen + 128);
	if (!o)
		return -ENOMEM;
	if (clen < 16)
		o = put_chars(o, ' ', 16 - clen);
	memcpy(o, comm, clen);
	o += clen;
	*o++ = '-';
	o = put_pid(o, pid);
	*o++ = ' ';
	*o++ = '[';
	o = put_cpu(o, (int)cpu);
	*o++ = ']';
	if (!t->in_usecs) {
		o = put_u64_width(o, ts, 12, ' ');
	} else {
		/* libtraceevent rounds, wrapping as it does */
		uint64_t us = (ts + 500) / 1000;

		*o++ = ' ';
		if (us > 1000000) {
			o = put_u64_width(o, us / 1000000, 5, ' ');
			*o++ = '.';
			o = put_u64_width(o, us % 1000000, 6, '0');
		} else {
			o = put_u64_width(o, us, 12, ' ');
		}
	}
	*o++ = ':';
	*o++ = ' ';
	memcpy(o, name, nlen);
	o += nlen;
	*o++ = ':';
	*o++ = ' ';
	if (nlen < 20)
		o = put_chars(o, ' ', 20 - nlen);
	out->len += o - start;
	return 0;
}

/* Append a trace_seq's text: one trailing newline dropped, up to a NUL. */
static int put_seq(const struct trace_seq *s, struct text_buf *out)
{
	size_t len = s->buffer ? s->len : 0;

	if (len && s->buffer[len - 1] == '\n')
		len--;
	if (len)
		len = strnlen(s->buffer, len);
	return text_buf_put(out, s->buffer ? s->buffer : "", len);
}

static int damaged(const struct text_rec *r, struct text_buf *out)
{
	return text_buf_printf(out,
		"[tdatfs: CPU %u: record of %u bytes at offset %llu skipped: damaged data]\n",
		r->cpu, r->size, (unsigned long long)r->offset);
}

static void rec_init(struct tep_record *rec, const struct text_rec *r, size_t n,
		     void *data)
{
	memset(rec, 0, sizeof(*rec));
	rec->ts = r->ts;
	rec->cpu = r->cpu;
	rec->missed_events = r->missed;
	rec->size = n;
	rec->record_size = n;
	rec->ref_count = 1;
	rec->data = data;
}

/* The comms the sched plugin registers while printing this record. */
static int learn_comms(struct tdatfs_text *t, const struct tep_event *ev,
		       struct text_comm_ctx *cc, const unsigned char *data)
{
	int ret = 0;

	if (!cc)
		return 0;
	if (ev->id == t->sw_id) {
		ret = text_comm_register(t, cc, t->sw_ppid, t->sw_pcomm, data);
		if (!ret)
			ret = text_comm_register(t, cc, t->sw_npid, t->sw_ncomm, data);
	} else if (ev->id == t->wk_id) {
		ret = text_comm_register(t, cc, t->wk_pid, t->wk_comm, data);
	} else if (ev->id == t->wkn_id) {
		ret = text_comm_register(t, cc, t->wkn_pid, t->wkn_comm, data);
	}
	return ret;
}

/* The info text of a known event through libtraceevent. */
static int info_slow(struct tdatfs_text *t, const struct text_rec *r, size_t n,
		     struct tep_event *ev, struct text_comm_ctx *cc,
		     struct text_buf *out)
{
	struct trace_seq *s = &t->seq;
	struct tep_record rec;
	int ret;

	pthread_mutex_lock(&t->tep_lock);
	memcpy(t->scratch, r->data, n);
	rec_init(&rec, r, n, t->scratch);
	trace_seq_reset(s);
	tep_print_event(t->tep, s, &rec, "%s", TEP_PRINT_INFO);
	ret = learn_comms(t, ev, cc, t->scratch);
	memset(t->scratch, 0, n);
	if (!ret)
		ret = put_seq(s, out);
	pthread_mutex_unlock(&t->tep_lock);
	return ret;
}

/*
 * A record whose type could not be read here (too short) or whose id has
 * no format: all of it through libtraceevent, as trace-cmd does.
 */
static int format_slow(struct tdatfs_text *t, const struct text_rec *r, size_t n,
		       struct text_comm_ctx *cc, struct text_buf *out)
{
	struct trace_seq *s = &t->seq;
	struct tep_record rec;
	struct tep_event *ev;
	int ret;

	pthread_mutex_lock(&t->tep_lock);
	memcpy(t->scratch, r->data, n);
	rec_init(&rec, r, n, t->scratch);
	trace_seq_reset(s);
	ev = tep_find_event_by_record(t->tep, &rec);
	if (ev && !record_fits(t, ev, t->scratch, n)) {
		memset(t->scratch, 0, n);
		pthread_mutex_unlock(&t->tep_lock);
		return damaged(r, out);
	}
	if (ev) {
		/* the comm as this stream knows it, not as the handle does */
		ret = put_header(t, cc, tep_data_pid(t->tep, &rec), r->cpu,
				 r->ts, ev->name, strlen(ev->name), out);
		if (ret < 0)
			goto out;
	} else {
		tep_print_event(t->tep, s, &rec, "%16s-%-5d [%03d]", TEP_PRINT_COMM,
				TEP_PRINT_PID, TEP_PRINT_CPU);
		if (t->in_usecs)
			tep_print_event(t->tep, s, &rec, " %6.1000d:", TEP_PRINT_TIME);
		else
			tep_print_event(t->tep, s, &rec, "%12d:", TEP_PRINT_TIME);
		trace_seq_printf(s, " %s: %.*s", "(NULL)", 14, "                    ");
	}
	tep_print_event(t->tep, s, &rec, "%s", TEP_PRINT_INFO);
	ret = ev ? learn_comms(t, ev, cc, t->scratch) : 0;
	if (!ret)
		ret = put_seq(s, out);
out:
	memset(t->scratch, 0, n);
	pthread_mutex_unlock(&t->tep_lock);
	return ret;
}

/**
 * text_format_record() - append the report line(s) of one record
 * @t: engine (set up)
 * @r: the record
 * @cc: the stream's learned comms
 * @out: destination
 *
 * Same text as trace-cmd's trace_show_data() without options: the
 * dropped-events line, "%16s-%-5d [%03d]", the time, the event name
 * padded to 20, the info; one trailing newline dropped and one added.
 * As trace-cmd prints the sequence with "%.*s", text stops at a NUL.
 *
 * Return: 0 or -ENOMEM.
 * Context: the caller holds the stream lock; takes @t->tep_lock for
 * events that libtraceevent prints.
 */
int text_format_record(struct tdatfs_text *t, const struct text_rec *r,
		       struct text_comm_ctx *cc, struct text_buf *out)
{
	const unsigned char *data = r->data;
	const struct text_event *te = NULL;
	size_t n = r->size;
	int ret, pid;

	if (n > t->scratch_size - SCRATCH_SLACK)
		n = t->scratch_size - SCRATCH_SLACK;
	if (r->missed > 0)
		ret = text_buf_printf(out, "CPU:%d [%lld EVENTS DROPPED]\n",
				      (int)r->cpu, r->missed);
	else if (r->missed < 0)
		ret = text_buf_printf(out, "CPU:%d [EVENTS DROPPED]\n", (int)r->cpu);
	else
		ret = 0;
	if (ret < 0)
		return ret;

	/* looked up (so parsed) whenever libtraceevent can read the type */
	if (t->type_size && n >= t->type_off + t->type_size)
		te = text_event_find(t, (int)text_read_num(t, data + t->type_off,
							   t->type_size));
	if (!te || te->dup || !t->pid_size || n < t->pid_off + t->pid_size) {
		ret = format_slow(t, r, n, cc, out);
	} else if (!text_event_fits(t, te, data, n)) {
		return damaged(r, out);
	} else {
		pid = (int)text_read_num(t, data + t->pid_off, t->pid_size);
		ret = put_header(t, cc, pid, r->cpu, r->ts, te->name, te->name_len,
				 out);
		if (ret < 0)
			return ret;
		if (te->fast)
			ret = text_fast_info(t, te, data, n, out);
		else
			ret = info_slow(t, r, n, te->ev, cc, out);
	}
	if (!ret)
		ret = text_buf_put(out, "\n", 1);
	return ret;
}
