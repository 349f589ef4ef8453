/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/compiled/program.c - the fast path for the info text of events: a print
 * format compiled once, when its id is first met, into a program that
 * writes the bytes libtraceevent writes, without printf and without the
 * tep lock.
 *
 * This half reads the format text and runs the program; the argument
 * trees are compiled by text/compiled/args.c.  What is reproduced
 * (libtraceevent 1.7.1, pretty_print() through its print cache):
 *  - literal text, "%%" as '%' (an escape or a control byte is refused);
 *  - print_arg_number(): the value cast to char/short/int/long/long long
 *    by the count of 'h'/'l' ('z' counts as 'l', 'L' as "ll") and handed
 *    to printf with the original conversion, which for d/i/u/x/X is a
 *    truncation to that width, signed for d/i, with '-', '0', '#' and a
 *    width as glibc applies them;
 *  - print_arg_pointer(): "%p" prints printf("%p") of the value ("(nil)"
 *    for 0); "%pS"/"%pF" the function holding it and "+0x<offset>",
 *    "%ps"/"%pf" the name only, an address no symbol holds as "0x%llx";
 *    the function is tep_find_function()'s answer, here the engine's
 *    kallsyms table (text/kallsyms.h) that answers libtraceevent's
 *    resolver; any flag, width or other "%p" extension is refused;
 *  - print_str_arg() for "%s": each printed name or string padded by the
 *    conversion's width, delimiters and "0x..." leftovers not;
 *  - the sched plugin's handlers, by text/compiled/sched.c;
 *  - an event with a handler only when it is the kmem plugin's
 *    call_site_handler() (plugin_kmem.so of libtraceevent 1.7.1, on kfree,
 *    kmalloc, kmalloc_node, kmem_cache_alloc, kmem_cache_alloc_node and
 *    kmem_cache_free): before the format, "(%s+0x%x) " of the function
 *    holding the call_site field and the offset cast to int, nothing when
 *    no symbol holds it or the event has no call_site field.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-common.h"
#include "bytes.h"
#include "compiled.h"
#include "decimal.h"
#include "internal.h"
#include "kallsyms.h"
#include "tep.h"

/* "%p" and its extensions: 1 for a function, 0 for plain, -1 refused */
static int compile_ptr(const char **pp, struct fast_step *st)
{
	const char *p = *pp;

	switch (p[1]) {
	case 'S':
	case 'F':
		st->offset = true;
		/* fall through */
	case 's':
	case 'f':
		st->kind = FAST_FUNC;
		*pp = p + 2;
		return 1;
	case 'M':
	case 'm':
	case 'I':
	case 'i':
	case 'U':
	case 'h':
		return -1;
	}
	st->kind = FAST_PTR;
	*pp = p + 1;
	return 0;
}

/* printf's flags and width of a conversion at *pp (past its '%') */
static bool compile_flags(const char **pp, struct fast_step *st)
{
	const char *p = *pp;
	unsigned int width = 0;

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
	*pp = p;
	return true;
}

/* One "%..." conversion at *pp; advances past it. */
static bool compile_conv(const char **pp, struct fast_step *st)
{
	const char *p = *pp + 1;
	int ls = 0;

	if (*p == 'p') {
		*pp = p;
		return compile_ptr(pp, st) >= 0;
	}
	if (!compile_flags(&p, st))
		return false;
	if (p[0] == 'h' && p[1] == 'h') {
		ls = -2;
		p += 2;
	} else if (p[0] == 'h') {
		ls = -1;
		p++;
	} else if (p[0] == 'l' && p[1] == 'l') {
		ls = 2;
		p += 2;
	} else if (p[0] == 'l' || p[0] == 'z') {
		/* libtraceevent: 'z' is one 'l'; glibc: size_t is long */
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
	case 'o':
		st->base = 8;
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
	st->kind = FAST_NUM;
	st->bits = ls == -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;
	if (ls == 1 && sizeof(long) != 8)
		return false;
	*pp = p + 1;
	return true;
}

static bool add_lit(struct text_compiled *fp, struct fast_step *st,
		    const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		/* escapes and control bytes are libtraceevent's business */
		if (c == '\\' || c < 0x20 || c == 0x7f)
			return false;
	}
	return text_compiled_lit(fp, s, n, &st->lit_off, &st->lit_len) == 0;
}

