/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/fields-row.c - one record as a row of fields.tsv: the head
 * columns without printf, the fields as libtraceevent's raw printing
 * makes them (what `trace-cmd report -R` shows): made without it
 * (text/fields-raw.c) for the events the fast path understands, else
 * cut from libtraceevent's own printing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tdatfs-common.h"
#include "bytes.h"
#include "comm.h"
#include "decimal.h"
#include "event-table.h"
#include "fields-row.h"
#include "line.h"
#include "source.h"
#include "tep.h"

/* Append @n bytes with tab, newline and backslash escaped. */
static int put_escaped(struct tdatfs_buf *out, const char *s, size_t n)
{
	char *o = tdatfs_buf_reserve(out, 2 * n), *start = o;
	size_t i;

	if (!o)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\t' || c == '\n' || c == '\\') {
			*o++ = '\\';
			*o++ = c == '\t' ? 't' : c == '\n' ? 'n' : '\\';
		} else {
			*o++ = c;
		}
	}
	out->len += o - start;
	return 0;
}

static int put_char(struct tdatfs_buf *out, char c)
{
	return tdatfs_buf_put(out, &c, 1);
}

/* printf("%llu") */
static int put_u64(struct tdatfs_buf *out, uint64_t v)
{
	unsigned int nd = text_dec_digits(v);
	char *o = tdatfs_buf_reserve(out, nd);

	if (!o)
		return -ENOMEM;
	text_dec_put(o, v, nd);
	out->len += nd;
	return 0;
}

/* printf("%d") */
static int put_int(struct tdatfs_buf *out, int v)
{
	int ret = 0;

	if (v < 0)
		ret = put_char(out, '-');
	return ret ? ret : put_u64(out, v < 0 ? -(int64_t)v : v);
}

/*
 * The time as `trace-cmd report -t` prints it, without the padding:
 * libtraceevent's "%9.1d" time ("%5llu.%09llu" of the time in
 * nanoseconds) on a clock in nanoseconds, "%12llu" of the count else.
 */
static int put_time(struct tdatfs_buf *out, uint64_t ts, bool in_usecs)
{
	int ret;

	if (!in_usecs)
		return put_u64(out, ts);
	ret = put_u64(out, ts / 1000000000);
	if (!ret)
		ret = put_char(out, '.');
	if (!ret) {
		char *o = tdatfs_buf_reserve(out, 9);

		if (!o)
			return -ENOMEM;
		text_dec_put(o, ts % 1000000000, 9);
		out->len += 9;
	}
	return ret;
}

/* "TIME\tCPU\tCOMM\tPID" */
static int put_head(const struct text_fmt_share *sh, const struct text_rec *r,
		    const char *comm, int pid, struct tdatfs_buf *out)
{
	int ret = put_time(out, r->ts, sh->in_usecs);

	if (!ret)
		ret = put_char(out, '\t');
	if (!ret)
		ret = put_u64(out, r->cpu);
	if (!ret)
		ret = put_char(out, '\t');
	if (!ret)
		ret = put_escaped(out, comm, strlen(comm));
	if (!ret)
		ret = put_char(out, '\t');
	if (!ret)
		ret = put_int(out, pid);
	return ret;
}

/*
 * Where the values of a record go: fields.tsv's columns (@ends NULL), or
 * the raw values one after the other, field i's ending at @ends[i].
 */
struct sink {
	struct tdatfs_buf *out;
	size_t *ends;
	size_t i;
	bool stop;		/* a NUL was met: the values after are empty */
};

/*
 * Append one value: after a NUL nothing more is shown (trace-cmd prints
 * the -R text with "%.*s"), and the last field loses one trailing newline.
 * A column is a tab and the value escaped; a raw value is its bytes.
 */
static int put_value(struct sink *k, const char *v, size_t len, bool last)
{
	size_t n;
	int ret = k->ends ? 0 : put_char(k->out, '\t');

	if (!ret && !k->stop) {
		n = text_fields_value_len(v, len, last, &k->stop);
		ret = k->ends ? tdatfs_buf_put(k->out, v, n) :
				put_escaped(k->out, v, n);
	}
	if (!ret && k->ends)
		k->ends[k->i++] = k->out->len;
	return ret;
}

/* tep_print_field_content() of one field into @s, from the start of @s,
 * with the string flag of its format. */
static int print_one(struct trace_seq *s, void *data, size_t n,
		     struct tep_format_field *f)
{
	text_tep_field_restore_string(f);
	trace_seq_reset(s);
	tep_print_field_content(s, data, n, f);
	return s->state == TRACE_SEQ__GOOD ? 0 : -ENOMEM;
}

/* Whether @s at @pos starts with " NAME=". */
static bool name_at(const struct trace_seq *s, size_t pos, const char *name,
		    size_t nlen)
{
	return pos + nlen + 2 <= s->len && s->buffer[pos] == ' ' &&
	       !memcmp(s->buffer + pos + 1, name, nlen) &&
	       s->buffer[pos + 1 + nlen] == '=';
}

