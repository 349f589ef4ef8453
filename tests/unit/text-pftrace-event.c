/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-pftrace-event.c - whitebox tests of a record as a Perfetto
 * FtraceEvent (fs/text/pftrace-event.h) against `trace-cmd report -N -R
 * -t` of the same trace: per CPU the same records (time, event name,
 * common pid); sched_switch typed with the values -R prints; every
 * generic event's fields in format order, strings as -R prints them and
 * numbers equal to -R's where it prints a plain number.  A generated
 * trace (tests/gen's pftrace-tasks: sched_wakeup's prio made a char
 * array) shows a typed event with an unexpected field type going generic
 * and the process tree of task_newtask and sched_process_fork records,
 * against the tree -R's values give.  The UTF-8 cleaning is checked
 * against Python's decode("utf-8", "replace").
 *
 * Usage: test-text-pftrace-event TRACE_CMD GEN_TRACE PYTHON SMALL.DAT
 *        test-text-pftrace-event --records TRACE_CMD TRACE
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"
#include "tdatfs-text.h"
#include "check.h"
#include "text/engine.h"
#include "text/kallsyms.h"
#include "text/line.h"
#include "text/pftrace-event.h"
#include "text/source.h"
#include "text/stream-internal.h"
#include "text/tep.h"

/* One line of trace-cmd report -N -R -t. */
struct oline {
	unsigned int cpu;
	int pid;
	char ts[32];
	char name[64];
	char *info;		/* " f1=v1 f2=v2", from the first field */
};

struct oracle {
	struct oline *l;
	size_t n;
};

/*
 * The typed messages (perfetto_trace.proto's oneof) and their fields'
 * names by number, from 1 (doc/PERFETTO.md section 4).
 */
#define WAKE { "comm", "pid", "prio", "success", "target_cpu" }
static const struct {
	uint32_t type;
	const char *name;
	const char *f[8];
} typed[] = {
	{ 3, "print", { "ip", "buf" } },
	{ 4, "sched_switch", { "prev_comm", "prev_pid", "prev_prio", "prev_state",
			       "next_comm", "next_pid", "next_prio" } },
	{ 11, "cpu_frequency", { "state", "cpu_id" } },
	{ 13, "cpu_idle", { "state", "cpu_id" } },
	{ 17, "sched_wakeup", WAKE }, { 20, "sched_waking", WAKE },
	{ 24, "softirq_entry", { "vec" } }, { 25, "softirq_exit", { "vec" } },
	{ 36, "irq_handler_entry", { "irq", "name", "handler" } },
	{ 37, "irq_handler_exit", { "irq", "ret" } },
	{ 57, "workqueue_execute_end", { "work", "function" } },
	{ 58, "workqueue_execute_start", { "work", "function" } },
	{ 113, "suspend_resume", { "action", "val", "start" } },
	{ 114, "sched_wakeup_new", WAKE },
	{ 235, "task_newtask", { "pid", "comm", "clone_flags", "oom_score_adj" } },
	{ 236, "task_rename", { "pid", "oldcomm", "newcomm", "oom_score_adj" } },
	{ 237, "sched_process_exec", { "filename", "pid", "old_pid" } },
	{ 238, "sched_process_exit", { "comm", "pid", "tgid", "prio" } },
	{ 239, "sched_process_fork", { "parent_comm", "parent_pid", "child_comm",
				       "child_pid" } },
	{ 240, "sched_process_free", { "comm", "pid", "prio" } },
	{ 329, "sys_enter", { "id", "args" } },
	{ 330, "sys_exit", { "id", "ret" } },
	{ 437, "funcgraph_entry", { "depth", "func" } },
	{ 438, "funcgraph_exit", { "calltime", "depth", "func", "overrun",
				   "rettime" } },
};

static const char *typed_field(uint32_t type, uint32_t number)
{
	size_t i;

	for (i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
		if (typed[i].type == type && number >= 1 && number <= 8)
			return typed[i].f[number - 1];
	}
	return NULL;
}

/* SchedSwitchFtraceEvent's fields by number (1..7). */
static const char *const switch_names[] = {
	NULL, "prev_comm", "prev_pid", "prev_prio", "prev_state",
	"next_comm", "next_pid", "next_prio",
};

static const char *typed_name(uint32_t type)
{
	size_t i;

	for (i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
		if (typed[i].type == type)
			return typed[i].name;
	}
	return NULL;
}

