/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/fields-row.c - one record as a row of fields.tsv: the head
 * columns without printf, the fields as libtraceevent's raw printing
 * makes them (what `trace-cmd report -R` shows): made here for the
 * events the fast path understands, else by libtraceevent itself.
 */
#include <ctype.h>
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
		if (last && len && v[len - 1] == '\n')
			len--;
		n = strnlen(v, len);
		if (n < len)
			k->stop = true;
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

/*
 * The fast path: the same values as libtraceevent's print_field() (the
 * -R text) made here, for the events whose fields are numbers printed
 * raw or by a plain integer conversion of the print format ("%d",
 * "%03u", "0x%lx", ...), and arrays.  Anything else (a pointer or string
 * conversion of a number, a cast, a field named twice, "%*", precision,
 * '#') leaves the record to libtraceevent.
 */
#define FAST_MAX	64	/* pieces of a print format, fields */

/* An integer conversion "%[-][0][width]{hh,h,l,ll,L,z}{d,i,u,x,X}". */
struct conv {
	bool simple;		/* one this code prints */
	bool minus;
	bool zero;
	unsigned int width;
	int ls;			/* libtraceevent's length: -2 .. 2 */
	char conv;
};

/* A piece of a print format, as libtraceevent 1.7.1's parse_args() cuts
 * it: literal text, or a conversion and its argument. */
struct piece {
	bool arg;
	bool odd;		/* a conversion libtraceevent makes ">%c<" */
	bool ends_0x;		/* text ending in "0x" */
	bool cast;		/* the argument is a cast of a field */
	const struct tep_format_field *field;	/* the argument's field */
	struct conv c;
};

/* How one field prints. */
struct fplan {
	bool array;
	bool by_conv;		/* by its conversion, else raw */
	bool has_0x;
	struct conv c;
};

/* parse_arg_string(): text up to a conversion, "\\x" and "%%" undone. */
static const char *parse_text(const char *p, struct piece *pc, bool *ok)
{
	char a = 0, b = 0;

	pc->arg = false;
	for (; *p; p++) {
		char c = *p;

		if (c == '\\') {
			if (!*++p) {
				*ok = false;
				return p;
			}
			c = *p == 'n' ? '\n' : *p == 't' ? '\t' :
			    *p == 'r' ? '\r' : *p;
		} else if (c == '%') {
			if (p[1] != '%')
				break;
			p++;
		}
		a = b;
		b = c;
	}
	pc->ends_0x = a == '0' && b == 'x';
	return p;
}

static void set_arg(struct piece *pc, const struct tep_print_arg *a,
		    const struct conv *c)
{
	pc->arg = true;
	pc->c = *c;
	pc->cast = false;
	pc->field = NULL;
	while (a && a->type == TEP_PRINT_TYPE) {
		a = a->typecast.item;
		pc->cast = true;
	}
	if (a && a->type == TEP_PRINT_FIELD)
		pc->field = a->field.field;
}

/* parse_arg_format(): one conversion from the '%' at @p. */
static const char *parse_conv(const char *p, const struct tep_print_arg **a,
			      struct piece *pc, bool *ok)
{
	struct conv c = { .simple = true };

	for (p++; *p; p++) {
		switch (*p) {
		case 'h':
			c.ls--;
			continue;
		case 'l':
			c.ls++;
			continue;
		case 'L':
			c.ls = 2;
			continue;
		case 'z':
		case 'Z':
			c.ls = 1;
			continue;
		case '-':
			c.minus = true;
			continue;
		case '0' ... '9':
			if (*p == '0' && !c.width)
				c.zero = true;
			else
				c.width = c.width * 10 + (*p - '0');
			if (c.width > 64)
				c.simple = false;
			continue;
		case '#':
		case '.':
			c.simple = false;
			continue;
		case '*':
			break;
		case 'd':
		case 'i':
		case 'u':
		case 'x':
		case 'X':
		case 'o':
		case 's':
		case 'p':
			if (!*a || c.ls < -2 || c.ls > 2)
				break;
			c.conv = *p;
			/* (long) is 64 bits here, as put_conv() takes it */
			if (*p == 'o' || *p == 's' || *p == 'p' ||
			    (c.ls == 1 && sizeof(long) != 8))
				c.simple = false;
			set_arg(pc, *a, &c);
			*a = (*a)->next;
			return p + 1;
		default:
			/* libtraceevent makes it the text ">%c<" */
			pc->odd = true;
			pc->arg = false;
			pc->ends_0x = false;
			return p + 1;
		}
		break;
	}
	*ok = false;
	return p;
}

