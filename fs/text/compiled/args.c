/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/compiled/args.c - the argument trees of a print format, compiled
 * into the nodes of a fast program (text/compiled/internal.h).
 *
 * libtraceevent has parsed each argument of an event's print format into
 * a tree (event->print_fmt.args).  At print time it walks the tree for
 * every record: eval_num_arg() for a number, print_str_arg() for "%s".
 * Here the tree is walked once and turned into nodes that compute the
 * same values.  What is reproduced (libtraceevent 1.7.1):
 *  - a field is tep_read_number() of its size at its offset, 0 when it
 *    lies past the record (check_data_offset_size());
 *  - an atom is strtoull(atom, 0); one that reads 0 and does not start
 *    with a digit is a name looked up in the handle's function list
 *    (test_for_symbol(), a kernel symbol's address): 0 for a name the
 *    trace's kallsyms lacks (text_tep_atom_value()), else the argument is
 *    refused and libtraceevent evaluates it;
 *  - a cast is eval_type_str(): a mask for the integer types it knows;
 *  - the operators on unsigned long long, both sides always evaluated,
 *    '?' ':' by the condition, "[" an element of a fixed array;
 *  - __print_flags(): eval_flag() of each value (a number, a softirq or
 *    hrtimer name, else -1), names in the table's order, each flag taken
 *    out of the value as it is printed, what is left as "0x%llx", the
 *    delimiter between printed parts; a value of 0 prints the first
 *    entry whose value is negative;
 *  - __print_symbolic(): the first entry equal to the value, else
 *    "0x%llx" of the value;
 *  - "%s" of an atom, of a char array, of __get_str(), of cond ? a : b.
 * Anything else (functions, dynamic arrays, hex, bitmasks, unknown
 * operators, a division by a value that may be 0, a shift by one that
 * may be 64 or more) is refused, and the event is left to libtraceevent.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include "tep.h"

/**
 * text_compiled_lit() - add bytes to a program's literal pool
 * @fp: program being made
 * @s: the bytes
 * @n: their count
 * @off: set to their offset in the pool
 * @len: set to @n
 *
 * Return: 0, or -E2BIG when the pool is full.
 */
int text_compiled_lit(struct text_compiled *fp, const char *s, size_t n,
		      uint16_t *off, uint16_t *len)
{
	if (n > FAST_MAX_LIT - fp->lit_len)
		return -E2BIG;
	*off = fp->lit_len;
	*len = n;
	memcpy(fp->lit + fp->lit_len, s, n);
	fp->lit_len += n;
	return 0;
}

/**
 * text_compiled_apply() - one of eval_num_arg()'s operators
 * @op: enum fx_op, neither FX_CONST, FX_FIELD, FX_MASK nor FX_COND
 * @l: left value
 * @r: right value
 *
 * The caller makes sure a divisor is not 0 and a shift is below 64.
 *
 * Return: the value libtraceevent computes.
 */
uint64_t text_compiled_apply(unsigned int op, uint64_t l, uint64_t r)
{
	switch (op) {
	case FX_NOT:	return !r;
	case FX_INV:	return ~r;
	case FX_OR:	return l | r;
	case FX_LOR:	return l || r;
	case FX_AND:	return l & r;
	case FX_LAND:	return l && r;
	case FX_LT:	return l < r;
	case FX_SHL:	return l << r;
	case FX_LE:	return l <= r;
	case FX_GT:	return l > r;
	case FX_SHR:	return l >> r;
	case FX_GE:	return l >= r;
	case FX_EQ:	return l == r;
	case FX_NE:	return l != r;
	case FX_SUB:	return l - r;
	case FX_ADD:	return l + r;
	case FX_DIV:	return l / r;
	case FX_MOD:	return l % r;
	case FX_MUL:	return l * r;
	}
	return 0;
}

static const struct {
	const char *op;
	enum fx_op fx;
} fx_ops[] = {
	{ "!", FX_NOT }, { "~", FX_INV }, { "|", FX_OR }, { "||", FX_LOR },
	{ "&", FX_AND }, { "&&", FX_LAND }, { "<", FX_LT }, { "<<", FX_SHL },
	{ "<=", FX_LE }, { ">", FX_GT }, { ">>", FX_SHR }, { ">=", FX_GE },
	{ "==", FX_EQ }, { "!=", FX_NE }, { "-", FX_SUB }, { "+", FX_ADD },
	{ "/", FX_DIV }, { "%", FX_MOD }, { "*", FX_MUL },
};

static int new_x(struct text_compiled *fp, unsigned int op)
{
	if (fp->nx == FAST_MAX_X)
		return -E2BIG;
	memset(&fp->x[fp->nx], 0, sizeof(fp->x[0]));
	fp->x[fp->nx].op = op;
	return fp->nx++;
}

static int new_s(struct text_compiled *fp, unsigned int kind)
{
	if (fp->ns == FAST_MAX_S)
		return -E2BIG;
	memset(&fp->s[fp->ns], 0, sizeof(fp->s[0]));
	fp->s[fp->ns].kind = kind;
	return fp->ns++;
}

static int const_x(struct text_compiled *fp, uint64_t k)
{
	int i = new_x(fp, FX_CONST);

	if (i >= 0)
		fp->x[i].k = k;
	return i;
}

/*
 * eval_type_str(val, type, 0) as a mask: the integer types it knows are
 * masks ("s8" is (char)val & 0xff, the same bits), all else keeps val.
 */
static uint64_t cast_mask(const char *type)
{
	size_t len = strlen(type);

	if (len < 2 || type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return ~0ull;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return 0xff;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return 0xffff;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return 0xffffffff;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return 0xff;
	if (!strcmp(type, "short"))
		return 0xffff;
	if (!strcmp(type, "int"))
		return 0xffffffff;
	return ~0ull;
}

static bool is_number_size(unsigned int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

static struct tep_format_field *arg_field(struct tep_event *ev,
					  struct tep_print_arg *arg)
{
	if (arg->field.field)
		return arg->field.field;
	return arg->field.name ? tep_find_any_field(ev, arg->field.name) : NULL;
}

/* A field read as tep_read_number() reads it. */
static int field_x(struct text_compiled *fp, struct tep_event *ev,
		   struct tep_print_arg *arg)
{
	struct tep_format_field *fl = arg_field(ev, arg);
	int i;

	if (!fl || fl->offset < 0 || fl->size <= 0 || !is_number_size(fl->size))
		return -EINVAL;
	i = new_x(fp, FX_FIELD);
	if (i < 0)
		return i;
	fp->x[i].off = fl->offset;
	fp->x[i].size = fl->size;
	fp->x[i].k = ~0ull;
	return i;
}

/* REC->array[constant], without a cast on the array (a pointer cast). */
static int index_x(struct text_compiled *fp, struct tep_event *ev,
		   struct tep_print_arg *arg, unsigned int depth)
{
	struct tep_print_arg *l = arg->op.left;
	struct tep_format_field *fl;
	uint64_t idx;
	int r, i;

	if (!l || l->type != TEP_PRINT_FIELD)
		return -EINVAL;
	r = text_compiled_num_arg(fp, ev, arg->op.right, depth + 1);
	if (r < 0)
		return r;
	if (fp->x[r].op != FX_CONST)
		return -EINVAL;
	idx = fp->x[r].k;
	fl = arg_field(ev, l);
	if (!fl || !(fl->flags & TEP_FIELD_IS_ARRAY) ||
	    (fl->flags & TEP_FIELD_IS_DYNAMIC) || fl->offset < 0 ||
	    !is_number_size(fl->elementsize) || idx >= 65536)
		return -EINVAL;
	i = new_x(fp, FX_FIELD);
	if (i < 0)
		return i;
	fp->x[i].off = fl->offset + idx * fl->elementsize;
	fp->x[i].size = fl->elementsize;
	fp->x[i].k = ~0ull;
	return i;
}

static int cast_x(struct text_compiled *fp, struct tep_event *ev,
		  struct tep_print_arg *arg, unsigned int depth)
{
	uint64_t mask;
	int c, i;

	if (!arg->typecast.type)
		return -EINVAL;
	c = text_compiled_num_arg(fp, ev, arg->typecast.item, depth + 1);
	if (c < 0)
		return c;
	mask = cast_mask(arg->typecast.type);
	if (mask == ~0ull)
		return c;
	/* the operand's node is this cast's own: narrow it in place */
	switch (fp->x[c].op) {
	case FX_CONST:
	case FX_FIELD:
	case FX_MASK:
		fp->x[c].k &= mask;
		return c;
	}
	i = new_x(fp, FX_MASK);
	if (i < 0)
		return i;
	fp->x[i].a = c;
	fp->x[i].k = mask;
	return i;
}

typedef int compile_fn(struct text_compiled *fp, struct tep_event *ev,
			struct tep_print_arg *arg, unsigned int depth);

/* The two sides of operator @arg, both compiled by @fn: 0 or an errno. */
static int both(struct text_compiled *fp, struct tep_event *ev,
		struct tep_print_arg *arg, unsigned int depth, compile_fn *fn,
		int *l, int *r)
{
	*l = fn(fp, ev, arg->op.left, depth + 1);
	if (*l < 0)
		return *l;
	*r = fn(fp, ev, arg->op.right, depth + 1);
	return *r < 0 ? *r : 0;
}

/*
 * cond ? a : b, the right side being the ':' operator: a number node
 * (eval_num_arg()) or, for @str, a string node (print_str_arg()).
 */
static int cond_arg(struct text_compiled *fp, struct tep_event *ev,
		    struct tep_print_arg *arg, unsigned int depth, bool str)
{
	compile_fn *branch = str ? text_compiled_str_arg :
				   text_compiled_num_arg;
	struct tep_print_arg *r = arg->op.right;
	int a, b, c, i;

	/* print_str_arg() prints nothing for an operator other than '?' */
	if (!arg->op.op || strcmp(arg->op.op, "?") || !r ||
	    r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":"))
		return -EINVAL;
	a = text_compiled_num_arg(fp, ev, arg->op.left, depth + 1);
	if (a < 0)
		return a;
	i = both(fp, ev, r, depth, branch, &b, &c);
	if (i < 0)
		return i;
	if (fp->x[a].op == FX_CONST)
		return fp->x[a].k ? b : c;
	i = str ? new_s(fp, FS_COND) : new_x(fp, FX_COND);
	if (i < 0)
		return i;
	if (str) {
		fp->s[i].a = a;
		fp->s[i].b = b;
		fp->s[i].c = c;
	} else {
		fp->x[i].a = a;
		fp->x[i].b = b;
		fp->x[i].c = c;
	}
	return i;
}

static int op_x(struct text_compiled *fp, struct tep_event *ev,
		struct tep_print_arg *arg, unsigned int depth)
{
	const char *op = arg->op.op;
	unsigned int k;
	int l, r, i;

	if (!op)
		return -EINVAL;
	if (!strcmp(op, "["))
		return index_x(fp, ev, arg, depth);
	if (!strcmp(op, "?"))
		return cond_arg(fp, ev, arg, depth, false);
	for (k = 0; k < sizeof(fx_ops) / sizeof(fx_ops[0]); k++)
		if (!strcmp(op, fx_ops[k].op))
			break;
	if (k == sizeof(fx_ops) / sizeof(fx_ops[0]))
		return -EINVAL;
	/* both sides are evaluated, a unary operator's (empty) left too */
	i = both(fp, ev, arg, depth, text_compiled_num_arg, &l, &r);
	if (i < 0)
		return i;
	switch (fx_ops[k].fx) {
	case FX_DIV:
	case FX_MOD:
		if (fp->x[r].op != FX_CONST || !fp->x[r].k)
			return -EINVAL;
		break;
	case FX_SHL:
	case FX_SHR:
		if (fp->x[r].op != FX_CONST || fp->x[r].k >= 64)
			return -EINVAL;
		break;
	default:
		break;
	}
	if (fp->x[l].op == FX_CONST && fp->x[r].op == FX_CONST)
		return const_x(fp, text_compiled_apply(fx_ops[k].fx, fp->x[l].k,
						       fp->x[r].k));
	i = new_x(fp, fx_ops[k].fx);
	if (i < 0)
		return i;
	fp->x[i].a = l;
	fp->x[i].b = r;
	return i;
}

/**
 * text_compiled_num_arg() - compile an argument that is printed as a number
 * @fp: program being made
 * @ev: the event
 * @arg: the argument's tree
 * @depth: how deep in a tree @arg is
 *
 * Return: the index of its node in @fp->x, or a negative errno when it is
 * not compiled (-EINVAL: libtraceevent's; -E2BIG: too big).
 * Context: the tep lock is held (the tree is libtraceevent's).
 */
int text_compiled_num_arg(struct text_compiled *fp, struct tep_event *ev,
			  struct tep_print_arg *arg, unsigned int depth)
{
	if (!arg || depth > FAST_MAX_DEPTH)
		return -EINVAL;
	switch (arg->type) {
	case TEP_PRINT_NULL:
		return const_x(fp, 0);
	case TEP_PRINT_ATOM:
		if (!arg->atom.atom)
			return -EINVAL;
		/*
		 * a name is a kernel symbol's address (test_for_symbol(),
		 * text/tep.c registers it): compiled where that is known
		 * for good, else left to libtraceevent
		 */
		if (!isdigit((unsigned char)arg->atom.atom[0]) &&
		    !strtoull(arg->atom.atom, NULL, 0)) {
			uint64_t v;

			if (!fp->tt || text_tep_atom_value(fp->tt, arg->atom.atom,
							   &v) < 0)
				return -EINVAL;
			return const_x(fp, v);
		}
		return const_x(fp, strtoull(arg->atom.atom, NULL, 0));
	case TEP_PRINT_FIELD:
		return field_x(fp, ev, arg);
	case TEP_PRINT_TYPE:
		return cast_x(fp, ev, arg, depth);
	case TEP_PRINT_OP:
		return op_x(fp, ev, arg, depth);
	default:
		return -EINVAL;
	}
}

/* libtraceevent's eval_flag(): a number, a known name, or -1. */
static int64_t flag_value(const char *v)
{
	static const struct {
		const char *name;
		int64_t value;
	} names[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 },
		{ "NET_TX_SOFTIRQ", 2 }, { "NET_RX_SOFTIRQ", 3 },
		{ "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 },
		{ "HRTIMER_SOFTIRQ", 8 }, { "RCU_SOFTIRQ", 9 },
		{ "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};
	unsigned int i;

	if (isdigit((unsigned char)v[0]))
		return (int64_t)strtoull(v, NULL, 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, v))
			return names[i].value;
	return -1;
}

/* The entries of a flag or symbol table, in their order. */
static int flag_table(struct text_compiled *fp, struct tep_print_flag_sym *fs,
		      struct fast_s *s)
{
	s->lo = fp->nflags;
	for (; fs; fs = fs->next) {
		struct fast_flag *f = &fp->f[fp->nflags];

		if (fp->nflags == FAST_MAX_FLAGS)
			return -E2BIG;
		if (!fs->value || !fs->str)
			return -EINVAL;
		f->val = flag_value(fs->value);
		if (text_compiled_lit(fp, fs->str, strlen(fs->str), &f->lit_off,
				      &f->lit_len) < 0)
			return -E2BIG;
		fp->nflags++;
	}
	s->hi = fp->nflags;
	return 0;
}

static int flags_s(struct text_compiled *fp, struct tep_event *ev,
		   struct tep_print_arg *arg, unsigned int depth)
{
	bool flags = arg->type == TEP_PRINT_FLAGS;
	int a, i, ret;

	a = text_compiled_num_arg(fp, ev,
				  flags ? arg->flags.field : arg->symbol.field,
				  depth + 1);
	if (a < 0)
		return a;
	i = new_s(fp, flags ? FS_FLAGS : FS_SYMBOL);
	if (i < 0)
		return i;
	fp->s[i].a = a;
	if (flags && arg->flags.delim) {
		fp->s[i].delim = true;
		ret = text_compiled_lit(fp, arg->flags.delim,
					strlen(arg->flags.delim),
					&fp->s[i].lit_off, &fp->s[i].lit_len);
		if (ret < 0)
			return ret;
	}
	ret = flag_table(fp, flags ? arg->flags.flags : arg->symbol.symbols,
			 &fp->s[i]);
	return ret < 0 ? ret : i;
}

/* a fixed char array, or __get_str() of a __data_loc field */
static int field_s(struct text_compiled *fp, struct tep_event *ev,
		   struct tep_print_arg *arg)
{
	struct tep_format_field *fl;
	int i;

	if (arg->type == TEP_PRINT_FIELD) {
		fl = arg_field(ev, arg);
		if (!fl || !(fl->flags & TEP_FIELD_IS_ARRAY) ||
		    (fl->flags & TEP_FIELD_IS_DYNAMIC) || fl->offset < 0 || fl->size <= 0)
			return -EINVAL;
		i = new_s(fp, FS_ARRAY);
		if (i < 0)
			return i;
		fp->s[i].off = fl->offset;
		fp->s[i].len = fl->size;
		return i;
	}
	if (!arg->string.string)
		return -EINVAL;
	fl = tep_find_any_field(ev, arg->string.string);
	if (!fl || !(fl->flags & TEP_FIELD_IS_DYNAMIC) || fl->offset < 0 ||
	    fl->size != 4)
		return -EINVAL;
	i = new_s(fp, FS_DLOC);
	if (i < 0)
		return i;
	fp->s[i].off = fl->offset;
	fp->s[i].len = fl->offset + fl->size;
	fp->s[i].relative = fl->flags & TEP_FIELD_IS_RELATIVE;
	return i;
}

/**
 * text_compiled_str_arg() - compile an argument that is printed with "%s"
 * @fp: program being made
 * @ev: the event
 * @arg: the argument's tree
 * @depth: how deep in a tree @arg is
 *
 * Return: the index of its node in @fp->s, or a negative errno when it is
 * not compiled.
 * Context: the tep lock is held.
 */
int text_compiled_str_arg(struct text_compiled *fp, struct tep_event *ev,
			  struct tep_print_arg *arg, unsigned int depth)
{
	int i, ret;

	if (!arg || depth > FAST_MAX_DEPTH)
		return -EINVAL;
	switch (arg->type) {
	case TEP_PRINT_NULL:
		return new_s(fp, FS_NONE);
	case TEP_PRINT_ATOM:
		if (!arg->atom.atom)
			return -EINVAL;
		i = new_s(fp, FS_LIT);
		if (i < 0)
			return i;
		ret = text_compiled_lit(fp, arg->atom.atom,
					strlen(arg->atom.atom),
					&fp->s[i].lit_off, &fp->s[i].lit_len);
		return ret < 0 ? ret : i;
	case TEP_PRINT_FIELD:
	case TEP_PRINT_STRING:
		return field_s(fp, ev, arg);
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL:
		return flags_s(fp, ev, arg, depth);
	case TEP_PRINT_OP:
		return cond_arg(fp, ev, arg, depth, true);
	default:
		return -EINVAL;
	}
}