/* Whether @ev's handler is plugin_kmem.so's call_site_handler(). */
static bool kmem_handler(const struct tep_event *ev)
{
	static const char *const names[] = {
		"kfree", "kmalloc", "kmalloc_node", "kmem_cache_alloc",
		"kmem_cache_alloc_node", "kmem_cache_free",
	};
	unsigned int i;

	if (!ev->system || strcmp(ev->system, "kmem") || !ev->name)
		return false;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(ev->name, names[i]))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return false;
	return text_compiled_handler_from(ev, "plugin_kmem.so");
}

/* The symbols a lock-free lookup may use: the engine's own table only. */
static bool own_ksyms(struct text_compiled *fp, struct tep_event *ev,
		      struct text_tep *tt)
{
	return tt && sizeof(long) == 8 && tep_get_long_size(ev->tep) == 8 &&
	       text_tep_ksyms(tt, &fp->ks) == 0 &&
	       (!fp->ks || text_kallsyms_own(fp->ks));
}

/*
 * The prefix of the kmem plugin's handler: its call_site field read as
 * tep_read_number_field() reads it (a field of another size: no prefix).
 */
static bool compile_site(struct text_compiled *fp, struct tep_event *ev,
			 struct text_tep *tt)
{
	struct tep_format_field *fl;

	if (!kmem_handler(ev) || !own_ksyms(fp, ev, tt))
		return false;
	fl = tep_find_field(ev, "call_site");
	if (!fl)
		return true;
	if (fl->offset < 0)
		return false;
	/* tep_read_number_field() fails for other sizes: no prefix */
	if (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8)
		return true;
	fp->site = true;
	fp->site_off = fl->offset;
	fp->site_size = fl->size;
	return true;
}

/* The argument of @st, by the kind of its conversion. */
static bool compile_arg(struct text_compiled *fp, struct tep_event *ev,
			struct text_tep *tt, struct tep_print_arg *arg,
			struct fast_step *st)
{
	int i;

	if (st->kind == FAST_FUNC && !own_ksyms(fp, ev, tt))
		return false;
	if (st->kind == FAST_STR)
		i = text_compiled_str_arg(fp, ev, arg, 0);
	else
		i = text_compiled_num_arg(fp, ev, arg, 0);
	if (i < 0)
		return false;
	st->node = i;
	return true;
}

/*
 * The number steps whose value is a field under integer casts only
 * (FX_MASK of FX_FIELD, as deep as it goes): read in place by the runner,
 * without walking x[].  The same value: a field past the record is 0,
 * and 0 under any mask is 0.
 */
static void direct_fields(struct text_compiled *fp)
{
	unsigned int i;

	for (i = 0; i < fp->nsteps; i++) {
		struct fast_step *st = &fp->step[i];
		const struct fast_x *x;
		uint64_t mask = ~0ull;

		if (st->kind != FAST_NUM && st->kind != FAST_PTR)
			continue;
		for (x = &fp->x[st->node]; x->op == FX_MASK; x = &fp->x[x->a])
			mask &= x->k;
		if (x->op != FX_FIELD)
			continue;
		st->dsize = x->size;
		st->doff = x->off;
		st->dmask = mask & x->k;
	}
}

/*
 * The room a number step needs past its literal's length: the number is
 * at most 70 bytes (put_int(); put_hex_w()'s 8-byte stores stay inside),
 * and a literal copied as 16 bytes ends before its number's room does.
 */
enum { NUM_ROOM = 70 };

/**
 * shape_num() - what the runner needs to know of a number step up front
 * @st: a FAST_NUM step, its field read in place (if any) set
 *
 * The width's mask and sign bit, and the form: a plain "%x"/"%u"/"%d",
 * or a zero-padded "%0<w>x"/"%0<w>u", is written without put_int()'s
 * flags and pads, as glibc's bytes are then the digits alone (a '0' pad
 * of a number with no sign and no "0x" is leading zero digits).
 */
