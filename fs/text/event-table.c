/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/event-table.c - the event table of a trace: what the text engine
 * knows of each event id (its libtraceevent event, the bytes its fixed
 * fields need, its __data_loc fields, its compiled format), and the
 * parsing of a format when its id is first met.
 *
 * Why parsing can wait: a kernel has some 2300 event formats and a trace
 * uses a handful; tep_parse_event() on all of them took half of the time
 * to the first line of text.  What can make the result depend on the
 * order or the set of formats parsed, and how it is kept the same as
 * parsing all of them up front (which trace-cmd does):
 *  - libtraceevent takes common_type and common_pid from its first event,
 *    the lowest id parsed: the lowest id that parses is parsed at setup.
 *  - A plugin's handler waits for the first event parsed with its system
 *    and name, and a lookup by name finds the lowest id parsed: of formats
 *    that share a system and name, the first in file order that parses
 *    and the lowest id that parses are parsed at setup (a hostile file
 *    may hold thousands of them: parsing them all in every engine was
 *    most of a mount's memory).  Two formats with one id would make which
 *    one libtraceevent finds depend on order: such a file is parsed
 *    whole, up front.
 *  - A format whose head is not the plain "name: N\nID: I\n" might be read
 *    by libtraceevent with another id than the parser's: likewise whole.
 *  - The sched events whose plugin handler registers comms are parsed at
 *    setup: the engine looks them up by name (text_comms_find_events()).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdat.h"
#include "bytes.h"
#include "compiled.h"
#include "event-table.h"
#include "tep.h"

/* ids up to this many have the by-id array (8 bytes each) */
#define DIRECT_MAX	65536

struct text_event {
	struct text_event_desc d;	/* first: text_event_fits() casts */
	int id;
	bool used;			/* this slot holds @id */
	size_t fmt;			/* lazy: the format of @id in the file */
	atomic_bool loaded;		/* @d and @fit are set */
	/* @fmt was left out of the handle: said once when met (lookup) */
	bool dropped;
	atomic_bool reported;
	struct text_fit fit;
};

struct text_events {
	struct tdat_file *f;
	struct text_tep *tt;
	bool tep_only;			/* no compiled formats */
	bool big_endian;
	bool lazy;			/* formats parsed when first met */
	/* lazy: formats sharing a system and name, grouped by it, each
	 * group in file order; ndup 0 for none */
	size_t *dup;
	size_t ndup;
	/* events by id (open addressing, cap a power of two) */
	struct text_event *tab;
	size_t cap;
	/* the published slots of ids below @ndirect, by id: a record's
	 * lookup is one load once its event was met (NULL: not yet) */
	_Atomic(struct text_event *) *direct;
	size_t ndirect;
	/* where every record has its type and pid (size 0: unknown) */
	unsigned int type_off, type_size, pid_off, pid_size;
};

static size_t ev_slot(const struct text_events *t, int id)
{
	size_t h = ((uint32_t)id * 2654435761u) & (t->cap - 1);

	while (t->tab[h].used && t->tab[h].id != id)
		h = (h + 1) & (t->cap - 1);
	return h;
}

static int table_alloc(struct text_events *t, size_t n)
{
	size_t cap = 16;

	while (cap < n * 2 + 2)
		cap *= 2;
	t->tab = calloc(cap, sizeof(*t->tab));
	if (!t->tab)
		return -ENOMEM;
	t->cap = cap;
	return 0;
}

static int add_dyn(struct text_fit *fit, const struct tep_format_field *fl)
{
	struct text_dyn *d = realloc(fit->dyn, (fit->ndyn + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	fit->dyn = d;
	d[fit->ndyn].offset = fl->offset;
	d[fit->ndyn].size = fl->size;
	d[fit->ndyn].relative = fl->flags & TEP_FIELD_IS_RELATIVE;
	fit->ndyn++;
	return 0;
}

/*
 * Where a record of @ev may end at the earliest without being damaged.
 * The kernel writes a stack event (ftrace:kernel_stack, caller[8] in its
 * format) with as many frames as it took, 0 to dozens: the record stops
 * inside or after its last array.  libtraceevent 1.7.1 prints such a
 * record without complaint: the function plugin walks the frames up to
 * the record's end, and a "[" index or a number field past the end reads
 * as 0 (check_data_offset_size()).  So the last field, when it is a fixed
 * array that starts after every other field ends, needs only to start
 * inside the record; what is read of it past the end is the zeroed room
 * after the record copy (TEXT_FIT_SHORT_MAX bounds the array for that).
 */
static uint64_t short_size(const struct tep_event *ev, uint64_t min_size)
{
	const struct tep_format_field *fl, *last = NULL;
	uint64_t before = 0;

	for (fl = ev->format.fields; fl; fl = fl->next)
		if (!last || fl->offset > last->offset)
			last = fl;
	if (!last || !(last->flags & TEP_FIELD_IS_ARRAY) ||
	    (last->flags & TEP_FIELD_IS_DYNAMIC) || last->size <= 0 ||
	    (unsigned int)last->size > TEXT_FIT_SHORT_MAX ||
	    (uint64_t)last->offset + last->size != min_size)
		return min_size;
	for (fl = ev->format.common_fields; fl; fl = fl->next)
		if ((uint64_t)fl->offset + fl->size > before)
			before = (uint64_t)fl->offset + fl->size;
	for (fl = ev->format.fields; fl; fl = fl->next)
		if (fl != last && (uint64_t)fl->offset + fl->size > before)
			before = (uint64_t)fl->offset + fl->size;
	return before <= (uint64_t)last->offset ? (uint64_t)last->offset
						: min_size;
}

/**
 * text_fit_init() - what the record check of an event needs
 * @fit: filled in; release with text_fit_release()
 * @ev: a parsed event (its fields are read: hold the tep lock after setup)
 *
 * Return: 0, or -ENOMEM (then @fit is empty).
 */
int text_fit_init(struct text_fit *fit, const struct tep_event *ev)
{
	const struct tep_format_field *fl;
	int pass;

	memset(fit, 0, sizeof(*fit));
	fit->fits = true;
	for (pass = 0; pass < 2; pass++) {
		fl = pass ? ev->format.fields : ev->format.common_fields;
		for (; fl; fl = fl->next) {
			if (fl->offset < 0 || fl->size < 0) {
				fit->fits = false;
				continue;
			}
			if ((uint64_t)fl->offset + fl->size > fit->min_size)
				fit->min_size = (uint64_t)fl->offset + fl->size;
			if ((fl->flags & TEP_FIELD_IS_DYNAMIC) && add_dyn(fit, fl) < 0) {
				text_fit_release(fit);
				return -ENOMEM;
			}
		}
	}
	fit->short_size = fit->fits ? short_size(ev, fit->min_size)
				    : fit->min_size;
	return 0;
}

/**
 * text_fit_release() - free what text_fit_init() allocated
 * @fit: the check, or NULL; left empty
 */
void text_fit_release(struct text_fit *fit)
{
	if (!fit)
		return;
	free(fit->dyn);
	memset(fit, 0, sizeof(*fit));
}

/**
 * text_fit_check() - whether every field of a record lies inside it
 * @fit: the event's check
 * @big_endian: byte order of the file
 * @data: the record
 * @n: its size
 *
 * Always true for data the kernel wrote; a damaged record can make
 * libtraceevent compute a negative length (a flexible array past the
 * end) and crash.  A last array may be short (see short_size()):
 * the kernel writes stack events so.
 *
 * Return: true when the fixed fields (all but the part of a last array
 * past the record's end) and every __data_loc string fit.
 * Context: lock-free.
 */
bool text_fit_check(const struct text_fit *fit, bool big_endian,
		    const unsigned char *data, size_t n)
{
	unsigned int i;

	if (!fit->fits || n < fit->short_size)
		return false;
	for (i = 0; i < fit->ndyn; i++) {
		const struct text_dyn *d = &fit->dyn[i];
		uint64_t v, off;

		if (d->size < 4)
			return false;
		v = text_read_num(big_endian, data + d->offset, 4);
		off = v & 0xffff;
		if (d->relative)
			off += d->offset + d->size;
		if (off + (v >> 16) > n)
			return false;
	}
	return true;
}

/* What the fast path needs of @ev; on failure @te is left without it. */
static int fill(const struct text_events *t, struct text_event *te,
		struct tep_event *ev)
{
	te->d.name = ev->name ? ev->name : "";
	te->d.name_len = strlen(te->d.name);
	if (te->d.name_len < 20) {
		memset(te->d.tail, ' ', sizeof(te->d.tail));
		memcpy(te->d.tail, te->d.name, te->d.name_len);
		memcpy(te->d.tail + te->d.name_len, ": ", 2);
		te->d.tail_len = TEXT_TAIL_LEN;
	}
	if (text_fit_init(&te->fit, ev) < 0)
		return -ENOMEM;
	if (!t->tep_only)
		te->d.fast = text_compiled_compile(ev, t->tt);
	te->d.ev = ev;
	return 0;
}

/*
 * Parse the format of @te and publish the slot.  Without memory for the
 * event's own tables (fill()) the slot stays without an event: its records
 * then go through libtraceevent whole (format_slow()), which prints them
 * the same.  Without memory for the format's text the slot stays unloaded
 * and the lookup fails: a format left out would print other text.
 */
static int load_locked(struct text_events *t, struct text_event *te)
{
	char *buf = NULL;
	size_t cap = 0;
	int ret = text_tep_parse_format(t->tt, te->fmt, &buf, &cap);

	free(buf);
	if (ret == -ENOMEM)
		return ret;
	if (ret == 0) {
		struct tep_event *ev = tep_find_event(text_tep_handle(t->tt), te->id);

		if (ev)
			fill(t, te, ev);
		else
			te->dropped = text_tep_dropped(t->tt, te->fmt);
	}
	atomic_store_explicit(&te->loaded, true, memory_order_release);
	return 0;
}

static int read_full(struct tdat_file *f, size_t i, char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = tdat_event_read(f, i, buf + done, len - done, done);

		if (r <= 0)
			return r < 0 ? (int)r : -EIO;
		done += r;
	}
	return 0;
}

/*
 * Whether format @i begins "name: NAME\nID: ID\n" with the name and id
 * the parser indexed: then libtraceevent reads the same name and id.
 */
static bool head_is_plain(struct tdat_file *f, size_t i,
			  const struct tdat_event_format *e)
{
	char want[160], head[160];
	const char *c;
	int n;

	if (e->id < 0 || !e->name[0])
		return false;
	for (c = e->name; *c; c++) {
		if (!text_is_ident(*c))
			return false;
	}
	n = snprintf(want, sizeof(want), "name: %s\nID: %d\n", e->name, e->id);
	if (n < 0 || (size_t)n >= sizeof(want) || (uint64_t)n > e->size)
		return false;
	return read_full(f, i, head, (size_t)n) == 0 && !memcmp(head, want, n);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Formats by system and name, then file order. */
static int cmp_fmt_name(const void *a, const void *b, void *ctx)
{
	const struct tdat_event_format *x = tdat_event_get(ctx, *(const size_t *)a);
	const struct tdat_event_format *y = tdat_event_get(ctx, *(const size_t *)b);
	int r = strcmp(x->system, y->system);

	if (!r)
		r = strcmp(x->name, y->name);
	if (!r)
		r = *(const size_t *)a < *(const size_t *)b ? -1 :
		    *(const size_t *)a > *(const size_t *)b;
	return r;
}

/* Whether formats @a and @b share a system and name. */
static bool same_name(struct tdat_file *f, size_t a, size_t b)
{
	const struct tdat_event_format *x = tdat_event_get(f, a);
	const struct tdat_event_format *y = tdat_event_get(f, b);

	return !strcmp(x->system, y->system) && !strcmp(x->name, y->name);
}

/*
 * Whether no id is given twice (*@unique); if so, the formats that share
 * a system and name into @t->dup.
 */
static int all_unique(struct text_events *t, size_t n, bool *unique)
{
	size_t *names = malloc(n * sizeof(*names) + 1);
	int *ids = malloc(n * sizeof(*ids) + 1);
	size_t i, k = 0;

	*unique = false;
	if (!names || !ids) {
		free(names);
		free(ids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		names[i] = i;
		ids[i] = tdat_event_get(t->f, i)->id;
	}
	qsort(ids, n, sizeof(*ids), cmp_int);
	*unique = true;
	for (i = 1; i < n && *unique; i++)
		if (ids[i] == ids[i - 1])
			*unique = false;
	free(ids);
	if (*unique)
		qsort_r(names, n, sizeof(*names), cmp_fmt_name, t->f);
	for (i = 0; *unique && i < n; i++)
		if ((i > 0 && same_name(t->f, names[i], names[i - 1])) ||
		    (i + 1 < n && same_name(t->f, names[i], names[i + 1])))
			names[k++] = names[i];
	if (!k) {
		free(names);
		return 0;
	}
	t->dup = names;
	t->ndup = k;
	return 0;
}

/* Whether formats can wait until their id is first met; if so, the table. */
static int index_lazy(struct text_events *t)
{
	size_t i, n = tdat_event_count(t->f);
	bool unique;
	int ret;

	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(t->f, i);

		if (!e || !head_is_plain(t->f, i, e))
			return 0;
	}
	ret = all_unique(t, n, &unique);
	if (ret < 0 || !unique)
		return ret;
	ret = table_alloc(t, n);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		int id = tdat_event_get(t->f, i)->id;
		struct text_event *te = &t->tab[ev_slot(t, id)];

		te->used = true;
		te->id = id;
		te->fmt = i;
	}
	t->lazy = true;
	return 0;
}

/**
 * text_events_new() - an event table, before any format is parsed
 * @f: the trace
 * @tt: its libtraceevent handle; both must outlive the table
 * @eager: parse every format up front (no lazy table)
 * @tep_only: compile no format
 *
 * Decides whether formats are parsed when first met
 * (text_events_lazy()) and, when they are, makes one unloaded slot per
 * format.
 *
 * Return: the table (free with text_events_free()), or NULL with errno set.
 * Context: at setup.
 */
struct text_events *text_events_new(struct tdat_file *f, struct text_tep *tt,
				    bool eager, bool tep_only)
{
	struct text_events *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->f = f;
	t->tt = tt;
	t->tep_only = tep_only;
	t->big_endian = tdat_big_endian(f);
	if (!eager && index_lazy(t) < 0) {
		text_events_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

/**
 * text_events_lazy() - whether formats are parsed when first met
 * @t: table
 *
 * Return: true when the setup parses only text_events_preload()'s.
 */
bool text_events_lazy(const struct text_events *t)
{
	return t->lazy;
}

static struct text_event *slot_by_name(struct text_events *t, const char *sys,
				       const char *name)
{
	size_t i, n = tdat_event_count(t->f);

	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(t->f, i);

		if (!strcmp(e->system, sys) && !strcmp(e->name, name))
			return &t->tab[ev_slot(t, e->id)];
	}
	return NULL;
}

/*
 * Load the slots of @ids in their order until one parses (a slot met
 * loaded counts when it holds an event).  Return: 0 or -ENOMEM.
 */
static int load_first(struct text_events *t, const int *ids, size_t n)
{
	struct tep_handle *tep = text_tep_handle(t->tt);
	int ret;

	for (size_t i = 0; i < n; i++) {
		struct text_event *te = &t->tab[ev_slot(t, ids[i])];
		int before = tep_get_events_count(tep);

		if (atomic_load_explicit(&te->loaded, memory_order_relaxed)) {
			if (te->d.ev)
				return 0;
			continue;
		}
		ret = load_locked(t, te);
		if (ret || tep_get_events_count(tep) > before)
			return ret;
	}
	return 0;
}

/*
 * Of each group of formats that share a system and name: the first in
 * file order that parses (it takes a plugin's handler, as when all are
 * parsed in file order), then the lowest id that parses (what a lookup
 * by name finds).  @ids: room for the largest group.
 */
static int preload_dups(struct text_events *t, int *ids)
{
	size_t a, b, k;
	int ret = 0;

	for (a = 0; a < t->ndup && !ret; a = b) {
		for (b = a; b < t->ndup &&
		     same_name(t->f, t->dup[a], t->dup[b]); b++)
			ids[b - a] = tdat_event_get(t->f, t->dup[b])->id;
		k = b - a;
		ret = load_first(t, ids, k);
		qsort(ids, k, sizeof(*ids), cmp_int);
		if (!ret)
			ret = load_first(t, ids, k);
	}
	return ret;
}

/**
 * text_events_preload() - parse, in a lazy table, what must be parsed first
 * @t: a lazy table
 *
 * What formats sharing a system and name need (preload_dups()), the
 * lowest id that parses (libtraceevent's first event, which gives the
 * offsets of common_type and common_pid), then sched_switch,
 * sched_wakeup and sched_wakeup_new.
 *
 * Return: 0 or -ENOMEM.
 * Context: at setup, where the formats would all be parsed.
 */
int text_events_preload(struct text_events *t)
{
	static const char *const comm_events[] = {
		"sched_switch", "sched_wakeup", "sched_wakeup_new",
	};
	size_t i, n = tdat_event_count(t->f);
	int *ids, ret;

	ids = malloc(n * sizeof(*ids) + 1);
	if (!ids)
		return -ENOMEM;
	text_tep_lock(t->tt);
	ret = preload_dups(t, ids);
	for (i = 0; i < n; i++)
		ids[i] = tdat_event_get(t->f, i)->id;
	qsort(ids, n, sizeof(*ids), cmp_int);
	if (!ret)
		ret = load_first(t, ids, n);
	for (i = 0; i < sizeof(comm_events) / sizeof(comm_events[0]) && !ret; i++) {
		struct text_event *te = slot_by_name(t, "sched", comm_events[i]);

		if (te && !atomic_load_explicit(&te->loaded, memory_order_relaxed))
			ret = load_locked(t, te);
	}
	text_tep_unlock(t->tt);
	free(ids);
	return ret;
}

static bool number_field(const struct tep_format_field *fl, unsigned int *off,
			 unsigned int *size)
{
	if (!fl || fl->offset < 0 || (fl->size != 1 && fl->size != 2 &&
				      fl->size != 4 && fl->size != 8))
		return false;
	*off = fl->offset;
	*size = fl->size;
	return true;
}

/* Where libtraceevent reads common_type and common_pid: the first event's. */
static void find_common_fields(struct text_events *t)
{
	struct tep_handle *tep = text_tep_handle(t->tt);
	struct tep_event *ev = tep_get_events_count(tep) > 0 ?
			       tep_get_event(tep, 0) : NULL;

	t->type_size = t->pid_size = 0;
	if (!ev)
		return;
	if (!number_field(tep_find_common_field(ev, "common_type"),
			  &t->type_off, &t->type_size))
		t->type_size = 0;
	if (!number_field(tep_find_common_field(ev, "common_pid"),
			  &t->pid_off, &t->pid_size))
		t->pid_size = 0;
}

/*
 * In an eager table, a slot for each format left out of the handle whose
 * id no event parsed has: the lookup of a record of it says so (as a
 * lazy table's does), and nothing else.
 */
static void add_dropped(struct text_events *t)
{
	size_t i, n = tdat_event_count(t->f);

	for (i = 0; i < n; i++) {
		struct text_event *te;

		if (!text_tep_dropped(t->tt, i))
			continue;
		te = &t->tab[ev_slot(t, tdat_event_get(t->f, i)->id)];
		if (te->used)
			continue;
		te->used = true;
		te->id = tdat_event_get(t->f, i)->id;
		te->fmt = i;
		te->dropped = true;
		atomic_store_explicit(&te->loaded, true, memory_order_relaxed);
	}
}

/* An eager table: one slot per event parsed, and per format left out. */
static int table_from_tep(struct text_events *t)
{
	struct tep_handle *tep = text_tep_handle(t->tt);
	int i, n = tep_get_events_count(tep);
	size_t k, drops = 0;
	int ret;

	for (k = 0; k < tdat_event_count(t->f); k++)
		drops += text_tep_dropped(t->tt, k);
	ret = table_alloc(t, (size_t)n + drops);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(tep, i);
		struct text_event *te;

		if (!ev)
			continue;
		te = &t->tab[ev_slot(t, ev->id)];
		/* two formats with one id: libtraceevent's bsearch picks */
		if (te->used) {
			te->d.dup = true;
			continue;
		}
		te->used = true;
		te->id = ev->id;
		if (fill(t, te, ev) < 0)
			return -ENOMEM;
		atomic_store_explicit(&te->loaded, true, memory_order_relaxed);
	}
	add_dropped(t);
	return 0;
}

/*
 * The by-id array of the slots (struct text_events), when the ids are
 * small enough for it: kernels number events from 1 in the thousands.
 * Without it every lookup hashes.  Return: 0 or -ENOMEM.
 */
static int direct_alloc(struct text_events *t)
{
	size_t k, n = 0;

	for (k = 0; k < t->cap; k++) {
		const struct text_event *te = &t->tab[k];

		if (te->used && te->id >= 0 && (size_t)te->id >= n)
			n = (size_t)te->id + 1;
	}
	if (!n || n > DIRECT_MAX)
		return 0;
	t->direct = calloc(n, sizeof(*t->direct));
	if (!t->direct)
		return -ENOMEM;
	t->ndirect = n;
	return 0;
}

/**
 * text_events_finish() - finish the table after setup's parsing
 * @t: table
 *
 * Finds where records have their type and pid.  A lazy table whose first
 * event gave no usable common fields is parsed whole now (every record
 * then goes through libtraceevent, which must know every id).  An eager
 * table is made from the events parsed.
 *
 * Return: 0 or -ENOMEM.
 * Context: at setup.
 */
int text_events_finish(struct text_events *t)
{
	int ret = 0;

	find_common_fields(t);
	if (!t->lazy) {
		ret = table_from_tep(t);
		return ret < 0 ? ret : direct_alloc(t);
	}
	ret = direct_alloc(t);
	if (ret < 0 || (t->type_size && t->pid_size))
		return ret;
	text_tep_lock(t->tt);
	for (size_t k = 0; k < t->cap && !ret; k++) {
		struct text_event *te = &t->tab[k];

		if (te->used && !atomic_load_explicit(&te->loaded,
						      memory_order_relaxed))
			ret = load_locked(t, te);
	}
	text_tep_unlock(t->tt);
	return ret;
}

/**
 * text_events_free() - free the table; NULL is fine
 * @t: table
 */
void text_events_free(struct text_events *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cap; i++) {
		text_compiled_free((struct text_compiled *)t->tab[i].d.fast);
		text_fit_release(&t->tab[i].fit);
	}
	free(t->tab);
	free(t->dup);
	free(t->direct);
	free(t);
}

/*
 * text_event_lookup() of an id not published in the by-id array: found
 * by hash, parsed if need be, then published.  Kept out of line, so the
 * lookup of a record's event, once met, is a load without a call frame.
 */
static __attribute__((noinline)) int
lookup_slow(struct text_events *t, int id, const struct text_event_desc **d)
{
	struct text_event *te;
	int ret = 0;

	*d = NULL;
	if (!t->cap)
		return 0;
	te = &t->tab[ev_slot(t, id)];
	if (!te->used)
		return 0;
	if (!atomic_load_explicit(&te->loaded, memory_order_acquire)) {
		text_tep_lock(t->tt);
		if (!atomic_load_explicit(&te->loaded, memory_order_relaxed))
			ret = load_locked(t, te);
		text_tep_unlock(t->tt);
	}
	if (ret < 0)
		return ret;
	if (te->dropped && !atomic_exchange_explicit(&te->reported, true,
						     memory_order_relaxed))
		text_tep_report_dropped(t->tt, te->fmt);
	*d = te->d.ev ? &te->d : NULL;
	/* published: what a later lookup of the id finds at once */
	if (*d && (unsigned int)id < t->ndirect)
		atomic_store_explicit(&t->direct[id], te, memory_order_release);
	return 0;
}

/**
 * text_event_lookup() - the table entry of an event id, parsed if need be
 * @t: table (set up)
 * @id: common_type of a record
 * @d: set to the entry, or NULL for an id without a parsed format
 *
 * The first lookup of an id whose format was left out of the handle
 * tells the damage registry (text_tep_report_dropped()): lookups are of
 * the ids of records met.
 * Return: 0, or -ENOMEM when the format could not be read for want of
 * memory (the id stays unparsed: a later lookup tries again).
 * Context: lock-free once the id is loaded; the first lookup of an id
 * takes the tep lock (the caller must not hold it).
 */
int text_event_lookup(struct text_events *t, int id,
		      const struct text_event_desc **d)
{
	if ((unsigned int)id < t->ndirect) {
		struct text_event *te = atomic_load_explicit(&t->direct[id],
							     memory_order_acquire);

		if (te) {
			*d = &te->d;
			return 0;
		}
	}
	return lookup_slow(t, id, d);
}

/**
 * text_event_fits() - text_fit_check() of a record of a table entry
 * @t: table
 * @d: the record's entry, from text_event_lookup()
 * @data: the record
 * @n: its size
 *
 * Return: true when every field of the record lies inside it.
 * Context: lock-free.
 */
bool text_event_fits(const struct text_events *t,
		     const struct text_event_desc *d,
		     const unsigned char *data, size_t n)
{
	const struct text_event *te = (const struct text_event *)d;

	/* most events have no __data_loc field: no call for them */
	if (!te->fit.ndyn)
		return te->fit.fits && n >= te->fit.short_size;
	return text_fit_check(&te->fit, t->big_endian, data, n);
}

/**
 * text_event_whole() - whether a record holds all the fixed fields of
 *	its entry, the last array whole
 * @d: the record's entry, from text_event_lookup()
 * @n: the record's size
 *
 * A record that fits (text_event_fits()) but is not whole ends inside
 * its last array: only libtraceevent prints it, from the zero-padded
 * copy, so the compiled formats never read past a record.
 *
 * Return: true when the record is at least as long as the fixed fields.
 * Context: lock-free.
 */
bool text_event_whole(const struct text_event_desc *d, size_t n)
{
	const struct text_event *te = (const struct text_event *)d;

	return n >= te->fit.min_size;
}

/**
 * text_record_type() - the event id of a record, as libtraceevent reads it
 * @t: table (set up)
 * @data: the record
 * @n: its size
 * @id: set to the id
 *
 * Return: false when the type cannot be read here (unknown common_type,
 * or a record too short for it).
 */
bool text_record_type(const struct text_events *t, const unsigned char *data,
		      size_t n, int *id)
{
	if (!t->type_size || n < t->type_off + t->type_size)
		return false;
	*id = (int)text_read_num(t->big_endian, data + t->type_off, t->type_size);
	return true;
}

/**
 * text_record_pid() - the pid of a record, as libtraceevent reads it
 * @t: table (set up)
 * @data: the record
 * @n: its size
 * @pid: set to the pid
 *
 * Return: false when the pid cannot be read here.
 */
bool text_record_pid(const struct text_events *t, const unsigned char *data,
		     size_t n, int *pid)
{
	if (!t->pid_size || n < t->pid_off + t->pid_size)
		return false;
	*pid = (int)text_read_num(t->big_endian, data + t->pid_off, t->pid_size);
	return true;
}

/**
 * text_events_tep_only() - whether the table was made to compile nothing
 * (every record through libtraceevent: the engine's tep_only switch)
 * @evs: event table
 *
 * Return: the switch.  Context: lock-free.
 */
bool text_events_tep_only(const struct text_events *evs)
{
	return evs->tep_only;
}

/**
 * text_num_field_find() - a field that tep_get_field_val() reads
 * @ev: the parsed format (under the tep lock)
 * @name: the field's name
 * @nf: set to its offset and size
 *
 * Return: true when @ev has the field, at a non-negative offset, of 1, 2,
 * 4 or 8 bytes.
 */
bool text_num_field_find(struct tep_event *ev, const char *name,
			 struct text_num_field *nf)
{
	const struct tep_format_field *fl = tep_find_field(ev, name);

	if (!fl || fl->offset < 0 ||
	    (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8))
		return false;
	nf->off = (uint32_t)fl->offset;
	nf->size = (uint32_t)fl->size;
	return true;
}

/**
 * text_num_field_read() - a field's value, unsigned
 * @nf: the field (text_num_field_find())
 * @big_endian: byte order of the file
 * @data: a record known to hold it
 *
 * Return: the value, as tep_read_number() reads it.
 * Context: lock-free.
 */
uint64_t text_num_field_read(const struct text_num_field *nf, bool big_endian,
			     const void *data)
{
	return text_read_num(big_endian, (const unsigned char *)data + nf->off,
			     nf->size);
}
