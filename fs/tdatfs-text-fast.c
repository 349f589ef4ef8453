/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-fast.c - the fast path for the info text of simple events.
 *
 * Most events of a trace (every syscalls:* and raw_syscalls:* event, most
 * sched:* and irq:* ones) print a format made of literal text, integer
 * conversions of plain fields and "%s" of char arrays or __get_str().
 * libtraceevent prints each of those through vsnprintf; here such a format
 * is compiled once, when its id is first met, into a list of steps that write the same
 * bytes without printf.  Only what is certain to print the same is
 * compiled: anything else (a handler, a string, a pointer, a flag or
 * symbol table, an operator, an escape, a flag or length printf does not
 * treat as we do) leaves the event to libtraceevent.
 *
 * What is reproduced (libtraceevent 1.7.1, pretty_print() through its
 * print cache): a field argument is read with tep_read_number() at the
 * field's offset and size; a type cast applies eval_type_str(), which for
 * the integer types is a mask; REC->a[i] reads element i of a fixed array;
 * print_arg_number() casts the value to char/short/int/long/long long by
 * the count of 'h'/'l' and hands it to printf with the original
 * conversion, which for d/i/u/x/X is a truncation to that width, signed
 * for d/i.  "%s" of an array prints its bytes up to the first NUL; of
 * __get_str() (dynamic_offset()), nothing when the length is 0, else the
 * string at the offset, which ends at the record's end at the latest
 * (libtraceevent reads a copy followed by zeroes).
 *
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-text-buf.h"
#include "tdatfs-text-bytes.h"
#include "tdatfs-text-dec.h"
#include "tdatfs-text-fast.h"

enum {
	FAST_MAX_STEPS	= 32,
	FAST_MAX_LIT	= 512,
};

enum fast_kind {
	FAST_END,		/* the final literal only */
	FAST_NUM,		/* an integer */
	FAST_STR,		/* a fixed char array, up to its first NUL */
	FAST_DSTR,		/* __get_str(): a __data_loc string */
};

struct fast_step {
	uint16_t lit_off;	/* literal before the conversion, in lit[] */
	uint16_t lit_len;
	uint8_t kind;		/* enum fast_kind */
	bool relative;		/* FAST_DSTR: __rel_loc */
	bool is_signed;
	bool upper;
	bool left;
	bool zero;
	bool alt;
	uint8_t base;		/* 10 or 16 */
	uint8_t bits;		/* printf's width of the value: 8..64 */
	uint8_t size;		/* field bytes: 1, 2, 4, 8 (FAST_DSTR: 4) */
	uint8_t width;
	uint32_t offset;	/* of the value in the record */
	uint32_t len;		/* FAST_STR: array bytes; FAST_DSTR: loc end */
	uint64_t mask;		/* from casts */
};

struct text_fast {
	unsigned int nsteps;
	unsigned int lit_len;
	struct fast_step step[FAST_MAX_STEPS];
	char lit[FAST_MAX_LIT];
};

