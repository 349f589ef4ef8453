/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/compiled/internal.h - the compiled info format's program, shared by
 * its two halves: text/compiled/program.c (the format text, the runner) and
 * text/compiled/args.c (the argument trees libtraceevent parsed).
 *
 * Invariants:
 *  - A program is a list of steps, each a literal followed by one
 *    conversion; a conversion's value is a node of x[] (numbers) or s[]
 *    (strings); nodes refer to nodes made before them only, so every
 *    evaluation ends (and its depth is bounded by FAST_MAX_DEPTH).
 *  - Each node does what libtraceevent 1.7.1 does for the argument it
 *    was made from: x[] what eval_num_arg() computes, s[] what
 *    print_str_arg() prints.  A node whose result could differ (a
 *    division by zero, a shift by 64 or more, an unknown operator) is
 *    never made: the compiler refuses and the event goes to libtraceevent.
 *  - Literal text (format literals, flag and symbol names, delimiters)
 *    is in lit[]; offsets and lengths always lie inside lit_len.
 *  - A program is read-only once made; @ks, when set, is the engine's own
 *    kallsyms table (text_kallsyms_own()), which is searched without a lock.
 *  - @site is set only for an event whose handler is libtraceevent's
 *    kmem plugin's (call_site_handler() of plugin_kmem.so), which prints
 *    its prefix and then the format.
 *  - @sched.kind is set only for an event whose handler is the sched
 *    plugin's (plugin_sched_switch.so); the program then has no steps:
 *    the handler's text is all (text/compiled/sched.c).  Its fields
 *    are fixed fields of sizes tep_read_number_field() reads (comms:
 *    plain arrays); size 0 is a field the format does not have.
 */
#ifndef TDATFS_TEXT_COMPILED_INTERNAL_H
#define TDATFS_TEXT_COMPILED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct tep_print_arg;
struct tdatfs_buf;
struct text_kallsyms;
struct text_tep;

enum {
	FAST_MAX_STEPS	= 32,
	FAST_MAX_X	= 160,
	FAST_MAX_S	= 48,
	FAST_MAX_FLAGS	= 256,
	FAST_MAX_LIT	= 6144,
	FAST_MAX_DEPTH	= 48,
};

enum fast_kind {
	FAST_END,		/* the final literal only */
	FAST_NUM,		/* an integer conversion of x[node] */
	FAST_STR,		/* "%s" of s[node] */
	FAST_PTR,		/* "%p" of x[node] */
	FAST_FUNC,		/* "%pS"/"%ps" (and F/f) of x[node] */
};

/* x[] operators: eval_num_arg()'s, on unsigned long long */
enum fx_op {
	FX_CONST,		/* k */
	FX_FIELD,		/* size bytes at off, & k; 0 past the record */
	FX_MASK,		/* x[a] & k: an integer type cast */
	FX_COND,		/* x[a] ? x[b] : x[c] */
	FX_NOT,			/* !x[b] */
	FX_INV,			/* ~x[b] */
	FX_OR, FX_LOR, FX_AND, FX_LAND,
	FX_LT, FX_SHL, FX_LE, FX_GT, FX_SHR, FX_GE, FX_EQ, FX_NE,
	FX_SUB, FX_ADD, FX_DIV, FX_MOD, FX_MUL,
};

struct fast_x {
	uint8_t op;		/* enum fx_op */
	uint8_t size;		/* FX_FIELD: 1, 2, 4, 8 */
	uint16_t a, b, c;	/* operands, indexes into x[] */
	uint32_t off;		/* FX_FIELD: offset in the record */
	uint64_t k;		/* FX_CONST: value; FX_FIELD, FX_MASK: mask */
};

/* s[] kinds: print_str_arg()'s cases */
enum fs_kind {
	FS_NONE,		/* prints nothing */
	FS_LIT,			/* an atom: lit[lit_off..+lit_len] */
	FS_ARRAY,		/* a char array: up to its first NUL */
	FS_DLOC,		/* __get_str(): a __data_loc / __rel_loc string */
	FS_FLAGS,		/* __print_flags(x[a], delim, f[lo..hi)) */
	FS_SYMBOL,		/* __print_symbolic(x[a], f[lo..hi)) */
	FS_COND,		/* x[a] ? s[b] : s[c] */
};

struct fast_s {
	uint8_t kind;		/* enum fs_kind */
	bool relative;		/* FS_DLOC: __rel_loc */
	bool delim;		/* FS_FLAGS: a delimiter was given */
	uint16_t a, b, c;	/* FS_COND, FS_FLAGS, FS_SYMBOL operands */
	uint16_t lo, hi;	/* FS_FLAGS, FS_SYMBOL: entries of f[] */
	uint16_t lit_off;	/* FS_LIT text, FS_FLAGS delimiter */
	uint16_t lit_len;
	uint32_t off;		/* FS_ARRAY, FS_DLOC: field offset */
	uint32_t len;		/* FS_ARRAY: bytes; FS_DLOC: end of the loc */
};

