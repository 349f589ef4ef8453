/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/ftrace-function.c - ftrace function records as the function plugin
 * prints them, from call stacks that belong to a stream position.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "event-table.h"
#include "ftrace-function.h"
#include "pack.h"
#include "source.h"
#include "tep.h"

/* The plugin's indent per level. */
#define FN_INDENT	3
/* Bytes of one entry and one CPU's header in saved bytes. */
#define SAVED_ENT	8
#define SAVED_CPU	8

/* ftrace/function, and ftrace/func_repeats, which prints a call the same way. */
enum { EV_FUNCTION, EV_REPEATS, EV_N };

struct fn_event {
	int id;			/* -1: no such format in the trace */
	/* learned of the parsed format on first use, under the tep lock */
	bool learned;
	bool fields_ok;
	struct text_num_field ip, parent;
	struct text_num_field count, top, bottom;	/* func_repeats */
};

struct text_func {
	struct text_tep *tt;
	bool big_endian;
	struct fn_event ev[EV_N];
};

/* An entry: the name, and an address that resolves to it. */
struct fn_ent {
	uint64_t addr;
	const char *name;
};

struct fn_cpu {
	unsigned int cpu;
	size_t n, cap;
	struct fn_ent *e;
};

/* The stacks, sorted by CPU number. */
struct text_fnstack {
	size_t ncpu, cap;
	struct fn_cpu *c;
};

struct fn_snapcpu {
	uint32_t cpu;
	uint32_t n;
};

/* One block: the CPUs, then all their entries in CPU order. */
struct text_fnsnap {
	size_t ncpu, nent;
	struct fn_snapcpu *cpus;
	struct fn_ent *ent;
};

/**
 * text_func_new() - the function formatter of a trace
 * @f: the trace
 * @tt: its libtraceevent handle; both must outlive the formatter
 * @big_endian: byte order of the file
 *
 * Return: the formatter (free with text_func_free()), or NULL with errno.
 */
struct text_func *text_func_new(struct tdat_file *f, struct text_tep *tt,
				bool big_endian)
{
	struct text_func *fn = calloc(1, sizeof(*fn));
	size_t i, n = tdat_event_count(f);

	if (!fn)
		return NULL;
	fn->tt = tt;
	fn->big_endian = big_endian;
	fn->ev[EV_FUNCTION].id = -1;
	fn->ev[EV_REPEATS].id = -1;
	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(f, i);
		struct fn_event *fe = NULL;

		if (!e || strcmp(e->system, "ftrace"))
			continue;
		if (!strcmp(e->name, "function"))
			fe = &fn->ev[EV_FUNCTION];
		else if (!strcmp(e->name, "func_repeats"))
			fe = &fn->ev[EV_REPEATS];
		if (fe && fe->id < 0)
			fe->id = e->id;
	}
	return fn;
}

/**
 * text_func_free() - free a formatter; NULL is fine
 * @fn: formatter
 */
void text_func_free(struct text_func *fn)
{
	free(fn);
}

/**
 * text_func_wants() - whether a record's text is made here
 * @fn: formatter (NULL: none)
 * @id: the record's event id
 *
 * Return: true for the trace's ftrace/function and ftrace/func_repeats
 * events.
 */
bool text_func_wants(const struct text_func *fn, int id)
{
	return fn && id >= 0 &&
	       (id == fn->ev[EV_FUNCTION].id || id == fn->ev[EV_REPEATS].id);
}

/* The stack of CPU @cpu, made empty when there is none; NULL: no memory. */
static struct fn_cpu *cpu_stack(struct text_fnstack *stk, unsigned int cpu)
{
	size_t lo = 0, hi = stk->ncpu;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (stk->c[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < stk->ncpu && stk->c[lo].cpu == cpu)
		return &stk->c[lo];
	if (stk->ncpu == stk->cap) {
		size_t cap = stk->cap ? 2 * stk->cap : 4;
		struct fn_cpu *c = realloc(stk->c, cap * sizeof(*c));

		if (!c)
			return NULL;
		stk->c = c;
		stk->cap = cap;
	}
	memmove(&stk->c[lo + 1], &stk->c[lo], (stk->ncpu - lo) * sizeof(*stk->c));
	memset(&stk->c[lo], 0, sizeof(*stk->c));
	stk->c[lo].cpu = cpu;
	stk->ncpu++;
	return &stk->c[lo];
}

/* Entry @pos (at most the end) of @s becomes @name; a NULL name is not stored. */
static int set_entry(struct fn_cpu *s, size_t pos, uint64_t addr, const char *name)
{
	if (!name)
		return 0;
	if (pos == s->n) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 16;
			struct fn_ent *e = realloc(s->e, cap * sizeof(*e));

			if (!e)
				return -ENOMEM;
			s->e = e;
			s->cap = cap;
		}
		s->n++;
	}
	s->e[pos].addr = addr;
	s->e[pos].name = name;
	return 0;
}