static void shape_num(struct fast_step *st)
{
	bool zeros = !st->width || (st->zero && !st->left);

	st->vmask = st->bits < 64 ? (1ull << st->bits) - 1 : ~0ull;
	st->sbit = st->is_signed ? 1ull << (st->bits - 1) : 0;
	st->nmask = st->dmask & st->vmask;
	if (st->dsize < 8)
		st->nmask &= (1ull << (8 * st->dsize)) - 1;
	/* an 8-byte load at doff needs doff + 8 bytes of record */
	st->dend = st->dsize ? st->doff + 8 : UINT32_MAX;
	if (st->base == 16 && !st->alt && zeros)
		st->form = FORM_HEX;
	else if (st->base == 10 && (!st->width || (zeros && !st->is_signed)))
		st->form = FORM_DEC;
	else
		st->form = FORM_ANY;
}

/*
 * Shapes every number step (shape_num()) and, when all steps but the
 * last are numbers, the room that holds a whole text: the runner then
 * asks for room once a record, not once a step.
 */
static void shape_steps(struct text_compiled *fp)
{
	unsigned int i, room = 0;
	bool all = !fp->site;

	for (i = 0; i < fp->nsteps; i++) {
		struct fast_step *st = &fp->step[i];

		/* a literal copied as 16 bytes must not read past lit[] */
		st->lit16 = st->lit_len <= 16 &&
			    st->lit_off + 16u <= sizeof(fp->lit);
		if (st->kind == FAST_NUM) {
			shape_num(st);
			room += st->lit_len + NUM_ROOM;
		} else if (i + 1 < fp->nsteps) {
			all = false;
		}
	}
	/* the last literal: 16 more bytes for its copy as 16 */
	fp->room = all ? room + fp->step[fp->nsteps - 1].lit_len + 16 : 0;
}

/**
 * text_compiled_compile() - the compiled info format of an event
 * @ev: a parsed event
 * @tt: the handle it was parsed on, for the kallsyms of "%pS"; NULL
 *	leaves every format with a "%pS" to libtraceevent
 *
 * Return: a program (free it with text_compiled_free()), or NULL when
 * libtraceevent must print the event (or memory ran out).
 * Context: reads @ev only; the tep lock is held (the symbols may be
 * loaded); call it before the event is published.
 */
struct text_compiled *text_compiled_compile(struct tep_event *ev,
					    struct text_tep *tt)
{
	struct tep_print_arg *arg = ev->print_fmt.args;
	const char *p = ev->print_fmt.format;
	struct text_compiled *fp;

	if (!p || (ev->flags & (TEP_EVENT_FL_FAILED |
	    TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_ISPRINT | TEP_EVENT_FL_ISFTRACE |
	    TEP_EVENT_FL_PRINTRAW)) || (ev->system && !strcmp(ev->system, "ftrace")))
		return NULL;
	fp = calloc(1, sizeof(*fp));
	if (!fp)
		return NULL;
	/* print_event_info(): the handler first, the format if it says 1 */
	if (ev->handler && !(ev->flags & TEP_EVENT_FL_NOHANDLE)) {
		int sched = text_compiled_sched_compile(fp, ev);

		/* the sched handlers say 0: their text is all */
		if (sched > 0)
			return fp;
		if (sched < 0 || !compile_site(fp, ev, tt))
			goto no;
	}
	fp->tt = tt;
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
		if (!arg || !compile_conv(&q, st) || !compile_arg(fp, ev, tt, arg, st))
			goto no;
		arg = arg->next;
		p = q;
	}
	/* more arguments than conversions: leave it as it is */
	if (arg)
		goto no;
	direct_fields(fp);
	shape_steps(fp);
	fp->tt = NULL;
	return fp;
no:
	free(fp);
	return NULL;
}

/**
 * text_compiled_free() - free a program; NULL is fine
 * @fp: program
 */
void text_compiled_free(struct text_compiled *fp)
{
	free(fp);
}