/* eval_type_str() for a non-pointer cast: an integer type is a mask. */
static bool cast_mask(const char *type, uint64_t *mask)
{
	size_t len = strlen(type);

	if (!len)
		return false;
	if (type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return true;
	if (!strcmp(type, "u8") || !strcmp(type, "s8")) {
		*mask &= 0xff;
		return true;
	}
	if (!strcmp(type, "u16") || !strcmp(type, "s16")) {
		*mask &= 0xffff;
		return true;
	}
	if (!strcmp(type, "u32") || !strcmp(type, "s32")) {
		*mask &= 0xffffffff;
		return true;
	}
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		*mask &= 0xff;
	else if (!strcmp(type, "short"))
		*mask &= 0xffff;
	else if (!strcmp(type, "int"))
		*mask &= 0xffffffff;
	return true;
}

static bool is_number_size(unsigned int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/*
 * A "%s" argument: a fixed array field (print_str_arg() copies its bytes
 * and prints them as a string) or __get_str() of a __data_loc field.
 */
static bool compile_str_arg(struct tep_event *ev, struct tep_print_arg *arg,
			    struct fast_step *st)
{
	struct tep_format_field *fl;

	if (arg->type == TEP_PRINT_FIELD) {
		fl = tep_find_any_field(ev, arg->field.name);
		if (!fl || !(fl->flags & TEP_FIELD_IS_ARRAY) ||
		    (fl->flags & TEP_FIELD_IS_DYNAMIC) || fl->offset < 0 || fl->size <= 0)
			return false;
		st->kind = FAST_STR;
		st->offset = fl->offset;
		st->len = fl->size;
		return true;
	}
	if (arg->type == TEP_PRINT_STRING && arg->string.string) {
		fl = tep_find_any_field(ev, arg->string.string);
		if (!fl || !(fl->flags & TEP_FIELD_IS_DYNAMIC) || fl->offset < 0 ||
		    fl->size != 4)
			return false;
		st->kind = FAST_DSTR;
		st->offset = fl->offset;
		st->len = fl->offset + fl->size;
		st->relative = fl->flags & TEP_FIELD_IS_RELATIVE;
		return true;
	}
	return false;
}

/* An argument that is a field, a fixed-array element, or casts of those. */
static bool compile_arg(struct tep_event *ev, struct tep_print_arg *arg,
			struct fast_step *st)
{
	struct tep_format_field *fl;

	if (st->kind == FAST_STR)
		return compile_str_arg(ev, arg, st);
	st->kind = FAST_NUM;

	st->mask = ~0ull;
	while (arg && arg->type == TEP_PRINT_TYPE) {
		if (!arg->typecast.type || !cast_mask(arg->typecast.type, &st->mask))
			return false;
		arg = arg->typecast.item;
	}
	if (!arg)
		return false;
	if (arg->type == TEP_PRINT_FIELD) {
		fl = tep_find_any_field(ev, arg->field.name);
		if (!fl || (fl->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_ARRAY)) ||
		    fl->offset < 0 || fl->size < 0 || !is_number_size(fl->size))
			return false;
		st->offset = fl->offset;
		st->size = fl->size;
		return true;
	}
	if (arg->type == TEP_PRINT_OP && arg->op.op && !strcmp(arg->op.op, "[")) {
		struct tep_print_arg *l = arg->op.left, *r = arg->op.right;
		char *end;
		unsigned long long idx;

		/* a cast inside [] is applied as a pointer cast: not here */
		if (!l || !r || l->type != TEP_PRINT_FIELD || r->type != TEP_PRINT_ATOM ||
		    !r->atom.atom || r->atom.atom[0] < '0' || r->atom.atom[0] > '9')
			return false;
		errno = 0;
		idx = strtoull(r->atom.atom, &end, 0);
		if (errno || *end)
			return false;
		fl = tep_find_any_field(ev, l->field.name);
		if (!fl || (fl->flags & TEP_FIELD_IS_DYNAMIC) ||
		    !(fl->flags & TEP_FIELD_IS_ARRAY) || fl->offset < 0 ||
		    !is_number_size(fl->elementsize) || idx >= fl->arraylen ||
		    (idx + 1) * fl->elementsize > (unsigned int)fl->size)
			return false;
		st->offset = fl->offset + idx * fl->elementsize;
		st->size = fl->elementsize;
		return true;
	}
	return false;
}

/* One "%..." conversion at *pp; advances past it. */
static bool compile_conv(const char **pp, struct fast_step *st)
{
	const char *p = *pp + 1;
	unsigned int width = 0;
	int ls = 0;

	for (;; p++) {
		if (*p == '-')
			st->left = true;
		else if (*p == '0')
			st->zero = true;
		else if (*p == '#')
			st->alt = true;
		else
			break;
	}
	while (*p >= '0' && *p <= '9') {
		width = width * 10 + (*p - '0');
		if (width > 64)
			return false;
		p++;
	}
	st->width = width;
	if (p[0] == 'h' && p[1] == 'h') {
		ls = -2;
		p += 2;
	} else if (p[0] == 'h') {
		ls = -1;
		p++;
	} else if (p[0] == 'l' && p[1] == 'l') {
		ls = 2;
		p += 2;
	} else if (p[0] == 'l') {
		ls = 1;
		p++;
	} else if (p[0] == 'L') {
		/* libtraceevent: long long; glibc takes %Lu as %llu */
		ls = 2;
		p++;
	}
	switch (*p) {
	case 's':
		/* '0' and '#' are undefined for %s; no length modifier */
		if (st->zero || st->alt || ls)
			return false;
		st->kind = FAST_STR;
		*pp = p + 1;
		return true;
	case 'd':
	case 'i':
		st->is_signed = true;
		st->base = 10;
		break;
	case 'u':
		st->base = 10;
		break;
	case 'x':
		st->base = 16;
		break;
	case 'X':
		st->base = 16;
		st->upper = true;
		break;
	default:
		return false;
	}
	/* glibc ignores '#' for decimal; '0' with '-' is ignored */
	if (st->base == 10)
		st->alt = false;
	if (st->left)
		st->zero = false;
	st->bits = ls == -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;
	if (ls == 1 && sizeof(long) != 8)
		return false;
	*pp = p + 1;
	return true;
}

static bool add_lit(struct text_fast *fp, struct fast_step *st,
		    const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		/* escapes and control bytes are libtraceevent's business */
		if (c == '\\' || c < 0x20 || c == 0x7f)
			return false;
	}
	if (fp->lit_len + n > FAST_MAX_LIT)
		return false;
	st->lit_off = fp->lit_len;
	st->lit_len = n;
	memcpy(fp->lit + fp->lit_len, s, n);
	fp->lit_len += n;
	return true;
}

