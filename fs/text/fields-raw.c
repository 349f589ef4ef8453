/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/fields-raw.c - the -R values of a record's fields (what
 * libtraceevent's print_field() makes, text/fields-row.h) made without
 * libtraceevent: the print format cut into pieces as libtraceevent cuts
 * it, a plan per field from them, numbers by their conversion or raw,
 * arrays raw; and how much of a page libtraceevent's raw printing may
 * read, for the copy it prints from.  fields.tsv (text/fields-row.c) and
 * trace.pftrace's generic events (text/pftrace-event.c) use them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-common.h"
#include "bytes.h"
#include "decimal.h"
#include "event-table.h"
#include "fields-row.h"
#include "line.h"
#include "source.h"
#include "tep.h"

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

/**
 * text_fields_fast_values() - a record's -R values made without
 *	libtraceevent's printing, each given to @put in field order
 * @sh: the formatter's shared state; the record copied to its scratch
 *	(text_fields_copy_size())
 * @ev: the record's event
 * @n: the record's bytes
 * @put: takes one value (@last: of the last field); 0 or a negative errno
 * @ctx: for @put
 *
 * Return: 0, 1 (nothing given) when the event is not for the fast path,
 * or a negative errno (of @put too), some values given already.
 * Context: under the tep lock.
 */
int text_fields_fast_values(const struct text_fmt_share *sh,
			    const struct tep_event *ev, size_t n,
			    int (*put)(void *ctx, const char *v, size_t len,
				       bool last),
			    void *ctx)
{
	struct fplan pl[FAST_MAX];
	const struct tep_format_field *f;
	struct tdatfs_buf v = { 0 };
	size_t i;
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
			ret = put(ctx, v.p ? v.p : "", v.len, !f->next);
	}
	tdatfs_buf_release(&v);
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