/*
 * Where the value of @f that starts at @pos in the -R text @all ends.
 * An array's value is what it prints on its own (its text cannot depend
 * on the fields before it, and may hold anything); any other value ends
 * at the next field's " NAME=".
 */
static int value_end(const struct text_fmt_share *sh, struct trace_seq *one,
		     const struct trace_seq *all, size_t pos, size_t n,
		     struct tep_format_field *f, size_t *end)
{
	size_t nlen, i;
	int ret;

	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		ret = print_one(one, sh->scratch, n, f);
		if (ret)
			return ret;
		if (pos + one->len <= all->len &&
		    !memcmp(all->buffer + pos, one->buffer, one->len) &&
		    (!f->next || pos + one->len == all->len ||
		     all->buffer[pos + one->len] == ' ')) {
			*end = pos + one->len;
			return 0;
		}
	}
	*end = all->len;
	if (!f->next)
		return 0;
	nlen = strlen(f->next->name);
	for (i = pos; i < all->len; i++) {
		if (name_at(all, i, f->next->name, nlen)) {
			*end = i;
			break;
		}
	}
	return 0;
}

/*
 * The values of a record: tep_print_fields() (what -R prints), cut at
 * the field names.  It looks each field up in the print format's pieces
 * from the piece after the previous field's, so a field may print apart
 * from its place there (raw, once the last piece was used): the values
 * depend on the order and cannot be printed one by one.
 */
static int values_cut(const struct text_fmt_share *sh, struct tep_event *ev,
		      size_t n, struct sink *out)
{
	struct trace_seq *all = sh->seq, one;
	unsigned long some[32], *flags = some;
	struct tep_format_field *f;
	size_t nf = 0, i, pos = 0;
	int ret = 0;

	for (f = ev->format.fields; f; f = f->next)
		nf++;
	if (nf > sizeof(some) / sizeof(some[0]))
		flags = calloc(nf, sizeof(*flags));
	if (!flags)
		return -ENOMEM;
	for (f = ev->format.fields, i = 0; f; f = f->next, i++) {
		flags[i] = f->flags;
		text_tep_field_restore_string(f);
	}
	trace_seq_reset(all);
	tep_print_fields(all, sh->scratch, n, ev);
	trace_seq_init(&one);
	if (all->state != TRACE_SEQ__GOOD)
		ret = -ENOMEM;
	for (f = ev->format.fields; f && !ret; f = f->next) {
		size_t nlen = strlen(f->name), end = pos;

		if (name_at(all, pos, f->name, nlen)) {
			pos += nlen + 2;
			ret = value_end(sh, &one, all, pos, n, f, &end);
		}
		if (!ret)
			ret = put_value(out, all->buffer + pos, end - pos,
					!f->next);
		pos = end;
	}
	trace_seq_destroy(&one);
	for (f = ev->format.fields, i = 0; f; f = f->next, i++)
		f->flags = flags[i];
	if (flags != some)
		free(flags);
	return ret;
}

static int sink_put(void *ctx, const char *v, size_t len, bool last)
{
	return put_value(ctx, v, len, last);
}

/*
 * The values of a record without libtraceevent's printing
 * (text_fields_fast_values()); 1 (nothing appended) when the event or
 * the record is not for the fast path: what was put is taken back.
 */
static int fast_values(const struct text_fmt_share *sh,
		       const struct tep_event *ev, size_t n, struct sink *out)
{
	size_t before = out->out->len;
	int ret = text_fields_fast_values(sh, ev, n, sink_put, out);

	if (ret) {
		out->out->len = before;
		out->i = 0;
		out->stop = false;
	}
	return ret;
}

/*
 * The field values of a record, under the tep lock, and the comms the
 * record registers (none without @cc).  text_format_record() registers
 * them for every record it prints through libtraceevent; the events that
 * register any (the sched events with a plugin handler) are never
 * compiled, so that is every record of theirs.
 */
static int put_values(const struct text_fmt_share *sh,
		      const struct text_event_desc *te,
		      const struct text_rec *r, size_t n,
		      struct text_comm_ctx *cc, struct sink *out)
{
	size_t copy;
	int ret;

	text_tep_lock(sh->tt);
	copy = text_fields_copy_size(sh, text_fields_copy_need(te->ev),
				     r, n);
	memcpy(sh->scratch, r->data, copy);
	ret = text_events_tep_only(sh->evs) ? 1 : fast_values(sh, te->ev, n, out);
	if (ret == 1)
		ret = values_cut(sh, te->ev, n, out);
	if (!ret)
		ret = text_tep_take_error(sh->tt);
	if (!ret && cc)
		ret = text_comms_learn(sh->cm, te->ev->id, cc, sh->scratch);
	memset(sh->scratch, 0, copy);
	text_tep_unlock(sh->tt);
	return ret;
}