/**
 * text_fast_compile() - the compiled info format of an event
 * @ev: a parsed event
 *
 * Return: a program (free it with text_fast_free()), or NULL when
 * libtraceevent must print the event (or memory ran out).
 * Context: reads @ev only; call it before the event is published.
 */
struct text_fast *text_fast_compile(struct tep_event *ev)
{
	struct tep_print_arg *arg = ev->print_fmt.args;
	const char *p = ev->print_fmt.format;
	struct text_fast *fp;

	if (!p || ev->handler || (ev->flags & (TEP_EVENT_FL_FAILED |
	    TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_ISPRINT | TEP_EVENT_FL_ISFTRACE |
	    TEP_EVENT_FL_PRINTRAW)) || (ev->system && !strcmp(ev->system, "ftrace")))
		return NULL;
	fp = calloc(1, sizeof(*fp));
	if (!fp)
		return NULL;
	for (;;) {
		struct fast_step *st;
		const char *q = p;
		char buf[FAST_MAX_LIT];
		size_t n = 0;

		if (fp->nsteps == FAST_MAX_STEPS)
			goto no;
		st = &fp->step[fp->nsteps];
		/* literal up to a lone '%'; "%%" is one '%' */
		while (*q && !(q[0] == '%' && q[1] != '%')) {
			if (n == sizeof(buf))
				goto no;
			buf[n++] = *q;
			q += q[0] == '%' ? 2 : 1;
		}
		if (!add_lit(fp, st, buf, n))
			goto no;
		fp->nsteps++;
		if (!*q)
			break;
		if (!arg || !compile_conv(&q, st) || !compile_arg(ev, arg, st))
			goto no;
		arg = arg->next;
		p = q;
	}
	/* more arguments than conversions: leave it as it is */
	if (arg)
		goto no;
	return fp;
no:
	free(fp);
	return NULL;
}

/**
 * text_fast_free() - free a program; NULL is fine
 * @fp: program
 */
void text_fast_free(struct text_fast *fp)
{
	free(fp);
}