/* a flag or symbol: eval_flag() of its value, and its name in lit[] */
struct fast_flag {
	int64_t val;
	uint16_t lit_off;
	uint16_t lit_len;
};

/* how a number step is written: the common shapes need no put_int() */
enum fast_form {
	FORM_ANY,		/* put_int(): any flags and width */
	FORM_HEX,		/* "%x"/"%X" or "%0<w>x": max(digits, w) digits */
	FORM_DEC,		/* "%d"/"%u", or "%0<w>u": max(digits, w) */
};

struct fast_step {
	uint16_t lit_off;	/* literal before the conversion, in lit[] */
	uint16_t lit_len;
	uint8_t kind;		/* enum fast_kind */
	bool is_signed;
	bool upper;
	bool left;
	bool zero;
	bool alt;
	bool offset;		/* FAST_FUNC: "+0x<offset>" (%pS, %pF) */
	uint8_t base;		/* 10 or 16 */
	uint8_t bits;		/* printf's width of the value: 8..64 */
	uint8_t width;
	uint16_t node;		/* x[] or s[] */
	/* FAST_NUM, FAST_PTR of a field under masks only (text_compiled_
	 * direct()): dsize bytes at doff, & dmask; dsize 0: eval x[node] */
	uint8_t dsize;
	uint32_t doff;
	uint64_t dmask;
	/* FAST_NUM (shape_steps() of program.c): how put_num() writes it */
	uint8_t form;		/* enum fast_form */
	bool lit16;		/* any step: its literal may be copied as 16 bytes */
	uint64_t vmask;		/* printf's width of the value, as a mask */
	uint64_t sbit;		/* its sign bit for d/i, else 0 */
	uint64_t nmask;		/* dsize: dmask & vmask & dsize's bytes */
	uint32_t dend;		/* dsize: doff + 8; else UINT32_MAX */
};

/* a field of a sched handler: a number or a comm array */
struct fast_fld {
	uint32_t off;
	uint32_t size;		/* 0: none */
};

enum fast_sched_kind {
	FAST_SCHED_NONE,
	FAST_SCHED_SWITCH,	/* sched_switch_handler() */
	FAST_SCHED_WAKEUP,	/* sched_wakeup_handler() */
};

/* the sched plugin's handler: prev (or the woken task), next, extras */
struct fast_sched {
	uint8_t kind;		/* enum fast_sched_kind */
	struct fast_fld pid, comm, prio, state;
	struct fast_fld npid, ncomm, nprio;
	struct fast_fld success, cpu;
};

struct text_compiled {
	struct text_kallsyms *ks; /* FAST_FUNC: the symbols, NULL for none */
	struct text_tep *tt;	/* while it is made: the handle (args.c's
				 * name atoms); NULL once made */
	struct fast_sched sched;	/* the sched plugin's handler */
	bool site;		/* the kmem plugin's "(func+0x<off>) " first */
	uint8_t site_size;	/* its call_site field */
	uint32_t site_off;
	unsigned int nsteps;
	unsigned int nx, ns, nflags;
	unsigned int lit_len;
	/* every step but the last a FAST_NUM: one room of @room bytes
	 * holds the whole text (shape_steps() of program.c); 0 otherwise */
	unsigned int room;
	struct fast_step step[FAST_MAX_STEPS];
	struct fast_x x[FAST_MAX_X];
	struct fast_s s[FAST_MAX_S];
	struct fast_flag f[FAST_MAX_FLAGS];
	char lit[FAST_MAX_LIT];
};

int text_compiled_lit(struct text_compiled *fp, const char *s, size_t n,
		      uint16_t *off, uint16_t *len);
int text_compiled_num_arg(struct text_compiled *fp, struct tep_event *ev,
			  struct tep_print_arg *arg, unsigned int depth);
int text_compiled_str_arg(struct text_compiled *fp, struct tep_event *ev,
			  struct tep_print_arg *arg, unsigned int depth);
uint64_t text_compiled_apply(unsigned int op, uint64_t l, uint64_t r);
bool text_compiled_handler_from(const struct tep_event *ev, const char *so);
int text_compiled_sched_compile(struct text_compiled *fp, struct tep_event *ev);
int text_compiled_sched_info(const struct text_compiled *fp, bool big_endian,
			     const unsigned char *data, struct tdatfs_buf *out);

#endif /* TDATFS_TEXT_COMPILED_INTERNAL_H */