/* "00" "01" ... "ff": the two hex digits of every byte, in both cases. */
static const char hex_lo[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char hex_up[513] =
	"000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
	"202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
	"404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
	"606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
	"808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
	"A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
	"C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
	"E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";

/* The digits of @v in base 8 or 16: a bit count, not a division loop. */
static unsigned int pow2_digits(uint64_t v, unsigned int shift)
{
	unsigned int bits = v ? 64 - (unsigned int)__builtin_clzll(v) : 1;

	return (bits + shift - 1) / shift;
}

/* @pad bytes of @c ('0' or ' '); up to 16 as one copy, which the room
 * of a number (70 bytes, at most 40 of them before a pad) holds. */
static inline char *put_pad(char *o, char c, unsigned int pad)
{
	static const char zeros[16] = "0000000000000000";
	static const char blanks[16] = "                ";

	if (pad <= 16)
		memcpy(o, c == '0' ? zeros : blanks, 16);
	else
		memset(o, c, pad);
	return o + pad;
}

/*
 * @n hex digits of @v at @o, from the last back a byte (two digits)
 * at a time: zeros before the value's own digits fill @n.
 */
static inline char *put_hex_n(char *o, uint64_t v, unsigned int n,
			      const char *pairs)
{
	char *d = o + n;

	while (d - o >= 2) {
		d -= 2;
		memcpy(d, pairs + 2 * (v & 0xff), 2);
		v >>= 8;
	}
	/* "0f" holds f's digit second */
	if (d > o)
		d[-1] = pairs[2 * (v & 0xf) + 1];
	return o + n;
}

/* printf("%[-0#][width]{d,u,o,x,X}") of an already truncated value;
 * out of line: the common forms stay small without it (put_num()). */
static __attribute__((noinline)) char *
put_int(char *o, const struct fast_step *st, uint64_t uv, bool neg)
{
	static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
	const char *dig = st->upper ? up : lo;
	unsigned int nd, npre = 0, len, pad, shift = st->base == 16 ? 4 : 3;
	char pre[2];

	if (st->base == 10) {
		nd = text_dec_digits(uv);
		if (neg)
			pre[npre++] = '-';
	} else {
		nd = pow2_digits(uv, shift);
		/* '#': "0x" before a hex value but 0, a '0' before an octal one */
		if (st->alt && uv) {
			pre[npre++] = '0';
			if (st->base == 16)
				pre[npre++] = st->upper ? 'X' : 'x';
		}
	}
	len = nd + npre;
	pad = st->width > len ? st->width - len : 0;
	if (pad && !st->left && !st->zero)
		o = put_pad(o, ' ', pad);
	/* not memcpy(): gcc makes that a rep movsb, slow for 0 to 2 bytes */
	for (unsigned int i = 0; i < npre; i++)
		*o++ = pre[i];
	if (pad && st->zero)
		o = put_pad(o, '0', pad);
	if (st->base == 10) {
		o = text_dec_put(o, uv, nd);
	} else if (st->base == 16) {
		o = put_hex_n(o, uv, nd, st->upper ? hex_up : hex_lo);
	} else {
		char *d = o + nd;

		do {
			*--d = dig[uv & 7];
			uv >>= 3;
		} while (uv);
		o += nd;
	}
	if (pad && st->left)
		o = put_pad(o, ' ', pad);
	return o;
}

/* what a record's program reads */
struct fast_rec {
	const unsigned char *data;
	size_t n;
	bool big_endian;
	/* num_value(): n for a file in the host's little-endian order,
	 * below UINT32_MAX; 0 for any other */
	uint32_t nle;
};

/* The value of x[@i] for a record: eval_num_arg()'s. */
static uint64_t eval_x(const struct text_compiled *fp, unsigned int i,
		       const struct fast_rec *r)
{
	const struct fast_x *x = &fp->x[i];

	switch (x->op) {
	case FX_CONST:
		return x->k;
	case FX_FIELD:
		/* check_data_offset_size(): a field past the record is 0 */
		if (x->off + x->size > r->n)
			return 0;
		return text_read_num(r->big_endian, r->data + x->off, x->size) & x->k;
	case FX_MASK:
		return eval_x(fp, x->a, r) & x->k;
	case FX_COND:
		return eval_x(fp, eval_x(fp, x->a, r) ? x->b : x->c, r);
	default:
		return text_compiled_apply(x->op, eval_x(fp, x->a, r),
					   eval_x(fp, x->b, r));
	}
}

/* The value of a number step: its field read in place, or x[node]. */
static inline uint64_t step_value(const struct text_compiled *fp,
				  const struct fast_step *st,
				  const struct fast_rec *r)
{
	if (!st->dsize)
		return eval_x(fp, st->node, r);
	/* check_data_offset_size(): a field past the record is 0 */
	if (st->doff + st->dsize > r->n)
		return 0;
	return text_read_num(r->big_endian, r->data + st->doff, st->dsize) &
	       st->dmask;
}

/* "0x%llx" */
static int put_hex(struct tdatfs_buf *out, uint64_t v)
{
	static const char dig[] = "0123456789abcdef";
	char tmp[16];
	unsigned int nd = 0;
	char *o = tdatfs_buf_reserve(out, 18);

	if (!o)
		return -ENOMEM;
	do {
		tmp[nd++] = dig[v & 15];
		v >>= 4;
	} while (v);
	*o++ = '0';
	*o++ = 'x';
	while (nd)
		*o++ = tmp[--nd];
	out->len = o - out->p;
	return 0;
}

/* printf("%[-][width]s") of @n bytes */
static int put_str(struct tdatfs_buf *out, const struct fast_step *st,
		   const char *s, size_t n)
{
	size_t pad = st->width > n ? st->width - n : 0;
	char *o = tdatfs_buf_reserve(out, n + pad);

	if (!o)
		return -ENOMEM;
	if (!st->left) {
		memset(o, ' ', pad);
		o += pad;
	}
	memcpy(o, s, n);
	o += n;
	if (st->left) {
		memset(o, ' ', pad);
		o += pad;
	}
	out->len = o - out->p;
	return 0;
}

/* __print_flags(): the names of the flags set, what is left in hex */
static int put_flags(const struct text_compiled *fp, const struct fast_s *s,
		     const struct fast_step *st, const struct fast_rec *r,
		     struct tdatfs_buf *out)
{
	int64_t v = (int64_t)eval_x(fp, s->a, r);
	bool printed = false;
	unsigned int i;
	int ret;

	for (i = s->lo; i < s->hi; i++) {
		const struct fast_flag *f = &fp->f[i];

		if (!v && f->val < 0)
			return put_str(out, st, fp->lit + f->lit_off, f->lit_len);
		if (f->val > 0 && (v & f->val) == f->val) {
			if (printed && s->delim &&
			    tdatfs_buf_put(out, fp->lit + s->lit_off,
					   s->lit_len) < 0)
				return -ENOMEM;
			ret = put_str(out, st, fp->lit + f->lit_off, f->lit_len);
			if (ret < 0)
				return ret;
			printed = true;
			v &= ~f->val;
		}
	}
	if (!v)
		return 0;
	if (printed && s->delim &&
	    tdatfs_buf_put(out, fp->lit + s->lit_off, s->lit_len) < 0)
		return -ENOMEM;
	return put_hex(out, v);
}

/* __get_str(): dynamic_offset_field(), then the string up to its NUL */
static int put_dloc(const struct fast_s *s, const struct fast_step *st,
		    const struct fast_rec *r, struct tdatfs_buf *out)
{
	uint32_t loc = text_read_num(r->big_endian, r->data + s->off, 4);
	size_t off = loc & 0xffff, len = loc >> 16;

	/* dynamic_offset(): a bad offset or length prints "" */
	if (off + len > r->n)
		len = 0;
	if (off > r->n)
		off = 0;
	/* libtraceevent prints nothing at all for length 0 */
	if (!len)
		return 0;
	if (s->relative)
		off += s->len;
	/* past the record, libtraceevent reads the zeroed slack */
	if (off >= r->n)
		return put_str(out, st, "", 0);
	return put_str(out, st, (const char *)r->data + off,
		       strnlen((const char *)r->data + off, r->n - off));
}

/* print_str_arg() of s[@i] */
static int put_s(const struct text_compiled *fp, unsigned int i,
		 const struct fast_step *st, const struct fast_rec *r,
		 struct tdatfs_buf *out)
{
	const struct fast_s *s = &fp->s[i];
	const char *str;
	unsigned int j;

	switch (s->kind) {
	case FS_LIT:
		return put_str(out, st, fp->lit + s->lit_off, s->lit_len);
	case FS_ARRAY:
		str = (const char *)r->data + s->off;
		return put_str(out, st, str, strnlen(str, s->len));
	case FS_DLOC:
		return put_dloc(s, st, r, out);
	case FS_FLAGS:
		return put_flags(fp, s, st, r, out);
	case FS_SYMBOL: {
		int64_t v = (int64_t)eval_x(fp, s->a, r);

		for (j = s->lo; j < s->hi; j++)
			if (fp->f[j].val == v)
				return put_str(out, st, fp->lit + fp->f[j].lit_off,
					       fp->f[j].lit_len);
		return put_hex(out, v);
	}
	case FS_COND:
		return put_s(fp, eval_x(fp, s->a, r) ? s->b : s->c, st, r, out);
	default:
		return 0;
	}
}

/* "%pS" and friends: print_function() */
static int put_func(const struct text_compiled *fp, const struct fast_step *st,
		    uint64_t v, struct tdatfs_buf *out)
{
	unsigned long long start = 0;
	const char *name = fp->ks ? text_kallsyms_find(fp->ks, v, &start) :
				    NULL;
	int ret;

	if (!name)
		return put_hex(out, v);
	ret = tdatfs_buf_put(out, name, strlen(name));
	if (ret < 0 || !st->offset)
		return ret;
	ret = tdatfs_buf_put(out, "+", 1);
	return ret < 0 ? ret : put_hex(out, v - start);
}

/* call_site_handler(): "(%s+0x%x) " of the function holding call_site */
static int put_site(const struct text_compiled *fp, const struct fast_rec *r,
		    struct tdatfs_buf *out)
{
	uint64_t v = text_read_num(r->big_endian, r->data + fp->site_off,
				   fp->site_size);
	unsigned long long start = 0;
	const char *name = fp->ks ? text_kallsyms_find(fp->ks, v, &start) :
				    NULL;
	int ret;

	if (!name)
		return 0;
	ret = tdatfs_buf_put(out, "(", 1);
	if (!ret)
		ret = tdatfs_buf_put(out, name, strlen(name));
	if (!ret)
		ret = tdatfs_buf_put(out, "+", 1);
	if (!ret)
		ret = put_hex(out, (uint32_t)(v - start));
	if (!ret)
		ret = tdatfs_buf_put(out, ") ", 2);
	return ret;
}

/*
 * The 8 hex digits of @x as the bytes of a word, the first digit in its
 * lowest byte (the first in memory on a little-endian host): every
 * nibble spread to a byte, then '0' or @letter - 10 added to each.
 */
static inline uint64_t hex_word(uint32_t x, unsigned int letter)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t t = x, big;

	t = (t | t << 16) & 0x0000ffff0000ffffull;
	t = (t | t << 8) & 0x00ff00ff00ff00ffull;
	t = (t | t << 4) & 0x0f0f0f0f0f0f0f0full;
	/* 1 in each byte of a digit of 10 or more */
	big = ((t + 6 * ones) >> 4) & ones;
	t += '0' * ones + big * (letter - '0' - 10);
	return __builtin_bswap64(t);
}