/* printf("%[-0#][width]{d,u,x,X}") of an already truncated value. */
static char *put_int(char *o, const struct fast_step *st, uint64_t uv, bool neg)
{
	static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
	const char *dig = st->upper ? up : lo;
	char tmp[24];
	unsigned int nd = 0, pre = 0, len, pad;

	if (st->base == 16) {
		do {
			tmp[nd++] = dig[uv & 15];
			uv >>= 4;
		} while (uv);
		if (st->alt && !(nd == 1 && tmp[0] == '0'))
			pre = 2;
	} else {
		nd = text_dec_digits(uv);
		if (neg)
			pre = 1;
	}
	len = nd + pre;
	pad = st->width > len ? st->width - len : 0;
	if (pad && !st->left && !st->zero) {
		memset(o, ' ', pad);
		o += pad;
	}
	if (pre == 1) {
		*o++ = '-';
	} else if (pre == 2) {
		*o++ = '0';
		*o++ = st->upper ? 'X' : 'x';
	}
	if (pad && st->zero) {
		memset(o, '0', pad);
		o += pad;
	}
	if (st->base == 16) {
		while (nd)
			*o++ = tmp[--nd];
	} else {
		o = text_dec_put(o, uv, nd);
	}
	if (pad && st->left) {
		memset(o, ' ', pad);
		o += pad;
	}
	return o;
}

/**
 * text_fast_info() - the info text of a record of a compiled event
 * @fp: the event's program
 * @big_endian: byte order of the file
 * @data: the record; its fixed fields are readable
 * @n: the record's size
 * @out: destination
 *
 * Return: 0 or -ENOMEM.
 * Context: lock-free.
 */
int text_fast_info(const struct text_fast *fp, bool big_endian,
		   const unsigned char *data, size_t n, struct text_buf *out)
{
	unsigned int i;

	for (i = 0; i < fp->nsteps; i++) {
		const struct fast_step *st = &fp->step[i];
		const char *str = NULL;
		size_t slen = 0;
		uint64_t v = 0;
		bool neg = false;
		char *o;

		if (st->kind == FAST_STR) {
			str = (const char *)data + st->offset;
			slen = strnlen(str, st->len);
		} else if (st->kind == FAST_DSTR) {
			/* dynamic_offset(): a bad offset or length prints "" */
			uint32_t loc = text_read_num(big_endian, data + st->offset, 4);
			size_t off = loc & 0xffff, len = loc >> 16;

			if (off + len > n)
				len = 0;
			if (off > n)
				off = 0;
			/* libtraceevent prints nothing at all for length 0 */
			if (!len)
				goto lit_only;
			if (st->relative)
				off += st->len;
			/* past the record, libtraceevent reads the zeroed slack */
			if (off < n) {
				str = (const char *)data + off;
				slen = strnlen(str, n - off);
			}
		}
		/* a conversion is at most 64 + 2 bytes wide, a string slen + 64 */
		o = text_buf_reserve(out, st->lit_len + slen + 70);
		if (!o)
			return -ENOMEM;
		memcpy(o, fp->lit + st->lit_off, st->lit_len);
		o += st->lit_len;
		if (st->kind == FAST_STR || st->kind == FAST_DSTR) {
			size_t pad = st->width > slen ? st->width - slen : 0;

			if (!st->left) {
				memset(o, ' ', pad);
				o += pad;
			}
			memcpy(o, str, slen);
			o += slen;
			if (st->left) {
				memset(o, ' ', pad);
				o += pad;
			}
		} else if (st->kind == FAST_NUM) {
			v = text_read_num(big_endian, data + st->offset, st->size) & st->mask;
			if (st->bits < 64)
				v &= (1ull << st->bits) - 1;
			if (st->is_signed && (v >> (st->bits - 1)) & 1) {
				/* two's complement negative of that width */
				v = (~v + 1) & (st->bits < 64 ? (1ull << st->bits) - 1 : ~0ull);
				neg = true;
			}
			o = put_int(o, st, v, neg);
		}
		out->len = o - out->p;
		continue;
lit_only:
		if (text_buf_put(out, fp->lit + st->lit_off, st->lit_len) < 0)
			return -ENOMEM;
	}
	return 0;
}