/* "  comm-pid  [cpu]  ts: name:   info" */
static bool parse_line(char *s, struct oline *o)
{
	char *br = strstr(s, " ["), *dash, *p, *colon;

	if (!br)
		return false;
	for (dash = br; dash > s && dash[-1] == ' '; dash--)
		;
	*dash = 0;
	dash = strrchr(s, '-');
	if (!dash)
		return false;
	o->pid = atoi(dash + 1);
	o->cpu = (unsigned int)strtoul(br + 2, &p, 10);
	for (p++; *p == ' '; p++)
		;
	colon = strchr(p, ':');
	if (!colon || (size_t)(colon - p) >= sizeof(o->ts))
		return false;
	memcpy(o->ts, p, colon - p);
	o->ts[colon - p] = 0;
	for (p = colon + 1; *p == ' '; p++)
		;
	colon = strchr(p, ':');
	if (!colon || (size_t)(colon - p) >= sizeof(o->name))
		return false;
	memcpy(o->name, p, colon - p);
	o->name[colon - p] = 0;
	for (p = colon + 1; *p == ' '; p++)
		;
	o->info = strdup(p - 1);	/* from the space before the first field */
	FATAL(o->info);
	o->info[strcspn(o->info, "\n")] = 0;
	return true;
}

static void oracle_load(const char *tc, const char *trace, struct oracle *or)
{
	char cmd[4096], *line = NULL;
	size_t cap = 0, room = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s report -N -R -t '%s' 2>/dev/null", tc, trace);
	p = popen(cmd, "r");
	FATAL(p);
	memset(or, 0, sizeof(*or));
	while (getline(&line, &cap, p) > 0) {
		if (or->n == room) {
			room = room ? 2 * room : 1024;
			or->l = realloc(or->l, room * sizeof(*or->l));
			FATAL(or->l);
		}
		if (strchr(line, '[') && parse_line(line, &or->l[or->n]))
			or->n++;
	}
	free(line);
	CHECK(pclose(p) == 0);
	CHECK(or->n > 0);
}

static void oracle_free(struct oracle *or)
{
	for (size_t i = 0; i < or->n; i++)
		free(or->l[i].info);
	free(or->l);
}

/* The -R value of @name in @info, up to " @next=" (or the end). */
static bool rval(const char *info, const char *name, const char *next,
		 char *out, size_t cap)
{
	char key[128];
	const char *a, *b;

	snprintf(key, sizeof(key), " %s=", name);
	a = strstr(info, key);
	if (!a)
		return false;
	a += strlen(key);
	b = NULL;
	if (next) {
		snprintf(key, sizeof(key), " %s=", next);
		b = strstr(a, key);
	}
	if (!b)
		b = a + strlen(a);
	if ((size_t)(b - a) >= cap)
		return false;
	memcpy(out, a, b - a);
	out[b - a] = 0;
	return true;
}

/* A plain number -R printed ("-5", "120", "0x1f"), or false. */
static bool plain_num(const char *v, uint64_t *x)
{
	char *end;

	if (!*v)
		return false;
	errno = 0;
	if (!strncmp(v, "0x", 2))
		*x = strtoull(v + 2, &end, 16);
	else if (*v == '-')
		*x = (uint64_t)strtoll(v, &end, 10);
	else
		*x = strtoull(v, &end, 10);
	return !errno && !*end && end != v;
}

struct env {
	struct tdatfs_text *t;
	struct text_fmt *fm;
	struct text_tep *tt;
	struct tep_handle *tep;
	struct tdat_file *f;
	struct text_pf_events *m;
	struct text_pf_scratch s;
	struct text_pf_tree *tree;
	size_t nswitch, ngeneric, nstr, nnum, ntyped, nsyms;
};

static void env_open(struct env *e, const char *path)
{
	static const struct tdatfs_text_opts opts = { .eager = true };
	struct text_stream *st;
	struct text_fmt_share sh;
	char err[512] = "";

	memset(e, 0, sizeof(*e));
	e->f = tdat_open(path, NULL, err, sizeof(err));
	if (!e->f)
		fprintf(stderr, "%s: %s\n", path, err);
	FATAL(e->f);
	e->t = tdatfs_text_new(e->f, &opts);
	FATAL(e->t);
	st = text_engine_stream(e->t, 0, -1);
	FATAL(st);
	e->fm = st->env.fmt;
	text_fmt_share(e->fm, &sh);
	e->tt = sh.tt;
	e->tep = text_tep_handle(e->tt);
	e->m = text_pf_events_new(e->fm);
	e->tree = text_pf_tree_new();
	FATAL(e->m && e->tree);
}