/*
 * The plugin's add_and_get_index(): the level of a call of @fname from
 * @pname on @cpu, the stack changed as the plugin changes it.
 * Return: the level, or -ENOMEM.
 */
static long push_call(struct text_fnstack *stk, unsigned int cpu,
		      uint64_t faddr, const char *fname,
		      uint64_t paddr, const char *pname)
{
	struct fn_cpu *s = cpu_stack(stk, cpu);
	size_t i;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		if (s->e[i].name == pname || !strcmp(s->e[i].name, pname))
			return set_entry(s, i + 1, faddr, fname) < 0 ? -ENOMEM : (long)i;
	if (set_entry(s, 0, paddr, pname) < 0 || set_entry(s, 1, faddr, fname) < 0)
		return -ENOMEM;
	return 0;
}

/* A field of a record that holds it (checked by the caller). */
static uint64_t field(const struct text_func *fn, const struct text_rec *r,
		      const struct text_num_field *ff)
{
	return text_num_field_read(ff, fn->big_endian, r->data);
}

/* The text after the line's head; tep lock held, fields known. */
static int put_call(struct text_func *fn, const struct fn_event *fe,
		    const struct text_rec *r, struct text_fnstack *stk,
		    struct tdatfs_buf *out)
{
	struct tep_handle *tep = text_tep_handle(fn->tt);
	uint64_t ip = field(fn, r, &fe->ip), pip = field(fn, r, &fe->parent);
	const char *fname = tep_find_function(tep, ip);
	const char *pname = tep_find_function(tep, pip);
	long level = 0;
	char *o;

	if (pname && stk) {
		level = push_call(stk, r->cpu, ip, fname, pip, pname);
		if (level < 0)
			return (int)level;
	}
	if (level) {
		o = tdatfs_buf_reserve(out, (size_t)level * FN_INDENT);
		if (!o)
			return -ENOMEM;
		memset(o, ' ', (size_t)level * FN_INDENT);
		out->len += (size_t)level * FN_INDENT;
	}
	if (fname)
		return tdatfs_buf_put(out, fname, strlen(fname));
	return tdatfs_buf_printf(out, "0x%llx", (unsigned long long)ip);
}

/*
 * The plugin's trace_func_repeat_handler() after the call: the count and
 * the record's time less its delta (top_delta_ts << 32 | bottom_delta_ts),
 * as "%6.1000d" of TEP_PRINT_TIME prints it (microseconds,
 * rounded, whatever the clock).
 */
static int put_repeats(const struct text_func *fn, const struct fn_event *fe,
		       const struct text_rec *r, struct tdatfs_buf *out)
{
	uint64_t delta = field(fn, r, &fe->top) << 32 | field(fn, r, &fe->bottom);
	uint64_t us = (r->ts - delta + 500) / 1000;

	return tdatfs_buf_printf(out, " (count: %lld  last_ts: %5llu.%06llu)",
				 (long long)field(fn, r, &fe->count),
				 (unsigned long long)(us / 1000000),
				 (unsigned long long)(us % 1000000));
}

/* The fields of @fe's format, once; under the tep lock. */
static bool learn_locked(struct fn_event *fe, struct tep_event *ev, bool repeats)
{
	if (!fe->learned) {
		fe->learned = true;
		fe->fields_ok = text_num_field_find(ev, "ip", &fe->ip) &&
				text_num_field_find(ev, "parent_ip", &fe->parent);
		if (repeats)
			fe->fields_ok = fe->fields_ok &&
					text_num_field_find(ev, "count", &fe->count) &&
					text_num_field_find(ev, "top_delta_ts", &fe->top) &&
					text_num_field_find(ev, "bottom_delta_ts", &fe->bottom);
	}
	return fe->fields_ok;
}

/**
 * text_func_info() - the info text of a function or func_repeats record
 * @fn: formatter (NULL: none)
 * @d: the record's event (published, not a duplicate id)
 * @r: the record, known to hold @d's fields
 * @stk: the stacks of the record's position, changed as the plugin
 *	changes its own; NULL: none kept (nothing indents)
 * @out: destination, after the line's head; NULL: only @stk changes
 *
 * Return: 0 written, 1 not a record printed here (the caller prints it
 * through libtraceevent), or -ENOMEM.
 * Context: the caller holds the stream lock, not the tep lock.
 */
