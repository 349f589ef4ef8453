/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/width-bound.c - the '*' arguments of a print format found as
 * libtraceevent's parse_args() pairs them, and wrapped in a bound.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "format-limits.h"
#include "width-bound.h"

/* What a '*' argument gives its conversion. */
enum star_use {
	STAR_NUM_WIDTH,		/* of d i u x X o */
	STAR_NUM_PREC,
	STAR_STR_WIDTH,		/* of s */
	STAR_STR_PREC,
};

#define BOUND_NODES	6	/* the operators of the tree */
#define BOUND_ATOMS	5	/* and its numbers */

struct text_width_bound {
	struct text_width_bound *next;
	struct tep_print_arg *arg;	/* the argument, now the tree's root */
	struct tep_print_arg orig;	/* what it was, evaluated by the tree */
	struct tep_print_arg op[BOUND_NODES];
	struct tep_print_arg atom[BOUND_ATOMS];
	char num[BOUND_ATOMS][24];
};

/*
 * parse_arg_string(): literal text up to a conversion; a backslash takes
 * the byte after it, "%%" is a '%'.
 */
static const char *skip_text(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return p;
		} else if (*p == '%') {
			if (p[1] != '%')
				return p;
			p++;
		}
	}
	return p;
}

/*
 * parse_arg_format(): the conversion at the '%' at @p.  *@a moves past
 * the arguments it takes; *@star is its '*' argument when that is a
 * width or precision libtraceevent hands printf (else NULL), *@use what
 * for.  Return: past the conversion; NULL when libtraceevent fails the
 * event (an argument missing or two '*').
 */
static const char *conv(const char *p, struct tep_print_arg **a,
			struct tep_print_arg **star, enum star_use *use)
{
	bool dot = false, prec = false;

	*star = NULL;
	for (p++; *p; p++) {
		switch (*p) {
		case '#': case 'h': case 'l': case 'L': case 'z': case 'Z':
		case '-': case '0' ... '9':
			continue;
		case '.':
			dot = true;
			continue;
		case '*':
			if (!*a || *star)
				return NULL;
			*star = *a;
			prec = dot;
			*a = (*a)->next;
			continue;
		case 'd': case 'u': case 'i': case 'x': case 'X': case 'o':
		case 's':
		case 'p':
			if (!*a)
				return NULL;
			*a = (*a)->next;
			/* "%*ph" is a length, cut to the array by the library */
			if (*p == 'p')
				*star = NULL;
			*use = *p == 's' ? (prec ? STAR_STR_PREC : STAR_STR_WIDTH) :
			       prec ? STAR_NUM_PREC : STAR_NUM_WIDTH;
			return p + 1;
		default:
			/* printed as ">%c<": a '*' argument goes unused */
			*star = NULL;
			return p + 1;
		}
	}
	*star = NULL;
	return p;
}

static struct tep_print_arg *mk_op(struct tep_print_arg *n, const char *op,
				   struct tep_print_arg *l,
				   struct tep_print_arg *r)
{
	n->next = NULL;
	n->type = TEP_PRINT_OP;
	/* never freed: text_width_bound_undo() takes the tree out first */
	n->op.op = (char *)op;
	n->op.prio = 0;
	n->op.left = l;
	n->op.right = r;
	return n;
}

static struct tep_print_arg *mk_atom(struct text_width_bound *b, int i,
				     long long v)
{
	struct tep_print_arg *n = &b->atom[i];

	snprintf(b->num[i], sizeof(b->num[i]), "%lld", v);
	n->next = NULL;
	n->type = TEP_PRINT_ATOM;
	n->atom.atom = b->num[i];
	return n;
}

/*
 * What a negative value becomes.  libtraceevent hands printf the value
 * only when it is not negative ("plen >= 0"), else the conversion takes
 * its width from the next argument and its value (a string's address)
 * from beyond the arguments: garbage, or a crash.  Here, what C makes of
 * a negative precision (none: a number's is then 1, a string is printed
 * whole, up to the bound) and a width of 0.
 */
static long long negative(enum star_use use)
{
	switch (use) {
	case STAR_NUM_PREC:
		return 1;
	case STAR_STR_PREC:
		return TEXT_FORMAT_MAX_WIDTH;
	default:
		return 0;
	}
}

/*
 * Turn @arg into, with x its old value and B the bound (all unsigned
 * 64-bit as eval_num_arg() computes, then cut to int by the library):
 *   (x & 0xffffffff) <= B ? x : ((x & 0x80000000) ? negative() : B)
 * so x stays when (int)x lies in [0, B].
 */
static void wrap(struct text_width_bound *b, struct tep_print_arg *arg,
		 enum star_use use)
{
	const long long B = TEXT_FORMAT_MAX_WIDTH;
	struct tep_print_arg *x = &b->orig, *cond, *pick_sign;

	b->arg = arg;
	b->orig = *arg;
	b->orig.next = NULL;
	cond = mk_op(&b->op[0], "<=",
		     mk_op(&b->op[1], "&", x, mk_atom(b, 0, 0xffffffffll)),
		     mk_atom(b, 1, B));
	pick_sign = mk_op(&b->op[2], "?",
			  mk_op(&b->op[3], "&", x, mk_atom(b, 2, 0x80000000ll)),
			  mk_op(&b->op[4], ":", mk_atom(b, 3, negative(use)),
				mk_atom(b, 4, B)));
	/* the argument's own node, so its next and its address stay */
	arg->type = TEP_PRINT_OP;
	arg->op.op = (char *)"?";
	arg->op.prio = 0;
	arg->op.left = cond;
	arg->op.right = mk_op(&b->op[5], ":", x, pick_sign);
}

/**
 * text_width_bound_event() - bound the '*' arguments of a parsed event
 * @ev: the event, just parsed
 * @list: the handle's bounds, which the new ones join
 *
 * Walks the print format as parse_args() does (an event libtraceevent
 * failed, or one of trace_printk()'s, whose format comes with each
 * record, has no print cache and is left alone).
 *
 * Return: 0, or -ENOMEM (the bounds already made stay on @list).
 */
int text_width_bound_event(struct tep_event *ev,
			   struct text_width_bound **list)
{
	struct tep_print_arg *a = ev->print_fmt.args, *star;
	const char *p = ev->print_fmt.format;
	enum star_use use = STAR_NUM_WIDTH;

	if (!p || (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT)))
		return 0;
	while (p && *p) {
		struct text_width_bound *b;

		if (p[0] != '%' || p[1] == '%') {
			p = skip_text(p);
			continue;
		}
		p = conv(p, &a, &star, &use);
		if (!star)
			continue;
		b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		wrap(b, star, use);
		b->next = *list;
		*list = b;
	}
	return 0;
}

/**
 * text_width_bound_undo() - put the arguments back and free the bounds
 * @list: a handle's bounds; NULL is fine
 *
 * Context: before the events of the handle are freed.
 */
void text_width_bound_undo(struct text_width_bound *list)
{
	while (list) {
		struct text_width_bound *b = list;
		struct tep_print_arg *next = b->arg->next;

		*b->arg = b->orig;
		b->arg->next = next;
		list = b->next;
		free(b);
	}
}