static void env_close(struct env *e)
{
	text_pf_tree_free(e->tree);
	text_pf_scratch_release(&e->s);
	text_pf_events_free(e->m);
	tdatfs_text_free(e->t);
	tdat_close(e->f);
}

/* A typed sched_switch against -R's values. */
static void check_switch(const struct tdatfs_pf_event *ev, const struct oline *o)
{
	char v[256];
	size_t i;

	CHECK(ev->n == 7);
	for (i = 0; i < ev->n; i++) {
		const struct tdatfs_pf_field *f = &ev->fields[i];
		uint32_t k = f->number;
		uint64_t x;

		FATAL(k >= 1 && k <= 7);
		CHECK(rval(o->info, switch_names[k], k < 7 ? switch_names[k + 1] : NULL,
			   v, sizeof(v)));
		if (f->type == TDATFS_PF_STR) {
			CHECK(f->len == strlen(v) && !memcmp(f->str, v, f->len));
		} else {
			CHECK(plain_num(v, &x));
			CHECK(k == 4 ? f->i == (int64_t)x : (int32_t)f->i == (int32_t)x);
		}
	}
}

/* Whether number @u of @size bytes is what -R printed as @v ("-5",
 * "0x1f", "%x" hex without "0x", "%o" octal); false when @v is no
 * plain number (a symbol, flags, a %s), *num set when it is. */
static bool num_matches(const char *v, uint64_t u, int size, bool *num)
{
	uint64_t x, mask = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;

	*num = plain_num(v, &x);
	if (!*num)
		return true;
	if ((u & mask) == (x & mask))
		return true;
	if (strncmp(v, "0x", 2) && strspn(v, "01234567") == strlen(v) &&
	    (strtoull(v, NULL, 8) & mask) == (u & mask))
		return true;
	return strncmp(v, "0x", 2) && strspn(v, "0123456789abcdef") == strlen(v) &&
	       (strtoull(v, NULL, 16) & mask) == (u & mask);
}

/* A typed event's fields against -R's values of the fields of the same
 * names (sys_enter's args array is not compared). */
static void check_typed(struct env *e, const struct tdatfs_pf_event *ev,
			const struct oline *o)
{
	struct tep_event *tev;
	char v[70000];
	size_t i;

	text_tep_lock(e->tt);
	tev = tep_find_event_by_name(e->tep, NULL, o->name);
	text_tep_unlock(e->tt);
	FATAL(tev);
	for (i = 0; i < ev->n; i++) {
		const struct tdatfs_pf_field *f = &ev->fields[i];
		const char *name = typed_field(ev->type, f->number);
		struct tep_format_field *tf = name ? tep_find_field(tev, name) : NULL;
		bool num;

		CHECK(name && tf);
		if (!tf || (ev->type == 329 && f->number == 2))
			continue;
		if (!rval(o->info, name, tf->next ? tf->next->name : NULL, v, sizeof(v))) {
			CHECK(!"-R value found");
			continue;
		}
		if (f->type == TDATFS_PF_STR) {
			/* -R's text of a printable string is its bytes */
			if (strncmp(v, "ARRAY[", 6)) {
				if (f->len != strlen(v) || memcmp(f->str, v, f->len))
					fprintf(stderr, "%s %s: -R \"%s\", made \"%.*s\"\n",
						o->name, name, v, (int)f->len, f->str);
				CHECK(f->len == strlen(v) && !memcmp(f->str, v, f->len));
				e->nstr++;
			}
			continue;
		}
		CHECK(num_matches(v, f->u, tf->size, &num));
		e->nnum += num;
	}
}