/* The pieces of @ev's print format; false when not understood here. */
static bool parse_pieces(const struct tep_event *ev, struct piece *pcs,
			 size_t *np)
{
	const struct tep_print_arg *a = ev->print_fmt.args;
	const char *p = ev->print_fmt.format;
	bool ok = true;

	*np = 0;
	while (p && *p && ok) {
		if (*np == FAST_MAX)
			return false;
		if (*p == '%' && p[1] != '%')
			p = parse_conv(p, &a, &pcs[*np], &ok);
		else
			p = parse_text(p, &pcs[*np], &ok);
		(*np)++;
	}
	/* a last "0x" would be the piece before the first, going round */
	return ok && !(*np && !pcs[*np - 1].arg && pcs[*np - 1].ends_0x);
}

/* The piece that names @f, -1 for none, -2 for more than one. */
static int piece_of(const struct piece *pcs, size_t np,
		    const struct tep_format_field *f)
{
	int k = -1;
	size_t i;

	for (i = 0; i < np; i++) {
		if (pcs[i].arg && pcs[i].field == f)
			k = k == -1 ? (int)i : -2;
	}
	return k;
}

/*
 * How each field of @ev prints, following print_selected_fields(): each
 * number is looked up from the piece after the last one used (none once
 * the last piece was used), arrays print raw without moving on.  false
 * when a field is not for the fast path.
 */
static bool make_plans(const struct tep_event *ev, struct fplan *pl)
{
	struct piece pcs[FAST_MAX];
	const struct tep_format_field *f;
	size_t np = 0, cur = 0, i = 0;
	bool pieces = ev->print_fmt.print_cache &&
		      !(ev->flags & TEP_EVENT_FL_FAILED);

	if (pieces && !parse_pieces(ev, pcs, &np))
		return false;
	for (f = ev->format.fields; f; f = f->next, i++) {
		int k;

		if (i == FAST_MAX)
			return false;
		memset(&pl[i], 0, sizeof(pl[i]));
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
			if ((f->flags & TEP_FIELD_IS_DYNAMIC) &&
			    f->size != 2 && f->size != 4)
				return false;
			pl[i].array = true;
			continue;
		}
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			return false;
		k = pieces && cur < np ? piece_of(pcs, np, f) : -1;
		if (k == -2 || (k >= 0 && (pcs[k].cast || !pcs[k].c.simple)))
			return false;
		if (k < 0)
			continue;
		pl[i].by_conv = true;
		pl[i].c = pcs[k].c;
		pl[i].has_0x = (size_t)k != cur && k > 0 && !pcs[k - 1].arg &&
			       pcs[k - 1].ends_0x;
		cur = k + 1;
	}
	return true;
}

/**
 * text_fields_arrays_alone() - whether the -R value of each array field
 *	of an event is what it prints on its own, whatever the record
 * @ev: the event
 *
 * print_field() prints an array raw without looking at the print
 * format; the numbers before it print by their conversion or raw.  When
 * none of those can print a NUL (which ends the -R text) or text that
 * cuts the values elsewhere (a "%s" of a number field, a conversion this
 * parser does not know), an array's value in text_fields_raw() is its
 * text_raw_array_put(), and the numbers need not be printed at all.
 *
 * Return: true when that holds for every record of @ev.
 * Context: under the tep lock (the print format's fields are read).
 */
