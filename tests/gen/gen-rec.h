/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-rec.h - making records for the generator's scenarios.
 *
 * Invariants of this module:
 *  - Each CPU has its own clock (gen_ctx.now); a record takes the time of
 *    its CPU, so a CPU's records are in time order by construction.
 *  - function_graph entries and exits pair through a stack per pid: an
 *    exit carries the function, depth and calltime of its entry, and its
 *    rettime is its own timestamp, as the kernel writes them.
 *  - Anything a scenario needs and the template lacks ends the program
 *    (exit status 2) with a message: a test helper fails loudly.
 */
#ifndef GEN_REC_H
#define GEN_REC_H

#include "gen-trace.h"

#define GEN_MAX_CPUS	2
#define GEN_MAX_TASKS	8
#define GEN_MAX_DEPTH	32
#define GEN_NSYMS	32
#define GEN_T0		5000000000000ULL	/* 5000 s: a plausible uptime */

/* Common-flag bits (kernel trace.h TRACE_FLAG_*). */
#define GEN_IRQS_OFF	0x01
#define GEN_HARDIRQ	0x08

struct gen_stack {
	int pid;
	unsigned int depth;
	uint64_t func[GEN_MAX_DEPTH];
	uint64_t start[GEN_MAX_DEPTH];
};

/* What a scenario works with: formats, chosen symbols, clocks, stacks. */
struct gen_ctx {
	const struct gen_template *t;
	struct gen_trace *tr;
	const struct gen_format *entry, *exit, *function, *kstack, *ustack;
	const struct gen_format *irq_entry, *irq_exit;	/* NULL when absent */
	const struct gen_sym *sym[GEN_NSYMS];
	uint64_t now[GEN_MAX_CPUS];
	struct gen_stack stacks[GEN_MAX_TASKS];
	unsigned int nstacks;
};

/**
 * gen_ctx_init() - start an empty trace on a template
 * @c: context to fill
 * @t: template (outlives @c and @tr)
 * @tr: trace to fill (free tr->recs when done)
 */
void gen_ctx_init(struct gen_ctx *c, const struct gen_template *t, struct gen_trace *tr);

/* Symbol @i of the chosen ones (wraps), its start or a return address in it. */
uint64_t gen_sym(const struct gen_ctx *c, unsigned int i);
uint64_t gen_ret(const struct gen_ctx *c, unsigned int i);
/* Pid @i of those saved_cmdlines names (wraps). */
int gen_pid(const struct gen_ctx *c, unsigned int i);

/**
 * gen_rec() - append a record with its common fields set
 * @c: context
 * @cpu: CPU, below GEN_MAX_CPUS
 * @fmt: its format
 * @pid: common_pid
 * @flags: common_flags
 *
 * Return: the record (valid until the next gen_rec()), at the CPU's time,
 * of the size its format implies.
 */
struct gen_rec *gen_rec(struct gen_ctx *c, unsigned int cpu, const struct gen_format *fmt,
			int pid, uint8_t flags);

/* Fields by name: a number, element @i of a long array, a __data_loc string. */
void gen_set(struct gen_rec *r, const char *name, uint64_t v);
uint64_t gen_get(const struct gen_rec *r, const char *name);
void gen_set_elem(struct gen_rec *r, const char *name, unsigned int i, uint64_t v);
void gen_set_str(struct gen_rec *r, const char *name, const char *s);

/* Advance the clock of @cpu. */
void gen_wait(struct gen_ctx *c, unsigned int cpu, uint64_t ns);

/* function_graph: enter @func, leave the innermost call, or both around @ns. */
struct gen_rec *gen_enter(struct gen_ctx *c, unsigned int cpu, int pid, uint64_t func,
			  uint8_t flags);
struct gen_rec *gen_leave(struct gen_ctx *c, unsigned int cpu, int pid, uint8_t flags);
void gen_leaf(struct gen_ctx *c, unsigned int cpu, int pid, uint64_t func, uint64_t ns,
	      uint8_t flags);

/**
 * gen_exit_raw() - an exit with no entry on the stack (one that was lost)
 * @c: context
 * @cpu: CPU
 * @pid: pid
 * @func: function returned from
 * @depth: its depth
 * @calltime: when it was called
 * @flags: common_flags
 *
 * Return: the record.
 */
struct gen_rec *gen_exit_raw(struct gen_ctx *c, unsigned int cpu, int pid, uint64_t func,
			     unsigned int depth, uint64_t calltime, uint8_t flags);

#endif /* GEN_REC_H */