/* A generic event: its fields, in format order, against -R's. */
static void check_generic(struct env *e, const struct tdatfs_pf_event *ev,
			  const struct oline *o)
{
	struct tep_event *tev;
	struct tep_format_field *tf;
	char v[70000];
	size_t i = 0;

	CHECK(ev->name_len == strlen(o->name) && !memcmp(ev->name, o->name, ev->name_len));
	text_tep_lock(e->tt);
	tev = tep_find_event_by_name(e->tep, NULL, o->name);
	text_tep_unlock(e->tt);
	FATAL(tev);
	for (tf = tev->format.fields; tf; tf = tf->next, i++) {
		const struct tdatfs_pf_field *f = &ev->fields[i];
		bool num;

		FATAL(i < ev->n);
		CHECK(f->name_len == strlen(tf->name) && !memcmp(f->name, tf->name, f->name_len));
		if (!rval(o->info, tf->name, tf->next ? tf->next->name : NULL, v, sizeof(v))) {
			CHECK(!"-R value found");
			continue;
		}
		if (f->type == TDATFS_PF_STR) {
			if (f->len != strlen(v) || memcmp(f->str, v, f->len))
				fprintf(stderr, "%s %s: -R \"%s\", made \"%.*s\"\n",
					o->name, tf->name, v, (int)f->len, f->str);
			CHECK(f->len == strlen(v) && !memcmp(f->str, v, f->len));
			e->nstr++;
			continue;
		}
		CHECK(f->type == ((tf->flags & TEP_FIELD_IS_SIGNED) ? TDATFS_PF_I64 : TDATFS_PF_U64));
		CHECK(num_matches(v, f->u, tf->size, &num));
		e->nnum += num;
	}
	CHECK(i == ev->n);
}

/* The kernel function fields of a typed event are in the scratch's
 * symbols, and each one named is the symbol holding it. */
static void check_syms(struct env *e, const struct tdatfs_pf_event *ev)
{
	size_t i, k = 0;

	for (i = 0; i < ev->n; i++) {
		const struct tdatfs_pf_field *f = &ev->fields[i];
		bool func = ((ev->type == 437 && f->number == 2) ||
			     (ev->type == 438 && f->number == 3) ||
			     ((ev->type == 57 || ev->type == 58) && f->number == 2));
		const char *name;
		size_t len;

		if (!func || !f->u)
			continue;
		CHECK(k < e->s.nsyms && e->s.syms[k] == f->u);
		k++;
		if (text_pf_symbol_name(e->m, f->u, &name, &len) == 0) {
			CHECK(len > 0);
			e->nsyms++;
		}
	}
	CHECK(k == e->s.nsyms);
}

/* Every record of every CPU against the oracle's lines of that CPU. */
static void check_records(struct env *e, const struct oracle *or)
{
	struct text_stream *st = text_engine_stream(e->t, 0, -1);
	size_t c, k;

	FATAL(st);
	for (c = 0; c < st->ncpu; c++) {
		uint64_t np = st->npages[c];
		size_t ci = st->cidx[c];
		struct text_source *src = text_source_new(e->f, 0, &ci, &np, 1,
							  st->env.pf, st->env.ts);
		struct tdatfs_buf mk = { 0 };
		const struct text_rec *r;
		unsigned int cpu = tdat_buffer_get(e->f, 0)->cpus[ci].cpu;

		FATAL(src);
		k = 0;
		for (;;) {
			struct tdatfs_pf_event ev;
			const struct oline *o = NULL;
			char ts[32];

			FATAL(text_source_peek_index(src, 0, &mk, &r) == 0);
			if (!r)
				break;
			while (k < or->n && or->l[k].cpu != cpu)
				k++;
			CHECK(k < or->n);
			if (k == or->n)
				break;
			o = &or->l[k++];
			snprintf(ts, sizeof(ts), "%" PRIu64 ".%09" PRIu64,
				 r->ts / 1000000000, r->ts % 1000000000);
			FATAL(text_pf_event_make(e->m, r, r->ts, &e->s, &ev) == 0);
			CHECK(!strcmp(ts, o->ts));
			CHECK(ev.timestamp == r->ts && (int)ev.pid == o->pid);
			if (ev.type == TDATFS_PF_GENERIC) {
				check_generic(e, &ev, o);
				e->ngeneric++;
			} else {
				CHECK(typed_name(ev.type) && !strcmp(typed_name(ev.type), o->name));
				if (ev.type == 4) {
					check_switch(&ev, o);
					e->nswitch++;
				}
				e->ntyped++;
				check_typed(e, &ev, o);
				check_syms(e, &ev);
			}
			FATAL(text_pf_tree_note(e->tree, &ev) == 0);
			FATAL(text_source_consume_index(src, 0, &mk) == 1);
		}
		while (k < or->n && or->l[k].cpu != cpu)
			k++;
		CHECK(k == or->n);
		tdatfs_buf_release(&mk);
		text_source_free(src);
	}
}

/* The id of a format by name, in the engine's handle. */
static int event_id(struct env *e, const char *sys, const char *name)
{
	struct tep_event *ev;

	text_tep_lock(e->tt);
	ev = tep_find_event_by_name(e->tep, sys, name);
	text_tep_unlock(e->tt);
	FATAL(ev);
	return ev->id;
}