/*
 * @n hex digits of @v at @o (zeros first), @n at least its digit count;
 * up to 16 as two words whose leading surplus digits are shifted out,
 * the bytes past @o + @n written being the room's (8 at most).  Inline
 * in put_num(): a call would save and restore the runner's registers.
 */
static inline __attribute__((always_inline)) char *
put_hex_w(char *o, uint64_t v, unsigned int n, bool upper)
{
	unsigned int letter = upper ? 'A' : 'a';
	uint64_t w;

	/* one digit (0 to f): common enough for a shortcut */
	if (n == 1) {
		*o = (upper ? hex_up : hex_lo)[2 * v + 1];
		return o + 1;
	}
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || n > 16)
		return put_hex_n(o, v, n, upper ? hex_up : hex_lo);
	if (n <= 8) {
		w = hex_word((uint32_t)v, letter) >> (8 * (8 - n));
		memcpy(o, &w, 8);
		return o + n;
	}
	w = hex_word(v >> 32, letter) >> (8 * (16 - n));
	memcpy(o, &w, 8);
	w = hex_word((uint32_t)v, letter);
	memcpy(o + n - 8, &w, 8);
	return o + n;
}

/*
 * The value of a number step, of printf's width: a field of a file in
 * the host's little-endian order read as one 8-byte load when the
 * record holds those bytes (its low bytes are the field's).
 */
