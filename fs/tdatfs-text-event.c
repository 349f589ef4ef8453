/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-event.c - the event table of a trace: what the text engine
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
 *    and name; two formats with one id, or one name, would make which one
 *    gets it depend on order: such a file is parsed whole, up front.
 *  - A format whose head is not the plain "name: N\nID: I\n" might be read
 *    by libtraceevent with another id than the parser's: likewise whole.
 *  - The sched events whose plugin handler registers comms are parsed at
 *    setup: the engine looks them up by name (text_tep_setup()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text-int.h"

static size_t ev_slot(const struct tdatfs_text *t, int id)
{
	size_t h = ((uint32_t)id * 2654435761u) & (t->ev_cap - 1);

	while (t->ev_tab[h].used && t->ev_tab[h].id != id)
		h = (h + 1) & (t->ev_cap - 1);
	return h;
}

static int table_alloc(struct tdatfs_text *t, size_t n)
{
	size_t cap = 16;

	while (cap < n * 2 + 2)
		cap *= 2;
	t->ev_tab = calloc(cap, sizeof(*t->ev_tab));
	if (!t->ev_tab)
		return -ENOMEM;
	t->ev_cap = cap;
	return 0;
}

static int add_dyn(struct text_event *te, const struct tep_format_field *fl)
{
	struct text_dyn *d = realloc(te->dyn, (te->ndyn + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	te->dyn = d;
	d[te->ndyn].offset = fl->offset;
	d[te->ndyn].size = fl->size;
	d[te->ndyn].relative = fl->flags & TEP_FIELD_IS_RELATIVE;
	te->ndyn++;
	return 0;
}

/* What the fast path needs of @ev; on failure @te is left without it. */
static int fill(const struct tdatfs_text *t, struct text_event *te,
		struct tep_event *ev)
{
	const struct tep_format_field *fl;
	int pass;

	te->name = ev->name ? ev->name : "";
	te->name_len = strlen(te->name);
	te->fits = true;
	for (pass = 0; pass < 2; pass++) {
		fl = pass ? ev->format.fields : ev->format.common_fields;
		for (; fl; fl = fl->next) {
			if (fl->offset < 0 || fl->size < 0) {
				te->fits = false;
				continue;
			}
			if ((uint64_t)fl->offset + fl->size > te->min_size)
				te->min_size = (uint64_t)fl->offset + fl->size;
			if ((fl->flags & TEP_FIELD_IS_DYNAMIC) && add_dyn(te, fl) < 0) {
				free(te->dyn);
				te->dyn = NULL;
				te->ndyn = 0;
				return -ENOMEM;
			}
		}
	}
	if (!t->opts.tep_only)
		te->fast = text_fast_compile(ev);
	te->ev = ev;
	return 0;
}

/*
 * Parse the format of @te and publish the slot.  Without memory the slot
 * stays without an event: its records then go through libtraceevent whole
 * (format_slow()), which prints them the same.
 */
static void load_locked(struct tdatfs_text *t, struct text_event *te)
{
	char *buf = NULL;
	size_t cap = 0;

	if (text_tep_parse_format(t, te->fmt, &buf, &cap) == 0) {
		struct tep_event *ev = tep_find_event(t->tep, te->id);

		if (ev)
			fill(t, te, ev);
	}
	free(buf);
	atomic_store_explicit(&te->loaded, true, memory_order_release);
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

static int cmp_fmt_name(const void *a, const void *b)
{
	const struct tdat_event_format *x = *(const struct tdat_event_format * const *)a;
	const struct tdat_event_format *y = *(const struct tdat_event_format * const *)b;
	int r = strcmp(x->system, y->system);

	return r ? r : strcmp(x->name, y->name);
}

/* Whether no id and no system:name is given twice. */
static int all_unique(struct tdat_file *f, size_t n, bool *unique)
{
	const struct tdat_event_format **names = malloc(n * sizeof(*names) + 1);
	int *ids = malloc(n * sizeof(*ids) + 1);
	size_t i;

	*unique = false;
	if (!names || !ids) {
		free(names);
		free(ids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		names[i] = tdat_event_get(f, i);
		ids[i] = names[i]->id;
	}
	qsort(ids, n, sizeof(*ids), cmp_int);
	qsort(names, n, sizeof(*names), cmp_fmt_name);
	*unique = true;
	for (i = 1; i < n && *unique; i++) {
		if (ids[i] == ids[i - 1] || !cmp_fmt_name(&names[i], &names[i - 1]))
			*unique = false;
	}
	free(names);
	free(ids);
	return 0;
}

/**
 * text_events_index() - decide whether formats are parsed when first met
 * @t: engine with @t->f set, before any format is parsed
 *
 * Sets @t->lazy and, when set, makes one unloaded slot per format.
 * With the eager option every format is parsed up front.
 *
 * Return: 0 or -ENOMEM.
 * Context: at setup, under @t->lock.
 */
int text_events_index(struct tdatfs_text *t)
{
	size_t i, n = tdat_event_count(t->f);
	bool unique;
	int ret;

	t->lazy = false;
	if (t->opts.eager)
		return 0;
	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(t->f, i);

		if (!e || !head_is_plain(t->f, i, e))
			return 0;
	}
	ret = all_unique(t->f, n, &unique);
	if (ret < 0 || !unique)
		return ret;
	ret = table_alloc(t, n);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		int id = tdat_event_get(t->f, i)->id;
		struct text_event *te = &t->ev_tab[ev_slot(t, id)];

		te->used = true;
		te->id = id;
		te->fmt = i;
	}
	t->lazy = true;
	return 0;
}

static struct text_event *slot_by_name(struct tdatfs_text *t, const char *sys,
				       const char *name)
{
	size_t i, n = tdat_event_count(t->f);

	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(t->f, i);

		if (!strcmp(e->system, sys) && !strcmp(e->name, name))
			return &t->ev_tab[ev_slot(t, e->id)];
	}
	return NULL;
}

/**
 * text_events_preload() - parse, in a lazy table, what must be parsed first
 * @t: engine after text_events_index() set @t->lazy
 *
 * The lowest id that parses (libtraceevent's first event, which gives the
 * offsets of common_type and common_pid), then sched_switch, sched_wakeup
 * and sched_wakeup_new.
 *
 * Return: 0 or -ENOMEM.
 * Context: at setup, under @t->lock.
 */
int text_events_preload(struct tdatfs_text *t)
{
	static const char *const comm_events[] = {
		"sched_switch", "sched_wakeup", "sched_wakeup_new",
	};
	size_t i, n = tdat_event_count(t->f);
	int *ids;

	ids = malloc(n * sizeof(*ids) + 1);
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ids[i] = tdat_event_get(t->f, i)->id;
	qsort(ids, n, sizeof(*ids), cmp_int);
	pthread_mutex_lock(&t->tep_lock);
	for (i = 0; i < n && tep_get_events_count(t->tep) == 0; i++)
		load_locked(t, &t->ev_tab[ev_slot(t, ids[i])]);
	for (i = 0; i < sizeof(comm_events) / sizeof(comm_events[0]); i++) {
		struct text_event *te = slot_by_name(t, "sched", comm_events[i]);

		if (te && !atomic_load_explicit(&te->loaded, memory_order_relaxed))
			load_locked(t, te);
	}
	pthread_mutex_unlock(&t->tep_lock);
	free(ids);
	return 0;
}

/**
 * text_events_setup() - finish the event table after setup's parsing
 * @t: engine
 *
 * A lazy table whose first event gave no usable common fields is parsed
 * whole now (every record then goes through libtraceevent, which must
 * know every id).  An eager table is made from the events parsed.
 *
 * Return: 0 or -ENOMEM.
 * Context: at setup, under @t->lock.
 */
int text_events_setup(struct tdatfs_text *t)
{
	int i, n;
	int ret;

	if (t->lazy) {
		if (t->type_size && t->pid_size)
			return 0;
		pthread_mutex_lock(&t->tep_lock);
		for (size_t k = 0; k < t->ev_cap; k++) {
			struct text_event *te = &t->ev_tab[k];

			if (te->used && !atomic_load_explicit(&te->loaded,
							      memory_order_relaxed))
				load_locked(t, te);
		}
		pthread_mutex_unlock(&t->tep_lock);
		return 0;
	}
	n = tep_get_events_count(t->tep);
	ret = table_alloc(t, (size_t)n);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(t->tep, i);
		struct text_event *te;

		if (!ev)
			continue;
		te = &t->ev_tab[ev_slot(t, ev->id)];
		/* two formats with one id: libtraceevent's bsearch picks */
		if (te->used) {
			te->dup = true;
			continue;
		}
		te->used = true;
		te->id = ev->id;
		if (fill(t, te, ev) < 0)
			return -ENOMEM;
		atomic_store_explicit(&te->loaded, true, memory_order_relaxed);
	}
	return 0;
}

/**
 * text_events_teardown() - free the event table
 * @t: engine
 */
void text_events_teardown(struct tdatfs_text *t)
{
	size_t i;

	for (i = 0; i < t->ev_cap; i++) {
		free(t->ev_tab[i].fast);
		free(t->ev_tab[i].dyn);
	}
	free(t->ev_tab);
	t->ev_tab = NULL;
	t->ev_cap = 0;
}

/**
 * text_event_find() - the table entry of an event id, parsed if need be
 * @t: engine (set up)
 * @id: common_type of a record
 *
 * Return: the entry, or NULL for an id without a parsed format.
 * Context: lock-free once the id is loaded; the first lookup of an id
 * takes @t->tep_lock (the caller must not hold it).
 */
const struct text_event *text_event_find(struct tdatfs_text *t, int id)
{
	struct text_event *te;

	if (!t->ev_cap)
		return NULL;
	te = &t->ev_tab[ev_slot(t, id)];
	if (!te->used)
		return NULL;
	if (!atomic_load_explicit(&te->loaded, memory_order_acquire)) {
		pthread_mutex_lock(&t->tep_lock);
		if (!atomic_load_explicit(&te->loaded, memory_order_relaxed))
			load_locked(t, te);
		pthread_mutex_unlock(&t->tep_lock);
	}
	return te->ev ? te : NULL;
}

/**
 * text_event_fits() - whether every field of a record lies inside it
 * @t: engine
 * @te: the record's event
 * @data: the record
 * @n: its size
 *
 * Always true for data the kernel wrote; a damaged record can make
 * libtraceevent compute a negative length (a flexible array past the
 * end) and crash.
 *
 * Return: true when the fixed fields and every __data_loc string fit.
 * Context: lock-free.
 */
bool text_event_fits(const struct tdatfs_text *t, const struct text_event *te,
		     const unsigned char *data, size_t n)
{
	unsigned int i;

	if (!te->fits || n < te->min_size)
		return false;
	for (i = 0; i < te->ndyn; i++) {
		const struct text_dyn *d = &te->dyn[i];
		uint64_t v, off;

		if (d->size < 4)
			return false;
		v = text_read_num(t, data + d->offset, 4);
		off = v & 0xffff;
		if (d->relative)
			off += d->offset + d->size;
		if (off + (v >> 16) > n)
			return false;
	}
	return true;
}
