/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-widths.c - a trace whose print formats take a width or precision
 * from the record ("%*d", "%.*s", "%-*s"), with huge values in some
 * records (tdatfs(1), DAMAGED TRACES).
 *
 * usage: gen-widths TEMPLATE OUT.dat
 *
 * The formats of sched:sched_switch (which the sched plugin prints) and
 * sched:sched_process_fork (which no plugin prints) of TEMPLATE get the
 * print fmts
 *   "[%*d] [%.*s] [%-*s]", REC->prev_pid, REC->next_pid, REC->prev_prio,
 *	REC->prev_comm, REC->prev_pid, REC->next_comm
 *   "[%*d] [%.*s] [%-*s]", REC->parent_pid, REC->child_pid,
 *	REC->child_pid, __get_str(parent_comm), REC->parent_pid,
 *	__get_str(child_comm)
 * the rest of each format as it was.  CPU 0 holds records of both events
 * whose widths and precisions lie within 0 .. 4096 (trace-cmd prints
 * them as it prints any), CPU 1 records with widths of 4097, 20,000,000,
 * 0x7fffffff and -20,000,000 between records within the bound.  The file
 * is v7, uncompressed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-rec.h"
#include "gen-trace.h"

/* Replace the print fmt line of @sys:@name in @t with @fmt. */
static const struct gen_format *set_print(struct gen_template *t,
					  const char *sys, const char *name,
					  const char *fmt)
{
	const struct gen_format *f = gen_format_find(t, sys, name);
	struct gen_format *w;
	char *p, *text;
	size_t head;

	if (!f || !(p = strstr(f->text, "\nprint fmt: "))) {
		fprintf(stderr, "gen-widths: no %s:%s print fmt\n", sys, name);
		exit(2);
	}
	w = &t->formats[f - t->formats];
	head = (size_t)(p - w->text) + 1;
	text = malloc(head + strlen(fmt) + 2);
	if (!text)
		exit(2);
	memcpy(text, w->text, head);
	sprintf(text + head, "%s\n", fmt);
	free(w->text);
	w->text = text;
	w->size = strlen(text);
	return w;
}

static void set_comm(struct gen_rec *r, const char *name, const char *s)
{
	struct gen_field f;

	if (gen_field_find(r->fmt, name, &f) < 0 || f.size < 2) {
		fprintf(stderr, "gen-widths: no %s in %s\n", name, r->fmt->name);
		exit(2);
	}
	memset(r->data + f.offset, 0, f.size);
	strncpy((char *)r->data + f.offset, s, f.size - 1);
}

static void sw(struct gen_ctx *c, unsigned int cpu, int pid, int width,
	       int next, int prec)
{
	const struct gen_format *f = gen_format_find(c->t, "sched", "sched_switch");
	struct gen_rec *r = gen_rec(c, cpu, f, pid, 0);

	set_comm(r, "prev_comm", "prev-task");
	gen_set(r, "prev_pid", (uint32_t)width);
	gen_set(r, "prev_prio", (uint32_t)prec);
	gen_set(r, "prev_state", 1);
	set_comm(r, "next_comm", "next-task");
	gen_set(r, "next_pid", (uint32_t)next);
	gen_set(r, "next_prio", 120);
	gen_wait(c, cpu, 1000);
}

static void fork_rec(struct gen_ctx *c, unsigned int cpu, int pid, int width,
		     int child)
{
	const struct gen_format *f = gen_format_find(c->t, "sched",
						     "sched_process_fork");
	struct gen_rec *r = gen_rec(c, cpu, f, pid, 0);

	gen_set_str(r, "parent_comm", "parent-task");
	gen_set(r, "parent_pid", (uint32_t)width);
	gen_set_str(r, "child_comm", "child");
	gen_set(r, "child_pid", (uint32_t)child);
	gen_wait(c, cpu, 1000);
}

int main(int argc, char **argv)
{
	static const int small[] = { 0, 1, 7, 12, 300, 4096 };
	static const int huge[] = { 4097, 20000000, 0x7fffffff, -20000000 };
	struct gen_template t;
	struct gen_trace tr;
	struct gen_ctx c;
	unsigned int i;
	int pid, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: gen-widths TEMPLATE OUT.dat\n");
		return 2;
	}
	if (gen_template_load(&t, argv[1]) < 0)
		return 2;
	set_print(&t, "sched", "sched_switch",
		  "print fmt: \"[%*d] [%.*s] [%-*s]\", REC->prev_pid, "
		  "REC->next_pid, REC->prev_prio, REC->prev_comm, "
		  "REC->prev_pid, REC->next_comm");
	set_print(&t, "sched", "sched_process_fork",
		  "print fmt: \"[%*d] [%.*s] [%-*s]\", REC->parent_pid, "
		  "REC->child_pid, REC->child_pid, __get_str(parent_comm), "
		  "REC->parent_pid, __get_str(child_comm)");
	gen_ctx_init(&c, &t, &tr);
	pid = gen_pid(&c, 0);
	for (i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		sw(&c, 0, pid, small[i], 40 + i, small[i] % 11);
		fork_rec(&c, 0, pid, small[i], 3 + i);
		/* the huge ones between small ones on the other CPU */
		sw(&c, 1, pid, 5, 50 + i, 4);
		if (i < sizeof(huge) / sizeof(huge[0])) {
			sw(&c, 1, pid, huge[i], 60 + i, huge[i]);
			fork_rec(&c, 1, pid, huge[i], huge[i]);
		}
	}
	tr.ncpus = 2;
	ret = gen_write(&tr, 7, argv[2]);
	free(tr.recs);
	gen_template_free(&t);
	return ret < 0 ? 1 : 0;
}
