// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-rec.c - records for the generator: common fields, fields by name
 * from the template's formats, and function_graph calls kept on a
 * per-task stack so that entries and exits pair up with their depth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-trace.h"
#include "gen-rec.h"

/* what a scenario may ask for that the template might lack */
static const struct gen_format *need(const struct gen_template *t, const char *system,
				     const char *name)
{
	const struct gen_format *f = gen_format_find(t, system, name);

	if (!f) {
		fprintf(stderr, "gen-trace: the template has no %s/%s format\n", system, name);
		exit(2);
	}
	return f;
}

/*
 * Functions the scenarios call, by name when the template's kallsyms
 * has them (readable output); any missing name is replaced by a symbol
 * taken at a fixed spacing through kallsyms.
 */
static const char *const preferred[] = {
	"vfs_read", "rw_verify_area", "security_file_permission", "__fsnotify_parent",
	"mutex_lock", "mutex_unlock", "_raw_spin_lock", "_raw_spin_unlock",
	"kfree", "__schedule", "down_read", "up_read", "fput", "touch_atime",
	"ktime_get", "handle_irq_event", "irq_enter", "irq_exit", "kmem_cache_alloc",
	"kmem_cache_free", "__wake_up", "try_to_wake_up", "schedule", "do_sys_open",
	"getname", "putname", "path_openat", "dput", "iput", "find_vma",
	"copy_page_to_iter", "filemap_read",
};

static void pick_syms(struct gen_ctx *c)
{
	const struct gen_template *t = c->t;
	size_t n = 0, k = 0;

	if (t->nsyms < GEN_NSYMS) {
		fprintf(stderr, "gen-trace: the template's kallsyms has %zu usable symbols\n",
			t->nsyms);
		exit(2);
	}
	for (size_t p = 0; p < sizeof(preferred) / sizeof(preferred[0]) && n < GEN_NSYMS; p++)
		for (size_t i = 0; i < t->nsyms; i++)
			if (!strcmp(t->syms[i].name, preferred[p]) && t->syms[i].room >= 0x40) {
				c->sym[n++] = &t->syms[i];
				break;
			}
	while (n < GEN_NSYMS) {
		const struct gen_sym *s = &t->syms[(k++ * 7919) % t->nsyms];

		if (s->room >= 0x40)
			c->sym[n++] = s;
	}
}

void gen_ctx_init(struct gen_ctx *c, const struct gen_template *t, struct gen_trace *tr)
{
	memset(c, 0, sizeof(*c));
	memset(tr, 0, sizeof(*tr));
	tr->t = t;
	c->t = t;
	c->tr = tr;
	c->entry = need(t, "ftrace", "funcgraph_entry");
	c->exit = need(t, "ftrace", "funcgraph_exit");
	c->function = need(t, "ftrace", "function");
	c->kstack = need(t, "ftrace", "kernel_stack");
	c->ustack = need(t, "ftrace", "user_stack");
	c->irq_entry = gen_format_find(t, "irq", "irq_handler_entry");
	c->irq_exit = gen_format_find(t, "irq", "irq_handler_exit");
	pick_syms(c);
	for (unsigned int i = 0; i < GEN_MAX_CPUS; i++)
		c->now[i] = GEN_T0;
	if (t->ntasks < 3) {
		fprintf(stderr, "gen-trace: the template's saved_cmdlines names %zu pids\n",
			t->ntasks);
		exit(2);
	}
}

uint64_t gen_sym(const struct gen_ctx *c, unsigned int i)
{
	return c->sym[i % GEN_NSYMS]->addr;
}

uint64_t gen_ret(const struct gen_ctx *c, unsigned int i)
{
	const struct gen_sym *s = c->sym[i % GEN_NSYMS];

	return s->addr + 0x10 + (i % 3) * 4;	/* inside it: room >= 0x40 */
}

int gen_pid(const struct gen_ctx *c, unsigned int i)
{
	return c->t->tasks[i % c->t->ntasks].pid;
}

static void field(const struct gen_rec *r, const char *name, struct gen_field *f)
{
	if (gen_field_find(r->fmt, name, f) < 0) {
		fprintf(stderr, "gen-trace: %s has no field %s\n", r->fmt->name, name);
		exit(2);
	}
}

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void gen_set(struct gen_rec *r, const char *name, uint64_t v)
{
	struct gen_field f;

	field(r, name, &f);
	put_le(r->data + f.offset, v, f.size > 8 ? 8 : f.size);
}

uint64_t gen_get(const struct gen_rec *r, const char *name)
{
	struct gen_field f;
	uint64_t v = 0;

	field(r, name, &f);
	for (unsigned int i = 0; i < f.size && i < 8; i++)
		v |= (uint64_t)r->data[f.offset + i] << (8 * i);
	return v;
}