int text_func_info(struct text_func *fn, const struct text_event_desc *d,
		   const struct text_rec *r, struct text_fnstack *stk,
		   struct tdatfs_buf *out)
{
	struct tdatfs_buf scratch = { 0 };
	struct fn_event *fe;
	bool repeats;
	int ret;

	if (!text_func_wants(fn, d->ev->id))
		return 1;
	repeats = d->ev->id == fn->ev[EV_REPEATS].id;
	fe = &fn->ev[repeats ? EV_REPEATS : EV_FUNCTION];
	if (!out)
		out = &scratch;
	text_tep_lock(fn->tt);
	if (!learn_locked(fe, d->ev, repeats))
		ret = 1;
	else
		ret = put_call(fn, fe, r, stk, out);
	if (!ret && repeats)
		ret = put_repeats(fn, fe, r, out);
	/* a function printed as hex for want of memory for kallsyms */
	if (ret >= 0 && text_tep_take_error(fn->tt) < 0)
		ret = -ENOMEM;
	text_tep_unlock(fn->tt);
	tdatfs_buf_release(&scratch);
	return ret;
}

/**
 * text_fnstack_new() - empty stacks: those of a text's start
 *
 * Return: the stacks (free with text_fnstack_free()), or NULL with errno.
 */
struct text_fnstack *text_fnstack_new(void)
{
	return calloc(1, sizeof(struct text_fnstack));
}

/**
 * text_fnstack_free() - free stacks; NULL is fine
 * @stk: stacks
 */
void text_fnstack_free(struct text_fnstack *stk)
{
	size_t i;

	if (!stk)
		return;
	for (i = 0; i < stk->ncpu; i++)
		free(stk->c[i].e);
	free(stk->c);
	free(stk);
}

/* A snapshot block of @ncpu CPUs and @nent entries, its counts set. */
static struct text_fnsnap *snap_alloc(size_t ncpu, size_t nent)
{
	struct text_fnsnap *sn = malloc(sizeof(*sn) + ncpu * sizeof(*sn->cpus) +
					nent * sizeof(*sn->ent));

	if (!sn)
		return NULL;
	sn->ncpu = ncpu;
	sn->nent = nent;
	sn->ent = (struct fn_ent *)(sn + 1);
	sn->cpus = (struct fn_snapcpu *)(sn->ent + nent);
	return sn;
}

/**
 * text_fnstack_snap() - a copy of stacks, for a checkpoint
 * @stk: stacks
 * @snap: set to the copy, NULL when every stack is empty
 *
 * Return: 0 or -ENOMEM.
 */
int text_fnstack_snap(const struct text_fnstack *stk, struct text_fnsnap **snap)
{
	struct text_fnsnap *sn;
	size_t i, ncpu = 0, nent = 0;

	*snap = NULL;
	for (i = 0; i < stk->ncpu; i++) {
		ncpu += stk->c[i].n > 0;
		nent += stk->c[i].n;
	}
	if (!nent)
		return 0;
	sn = snap_alloc(ncpu, nent);
	if (!sn)
		return -ENOMEM;
	ncpu = nent = 0;
	for (i = 0; i < stk->ncpu; i++) {
		const struct fn_cpu *c = &stk->c[i];

		if (!c->n)
			continue;
		sn->cpus[ncpu].cpu = c->cpu;
		sn->cpus[ncpu++].n = (uint32_t)c->n;
		memcpy(&sn->ent[nent], c->e, c->n * sizeof(*c->e));
		nent += c->n;
	}
	*snap = sn;
	return 0;
}

/**
 * text_fnstack_restore() - stacks made what a copy holds
 * @stk: stacks
 * @snap: the copy (NULL: every stack empty)
 *
 * Return: 0, or -ENOMEM (then @stk is empty).
 */
