// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-trace - write a trace.dat file that this machine cannot record
 * (function_graph, kernel and user stacks, the function tracer) from the
 * real formats of a recorded template trace, for `trace-cmd report` to be
 * the oracle of the text.
 *
 *   gen-trace [-v 6|7] [-V STRING] TEMPLATE SCENARIO OUT COUNTS
 *   gen-trace --list
 *
 * --list names the scenarios whose every record trace-cmd shows as
 * written (tests/gen/gen-vs-report.sh); those of gen-formats.c, whose
 * formats are damaged on purpose, are run by name (gen-parity.sh).
 *
 * COUNTS receives one line "EVENT CPU N" per event and CPU: the lines
 * trace-cmd report is expected to show with that event name.  That is
 * the records written, less each funcgraph_exit trace-cmd prints on the
 * line of its entry (a leaf call, see hidden_exits()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-trace.h"
#include "gen-rec.h"
#include "gen-formats.h"

#define US	1000ULL
#define MS	1000000ULL
#define SEC	1000000000ULL

/* nested calls four deep, with leaves at every level */
static void sc_nested(struct gen_ctx *c)
{
	int pid = gen_pid(c, 0);

	for (unsigned int round = 0; round < 2; round++) {
		gen_enter(c, 0, pid, gen_sym(c, 0), 0);
		gen_leaf(c, 0, pid, gen_sym(c, 1), 300, 0);
		gen_enter(c, 0, pid, gen_sym(c, 2), 0);
		gen_enter(c, 0, pid, gen_sym(c, 3), 0);
		gen_leaf(c, 0, pid, gen_sym(c, 4), 120, 0);
		gen_enter(c, 0, pid, gen_sym(c, 5), 0);
		gen_leaf(c, 0, pid, gen_sym(c, 6), 80, 0);
		gen_wait(c, 0, 400);
		gen_leave(c, 0, pid, 0);
		gen_leave(c, 0, pid, 0);
		gen_leaf(c, 0, pid, gen_sym(c, 7), 2 * US, 0);
		gen_leave(c, 0, pid, 0);
		gen_leave(c, 0, pid, 0);
		gen_wait(c, 0, 5 * US);
	}
}

/* leaf calls only, at depth 0 and 1 */
static void sc_leaf(struct gen_ctx *c)
{
	int pid = gen_pid(c, 1);

	for (unsigned int i = 0; i < 6; i++) {
		gen_leaf(c, 0, pid, gen_sym(c, 8 + i), 100 + 250 * i, 0);
		gen_wait(c, 0, 700);
	}
	gen_enter(c, 0, pid, gen_sym(c, 0), 0);
	for (unsigned int i = 0; i < 4; i++)
		gen_leaf(c, 0, pid, gen_sym(c, 14 + i), 60 + 40 * i, 0);
	gen_leave(c, 0, pid, 0);
}

/*
 * exits on the page after their entries: a nested call whose exit opens a
 * page, a leaf whose exit opens the next one, and calls enough to fill
 * pages on their own
 */
static void sc_page_break(struct gen_ctx *c)
{
	int pid = gen_pid(c, 0);

	gen_enter(c, 0, pid, gen_sym(c, 0), 0);
	gen_leaf(c, 0, pid, gen_sym(c, 1), 200, 0);
	gen_leaf(c, 0, pid, gen_sym(c, 2), 200, 0);
	gen_leave(c, 0, pid, 0)->new_page = true;
	gen_wait(c, 0, US);
	gen_enter(c, 0, pid, gen_sym(c, 3), 0);
	gen_wait(c, 0, 500);
	gen_leave(c, 0, pid, 0)->new_page = true;
	gen_wait(c, 0, US);
	gen_enter(c, 0, pid, gen_sym(c, 4), 0);
	for (unsigned int i = 0; i < 150; i++)
		gen_leaf(c, 0, pid, gen_sym(c, 5 + i % 20), 50 + i, 0);
	gen_leave(c, 0, pid, 0);
}

/*
 * exits whose entries were lost: one at the very start of the trace, and
 * one at the start of a page that says events were lost before it
 */
static void sc_dropped(struct gen_ctx *c)
{
	int pid = gen_pid(c, 0);
	struct gen_rec *r;

	gen_exit_raw(c, 0, pid, gen_sym(c, 9), 1, c->now[0] - 3 * US, 0);
	gen_wait(c, 0, 200);
	gen_enter(c, 0, pid, gen_sym(c, 0), 0);
	gen_enter(c, 0, pid, gen_sym(c, 1), 0);
	gen_leaf(c, 0, pid, gen_sym(c, 2), 300, 0);
	gen_wait(c, 0, 2 * US);
	r = gen_exit_raw(c, 0, pid, gen_sym(c, 12), 2, c->now[0] - US, 0);
	r->new_page = true;
	r->missed = 5;
	gen_wait(c, 0, 100);
	gen_leave(c, 0, pid, 0);
	gen_leave(c, 0, pid, 0);
}

/*
 * two tasks on CPU 0 (one is switched out inside a call) and a third on
 * CPU 1, their times interleaved
 */
static void sc_interleave(struct gen_ctx *c)
{
	int a = gen_pid(c, 0), b = gen_pid(c, 1), d = gen_pid(c, 2);

	gen_wait(c, 1, 300);
	gen_enter(c, 0, a, gen_sym(c, 0), 0);
	gen_enter(c, 1, d, gen_sym(c, 10), 0);
	gen_enter(c, 0, a, gen_sym(c, 9), 0);
	gen_leaf(c, 1, d, gen_sym(c, 11), 700, 0);
	gen_wait(c, 0, 400);
	gen_enter(c, 0, b, gen_sym(c, 12), 0);	/* a was switched out */
	gen_leaf(c, 0, b, gen_sym(c, 13), 250, 0);
	gen_leaf(c, 1, d, gen_sym(c, 14), 150, 0);
	gen_leave(c, 0, b, 0);
	gen_leave(c, 1, d, 0);
	gen_leaf(c, 0, a, gen_sym(c, 15), 90, 0);
	gen_leaf(c, 1, d, gen_sym(c, 16), 90, 0);
	gen_leave(c, 0, a, 0);
	gen_leave(c, 0, a, 0);
}

/* an interrupt inside a call: irq_handler_entry/exit around its handler */
static void sc_irq(struct gen_ctx *c)
{
	const uint8_t irq = GEN_IRQS_OFF | GEN_HARDIRQ;
	int pid = gen_pid(c, 0);
	struct gen_rec *r;

	gen_enter(c, 0, pid, gen_sym(c, 0), 0);
	gen_enter(c, 0, pid, gen_sym(c, 1), 0);
	gen_wait(c, 0, 300);
	gen_enter(c, 0, pid, gen_sym(c, 16), irq);
	if (c->irq_entry) {
		r = gen_rec(c, 0, c->irq_entry, pid, irq);
		gen_set(r, "irq", 11);
		gen_set_str(r, "name", "eth0");
		gen_wait(c, 0, 200);
	}
	gen_leaf(c, 0, pid, gen_sym(c, 17), 350, irq);
	if (c->irq_exit) {
		r = gen_rec(c, 0, c->irq_exit, pid, irq);
		gen_set(r, "irq", 11);
		gen_set(r, "ret", 1);
		gen_wait(c, 0, 100);
	}
	gen_leave(c, 0, pid, irq);
	gen_leaf(c, 0, pid, gen_sym(c, 2), 200, 0);
	gen_leave(c, 0, pid, 0);
	gen_leave(c, 0, pid, 0);
}

/*
 * leaves and nested calls of each duration mark's threshold (10 us,
 * 100 us, 1 ms, 10 ms, 100 ms, 1 s): just below, exactly on and above it;
 * the gaps above 2^27 ns also need TIME_EXTEND records
 */
static void sc_durations(struct gen_ctx *c)
{
	static const uint64_t mark[] = { 10 * US, 100 * US, MS, 10 * MS, 100 * MS, SEC };
	int pid = gen_pid(c, 0);
	unsigned int n = 0;

	for (unsigned int m = 0; m < sizeof(mark) / sizeof(mark[0]); m++) {
		const uint64_t d[] = { mark[m] - 1, mark[m], mark[m] + 1, mark[m] * 3 / 2 };

		for (unsigned int i = 0; i < 4; i++, n++) {
			/* a leaf lasts its wait plus the entry's 130 ns */
			gen_leaf(c, 0, pid, gen_sym(c, n), d[i] - 130, 0);
			gen_wait(c, 0, US);
			/* entry 130 ns, inner leaf 130 + 200 + 90 ns, then the wait */
			gen_enter(c, 0, pid, gen_sym(c, 20), 0);
			gen_leaf(c, 0, pid, gen_sym(c, 21), 200, 0);
			gen_wait(c, 0, d[i] - 550);
			gen_leave(c, 0, pid, 0);
			gen_wait(c, 0, 2 * US);
		}
	}
}

/* kernel_stack records of 0, 1, 8 and 30 frames, each after a function record */
static void sc_kstack(struct gen_ctx *c)
{
	static const unsigned int frames[] = { 0, 1, 8, 30 };
	int pid = gen_pid(c, 1);
	struct gen_field caller;

	if (gen_field_find(c->kstack, "caller", &caller) < 0)
		exit(2);
	for (unsigned int i = 0; i < 4; i++) {
		struct gen_rec *r = gen_rec(c, 0, c->function, pid, 0);

		gen_set(r, "ip", gen_sym(c, i));
		gen_set(r, "parent_ip", gen_ret(c, i + 1));
		r = gen_rec(c, 0, c->kstack, pid, 0);
		r->len = caller.offset;	/* the frames decide the size */
		gen_set(r, "size", frames[i]);
		for (unsigned int f = 0; f < frames[i]; f++)
			gen_set_elem(r, "caller", f, gen_ret(c, i + 1 + f));
		gen_wait(c, 0, 3 * US);
	}
}

/* user_stack records: full, ended by a zero, ended by ULONG_MAX */
static void sc_ustack(struct gen_ctx *c)
{
	uint64_t base = c->t->klong == 8 ? 0x7f3a12000000ULL : 0xb7600000ULL;
	uint64_t all_ones = c->t->klong == 8 ? ~0ULL : 0xffffffffULL;
	static const unsigned int used[] = { 8, 3, 2 };
	int pid = gen_pid(c, 2);

	for (unsigned int i = 0; i < 3; i++) {
		struct gen_rec *r = gen_rec(c, i % 2, c->function, pid, 0);

		gen_set(r, "ip", gen_sym(c, 3 + i));
		gen_set(r, "parent_ip", gen_ret(c, 4 + i));
		r = gen_rec(c, i % 2, c->ustack, pid, 0);
		gen_set(r, "tgid", (uint64_t)pid);
		for (unsigned int f = 0; f < used[i]; f++)
			gen_set_elem(r, "caller", f, base + 0x1234 + 0x10101 * f);
		if (i == 2)
			gen_set_elem(r, "caller", used[i], all_ones);
		gen_wait(c, i % 2, 4 * US);
	}
}

/* the function tracer on two CPUs */
static void sc_function(struct gen_ctx *c)
{
	for (unsigned int i = 0; i < 24; i++) {
		unsigned int cpu = (i / 3) % 2;
		struct gen_rec *r = gen_rec(c, cpu, c->function, gen_pid(c, cpu), 0);

		gen_set(r, "ip", gen_sym(c, i));
		gen_set(r, "parent_ip", gen_ret(c, i + 5));
		gen_wait(c, cpu, 170 + 30 * i);
	}
}

/* A deterministic stream of numbers for the scenarios that want many records. */
static unsigned int gen_next(unsigned int *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

/* An address below every symbol: tep_find_function() resolves it to nothing. */
#define NO_SYM	0x100

/*
 * One function record on @cpu: a call of symbol @f (NO_SYM: an address
 * that does not resolve) from inside symbol @p; every 37th a func_repeats
 * record instead, when the template has the format.
 */
static void fn_call(struct gen_ctx *c, const struct gen_format *rep, unsigned int cpu,
		    unsigned int n, unsigned int f, unsigned int p)
{
	const struct gen_format *fmt = rep && n % 37 == 36 ? rep : c->function;
	struct gen_rec *r = gen_rec(c, cpu, fmt, gen_pid(c, cpu + 2 * (n % 2)), 0);

	gen_set(r, "ip", f == NO_SYM ? NO_SYM : gen_sym(c, f));
	gen_set(r, "parent_ip", p == NO_SYM ? NO_SYM + 8 : gen_ret(c, p));
	if (fmt == rep) {
		gen_set(r, "count", 2 + n % 5);
		gen_set(r, "top_delta_ts", n % 3 == 0);
		gen_set(r, "bottom_delta_ts", 150 + n % 400);
	}
}

/*
 * The function tracer's call stacks, from which the function plugin
 * indents (one per CPU): chains that go deeper, calls from a caller met
 * before (a shallower level), callers the stack does not hold (it starts
 * again at level 0 and keeps its deeper entries, which later calls meet
 * again), a caller or a function that does not resolve; two CPUs
 * interleaved, 3000 records: texts long enough for many checkpoints.
 */
static void sc_fncalls(struct gen_ctx *c)
{
	const struct gen_format *rep = gen_format_find(c->t, "ftrace", "func_repeats");
	unsigned int chain[GEN_MAX_CPUS][24] = { { 0 } }, depth[GEN_MAX_CPUS] = { 0 };
	unsigned int seed = 7, n, cpu, a, k, f, *ch, *d;

	for (n = 0; n < 3000; n++) {
		cpu = gen_next(&seed) % 4 == 0;
		a = gen_next(&seed) % 10;
		f = gen_next(&seed) % GEN_NSYMS;
		ch = chain[cpu];
		d = &depth[cpu];

		if (a < 5 && *d < 23) {			/* deeper */
			fn_call(c, rep, cpu, n, f, ch[*d]);
			ch[++*d] = f;
		} else if (a < 8) {			/* from a caller met before */
			k = *d ? gen_next(&seed) % *d : 0;
			fn_call(c, rep, cpu, n, f, ch[k]);
			*d = k + 1;
			ch[*d] = f;
		} else if (a == 8) {			/* from a caller not held */
			k = (f + 11) % GEN_NSYMS;
			fn_call(c, rep, cpu, n, f, k);
			ch[0] = k;
			ch[1] = f;
			*d = 1;
		} else {				/* what does not resolve */
			fn_call(c, rep, cpu, n, n % 2 ? NO_SYM : f, n % 2 ? ch[*d] : NO_SYM);
		}
		gen_wait(c, cpu, 200 + gen_next(&seed) % 500);
	}
}

/* One CPU's TIME_SHIFT samples: time (after GEN_T0), offset, scaling, fraction. */
struct ts_sample {
	int64_t time, offset, scaling, fraction;
};

/* Bytes of a TIME_SHIFT option (trace-cmd's layout) into tr->time_shift. */
static void put_time_shift_opt(struct gen_ctx *c, uint32_t flags, const struct ts_sample *s,
			       const uint32_t *count, uint32_t ncpus)
{
	static struct gen_buf b;	/* lives as long as the trace */
	const struct ts_sample *p;
	uint32_t i, k;

	gen_put64(&b, 0x5ca1ab1e0ddba11ULL);
	gen_put32(&b, flags);
	gen_put32(&b, ncpus);
	for (i = 0, p = s; i < ncpus; p += count[i++]) {
		gen_put32(&b, count[i]);
		for (k = 0; k < count[i]; k++)
			gen_put64(&b, GEN_T0 + (uint64_t)p[k].time);
		for (k = 0; k < count[i]; k++)
			gen_put64(&b, (uint64_t)p[k].offset);
		for (k = 0; k < count[i]; k++)
			gen_put64(&b, (uint64_t)p[k].scaling);
	}
	for (i = 0, p = s; i < ncpus; p += count[i++])
		for (k = 0; k < count[i]; k++)
			gen_put64(&b, (uint64_t)p[k].fraction);
	c->tr->time_shift = b.p;
	c->tr->time_shift_len = (uint32_t)b.len;
}

/*
 * function records on two CPUs, 1 us apart on each, raw times interleaved;
 * the samples move them by different amounts, so the merged order is that
 * of the corrected times.
 */
static void tshift_records(struct gen_ctx *c)
{
	for (unsigned int i = 0; i < 40; i++) {
		unsigned int cpu = i % 2;
		struct gen_rec *r = gen_rec(c, cpu, c->function, gen_pid(c, cpu), 0);

		gen_set(r, "ip", gen_sym(c, i));
		gen_set(r, "parent_ip", gen_ret(c, i + 3));
		gen_wait(c, cpu, i == 10 ? 1000 : 1000 + 37 * i);
	}
}

/*
 * Guest times corrected by interpolation: CPU 0 scaled by 4097/4096
 * (scaling and fraction bits), its samples unsorted in the file with one
 * time twice (the first kept); CPU 1 unscaled, offsets that grow and
 * shrink, records before the first and after the last sample and one on
 * a sample's time.
 */
static void sc_tshift(struct gen_ctx *c)
{
	static const struct ts_sample s[] = {
		{ 20000, -1220700000, 4097, 12 }, { 0, -1220703125, 4097, 12 },
		{ 20000, 5, 1, 0 }, { 45000, -1220690000, 4097, 12 },
		{ 2000, 1500, 1, 0 }, { 9000, -25000, 1, 0 }, { 14000, 40000, 1, 0 },
		{ 30000, -3000, 1, 0 },
	};
	static const uint32_t count[] = { 4, 4 };

	tshift_records(c);
	put_time_shift_opt(c, 1, s, count, 2);
}

/* The same records, step correction (no interpolation); CPU 1 has one sample. */
static void sc_tshift_step(struct gen_ctx *c)
{
	static const struct ts_sample s[] = {
		{ 0, 100000, 1, 0 }, { 7000, -4000, 1, 0 }, { 21000, 9000, 2, 1 },
		{ 5000, 2500, 7, 3 },
	};
	static const uint32_t count[] = { 3, 1 };

	tshift_records(c);
	put_time_shift_opt(c, 0, s, count, 2);
}

/*
 * set_chars() - bytes into a char field: a fixed array (zero-padded, cut
 * to its size) or the trailing char buf[] of ftrace/print (the record
 * ends after them and their NUL)
 */
static void set_chars(struct gen_rec *r, const char *name, const char *s, size_t n)
{
	struct gen_field f;

	if (gen_field_find(r->fmt, name, &f) < 0 || f.offset + n + 1 > GEN_REC_MAX) {
		fprintf(stderr, "gen-trace: %s: no room for %s\n", r->fmt->name, name);
		exit(2);
	}
	if (f.size == 0) {	/* trailing array */
		memcpy(r->data + f.offset, s, n);
		r->data[f.offset + n] = 0;
		r->len = f.offset + (unsigned int)n + 1;
		return;
	}
	memset(r->data + f.offset, 0, f.size);
	memcpy(r->data + f.offset, s, n < f.size - 1 ? n : f.size - 1);
}

static void tl_print(struct gen_ctx *c, unsigned int cpu, int pid, const char *s, size_t n)
{
	const struct gen_format *print = gen_format_find(c->t, "ftrace", "print");
	struct gen_rec *r;

	if (!print) {
		fprintf(stderr, "gen-trace: the template has no ftrace/print format\n");
		exit(2);
	}
	r = gen_rec(c, cpu, print, pid, 0);
	gen_set(r, "ip", gen_sym(c, 9));
	set_chars(r, "buf", s, n);
}

/* a switch on CPU 0 from task PREV (-1: idle) to NEXT, when the template has one */
static void tl_switch(struct gen_ctx *c, int prev, int next, int state)
{
	const struct gen_format *sw = gen_format_find(c->t, "sched", "sched_switch");
	const struct gen_task *tp = prev < 0 ? NULL : &c->t->tasks[prev];
	const struct gen_task *tn = next < 0 ? NULL : &c->t->tasks[next];
	struct gen_rec *r;

	if (!sw)
		return;
	r = gen_rec(c, 0, sw, tp ? tp->pid : 0, 0);
	set_chars(r, "prev_comm", tp ? tp->comm : "swapper/0", strlen(tp ? tp->comm : "swapper/0"));
	gen_set(r, "prev_pid", tp ? (uint64_t)tp->pid : 0);
	gen_set(r, "prev_prio", 120);
	gen_set(r, "prev_state", (uint64_t)state);
	set_chars(r, "next_comm", tn ? tn->comm : "swapper/0", strlen(tn ? tn->comm : "swapper/0"));
	gen_set(r, "next_pid", tn ? (uint64_t)tn->pid : 0);
	gen_set(r, "next_prio", 120);
}

/*
 * What a timeline.svg draws (tests/timeline): on CPU 0 prints around
 * sched_switch records (when the template has its format) with long,
 * idle and sub-pixel intervals, a switch whose prev_pid is not the task
 * that ran, the first and last record of the CPU prints; prints with a
 * tab, control bytes, UTF-8, 300 bytes, two lines, three in one pixel
 * column; CPU 1 only prints (no switch there).
 */
static void sc_timeline(struct gen_ctx *c)
{
	static const char ctl[] = "ctl:\x01\x7f\x1b[0m caf\xc3\xa9 <&> \"q\"";
	int a = 0, b = 1, t3 = 2;
	char lng[301];

	tl_print(c, 0, gen_pid(c, a), "timeline start\twith a tab", 25);
	gen_wait(c, 1, 500 * US);
	tl_print(c, 1, gen_pid(c, b), "cpu1 first", 10);
	gen_wait(c, 0, MS);
	tl_switch(c, a, b, 0);
	gen_wait(c, 0, 3 * MS);
	tl_switch(c, b, -1, 1);
	gen_wait(c, 0, 2 * MS);
	tl_switch(c, -1, a, 0);
	for (unsigned int i = 0; i < 30; i++) {
		gen_wait(c, 0, 2 * US + 37 * i);
		tl_switch(c, a, b, 0);
		gen_wait(c, 0, 2 * US);
		tl_switch(c, b, a, 0);
	}
	gen_wait(c, 1, 5 * MS);
	tl_print(c, 1, gen_pid(c, b), "cpu1 second", 11);
	gen_wait(c, 0, MS);
	for (unsigned int i = 0; i < 3; i++) {
		char one[] = "same column 1";

		one[sizeof(one) - 2] = (char)('1' + i);
		tl_print(c, 0, gen_pid(c, a), one, sizeof(one) - 1);
		gen_wait(c, 0, 100);
	}
	gen_wait(c, 0, MS);
	tl_switch(c, a, t3, 1);
	gen_wait(c, 0, 2 * MS);
	tl_switch(c, b, a, 0);	/* t3 ran, b is named */
	gen_wait(c, 0, 500 * US);
	for (unsigned int i = 0; i < 300; i++)
		lng[i] = (char)('a' + i % 26);
	memcpy(lng, "long:", 5);
	tl_print(c, 0, gen_pid(c, a), lng, 300);
	gen_wait(c, 0, MS);
	tl_print(c, 0, gen_pid(c, a), ctl, sizeof(ctl) - 1);
	gen_wait(c, 0, MS);
	tl_print(c, 0, gen_pid(c, a), "two\nlines\n", 10);
	gen_wait(c, 1, 10 * MS);
	tl_print(c, 1, gen_pid(c, b), "cpu1 last", 9);
	gen_wait(c, 0, MS);
	tl_print(c, 0, gen_pid(c, a), "end", 3);
}

static const struct gen_scenario scenarios[] = {
	{ "nested", sc_nested, NULL },
	{ "leaf", sc_leaf, NULL },
	{ "page-break", sc_page_break, NULL },
	{ "dropped", sc_dropped, NULL },
	{ "interleave", sc_interleave, NULL },
	{ "irq", sc_irq, NULL },
	{ "durations", sc_durations, NULL },
	{ "kstack", sc_kstack, NULL },
	{ "ustack", sc_ustack, NULL },
	{ "function", sc_function, NULL },
	{ "fncalls", sc_fncalls, NULL },
	{ "tshift", sc_tshift, NULL },
	{ "tshift-step", sc_tshift_step, NULL },
	{ "timeline", sc_timeline, NULL },
};

/* global order of records, as trace-cmd reads them: time, then CPU */
static const struct gen_trace *order_tr;

static int cmp_order(const void *a, const void *b)
{
	const struct gen_rec *x = &order_tr->recs[*(const size_t *)a];
	const struct gen_rec *y = &order_tr->recs[*(const size_t *)b];

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * hidden_exits() - mark each exit trace-cmd report prints on its entry's
 * line instead of its own
 *
 * trace-cmd prints a call as a leaf when the record that follows its
 * entry in the merged order of all CPUs (time, then the lower CPU) is
 * the exit of the same pid and function on the same CPU; --cpu N does
 * not change that, it only filters the lines.
 *
 * Return: a calloc'd flag per record (caller frees), or NULL.
 */
static bool *hidden_exits(const struct gen_ctx *c)
{
	const struct gen_trace *tr = c->tr;
	size_t *ord = calloc(tr->nrecs + 1, sizeof(*ord));
	bool *hidden = calloc(tr->nrecs + 1, sizeof(*hidden));

	if (!ord || !hidden) {
		free(ord);
		free(hidden);
		return NULL;
	}
	for (size_t i = 0; i < tr->nrecs; i++)
		ord[i] = i;
	order_tr = tr;
	qsort(ord, tr->nrecs, sizeof(*ord), cmp_order);
	for (size_t k = 1; k < tr->nrecs; k++) {
		const struct gen_rec *e = &tr->recs[ord[k - 1]], *x = &tr->recs[ord[k]];

		hidden[ord[k]] = e->fmt == c->entry && x->fmt == c->exit &&
				 e->cpu == x->cpu &&
				 gen_get(e, "common_pid") == gen_get(x, "common_pid") &&
				 gen_get(e, "func") == gen_get(x, "func");
	}
	free(ord);
	return hidden;
}

/* the COUNTS file: "EVENT CPU N" per event name and CPU with lines */
static int write_counts(const struct gen_ctx *c, const char *path)
{
	const struct gen_trace *tr = c->tr;
	bool *hidden = hidden_exits(c);
	FILE *fp = hidden ? fopen(path, "w") : NULL;

	if (!fp) {
		free(hidden);
		fprintf(stderr, "gen-trace: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < tr->nrecs; i++) {
		const struct gen_format *f = tr->recs[i].fmt;
		size_t j;

		for (j = 0; j < i && tr->recs[j].fmt != f; j++)
			;
		if (j < i)
			continue;	/* counted with its first record */
		for (unsigned int cpu = 0; cpu < tr->ncpus; cpu++) {
			unsigned int n = 0;

			for (j = i; j < tr->nrecs; j++)
				n += tr->recs[j].fmt == f && tr->recs[j].cpu == cpu &&
				     !hidden[j];
			if (n)
				fprintf(fp, "%s %u %u\n", f->name, cpu, n);
		}
	}
	free(hidden);
	if (fclose(fp) != 0)
		return -errno;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: gen-trace [-v 6|7] [-V STRING] TEMPLATE SCENARIO OUT COUNTS\n"
		"       gen-trace --list\n");
	return 2;
}

/* A scenario by name, from either table; NULL when there is none. */
static const struct gen_scenario *scenario_find(const char *name)
{
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (!strcmp(scenarios[i].name, name))
			return &scenarios[i];
	for (size_t i = 0; gen_format_scenarios[i].name; i++)
		if (!strcmp(gen_format_scenarios[i].name, name))
			return &gen_format_scenarios[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct gen_scenario *sc;
	const char *version_str = NULL;
	unsigned int version = 7;
	struct gen_template t;
	struct gen_trace tr;
	struct gen_ctx c;
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		/* the format scenarios are gen-parity.sh's, not listed */
		for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
			printf("%s\n", scenarios[i].name);
		return 0;
	}
	while (argc > 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "-V"))) {
		if (argv[1][1] == 'v')
			version = (unsigned int)atoi(argv[2]);
		else
			version_str = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc != 5 || (version != 6 && version != 7))
		return usage();
	sc = scenario_find(argv[2]);
	if (!sc) {
		fprintf(stderr, "gen-trace: no scenario %s (see --list)\n", argv[2]);
		return 2;
	}
	if (gen_template_load(&t, argv[1]) < 0)
		return 1;
	if (sc->edit)
		sc->edit(&t);
	gen_ctx_init(&c, &t, &tr);
	tr.version_str = version_str;
	sc->make(&c);
	ret = gen_write(&tr, version, argv[3]);
	if (!ret)
		ret = write_counts(&c, argv[4]);
	free(tr.recs);
	gen_template_free(&t);
	return ret ? 1 : 0;
}