void gen_set_elem(struct gen_rec *r, const char *name, unsigned int i, uint64_t v)
{
	unsigned int klong = r->klong;
	struct gen_field f;
	unsigned int at;

	field(r, name, &f);
	at = f.offset + i * klong;
	if (at + klong > GEN_REC_MAX) {
		fprintf(stderr, "gen-trace: %s[%u] does not fit a record\n", name, i);
		exit(2);
	}
	put_le(r->data + at, v, klong);
	if (r->len < at + klong)
		r->len = at + klong;
}

void gen_set_str(struct gen_rec *r, const char *name, const char *s)
{
	unsigned int n = (unsigned int)strlen(s) + 1;
	struct gen_field f;

	field(r, name, &f);
	if (r->len + n > GEN_REC_MAX)
		exit(2);
	memcpy(r->data + r->len, s, n);
	put_le(r->data + f.offset, (uint64_t)n << 16 | r->len, 4);
	r->len += n;
}

struct gen_rec *gen_rec(struct gen_ctx *c, unsigned int cpu, const struct gen_format *fmt,
			int pid, uint8_t flags)
{
	struct gen_trace *tr = c->tr;
	struct gen_rec *r;

	if (tr->nrecs == tr->cap) {
		tr->cap = tr->cap ? tr->cap * 2 : 256;
		tr->recs = realloc(tr->recs, tr->cap * sizeof(*tr->recs));
		if (!tr->recs) {
			perror("gen-trace");
			exit(2);
		}
	}
	r = &tr->recs[tr->nrecs++];
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->ts = c->now[cpu];
	r->fmt = fmt;
	r->klong = c->t->klong;
	r->len = gen_format_size(fmt, c->t->klong);
	if (cpu >= tr->ncpus)
		tr->ncpus = cpu + 1;
	gen_set(r, "common_type", (uint64_t)fmt->id);
	gen_set(r, "common_flags", flags);
	gen_set(r, "common_preempt_count", 0);
	gen_set(r, "common_pid", (uint64_t)(int64_t)pid);
	return r;
}

void gen_wait(struct gen_ctx *c, unsigned int cpu, uint64_t ns)
{
	c->now[cpu] += ns;
}

/* the call stack of @pid, made on first use */
static struct gen_stack *stack_of(struct gen_ctx *c, int pid)
{
	unsigned int i;

	for (i = 0; i < c->nstacks && c->stacks[i].pid != pid; i++)
		;
	if (i == c->nstacks) {
		if (c->nstacks == GEN_MAX_TASKS)
			exit(2);
		c->stacks[c->nstacks++] = (struct gen_stack){ .pid = pid };
	}
	return &c->stacks[i];
}

struct gen_rec *gen_enter(struct gen_ctx *c, unsigned int cpu, int pid, uint64_t func,
			  uint8_t flags)
{
	struct gen_stack *s = stack_of(c, pid);
	struct gen_rec *r = gen_rec(c, cpu, c->entry, pid, flags);

	if (s->depth == GEN_MAX_DEPTH)
		exit(2);
	gen_set(r, "func", func);
	gen_set(r, "depth", s->depth);
	s->func[s->depth] = func;
	s->start[s->depth] = c->now[cpu];
	s->depth++;
	gen_wait(c, cpu, 130);	/* the entry itself costs a little */
	return r;
}

struct gen_rec *gen_exit_raw(struct gen_ctx *c, unsigned int cpu, int pid, uint64_t func,
			     unsigned int depth, uint64_t calltime, uint8_t flags)
{
	struct gen_rec *r = gen_rec(c, cpu, c->exit, pid, flags);

	gen_set(r, "func", func);
	gen_set(r, "depth", depth);
	gen_set(r, "overrun", 0);
	gen_set(r, "calltime", calltime);
	gen_set(r, "rettime", c->now[cpu]);
	return r;
}

struct gen_rec *gen_leave(struct gen_ctx *c, unsigned int cpu, int pid, uint8_t flags)
{
	struct gen_stack *s = stack_of(c, pid);
	struct gen_rec *r;

	if (s->depth == 0) {
		fprintf(stderr, "gen-trace: scenario returns from an empty stack\n");
		exit(2);
	}
	s->depth--;
	r = gen_exit_raw(c, cpu, pid, s->func[s->depth], s->depth, s->start[s->depth],
			 flags);
	gen_wait(c, cpu, 90);
	return r;
}

void gen_leaf(struct gen_ctx *c, unsigned int cpu, int pid, uint64_t func, uint64_t ns,
	      uint8_t flags)
{
	gen_enter(c, cpu, pid, func, flags);
	gen_wait(c, cpu, ns);
	gen_leave(c, cpu, pid, flags);
}