int text_fnstack_restore(struct text_fnstack *stk, const struct text_fnsnap *snap)
{
	size_t i, k = 0;

	for (i = 0; i < stk->ncpu; i++)
		stk->c[i].n = 0;
	for (i = 0; snap && i < snap->ncpu; i++) {
		struct fn_cpu *c = cpu_stack(stk, snap->cpus[i].cpu);
		uint32_t j;

		for (j = 0; c && j < snap->cpus[i].n; j++, k++)
			if (set_entry(c, j, snap->ent[k].addr, snap->ent[k].name) < 0)
				c = NULL;
		if (!c) {
			for (i = 0; i < stk->ncpu; i++)
				stk->c[i].n = 0;
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * text_fnsnap_free() - free a copy; NULL is fine
 * @snap: copy
 */
void text_fnsnap_free(struct text_fnsnap *snap)
{
	free(snap);
}

/**
 * text_fnsnap_bytes() - the memory a copy holds
 * @snap: copy (NULL: none)
 *
 * Return: its bytes.
 */
size_t text_fnsnap_bytes(const struct text_fnsnap *snap)
{
	if (!snap)
		return 0;
	return sizeof(*snap) + snap->ncpu * sizeof(*snap->cpus) +
	       snap->nent * sizeof(*snap->ent);
}

/**
 * text_fnsnap_save() - a copy as bytes: CPU count, then per CPU its
 *	number, its entry count and the entries' addresses
 * @snap: copy (NULL: none)
 * @out: appended to
 *
 * Return: 0 or -ENOMEM.
 */
int text_fnsnap_save(const struct text_fnsnap *snap, struct tdatfs_buf *out)
{
	size_t i, j, k = 0;

	if (text_pack_u32(out, snap ? (uint32_t)snap->ncpu : 0) < 0)
		return -ENOMEM;
	for (i = 0; snap && i < snap->ncpu; i++) {
		if (text_pack_u32(out, snap->cpus[i].cpu) < 0 ||
		    text_pack_u32(out, snap->cpus[i].n) < 0)
			return -ENOMEM;
		for (j = 0; j < snap->cpus[i].n; j++, k++)
			if (text_pack_u64(out, snap->ent[k].addr) < 0)
				return -ENOMEM;
	}
	return 0;
}

/*
 * The counts of saved bytes, which are passed over: CPUs rising, none
 * empty, each count inside the bytes.  Return: 0 or -EINVAL.
 */
static int saved_counts(struct text_unpack *u, size_t *ncpu, size_t *nent)
{
	uint32_t i, n, cpu, prev = 0, ncpus = text_unpack_u32(u);

	*ncpu = ncpus;
	*nent = 0;
	if (u->bad || !text_pack_fits(u, ncpus, SAVED_CPU))
		return -EINVAL;
	for (i = 0; i < ncpus; i++) {
		cpu = text_unpack_u32(u);
		n = text_unpack_u32(u);
		if (u->bad || !n || (i && cpu <= prev) || !text_pack_fits(u, n, SAVED_ENT))
			return -EINVAL;
		u->p += (size_t)n * SAVED_ENT;
		u->left -= (size_t)n * SAVED_ENT;
		*nent += n;
		prev = cpu;
	}
	return 0;
}

/**
 * text_fnsnap_check() - pass over a copy's bytes, checked
 * @u: the bytes, moved past them
 *
 * Return: 0, or -EINVAL for bytes that are not a copy.
 */
int text_fnsnap_check(struct text_unpack *u)
{
	size_t ncpu, nent;

	return saved_counts(u, &ncpu, &nent);
}

/**
 * text_fnsnap_load() - a copy from its bytes, its names resolved again
 * @fn: the formatter of the trace the bytes were saved from
 * @u: the bytes, moved past them
 * @snap: set to the copy, NULL for empty stacks
 *
 * An address that no longer resolves (another kallsyms) makes the bytes
 * not a copy of this trace's stacks.
 *
 * Return: 0, -EINVAL, or -ENOMEM.
 * Context: takes the tep lock.
 */
int text_fnsnap_load(struct text_func *fn, struct text_unpack *u,
		     struct text_fnsnap **snap)
{
	struct text_unpack c = *u;
	struct text_fnsnap *sn;
	size_t ncpu, nent, i, j, k = 0;
	int ret = 0;

	*snap = NULL;
	if (saved_counts(u, &ncpu, &nent) < 0)
		return -EINVAL;
	if (!ncpu)
		return 0;
	sn = snap_alloc(ncpu, nent);
	if (!sn)
		return -ENOMEM;
	text_unpack_u32(&c);
	text_tep_lock(fn->tt);
	for (i = 0; i < ncpu && !ret; i++) {
		sn->cpus[i].cpu = text_unpack_u32(&c);
		sn->cpus[i].n = text_unpack_u32(&c);
		for (j = 0; j < sn->cpus[i].n && !ret; j++, k++) {
			sn->ent[k].addr = text_unpack_u64(&c);
			sn->ent[k].name = tep_find_function(text_tep_handle(fn->tt),
							    sn->ent[k].addr);
			if (!sn->ent[k].name)
				ret = -EINVAL;
		}
	}
	if (text_tep_take_error(fn->tt) < 0)
		ret = -ENOMEM;
	text_tep_unlock(fn->tt);
	if (ret < 0) {
		free(sn);
		return ret;
	}
	*snap = sn;
	return 0;
}