bool text_fields_arrays_alone(const struct tep_event *ev)
{
	struct piece pcs[FAST_MAX];
	size_t np = 0, i;

	if (ev->flags & TEP_EVENT_FL_FAILED)
		return true;	/* every field prints raw */
	memset(pcs, 0, sizeof(pcs));
	if (!parse_pieces(ev, pcs, &np))
		return false;
	for (i = 0; i < np; i++) {
		const struct tep_format_field *f = pcs[i].field;

		if (pcs[i].odd)
			return false;
		if (pcs[i].arg && f && pcs[i].c.conv == 's' &&
		    !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
			return false;
	}
	return true;
}

/* printf() of one integer conversion, for the value print_arg_number()
 * passes it (cast by the conversion's length). */
static int put_conv(struct tdatfs_buf *out, const struct conv *c, uint64_t v)
{
	unsigned int bits = c->ls <= -2 ? 8 : c->ls == -1 ? 16 :
			    c->ls == 0 ? 32 : 64;
	char num[24], *e = num + sizeof(num), *d = e, *o;
	bool neg = false;
	size_t len, pad;

	if (bits < 64)
		v &= (1ull << bits) - 1;
	if ((c->conv == 'd' || c->conv == 'i') && (v >> (bits - 1)) & 1) {
		neg = true;
		v = (bits < 64 ? (1ull << bits) : 0) - v;
	}
	if (c->conv == 'x' || c->conv == 'X') {
		const char *hex = c->conv == 'x' ? "0123456789abcdef" :
						   "0123456789ABCDEF";

		do {
			*--d = hex[v & 15];
			v >>= 4;
		} while (v);
	} else {
		unsigned int nd = text_dec_digits(v);

		d -= nd;
		text_dec_put(d, v, nd);
	}
	len = (e - d) + neg;
	pad = c->width > len ? c->width - len : 0;
	o = tdatfs_buf_reserve(out, len + pad);
	if (!o)
		return -ENOMEM;
	out->len += len + pad;
	if (!c->minus && !c->zero) {
		memset(o, ' ', pad);
		o += pad;
	}
	if (neg)
		*o++ = '-';
	if (!c->minus && c->zero) {
		memset(o, '0', pad);
		o += pad;
	}
	memcpy(o, d, e - d);
	if (c->minus)
		memset(o + (e - d), ' ', pad);
	return 0;
}

/* print_field_raw() of a number. */
static int put_raw_num(struct tdatfs_buf *out, const struct tep_format_field *f,
		       uint64_t v)
{
	struct conv c = { .simple = true, .ls = 2, .conv = 'u' };
	bool x0 = false;
	int ret = 0;

	if (f->flags & TEP_FIELD_IS_POINTER) {
		x0 = true;
	} else if (f->flags & TEP_FIELD_IS_SIGNED) {
		c.conv = 'd';
		if (f->size == 4) {
			c.ls = 0;
			x0 = f->flags & TEP_FIELD_IS_LONG;
		} else if (f->size == 2) {
			c.ls = -1;
			c.width = 2;
		} else if (f->size == 1) {
			c.ls = -2;
			c.width = 1;
		}
	} else {
		x0 = f->flags & TEP_FIELD_IS_LONG;
	}
	if (x0) {
		c.conv = 'x';
		ret = tdatfs_buf_put(out, "0x", 2);
	}
	return ret ? ret : put_conv(out, &c, v);
}

/* is_printable_array(), with the same character class calls. */
static bool printable(const char *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len && p[i]; i++) {
		if (!isprint(p[i]) && !isspace(p[i]))
			return false;
	}
	return true;
}

/* Where print_field_raw() finds array @a in the copy @data of a record
 * of @n bytes; false when its length would read past the copy (left to
 * libtraceevent). */
static bool array_at(const struct text_fmt_share *sh,
		     const struct text_raw_array *a, const unsigned char *data,
		     size_t n, unsigned int *off, unsigned int *len)
{
	if (!a->dynamic) {
		*off = a->offset;
		*len = a->size;
	} else if ((uint64_t)a->offset + a->size > n) {
		*off = *len = 0;
	} else {
		uint64_t v = text_read_num(sh->big_endian, data + a->offset,
					   a->size);
		unsigned int o = v & 0xffff, l;

		if (a->size == 2 && o > n)
			return false;
		l = a->size == 2 ? (unsigned int)n - o : (v >> 16) & 0xffff;
		*off = o > n ? 0 : o;
		*len = o + l > n ? 0 : l;
		if (a->relative)
			*off += a->offset + a->size;
	}
	return (uint64_t)*off + *len <= sh->max_rec;
}

/**
 * text_raw_array_of() - what print_field_raw() needs of an array field
 * @f: the field (TEP_FIELD_IS_ARRAY or TEP_FIELD_IS_DYNAMIC)
 * @a: filled
 *
 * Return: false when the raw printing here does not follow it (a
 * __data_loc of another size than 2 or 4 bytes).
 * Context: under the tep lock (the field's flags are read).
 */
bool text_raw_array_of(const struct tep_format_field *f,
		       struct text_raw_array *a)
{
	a->dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
	a->relative = f->flags & TEP_FIELD_IS_RELATIVE;
	a->string = text_tep_field_parsed_string(f);
	a->offset = (uint32_t)f->offset;
	a->size = (uint32_t)f->size;
	return (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
	       f->offset >= 0 && f->size >= 0 &&
	       (!a->dynamic || a->size == 2 || a->size == 4);
}

/**
 * text_raw_array_put() - print_field_raw() of an array: its text, or its
 *	bytes as ARRAY[..]
 * @sh: the formatter's shared state (byte order, longest record)
 * @a: the field (text_raw_array_of())
 * @data: a copy of the record as copy_size() makes it, zeroes after, up
 *	to @data_size bytes
 * @data_size: bytes readable at @data
 * @n: the record's bytes
 * @out: appended to
 *
 * Return: 0, 1 (nothing appended) when the array's length reads past
 * the copy, or -ENOMEM.
 */
int text_raw_array_put(const struct text_fmt_share *sh,
		       const struct text_raw_array *a,
		       const unsigned char *data, size_t data_size, size_t n,
		       struct tdatfs_buf *out)
{
	const char *p;
	unsigned int off, len, i;
	int ret;
	char *o;