/**
 * text_fields_header() - the header row of an event's fields.tsv
 * @fm: formatter
 * @id: event id
 * @out: destination; "time\tcpu\tcomm\tpid", a tab and the name of each
 *	of the event's own fields, "\n" are appended
 *
 * Return: 0, -ENOENT for an id without a format, or -ENOMEM.
 * Context: takes the tep lock.
 */
int text_fields_header(struct text_fmt *fm, int id, struct tdatfs_buf *out)
{
	static const char head[] = "time\tcpu\tcomm\tpid";
	const struct text_event_desc *te = NULL;
	const struct tep_format_field *f;
	struct text_fmt_share sh;
	size_t before = out->len;
	int ret;

	text_fmt_share(fm, &sh);
	ret = text_event_lookup(sh.evs, id, &te);
	if (ret < 0)
		return ret;
	if (!te)
		return -ENOENT;
	ret = tdatfs_buf_put(out, head, sizeof(head) - 1);
	text_tep_lock(sh.tt);
	for (f = te->ev->format.fields; f && !ret; f = f->next) {
		ret = put_char(out, '\t');
		if (!ret)
			ret = put_escaped(out, f->name, strlen(f->name));
	}
	text_tep_unlock(sh.tt);
	if (!ret)
		ret = put_char(out, '\n');
	if (ret)
		out->len = before;
	return ret;
}

/*
 * The preamble of a row: @fm's shared state into @sh, the bytes of @r
 * that may be read into @n, its event into @te and its pid into @pid.
 * Return: 0, 1 when the record does not parse (its type, pid or fields
 * are not inside it), or a negative errno.
 */
static int row_start(struct text_fmt *fm, const struct text_rec *r,
		     struct text_fmt_share *sh, size_t *n,
		     const struct text_event_desc **te, int *pid)
{
	int ret, id;

	text_fmt_share(fm, sh);
	*n = r->size < sh->max_rec ? r->size : sh->max_rec;
	*te = NULL;
	if (!text_record_type(sh->evs, r->data, *n, &id))
		return 1;
	ret = text_event_lookup(sh->evs, id, te);
	if (ret < 0)
		return ret;
	if (!*te || !text_record_pid(sh->evs, r->data, *n, pid) ||
	    !text_event_fits(sh->evs, *te, r->data, *n))
		return 1;
	return 0;
}

/**
 * text_fields_row() - append the fields.tsv row of one record
 * @fm: formatter
 * @r: the record
 * @cc: the stream's learned comms
 * @out: destination; the row and its "\n" are appended
 *
 * Return: 0, 1 when the record does not parse (its type, pid or fields
 * are not inside it; nothing is appended and the caller skips it), or
 * -ENOMEM (nothing appended).
 * Context: the caller holds the stream lock; takes the tep lock.
 */
int text_fields_row(struct text_fmt *fm, const struct text_rec *r,
		    struct text_comm_ctx *cc, struct tdatfs_buf *out)
{
	const struct text_event_desc *te = NULL;
	struct text_fmt_share sh;
	size_t n, before = out->len;
	struct sink k = { .out = out };
	const char *comm;
	int ret, pid;

	ret = row_start(fm, r, &sh, &n, &te, &pid);
	if (ret)
		return ret;
	comm = text_comm_lookup(sh.cm, cc, pid);
	if (!comm)
		return -ENOMEM;
	ret = put_head(&sh, r, comm, pid, out);
	if (!ret)
		ret = put_values(&sh, te, r, n, cc, &k);
	if (!ret)
		ret = put_char(out, '\n');
	if (ret)
		out->len = before;
	return ret;
}

/**
 * text_fields_raw() - the -R values of a record's fields, unescaped
 * @fm: formatter
 * @r: the record
 * @out: destination; the values are appended one after the other
 * @ends: set to where each field's value ends in @out, in format order
 * @nends: room in @ends: at least the number of the event's own fields
 *
 * The values are fields.tsv's columns before their escaping (the same
 * rules: what follows a NUL is empty, the last loses one trailing
 * newline), made without the comm model (nothing is learned).
 *
 * Return: 0, 1 when the record does not parse (nothing appended), -ENOSPC
 * when @nends is short, or -ENOMEM (nothing appended).
 * Context: takes the tep lock.
 */
int text_fields_raw(struct text_fmt *fm, const struct text_rec *r,
		    struct tdatfs_buf *out, size_t *ends, size_t nends)
{
	const struct text_event_desc *te = NULL;
	struct text_fmt_share sh;
	size_t n, before = out->len, nf = 0;
	struct sink k = { .out = out, .ends = ends };
	const struct tep_format_field *f;
	int ret, pid;

	ret = row_start(fm, r, &sh, &n, &te, &pid);
	if (ret)
		return ret;
	text_tep_lock(sh.tt);
	for (f = te->ev->format.fields; f; f = f->next)
		nf++;
	text_tep_unlock(sh.tt);
	if (nf > nends)
		return -ENOSPC;
	ret = put_values(&sh, te, r, n, NULL, &k);
	if (ret)
		out->len = before;
	return ret;
}
