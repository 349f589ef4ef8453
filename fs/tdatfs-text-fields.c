/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-fields.c - one record as a row of fields.tsv: the head
 * columns without printf, the fields through libtraceevent's own raw
 * printing (what `trace-cmd report -R` shows).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tdatfs-text-buf.h"
#include "tdatfs-text-comm.h"
#include "tdatfs-text-dec.h"
#include "tdatfs-text-event.h"
#include "tdatfs-text-fields.h"
#include "tdatfs-text-line.h"
#include "tdatfs-text-source.h"
#include "tdatfs-text-tep.h"

/* Append @n bytes with tab, newline and backslash escaped. */
static int put_escaped(struct text_buf *out, const char *s, size_t n)
{
	char *o = text_buf_reserve(out, 2 * n), *start = o;
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

static int put_char(struct text_buf *out, char c)
{
	return text_buf_put(out, &c, 1);
}

/* printf("%llu") */
static int put_u64(struct text_buf *out, uint64_t v)
{
	unsigned int nd = text_dec_digits(v);
	char *o = text_buf_reserve(out, nd);

	if (!o)
		return -ENOMEM;
	text_dec_put(o, v, nd);
	out->len += nd;
	return 0;
}

/* printf("%d") */
static int put_int(struct text_buf *out, int v)
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
static int put_time(struct text_buf *out, uint64_t ts, bool in_usecs)
{
	int ret;

	if (!in_usecs)
		return put_u64(out, ts);
	ret = put_u64(out, ts / 1000000000);
	if (!ret)
		ret = put_char(out, '.');
	if (!ret) {
		char *o = text_buf_reserve(out, 9);

		if (!o)
			return -ENOMEM;
		text_dec_put(o, ts % 1000000000, 9);
		out->len += 9;
	}
	return ret;
}

/* "TIME\tCPU\tCOMM\tPID" */
static int put_head(const struct text_fmt_share *sh, const struct text_rec *r,
		    const char *comm, int pid, struct text_buf *out)
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
 * The string flag libtraceevent 1.7.1 gives a field when it parses its
 * format (event_read_fields(): field_is_string(), and the old two-byte
 * __data_loc strings).
 */
static bool parsed_string(const struct tep_format_field *f)
{
	if ((f->flags & TEP_FIELD_IS_ARRAY) &&
	    (strstr(f->type, "char") || strstr(f->type, "u8") ||
	     strstr(f->type, "s8")))
		return true;
	return (f->flags & TEP_FIELD_IS_DYNAMIC) && f->size == 2;
}

static void set_parsed_string(struct tep_format_field *f)
{
	if (parsed_string(f))
		f->flags |= TEP_FIELD_IS_STRING;
}

/*
 * Append one value as a column: after a NUL nothing more is shown
 * (*stop), and the last field loses one trailing newline.
 */
static int put_value(struct text_buf *out, const char *v, size_t len,
		     bool last, bool *stop)
{
	size_t n;
	int ret = put_char(out, '\t');

	if (ret || *stop)
		return ret;
	if (last && len && v[len - 1] == '\n')
		len--;
	n = strnlen(v, len);
	if (n < len)
		*stop = true;
	return put_escaped(out, v, n);
}

/* tep_print_field_content() of one field into @s, from the start of @s,
 * with the string flag of its format. */
static int print_one(struct trace_seq *s, void *data, size_t n,
		     struct tep_format_field *f)
{
	set_parsed_string(f);
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
		      size_t n, struct text_buf *out)
{
	struct trace_seq *all = sh->seq, one;
	unsigned long some[32], *flags = some;
	struct tep_format_field *f;
	size_t nf = 0, i, pos = 0;
	bool stop = false;
	int ret = 0;

	for (f = ev->format.fields; f; f = f->next)
		nf++;
	if (nf > sizeof(some) / sizeof(some[0]))
		flags = calloc(nf, sizeof(*flags));
	if (!flags)
		return -ENOMEM;
	for (f = ev->format.fields, i = 0; f; f = f->next, i++) {
		flags[i] = f->flags;
		set_parsed_string(f);
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
					!f->next, &stop);
		pos = end;
	}
	trace_seq_destroy(&one);
	for (f = ev->format.fields, i = 0; f; f = f->next, i++)
		f->flags = flags[i];
	if (flags != some)
		free(flags);
	return ret;
}

/*
 * The field columns of a record, under the tep lock, and the comms the
 * record registers.  text_format_record() registers them for every
 * record it prints through libtraceevent; the events that register any
 * (the sched events with a plugin handler) are never compiled, so that
 * is every record of theirs.
 */
static int put_values(const struct text_fmt_share *sh,
		      const struct text_event_desc *te,
		      const struct text_rec *r, size_t n,
		      struct text_comm_ctx *cc, struct text_buf *out)
{
	size_t copy = r->avail > n ? r->avail : n;
	int ret;

	if (copy > sh->max_rec)
		copy = sh->max_rec;
	text_tep_lock(sh->tt);
	memcpy(sh->scratch, r->data, copy);
	ret = values_cut(sh, te->ev, n, out);
	if (!ret)
		ret = text_tep_take_error(sh->tt);
	if (!ret)
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
int text_fields_header(struct text_fmt *fm, int id, struct text_buf *out)
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
	ret = text_buf_put(out, head, sizeof(head) - 1);
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
		    struct text_comm_ctx *cc, struct text_buf *out)
{
	const struct text_event_desc *te = NULL;
	struct text_fmt_share sh;
	size_t n = r->size, before = out->len;
	const char *comm;
	int ret, id, pid;

	text_fmt_share(fm, &sh);
	if (n > sh.max_rec)
		n = sh.max_rec;
	if (!text_record_type(sh.evs, r->data, n, &id))
		return 1;
	ret = text_event_lookup(sh.evs, id, &te);
	if (ret < 0)
		return ret;
	if (!te || !text_record_pid(sh.evs, r->data, n, &pid) ||
	    !text_event_fits(sh.evs, te, r->data, n))
		return 1;
	comm = text_comm_lookup(sh.cm, cc, pid);
	if (!comm)
		return -ENOMEM;
	ret = put_head(&sh, r, comm, pid, out);
	if (!ret)
		ret = put_values(&sh, te, r, n, cc, out);
	if (!ret)
		ret = put_char(out, '\n');
	if (ret)
		out->len = before;
	return ret;
}