/* Symbols: one kallsyms names, an address inside it (the same name, as
 * trace-cmd prints it), and one past the last symbol (none). */
static void check_symbols(struct env *e)
{
	struct text_kallsyms *ks = NULL;
	unsigned long long addr = 0, start;
	const char *name, *want;
	size_t len;

	text_tep_lock(e->tt);
	FATAL(text_tep_ksyms(e->tt, &ks) == 0 && ks);
	FATAL(text_kallsyms_address(ks, "schedule", &addr) == 0);
	want = text_kallsyms_find(ks, addr, &start);
	text_tep_unlock(e->tt);
	FATAL(want && start == addr);
	CHECK(text_pf_symbol_name(e->m, addr, &name, &len) == 0);
	CHECK(len == strlen(want) && !memcmp(name, want, len));
	CHECK(text_pf_symbol_name(e->m, addr + 1, &name, &len) == 0);
	CHECK(len == strlen(want) && !memcmp(name, want, len));
	CHECK(text_pf_symbol_name(e->m, ~0ULL, &name, &len) == -ENOENT);
}

/* What -R's task_newtask and sched_process_fork lines give, by the rules
 * of the header: the expected process_tree packet. */
static void check_tree(struct env *e, const struct oracle *or)
{
	struct tdatfs_pf_process p[16];
	struct tdatfs_pf_thread t[16];
	struct { int pid, parent; bool thread, newtask; char comm[32]; } k[16];
	struct tdatfs_buf got = { 0 }, want = { 0 };
	size_t nk = 0, np = 0, nt = 0, i, j;
	char v[64];

	for (i = 0; i < or->n; i++) {
		const struct oline *o = &or->l[i];
		bool nt_ = !strcmp(o->name, "task_newtask");
		int pid, parent;

		if (!nt_ && strcmp(o->name, "sched_process_fork"))
			continue;
		FATAL(rval(o->info, nt_ ? "pid" : "child_pid", nt_ ? "comm" : NULL, v, sizeof(v)));
		pid = atoi(v);
		FATAL(rval(o->info, nt_ ? "parent_pid" : "parent_pid", "child_comm", v, sizeof(v)) || nt_);
		parent = nt_ ? o->pid : atoi(v);
		for (j = 0; j < nk && k[j].pid != pid; j++)
			;
		if (j < nk && (k[j].newtask || !nt_))
			continue;	/* the earliest (lines are in time order) */
		FATAL(j < 16);
		nk += j == nk;
		k[j].pid = pid;
		k[j].parent = parent;
		k[j].newtask = nt_;
		FATAL(rval(o->info, nt_ ? "comm" : "child_comm", nt_ ? "clone_flags" : "child_pid",
			   k[j].comm, sizeof(k[j].comm)));
		k[j].thread = false;
		if (nt_) {
			FATAL(rval(o->info, "clone_flags", "oom_score_adj", v, sizeof(v)));
			k[j].thread = strtoull(v, NULL, 16) & 0x10000;	/* "%lx" */
		}
	}
	CHECK(nk == 4);
	/* sorted by pid, as written */
	for (i = 0; i < nk; i++) {
		for (j = i + 1; j < nk; j++) {
			if (k[j].pid < k[i].pid) {
				__typeof__(k[0]) x = k[i];

				k[i] = k[j];
				k[j] = x;
			}
		}
	}
	for (i = 0; i < nk; i++) {
		int tg = k[i].parent;

		for (j = 0; j < nk; j++) {
			if (k[j].pid == tg && k[j].thread) {
				tg = k[j].parent;
				j = (size_t)-1;
			}
		}
		if (k[i].thread) {
			t[nt].tid = k[i].pid;
			t[nt++].tgid = tg;
		} else {
			p[np].pid = k[i].pid;
			p[np].ppid = tg;
			p[np].cmdline = k[i].comm;
			p[np++].len = strlen(k[i].comm);
		}
	}
	CHECK(np == 3 && nt == 1);
	FATAL(tdatfs_pf_process_tree(&want, p, np, t, nt) == 0);
	CHECK(text_pf_tree_write(e->tree, &got) == 0);
	CHECK(got.len == want.len && !memcmp(got.p, want.p, got.len));
	tdatfs_buf_release(&got);
	tdatfs_buf_release(&want);
}