	if (!array_at(sh, a, data, n, &off, &len))
		return 1;
	p = (const char *)data + off;
	if (a->string && printable(p, len))
		return tdatfs_buf_put(out, p, strnlen(p, data_size - off));
	ret = tdatfs_buf_put(out, "ARRAY[", 6);
	o = ret ? NULL : tdatfs_buf_reserve(out, 4 * (size_t)len + 1);
	if (!o)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		unsigned char b = p[i];

		if (i) {
			*o++ = ',';
			*o++ = ' ';
		}
		*o++ = "0123456789abcdef"[b >> 4];
		*o++ = "0123456789abcdef"[b & 15];
	}
	*o++ = ']';
	out->len = o - out->p;
	return 0;
}

/*
 * The values of a record without libtraceevent's printing; 1 (nothing
 * appended) when the event or the record is not for the fast path.
 */
static int fast_values(const struct text_fmt_share *sh,
		       const struct tep_event *ev, size_t n, struct sink *out)
{
	struct fplan pl[FAST_MAX];
	const struct tep_format_field *f;
	struct tdatfs_buf v = { 0 };
	size_t before = out->out->len, i;
	int ret = 0;

	if (!make_plans(ev, pl))
		return 1;
	for (f = ev->format.fields, i = 0; f && !ret; f = f->next, i++) {
		v.len = 0;
		if (pl[i].array) {
			struct text_raw_array a;

			text_raw_array_of(f, &a);
			ret = text_raw_array_put(sh, &a, sh->scratch,
						 sh->scratch_size, n, &v);
		} else {
			uint64_t x = text_read_num(sh->big_endian,
						   sh->scratch + f->offset,
						   f->size);

			if (pl[i].has_0x)
				ret = tdatfs_buf_put(&v, "0x", 2);
			if (!ret)
				ret = pl[i].by_conv ? put_conv(&v, &pl[i].c, x) :
						      put_raw_num(&v, f, x);
		}
		if (!ret)
			ret = put_value(out, v.p ? v.p : "", v.len, !f->next);
	}
	tdatfs_buf_release(&v);
	if (ret) {
		out->out->len = before;
		out->i = 0;
		out->stop = false;
	}
	return ret;
}

/**
 * text_fields_copy_need() - the bytes of a record libtraceevent's raw
 *	printing reads at least: its fixed fields (a short last array goes
 *	past the record)
 * @ev: the event
 *
 * Return: the end of the last fixed field.
 * Context: under the tep lock.
 */
size_t text_fields_copy_need(const struct tep_event *ev)
{
	const struct tep_format_field *f;
	size_t need = 0;

	for (f = ev->format.fields; f; f = f->next) {
		if (f->offset >= 0 && f->size >= 0 &&
		    (size_t)f->offset + f->size > need)
			need = (size_t)f->offset + f->size;
	}
	return need;
}

/**
 * text_fields_copy_size() - how much of the page from the record on
 *	libtraceevent may read
 * @sh: the formatter's shared state
 * @need: text_fields_copy_need() of the record's event
 * @r: the record
 * @n: its bytes (at most @sh->max_rec)
 *
 * The record, its fixed fields, and on to the first NUL after them (a
 * string without one in its field reads on to it), no more than the
 * page and the copy hold.
 *
 * Return: the bytes to copy from @r->data.
 */
size_t text_fields_copy_size(const struct text_fmt_share *sh, size_t need,
			     const struct text_rec *r, size_t n)
{
	size_t lim = r->avail > n ? r->avail : n;
	const unsigned char *nul;

	if (lim > sh->max_rec)
		lim = sh->max_rec;
	if (need < n)
		need = n;
	if (need >= lim)
		return lim;
	nul = memchr((const unsigned char *)r->data + need, 0, lim - need);
	return nul ? (size_t)(nul - (const unsigned char *)r->data) + 1 : lim;
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
	ret = text_events_tep_only(sh->evs) ? 1 :
	      fast_values(sh, te->ev, n, out);
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
