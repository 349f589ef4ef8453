/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-names.c - a trace with an event format libtraceevent cannot use
 * whole (tdatfs(1), DAMAGED TRACES; issue 34 item 4).
 *
 * usage: gen-names TEMPLATE CASE OUT.dat
 *
 * The format of sched:sched_wakeup of TEMPLATE is changed by CASE:
 *   dotted  its "name:" line says x.y
 *   dot     its "name:" line says .
 *   up      its "name:" line says ../x
 *   bytes   its "name:" line says wake\xff\xfe (not UTF-8)
 *   long    its print fmt is a string of 140,000 bytes: the format is
 *           over the 128 KiB tdatfs hands to libtraceevent
 * the rest of the format as it was.  Both CPUs hold sched_wakeup records
 * between sched_switch records (a format left alone).  The file is v7,
 * uncompressed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-rec.h"
#include "gen-trace.h"

#define LONG_PRINT	140000

/* @f's text with its first @old replaced by @rep. */
static void edit(struct gen_format *f, const char *old, const char *rep)
{
	char *at = strstr(f->text, old), *s;
	size_t head, ol = strlen(old), rl = strlen(rep);

	if (!at) {
		fprintf(stderr, "gen-names: %s has no \"%s\"\n", f->name, old);
		exit(2);
	}
	head = (size_t)(at - f->text);
	s = malloc(f->size - ol + rl + 1);
	if (!s)
		exit(2);
	memcpy(s, f->text, head);
	memcpy(s + head, rep, rl);
	memcpy(s + head + rl, at + ol, f->size - head - ol + 1);
	f->size = f->size - ol + rl;
	free(f->text);
	f->text = s;
}

/* Cut @f's text after "print fmt: " and put a string of @n 'a's there. */
static void long_print(struct gen_format *f, size_t n)
{
	char *p = strstr(f->text, "\nprint fmt: "), *s;
	size_t head;

	if (!p)
		exit(2);
	head = (size_t)(p - f->text) + strlen("\nprint fmt: ");
	s = malloc(head + n + 4);
	if (!s)
		exit(2);
	memcpy(s, f->text, head);
	s[head] = '"';
	memset(s + head + 1, 'a', n);
	memcpy(s + head + 1 + n, "\"\n", 3);
	free(f->text);
	f->text = s;
	f->size = head + n + 3;
}

static void set_comm(struct gen_rec *r, const char *name, const char *s)
{
	struct gen_field f;

	if (gen_field_find(r->fmt, name, &f) < 0 || f.size < 2)
		exit(2);
	memset(r->data + f.offset, 0, f.size);
	strncpy((char *)r->data + f.offset, s, f.size - 1);
}

static void records(struct gen_ctx *c, const struct gen_format *wake)
{
	const struct gen_format *sw = gen_format_find(c->t, "sched", "sched_switch");
	int a = gen_pid(c, 0), b = gen_pid(c, 1);

	for (unsigned int i = 0; i < 6; i++) {
		unsigned int cpu = i & 1;
		struct gen_rec *r = gen_rec(c, cpu, wake, a, 0);

		set_comm(r, "comm", "wakee");
		gen_set(r, "pid", (uint64_t)b);
		gen_set(r, "prio", 120);
		gen_set(r, "target_cpu", cpu);
		gen_wait(c, cpu, 2000);
		r = gen_rec(c, cpu, sw, a, 0);
		set_comm(r, "prev_comm", "prev-task");
		gen_set(r, "prev_pid", (uint64_t)a);
		gen_set(r, "prev_prio", 120);
		gen_set(r, "prev_state", 1);
		set_comm(r, "next_comm", "next-task");
		gen_set(r, "next_pid", (uint64_t)b);
		gen_set(r, "next_prio", 120);
		gen_wait(c, cpu, 3000);
	}
}

int main(int argc, char **argv)
{
	static const struct { const char *c, *name; } names[] = {
		{ "dotted", "x.y" }, { "dot", "." }, { "up", "../x" },
		{ "bytes", "wake\xff\xfe" },
	};
	const struct gen_format *wake;
	struct gen_format *w;
	struct gen_template t;
	struct gen_trace tr;
	struct gen_ctx c;
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: gen-names TEMPLATE CASE OUT.dat\n");
		return 2;
	}
	if (gen_template_load(&t, argv[1]) < 0)
		return 2;
	wake = gen_format_find(&t, "sched", "sched_wakeup");
	if (!wake)
		return 2;
	w = &t.formats[wake - t.formats];
	if (!strcmp(argv[2], "long")) {
		long_print(w, LONG_PRINT);
	} else {
		size_t i, n = sizeof(names) / sizeof(names[0]);
		char rep[64];

		for (i = 0; i < n && strcmp(names[i].c, argv[2]); i++)
			;
		if (i == n) {
			fprintf(stderr, "gen-names: no case %s\n", argv[2]);
			return 2;
		}
		snprintf(rep, sizeof(rep), "name: %s\n", names[i].name);
		edit(w, "name: sched_wakeup\n", rep);
	}
	gen_ctx_init(&c, &t, &tr);
	records(&c, wake);
	tr.ncpus = 2;
	ret = gen_write(&tr, 7, argv[3]);
	free(tr.recs);
	gen_template_free(&t);
	return ret < 0 ? 1 : 0;
}