/* Our UTF-8 cleaning against Python's decode("utf-8", "replace"). */
static void check_utf8(const char *python)
{
	static const char *const cases[] = {
		"plain", "\xc3\xa9t\xc3\xa9", "\xc3\x28", "\xed\xa0\x80x",
		"\xc0\x80", "\xe2\x82", "\xe2\x82\xac\xe2", "\xf0\x9f\x98\x80",
		"\xf4\x90\x80\x80", "\xf0\x80\x80", "\xff\xfe", "\x80\xbf\xc2",
		"\xe0\x9f\x80", "\xef\xbf\xbf\xf8",
	};
	char path[] = "/tmp/tdatfs-utf8-XXXXXX", cmd[512], out[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tdatfs_buf b = { 0 };
		int fd = mkstemp(path);
		size_t n = strlen(cases[i]), got;
		FILE *p;

		FATAL(fd >= 0 && write(fd, cases[i], n) == (ssize_t)n);
		close(fd);
		snprintf(cmd, sizeof(cmd), "%s -c 'import sys; sys.stdout.buffer.write("
			 "open(sys.argv[1], \"rb\").read().decode(\"utf-8\", \"replace\")"
			 ".encode())' %s", python, path);
		p = popen(cmd, "r");
		FATAL(p);
		got = fread(out, 1, sizeof(out), p);
		CHECK(pclose(p) == 0);
		unlink(path);
		strcpy(path, "/tmp/tdatfs-utf8-XXXXXX");
		FATAL(text_pf_utf8_put(&b, cases[i], n, 1 << 16) == 0);
		CHECK(b.len == got && !memcmp(b.p, out, got));
		/* the bound cuts at a character */
		b.len = 0;
		FATAL(text_pf_utf8_put(&b, cases[i], n, 4) == 0);
		CHECK(b.len <= 4 && (b.len == got || !memcmp(b.p, out, b.len)));
		tdatfs_buf_release(&b);
	}
}

int main(int argc, char **argv)
{
	char gen[] = "/tmp/tdatfs-pft-XXXXXX", cmd[4096];
	struct oracle or;
	struct env e;
	uint32_t type;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "--records")) {
		/* any trace: its records against -R, no generated part */
		oracle_load(argv[2], argv[3], &or);
		env_open(&e, argv[3]);
		check_records(&e, &or);
		printf("%s: %zu typed (%zu sched_switch, %zu named symbols), "
		       "%zu generic (%zu strings, %zu numbers)\n", argv[3],
		       e.ntyped, e.nswitch, e.nsyms, e.ngeneric, e.nstr, e.nnum);
		env_close(&e);
		oracle_free(&or);
		return failures ? 1 : 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: %s TRACE_CMD GEN_TRACE PYTHON SMALL.DAT\n", argv[0]);
		return 2;
	}
	check_utf8(argv[3]);

	/* a recorded trace: typed sched_switch, generic events */
	oracle_load(argv[1], argv[4], &or);
	env_open(&e, argv[4]);
	check_records(&e, &or);
	printf("%s: %zu sched_switch, %zu generic (%zu strings, %zu numbers)\n",
	       argv[4], e.nswitch, e.ngeneric, e.nstr, e.nnum);
	CHECK(e.nswitch > 100 && e.ngeneric > 100 && e.nstr > 0 && e.nnum > 100);
	check_symbols(&e);
	CHECK(text_pf_event_type(e.m, 65535, &type) == -ENOENT);
	env_close(&e);
	oracle_free(&or);

	/* the generated one: an unexpected type, the process tree */
	fd = mkstemp(gen);
	FATAL(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s '%s' pftrace-tasks %s %s.counts", argv[2], argv[4], gen, gen);
	FATAL(system(cmd) == 0);
	oracle_load(argv[1], gen, &or);
	env_open(&e, gen);
	CHECK(text_pf_event_type(e.m, event_id(&e, "sched", "sched_wakeup"), &type) == 0 &&
	      type == TDATFS_PF_GENERIC);
	CHECK(text_pf_event_type(e.m, event_id(&e, "sched", "sched_switch"), &type) == 0 &&
	      type == 4);
	check_records(&e, &or);
	printf("generated: %zu generic (%zu strings)\n", e.ngeneric, e.nstr);
	CHECK(e.ngeneric >= 2 && e.nstr >= 2);
	check_tree(&e, &or);
	env_close(&e);
	oracle_free(&or);
	unlink(gen);
	snprintf(cmd, sizeof(cmd), "%s.counts", gen);
	unlink(cmd);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
