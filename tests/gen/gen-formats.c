// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-formats.c - scenarios whose formats or kallsyms differ from the
 * template's, in the ways traces from other kernels and other trace-cmd
 * builds do (issue 32): a print fmt libtraceevent cannot parse (fs's
 * open_exec as one kernel wrote it, and real formats with their print fmt
 * broken the same way), a field line it cannot read, an event whose
 * "name:" line is empty, and a kernel symbol inside a print argument
 * (kmem's vmemmap_base).  The edits are made to the template's copy
 * before any record is made; trace-cmd report on the written file is the
 * oracle of what each prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-trace.h"
#include "gen-rec.h"
#include "gen-formats.h"

#define US	1000ULL

static void *must(void *p)
{
	if (!p) {
		perror("gen-trace");
		exit(2);
	}
	return p;
}

static struct gen_format *find(struct gen_template *t, const char *system,
			       const char *name)
{
	struct gen_format *f = (struct gen_format *)gen_format_find(t, system, name);

	if (!f) {
		fprintf(stderr, "gen-trace: the template has no %s/%s format\n", system, name);
		exit(2);
	}
	return f;
}

/* Replace the first @old of @f's text by @rep. */
static void edit_text(struct gen_format *f, const char *old, const char *rep)
{
	char *at = strstr(f->text, old);
	size_t head, ol = strlen(old), rl = strlen(rep);
	char *s;

	if (!at) {
		fprintf(stderr, "gen-trace: %s has no \"%s\"\n", f->name, old);
		exit(2);
	}
	head = (size_t)(at - f->text);
	s = must(malloc(f->size - ol + rl + 1));
	memcpy(s, f->text, head);
	memcpy(s + head, rep, rl);
	memcpy(s + head + rl, at + ol, f->size - head - ol);
	f->size = f->size - ol + rl;
	s[f->size] = '\0';
	free(f->text);
	f->text = s;
}

/* The print fmt's opening quote doubled, as in fs/open_exec below. */
static void break_print(struct gen_format *f)
{
	edit_text(f, "print fmt: \"", "print fmt: \"\"");
}

/*
 * A new event, after every other format: the common fields copied from
 * @like, then @fields and @print.
 */
static void add_format(struct gen_template *t, const char *system, const char *name,
		       const struct gen_format *like, const char *fields, const char *print)
{
	const char *c = strstr(like->text, "\tfield:"), *end = strstr(like->text, "\n\n");
	struct gen_format *f;
	int id = 0;
	size_t n;

	if (!c || !end) {
		fprintf(stderr, "gen-trace: %s has no common fields\n", like->name);
		exit(2);
	}
	for (size_t i = 0; i < t->nformats; i++)
		if (t->formats[i].id > id)
			id = t->formats[i].id;
	t->formats = must(realloc(t->formats, (t->nformats + 1) * sizeof(*t->formats)));
	f = &t->formats[t->nformats++];
	f->system = must(strdup(system));
	f->name = must(strdup(name));
	f->id = id + 1;
	n = (size_t)(end - c) + 1;
	f->text = must(malloc(n + strlen(fields) + strlen(print) + 128));
	f->size = (size_t)sprintf(f->text, "name: %s\nID: %d\nformat:\n%.*s\n%s\nprint fmt: %s\n",
				  name, f->id, (int)n, c, fields, print);
}

static void edit_failed(struct gen_template *t)
{
	add_format(t, "fs", "open_exec", find(t, "sched", "sched_switch"),
		   "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:1;\n",
		   "\"\"%s\"\", __get_str(filename)");
	break_print(find(t, "irq", "irq_handler_entry"));
	break_print(find(t, "task", "task_rename"));
	break_print(find(t, "kmem", "mm_page_free"));
	break_print(find(t, "sched", "sched_switch"));
	/* a field line libtraceevent stops at: the fields before it stay */
	edit_text(find(t, "timer", "hrtimer_start"), "mode;\toffset:", "mode;\toffsett:");
}

static void put_chars(struct gen_rec *r, const char *name, const char *s, size_t n)
{
	struct gen_field f;

	if (gen_field_find(r->fmt, name, &f) < 0 || n > f.size)
		exit(2);
	memset(r->data + f.offset, 0, f.size);
	memcpy(r->data + f.offset, s, n);
}

static void switch_rec(struct gen_ctx *c, unsigned int cpu, int prev, int next)
{
	struct gen_rec *r = gen_rec(c, cpu, gen_format_find(c->t, "sched", "sched_switch"),
				    prev, 0);

	put_chars(r, "prev_comm", "prev-task", 9);
	gen_set(r, "prev_pid", (uint64_t)prev);
	gen_set(r, "prev_prio", 120);
	gen_set(r, "prev_state", 1);
	put_chars(r, "next_comm", "next-task", 9);
	gen_set(r, "next_pid", (uint64_t)next);
	gen_set(r, "next_prio", 98);
	gen_wait(c, cpu, 3 * US);
}

static void sc_failed(struct gen_ctx *c)
{
	const struct gen_template *t = c->t;
	int a = gen_pid(c, 0), b = gen_pid(c, 1);
	struct gen_rec *r;

	r = gen_rec(c, 0, gen_format_find(t, "fs", "open_exec"), a, 0);
	gen_set_str(r, "filename", "/bin/echo");
	gen_wait(c, 0, 2 * US);
	r = gen_rec(c, 1, gen_format_find(t, "irq", "irq_handler_entry"), 0, GEN_HARDIRQ);
	gen_set(r, "irq", 36);
	gen_set_str(r, "name", "virtio1-req.0");
	gen_wait(c, 1, 5 * US);
	r = gen_rec(c, 1, gen_format_find(t, "irq", "irq_handler_entry"), 0, GEN_HARDIRQ);
	gen_set(r, "irq", (uint64_t)-7);
	gen_set_str(r, "name", "bad\001name");
	gen_wait(c, 1, 5 * US);
	/*
	 * printable comms, then one that is not, last: after it trace-cmd
	 * would print every oldcomm as ARRAY[...], which tdatfs does not
	 * (doc/trace-cmd-parity.md)
	 */
	for (unsigned int i = 0; i < 3; i++) {
		r = gen_rec(c, 0, gen_format_find(t, "task", "task_rename"), b, 0);
		gen_set(r, "pid", (uint64_t)b);
		put_chars(r, "oldcomm", i == 2 ? "old\x7f" : "old-name", i == 2 ? 4 : 8);
		put_chars(r, "newcomm", "new name", 8);
		gen_set(r, "oom_score_adj", (uint64_t)(int64_t)(i ? -17 : 5));
		gen_wait(c, 0, 4 * US);
	}
	r = gen_rec(c, 0, gen_format_find(t, "kmem", "mm_page_free"), a, 0);
	gen_set(r, "pfn", 0x214fb6);
	gen_set(r, "order", 3);
	gen_wait(c, 0, 2 * US);
	r = gen_rec(c, 1, gen_format_find(t, "timer", "hrtimer_start"), 0, 0);
	gen_set(r, "hrtimer", 0xffff888003a1c0e8ULL);
	gen_set(r, "function", gen_sym(c, 3));
	gen_set(r, "expires", 506292000000ULL);
	gen_set(r, "softexpires", (uint64_t)-5);
	gen_wait(c, 1, 2 * US);
	switch_rec(c, 0, a, b);
	switch_rec(c, 1, 0, a);
}

/* vmemmap_base where a 5.x x86-64 kernel with KASLR puts it */
static void edit_symbol(struct gen_template *t)
{
	static const char line[] = "ffffffffad000000 D vmemmap_base\n";
	char *k = must(malloc(t->kallsyms_size + sizeof(line)));

	memcpy(k, t->kallsyms, t->kallsyms_size);
	memcpy(k + t->kallsyms_size, line, sizeof(line));
	free(t->kallsyms);
	t->kallsyms = k;
	t->kallsyms_size += sizeof(line) - 1;
}

static void sc_symbol(struct gen_ctx *c)
{
	static const uint64_t pfns[] = { 0x214fb6, 0, 1, (uint64_t)-1, 0x571dd6 };
	const struct gen_template *t = c->t;
	int a = gen_pid(c, 0);

	for (size_t i = 0; i < sizeof(pfns) / sizeof(pfns[0]); i++) {
		struct gen_rec *r = gen_rec(c, (unsigned int)(i & 1),
					    gen_format_find(t, "kmem", "mm_page_alloc"), a, 0);

		gen_set(r, "pfn", pfns[i]);
		gen_set(r, "order", (uint64_t)i);
		gen_set(r, "migratetype", 1);
		gen_set(r, "gfp_flags", i ? 0xcc0 : 0);
		gen_wait(c, (unsigned int)(i & 1), 3 * US);
		r = gen_rec(c, (unsigned int)(i & 1),
			    gen_format_find(t, "kmem", "mm_page_free"), a, 0);
		gen_set(r, "pfn", pfns[i]);
		gen_set(r, "order", (uint64_t)i);
		gen_wait(c, (unsigned int)(i & 1), 3 * US);
	}
}

/* sched_wakeup's "name:" line left empty: libtraceevent drops the event */
static void edit_noname(struct gen_template *t)
{
	edit_text(find(t, "sched", "sched_wakeup"), "name: sched_wakeup\n", "name: \n");
}

static void sc_noname(struct gen_ctx *c)
{
	int a = gen_pid(c, 0), b = gen_pid(c, 1);

	for (unsigned int i = 0; i < 4; i++) {
		struct gen_rec *r = gen_rec(c, i & 1, gen_format_find(c->t, "sched", "sched_wakeup"),
					    a, 0);

		put_chars(r, "comm", "wakee", 5);
		gen_set(r, "pid", (uint64_t)b);
		gen_set(r, "prio", 120);
		gen_set(r, "target_cpu", i & 1);
		gen_wait(c, i & 1, 2 * US);
		switch_rec(c, i & 1, a, b);
	}
}

/*
 * trace.pftrace's typed events (issue 33): sched_wakeup's prio made a
 * char array, a type Perfetto's int32 cannot take, so the event must go
 * generic; and the records that link tasks to processes.
 */
static void edit_pftrace(struct gen_template *t)
{
	edit_text(find(t, "sched", "sched_wakeup"),
		  "field:int prio;\toffset:28;\tsize:4;\tsigned:1;",
		  "field:char prio[4];\toffset:28;\tsize:4;\tsigned:0;");
}

static void newtask_rec(struct gen_ctx *c, unsigned int cpu, int parent,
			int pid, const char *comm, uint64_t flags)
{
	struct gen_rec *r = gen_rec(c, cpu, gen_format_find(c->t, "task", "task_newtask"),
				    parent, 0);

	gen_set(r, "pid", (uint64_t)pid);
	put_chars(r, "comm", comm, strlen(comm));
	gen_set(r, "clone_flags", flags);
	gen_set(r, "oom_score_adj", 0);
	gen_wait(c, cpu, 2 * US);
}

static void fork_rec(struct gen_ctx *c, unsigned int cpu, int parent, int child,
		     const char *comm)
{
	struct gen_rec *r = gen_rec(c, cpu, gen_format_find(c->t, "sched", "sched_process_fork"),
				    parent, 0);

	/* __data_loc strings in 6.x kernels' format, as in the template */
	gen_set_str(r, "parent_comm", "parent");
	gen_set(r, "parent_pid", (uint64_t)parent);
	gen_set_str(r, "child_comm", comm);
	gen_set(r, "child_pid", (uint64_t)child);
	gen_wait(c, cpu, 2 * US);
}

/*
 * A process P forks C1 (a process), C1 makes the thread C1+1
 * (CLONE_THREAD), the thread forks C1+2 (a process of C1's), P forks
 * C1+3 seen by sched_process_fork alone; a sched_wakeup of each CPU.
 */
static void sc_pftrace(struct gen_ctx *c)
{
	int p = gen_pid(c, 0), c1 = 30001;
	struct gen_rec *r;

	newtask_rec(c, 0, p, c1, "child-proc", 0x1200011);
	fork_rec(c, 0, p, c1, "child-proc");
	newtask_rec(c, 1, c1, c1 + 1, "child-thr", 0x3d0f00);
	fork_rec(c, 1, c1, c1 + 1, "child-thr");
	newtask_rec(c, 1, c1 + 1, c1 + 2, "grandchild", 0x1200011);
	fork_rec(c, 0, p, c1 + 3, "fork-only");
	for (unsigned int i = 0; i < 2; i++) {
		r = gen_rec(c, i, gen_format_find(c->t, "sched", "sched_wakeup"), p, 0);
		put_chars(r, "comm", "wakee", 5);
		gen_set(r, "pid", (uint64_t)c1);
		put_chars(r, "prio", "ab", 2);
		gen_set(r, "target_cpu", i);
		gen_wait(c, i, 2 * US);
		switch_rec(c, i, p, c1 + (int)i);
	}
}

/*
 * trace.pftrace's interned kernel symbols (issue 33): function_graph
 * calls on two CPUs, by a task and by the idle task (pid 0), whose func
 * is where a symbol starts (x86 without IBT), 4 bytes into one (the
 * fentry call after an endbr64, as IBT kernels record it), below the
 * first symbol of kallsyms and above its last (no symbol); and a page
 * of CPU 1 that says events were lost before it.
 */
static void sc_pffuncs(struct gen_ctx *c)
{
	const uint64_t below = c->t->syms[0].addr - 0x100000;
	const uint64_t above = 0xffffffffff600000ULL;	/* x86-64's vsyscall page */
	int a = gen_pid(c, 0), b = gen_pid(c, 1);
	struct gen_rec *r;

	for (unsigned int round = 0; round < 2; round++) {
		gen_enter(c, 0, a, gen_sym(c, 0), 0);
		gen_leaf(c, 0, a, gen_sym(c, 1), 300, 0);
		gen_enter(c, 0, a, gen_sym(c, 2) + 4, 0);
		gen_leaf(c, 0, a, gen_sym(c, 3 + round), 120, 0);
		gen_leave(c, 0, a, 0);
		gen_leaf(c, 0, a, below, 80, 0);
		gen_leave(c, 0, a, 0);
		gen_enter(c, 1, 0, gen_sym(c, 16), GEN_IRQS_OFF | GEN_HARDIRQ);
		gen_leaf(c, 1, 0, gen_sym(c, 17), 200, GEN_IRQS_OFF | GEN_HARDIRQ);
		gen_leave(c, 1, 0, GEN_IRQS_OFF | GEN_HARDIRQ);
		gen_leaf(c, 1, b, above, 150, 0);
		gen_enter(c, 1, b, gen_sym(c, 9), 0);
		r = gen_enter(c, 1, b, gen_sym(c, 10), 0);
		if (round) {
			r->new_page = true;
			r->missed = 3;
		}
		gen_leaf(c, 1, b, gen_sym(c, 11), 90, 0);
		gen_leave(c, 1, b, 0);
		gen_leave(c, 1, b, 0);
		gen_wait(c, 0, 3 * US);
		gen_wait(c, 1, 2 * US);
	}
}

const struct gen_scenario gen_format_scenarios[] = {
	{ "failed-format", sc_failed, edit_failed },
	{ "print-symbol", sc_symbol, edit_symbol },
	{ "print-no-symbol", sc_symbol, NULL },
	{ "empty-name", sc_noname, edit_noname },
	{ "pftrace-tasks", sc_pftrace, edit_pftrace },
	{ "pftrace-funcs", sc_pffuncs, NULL },
	{ NULL, NULL, NULL },
};