static inline uint64_t num_value(const struct text_compiled *fp,
				 const struct fast_step *st,
				 const struct fast_rec *r)
{
	uint64_t v;

	/* dend is UINT32_MAX for a value that is not a field */
	if (st->dend <= r->nle) {
		memcpy(&v, r->data + st->doff, 8);
		return v & st->nmask;
	}
	return step_value(fp, st, r) & st->vmask;
}

/* The literal and printf() of a number step at @o; NUM_ROOM + lit_len.
 * Always inline: the runner's loop keeps its registers across steps. */
static inline __attribute__((always_inline)) char *
put_num(const struct text_compiled *fp, const struct fast_step *st,
	const struct fast_rec *r, char *o)
{
	uint64_t v = num_value(fp, st, r);
	unsigned int nd;
	bool neg = false;

	/* a short literal as one 16-byte copy: lit[] and the room hold it */
	if (st->lit16)
		memcpy(o, fp->lit + st->lit_off, 16);
	else
		memcpy(o, fp->lit + st->lit_off, st->lit_len);
	o += st->lit_len;
	if (v & st->sbit) {
		/* two's complement negative of that width */
		v = -v & st->vmask;
		neg = true;
	}
	switch (st->form) {
	case FORM_HEX:
		nd = pow2_digits(v, 4);
		return put_hex_w(o, v, nd > st->width ? nd : st->width,
				 st->upper);
	case FORM_DEC:
		if (neg)
			*o++ = '-';
		nd = text_dec_digits(v);
		return text_dec_put(o, v, nd > st->width ? nd : st->width);
	default:
		return put_int(o, st, v, neg);
	}
}

/*
 * A program of numbers only (fp->room set): one room for the text, the
 * steps written into it without a length kept up to date between them.
 */
static int put_nums(const struct text_compiled *fp, const struct fast_rec *r,
		    struct tdatfs_buf *out)
{
	const struct fast_step *st = fp->step, *last = st + fp->nsteps - 1;
	char *o = tdatfs_buf_reserve(out, fp->room);

	if (!o)
		return -ENOMEM;
	for (; st < last; st++)
		o = put_num(fp, st, r, o);
	if (st->lit16)
		memcpy(o, fp->lit + st->lit_off, 16);
	else
		memcpy(o, fp->lit + st->lit_off, st->lit_len);
	out->len = o + st->lit_len - out->p;
	return 0;
}

/* one conversion of a step but a number's (text_compiled_info()) */
static int put_step(const struct text_compiled *fp, const struct fast_step *st,
		    const struct fast_rec *r, struct tdatfs_buf *out)
{
	uint64_t v;

	switch (st->kind) {
	case FAST_STR:
		return put_s(fp, st->node, st, r, out);
	case FAST_FUNC:
		return put_func(fp, st, eval_x(fp, st->node, r), out);
	case FAST_PTR:
		v = step_value(fp, st, r);
		if (!v)
			return tdatfs_buf_put(out, "(nil)", 5);
		return put_hex(out, v);
	default:
		return 0;
	}
}

/**
 * text_compiled_info() - the info text of a record of a compiled event
 * @fp: the event's program
 * @big_endian: byte order of the file
 * @data: the record; its fixed fields are readable
 * @n: the record's size
 * @out: destination
 *
 * Return: 0 or -ENOMEM.
 * Context: lock-free.
 */
int text_compiled_info(const struct text_compiled *fp, bool big_endian,
		       const unsigned char *data, size_t n,
		       struct tdatfs_buf *out)
{
	const struct fast_rec r = {
		.data = data, .n = n, .big_endian = big_endian,
		.nle = __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || big_endian ?
		       0 : n < UINT32_MAX ? n : UINT32_MAX - 1,
	};
	unsigned int i;
	int ret;

	if (fp->sched.kind)
		return text_compiled_sched_info(fp, big_endian, data, out);
	if (fp->room)
		return put_nums(fp, &r, out);
	if (fp->site) {
		ret = put_site(fp, &r, out);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < fp->nsteps; i++) {
		const struct fast_step *st = &fp->step[i];

		if (st->kind == FAST_NUM) {
			/* the literal and the number in one room */
			char *o = tdatfs_buf_reserve(out, st->lit_len + NUM_ROOM);

			if (!o)
				return -ENOMEM;
			out->len = put_num(fp, st, &r, o) - out->p;
			continue;
		}
		if (st->lit_len &&
		    tdatfs_buf_put(out, fp->lit + st->lit_off, st->lit_len) < 0)
			return -ENOMEM;
		ret = put_step(fp, st, &r, out);
		if (ret < 0)
			return ret;
	}
	return 0;
}
