/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-event.c - a record as one of Perfetto's FtraceEvents
 * (text/pftrace-event.h): per event id, decided at its first record,
 * a plan of where each field is and how it is written, typed (the table
 * below, from perfetto_trace.proto and doc/PERFETTO.md section 4) or
 * GenericFtraceEvent; then each record read by its plan.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"
#include "bytes.h"
#include "event-table.h"
#include "fields-row.h"
#include "kallsyms.h"
#include "line.h"
#include "pftrace-event.h"
#include "source.h"
#include "tep.h"

/* A field of a typed message: its name in the kernel's format. */
struct tspec_field {
	const char *name;
	uint32_t number;
	enum tdatfs_pf_type type;
	unsigned int flags;
};

#define OPT	1u	/* some kernels' formats lack it */
#define FUNC	2u	/* a kernel function's address */
#define REP	4u	/* an integer array, one field per element */
#define TRIM	8u	/* one trailing newline left out, as -R does */

struct tspec {
	const char *system;
	const char *name;
	uint32_t type;		/* FtraceEvent's field number */
	const struct tspec_field *f;
	unsigned int n;
};

#define I32 TDATFS_PF_I32
#define I64 TDATFS_PF_I64
#define U32 TDATFS_PF_U32
#define U64 TDATFS_PF_U64
#define STR TDATFS_PF_STR

static const struct tspec_field f_print[] = {
	{ "ip", 1, U64, 0 }, { "buf", 2, STR, TRIM },
};
static const struct tspec_field f_switch[] = {
	{ "prev_comm", 1, STR, 0 }, { "prev_pid", 2, I32, 0 }, { "prev_prio", 3, I32, 0 },
	{ "prev_state", 4, I64, 0 }, { "next_comm", 5, STR, 0 }, { "next_pid", 6, I32, 0 },
	{ "next_prio", 7, I32, 0 },
};
static const struct tspec_field f_cpu[] = {
	{ "state", 1, U32, 0 }, { "cpu_id", 2, U32, 0 },
};
static const struct tspec_field f_wake[] = {
	{ "comm", 1, STR, 0 }, { "pid", 2, I32, 0 }, { "prio", 3, I32, 0 },
	{ "success", 4, I32, OPT }, { "target_cpu", 5, I32, 0 },
};
static const struct tspec_field f_softirq[] = {
	{ "vec", 1, U32, 0 },
};
static const struct tspec_field f_irq_entry[] = {
	{ "irq", 1, I32, 0 }, { "name", 2, STR, 0 },
	{ "handler", 3, U32, OPT },
};
static const struct tspec_field f_irq_exit[] = {
	{ "irq", 1, I32, 0 }, { "ret", 2, I32, 0 },
};
static const struct tspec_field f_wq_start[] = {
	{ "work", 1, U64, 0 }, { "function", 2, U64, FUNC },
};
static const struct tspec_field f_wq_end[] = {
	{ "work", 1, U64, 0 },
	{ "function", 2, U64, OPT | FUNC },
};
static const struct tspec_field f_suspend[] = {
	{ "action", 1, STR, 0 }, { "val", 2, I32, 0 }, { "start", 3, U32, 0 },
};
static const struct tspec_field f_newtask[] = {
	{ "pid", 1, I32, 0 }, { "comm", 2, STR, 0 }, { "clone_flags", 3, U64, 0 },
	{ "oom_score_adj", 4, I32, OPT },
};
static const struct tspec_field f_rename[] = {
	{ "pid", 1, I32, 0 }, { "oldcomm", 2, STR, 0 }, { "newcomm", 3, STR, 0 },
	{ "oom_score_adj", 4, I32, OPT },
};
static const struct tspec_field f_exec[] = {
	{ "filename", 1, STR, 0 }, { "pid", 2, I32, 0 }, { "old_pid", 3, I32, 0 },
};
static const struct tspec_field f_exit[] = {
	{ "comm", 1, STR, 0 }, { "pid", 2, I32, 0 },
	{ "tgid", 3, I32, OPT }, { "prio", 4, I32, 0 },
};
static const struct tspec_field f_fork[] = {
	{ "parent_comm", 1, STR, 0 }, { "parent_pid", 2, I32, 0 },
	{ "child_comm", 3, STR, 0 }, { "child_pid", 4, I32, 0 },
};
static const struct tspec_field f_free[] = {
	{ "comm", 1, STR, 0 }, { "pid", 2, I32, 0 }, { "prio", 3, I32, 0 },
};
static const struct tspec_field f_sys_enter[] = {
	{ "id", 1, I64, 0 }, { "args", 2, U64, REP },
};
static const struct tspec_field f_sys_exit[] = {
	{ "id", 1, I64, 0 }, { "ret", 2, I64, 0 },
};
static const struct tspec_field f_fg_entry[] = {
	{ "depth", 1, I32, 0 }, { "func", 2, U64, FUNC },
};
static const struct tspec_field f_fg_exit[] = {
	{ "calltime", 1, U64, OPT }, { "depth", 2, I32, 0 },
	{ "func", 3, U64, FUNC },
	{ "overrun", 4, U64, OPT },
	{ "rettime", 5, U64, OPT },
};

#define SPEC(sys, name, type, f) { sys, name, type, f, sizeof(f) / sizeof(f[0]) }

static const struct tspec specs[] = {
	SPEC("ftrace", "print", 3, f_print),
	SPEC("sched", "sched_switch", 4, f_switch),
	SPEC("power", "cpu_frequency", 11, f_cpu),
	SPEC("power", "cpu_idle", 13, f_cpu),
	SPEC("sched", "sched_wakeup", 17, f_wake),
	SPEC("sched", "sched_waking", 20, f_wake),
	SPEC("irq", "softirq_entry", 24, f_softirq),
	SPEC("irq", "softirq_exit", 25, f_softirq),
	SPEC("irq", "irq_handler_entry", 36, f_irq_entry),
	SPEC("irq", "irq_handler_exit", 37, f_irq_exit),
	SPEC("workqueue", "workqueue_execute_end", 57, f_wq_end),
	SPEC("workqueue", "workqueue_execute_start", 58, f_wq_start),
	SPEC("power", "suspend_resume", 113, f_suspend),
	SPEC("sched", "sched_wakeup_new", 114, f_wake),
	SPEC("task", "task_newtask", 235, f_newtask),
	SPEC("task", "task_rename", 236, f_rename),
	SPEC("sched", "sched_process_exec", 237, f_exec),
	SPEC("sched", "sched_process_exit", 238, f_exit),
	SPEC("sched", "sched_process_fork", 239, f_fork),
	SPEC("sched", "sched_process_free", 240, f_free),
	SPEC("raw_syscalls", "sys_enter", 329, f_sys_enter),
	SPEC("raw_syscalls", "sys_exit", 330, f_sys_exit),
	SPEC("ftrace", "funcgraph_entry", 437, f_fg_entry),
	SPEC("ftrace", "funcgraph_exit", 438, f_fg_exit),
};

/* How one field of a record is read and written. */
enum kind {
	K_INT,		/* a number of @size bytes */
	K_STR,		/* a char array, char buf[] or __data_loc string */
	K_ARGS,		/* an integer array: one field per element */
	K_TEXT,		/* generic: the -R value of format field @idx */
};

struct plan {
	enum kind kind;
	enum tdatfs_pf_type type;
	uint32_t number;		/* typed */
	const char *name;		/* generic: the format's (lives with it) */
	size_t name_len;
	bool sgn, dyn, rel, func, trim;
	uint32_t off, size;
	uint32_t elem, count;		/* K_ARGS */
	unsigned int idx;		/* K_TEXT */
	struct text_raw_array arr;	/* K_TEXT of a direct map */
};

/* What the records of one event id become. */
struct pf_map {
	uint32_t type;			/* typed number or TDATFS_PF_GENERIC */
	const char *name;		/* generic: the event's name */
	size_t name_len;
	unsigned int nformat;		/* the format's own fields */
	unsigned int nout;		/* most fields one record gives */
	bool text;			/* a K_TEXT plan: the -R values needed */
	bool direct;			/* its K_TEXT values made here */
	size_t need;			/* direct: text_fields_copy_need() */
	unsigned int n;
	struct plan p[];
};

/* One event id of the trace's formats and its map, once decided. */
struct slot {
	int id;
	struct pf_map *_Atomic map;
};

struct text_pf_events {
	struct text_fmt *fm;
	struct text_fmt_share sh;
	pthread_mutex_t lock;		/* deciding a map */
	size_t n;
	struct slot *slots;		/* sorted by id */
	/*
	 * Slot index + 1 of each id up to @nid (0: no format), so a record's
	 * map is one load: ids are the 16-bit common_type, and a bsearch a
	 * record was 5% of big.dat's encoding.  NULL when an id falls
	 * outside (then the bsearch).
	 */
	uint16_t *by_id;
	size_t nid;
};

/**
 * text_pf_utf8_put() - append bytes as valid UTF-8
 * @b: buffer
 * @s: the bytes
 * @n: their count
 * @max: most bytes appended
 *
 * Each maximal ill-formed subsequence (WHATWG's UTF-8 decoder: a lead
 * byte and the continuation bytes in its allowed ranges before the first
 * that is not) becomes U+FFFD, as Python's decode("utf-8", "replace").
 * Output stops before a character that would pass @max.
 *
 * Return: 0 or -ENOMEM (nothing appended).
 */
int text_pf_utf8_put(struct tdatfs_buf *b, const char *s, size_t n, size_t max)
{
	static const char fffd[] = "\xef\xbf\xbd";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, room = n < max / 3 ? n * 3 : max;
	char *d = tdatfs_buf_reserve(b, room);

	if (!d)
		return -ENOMEM;
	while (i < n) {
		unsigned int c = u[i], need = 0, k = 0;
		unsigned char lo = 0x80, hi = 0xbf;
		const char *src = s + i;
		size_t j = i + 1;

		if (c < 0x80) {
			/* a run of ASCII as one copy, cut at @room */
			while (j < n && u[j] < 0x80)
				j++;
			if (j - i > room - o)
				j = i + (room - o);
			memcpy(d + o, src, j - i);
			o += j - i;
			i = j;
			if (o == room)
				break;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			lo = c == 0xe0 ? 0xa0 : lo;
			hi = c == 0xed ? 0x9f : hi;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			lo = c == 0xf0 ? 0x90 : lo;
			hi = c == 0xf4 ? 0x8f : hi;
		}
		/* after the first continuation byte any 80..bf may follow */
		while (k < need && j < n && u[j] >= lo && u[j] <= hi) {
			j++;
			k++;
			lo = 0x80;
			hi = 0xbf;
		}
		if (c >= 0x80 && (!need || k < need))
			src = fffd;	/* u[j] is read again as a start */
		if (o + (src == fffd ? 3 : j - i) > room)
			break;
		memcpy(d + o, src, src == fffd ? 3 : j - i);
		o += src == fffd ? 3 : j - i;
		i = j;
	}
	b->len += o;
	return 0;
}

/* Whether a format's type text names a char array ("char[16]",
 * "__data_loc char[]", "const char[]"). */
static bool char_type(const char *t)
{
	static const char *const skip[] = { "__data_loc ", "__rel_loc ",
					    "const " };
	size_t i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++) {
		if (!strncmp(t, skip[i], strlen(skip[i])))
			t += strlen(skip[i]);
	}
	return !strncmp(t, "char", 4) && (t[4] == '[' || t[4] == ' ');
}

static bool is_int(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
	       f->offset >= 0 &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

static void plan_place(struct plan *p, const struct tep_format_field *f)
{
	p->sgn = f->flags & TEP_FIELD_IS_SIGNED;
	p->dyn = f->flags & TEP_FIELD_IS_DYNAMIC;
	p->rel = f->flags & TEP_FIELD_IS_RELATIVE;
	p->off = (uint32_t)f->offset;
	p->size = (uint32_t)f->size;
}

/* Whether format field @f can carry typed field @tf; fills @p. */
static bool compatible(const struct tspec_field *tf,
		       const struct tep_format_field *f, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	if (f->offset < 0 || f->size < 0)
		return false;
	plan_place(p, f);
	p->number = tf->number;
	p->type = tf->type;
	p->func = tf->flags & FUNC;
	p->trim = tf->flags & TRIM;
	if (tf->flags & REP) {
		p->kind = K_ARGS;
		p->count = f->arraylen;
		p->elem = f->elementsize;
		return (f->flags & TEP_FIELD_IS_ARRAY) &&
		       !(f->flags & TEP_FIELD_IS_DYNAMIC) && !char_type(f->type) &&
		       p->count && p->count <= 64 &&
		       (p->elem == 1 || p->elem == 2 || p->elem == 4 ||
			p->elem == 8) && (uint64_t)p->elem * p->count == p->size;
	}
	if (tf->type == STR) {
		p->kind = K_STR;
		return (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
		       char_type(f->type) && (!p->dyn || p->size == 4);
	}
	p->kind = K_INT;
	return is_int(f) && (f->size <= 4 || tf->type == I64 || tf->type == U64);
}

/* The typed map of @ev by @ts, or NULL (errno ENOENT: it goes generic). */
static struct pf_map *map_typed(const struct tspec *ts, struct tep_event *ev)
{
	struct pf_map *m = calloc(1, sizeof(*m) + (ts->n + 64) * sizeof(m->p[0]));
	unsigned int i;

	if (!m)
		return NULL;
	m->type = ts->type;
	for (i = 0; i < ts->n; i++) {
		struct tep_format_field *f = tep_find_field(ev, ts->f[i].name);
		struct plan *p = &m->p[m->n];

		if (!f && (ts->f[i].flags & OPT))
			continue;
		if (!f || !compatible(&ts->f[i], f, p)) {
			free(m);
			errno = ENOENT;
			return NULL;
		}
		m->nout += p->kind == K_ARGS ? p->count : 1;
		m->n++;
	}
	return m;
}

/* The generic map of @ev: every own field of its format, in order. */
static struct pf_map *map_generic(struct tep_event *ev)
{
	const struct tep_format_field *f;
	unsigned int n = 0;
	bool direct = true;
	struct pf_map *m;

	for (f = ev->format.fields; f; f = f->next)
		n++;
	m = calloc(1, sizeof(*m) + n * sizeof(m->p[0]));
	if (!m)
		return NULL;
	m->type = TDATFS_PF_GENERIC;
	m->name = ev->name ? ev->name : "";
	m->name_len = strlen(m->name);
	m->nformat = m->nout = m->n = n;
	for (f = ev->format.fields, n = 0; f; f = f->next, n++) {
		struct plan *p = &m->p[n];

		p->name = f->name;
		p->name_len = strlen(f->name);
		p->idx = n;
		if (is_int(f)) {
			plan_place(p, f);
			p->kind = K_INT;
			p->type = p->sgn ? TDATFS_PF_I64 : TDATFS_PF_U64;
		} else {
			p->kind = K_TEXT;
			p->type = TDATFS_PF_STR;
			if (!text_raw_array_of(f, &p->arr))
				direct = false;
			m->text = true;
		}
	}
	/* arrays need no libtraceevent when no number can cut them short */
	m->direct = m->text && direct && text_fields_arrays_alone(ev);
	m->need = m->direct ? text_fields_copy_need(ev) : 0;
	return m;
}

/* The map of @ev; under the tep lock (its fields are read). */
static struct pf_map *map_make(struct tep_event *ev)
{
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct pf_map *m;

		if (!ev->name || !ev->system || strcmp(ev->name, specs[i].name) ||
		    strcmp(ev->system, specs[i].system))
			continue;
		m = map_typed(&specs[i], ev);
		if (m || errno != ENOENT)
			return m;
		break;
	}
	return map_generic(ev);
}

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* @m's by_id table when every id fits (left NULL otherwise: the
 * bsearch serves, as it does on no memory). */
static void by_id_make(struct text_pf_events *m)
{
	size_t i;

	if (!m->n || m->slots[0].id < 0 || m->slots[m->n - 1].id > UINT16_MAX ||
	    m->n >= UINT16_MAX)
		return;
	m->nid = (size_t)m->slots[m->n - 1].id + 1;
	m->by_id = calloc(m->nid, sizeof(*m->by_id));
	if (!m->by_id) {
		m->nid = 0;
		return;
	}
	for (i = 0; i < m->n; i++)
		m->by_id[m->slots[i].id] = (uint16_t)(i + 1);
}

/**
 * text_pf_events_new() - the Perfetto mapping of an engine's events
 * @fm: the engine's formatter (its event table and tep handle)
 *
 * Nothing is decided yet: each id is mapped at its first record, so the
 * formats of events the trace never records are not parsed.
 *
 * Return: the mapping (free with text_pf_events_free()), or NULL with
 * errno set.
 */
struct text_pf_events *text_pf_events_new(struct text_fmt *fm)
{
	struct text_pf_events *m = calloc(1, sizeof(*m));
	struct tdat_file *f;
	size_t i, n, k = 0;

	if (!m)
		return NULL;
	m->fm = fm;
	text_fmt_share(fm, &m->sh);
	f = text_tep_file(m->sh.tt);
	n = f ? tdat_event_count(f) : 0;
	m->slots = calloc(n + 1, sizeof(*m->slots));
	if (!m->slots) {
		free(m);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(f, i);

		if (e)
			m->slots[k++].id = e->id;
	}
	qsort(m->slots, k, sizeof(*m->slots), slot_cmp);
	for (i = 0, n = 0; i < k; i++) {
		if (!n || m->slots[n - 1].id != m->slots[i].id)
			m->slots[n++] = m->slots[i];
	}
	m->n = n;
	by_id_make(m);
	pthread_mutex_init(&m->lock, NULL);
	return m;
}

/**
 * text_pf_events_free() - free a mapping
 * @m: mapping, or NULL
 */
void text_pf_events_free(struct text_pf_events *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(atomic_load_explicit(&m->slots[i].map, memory_order_relaxed));
	pthread_mutex_destroy(&m->lock);
	free(m->by_id);
	free(m->slots);
	free(m);
}

/* The map of @id, decided now if it was not yet; -ENOENT for no format. */
static int map_get(struct text_pf_events *m, int id, const struct pf_map **out)
{
	const struct text_event_desc *te = NULL;
	struct slot key = { .id = id }, *sl;
	struct pf_map *map;
	int ret;

	if (m->by_id)
		sl = id >= 0 && (size_t)id < m->nid && m->by_id[id] ?
			&m->slots[m->by_id[id] - 1] : NULL;
	else
		sl = bsearch(&key, m->slots, m->n, sizeof(*sl), slot_cmp);
	if (!sl)
		return -ENOENT;
	map = atomic_load_explicit(&sl->map, memory_order_acquire);
	if (map) {
		*out = map;
		return 0;
	}
	ret = text_event_lookup(m->sh.evs, id, &te);
	if (ret < 0)
		return ret;
	if (!te)
		return -ENOENT;
	pthread_mutex_lock(&m->lock);
	map = atomic_load_explicit(&sl->map, memory_order_relaxed);
	if (!map) {
		text_tep_lock(m->sh.tt);
		map = map_make(te->ev);
		text_tep_unlock(m->sh.tt);
		if (map)
			atomic_store_explicit(&sl->map, map, memory_order_release);
	}
	pthread_mutex_unlock(&m->lock);
	if (!map)
		return -ENOMEM;
	*out = map;
	return 0;
}

/**
 * text_pf_event_type() - what the records of an event id become
 * @m: mapping
 * @id: event id
 * @type: set to the typed message's FtraceEvent field number, or
 *	%TDATFS_PF_GENERIC
 *
 * Return: 0, -ENOENT for an id without a format, or -ENOMEM.
 * Context: thread-safe; may take the tep lock.
 */
int text_pf_event_type(struct text_pf_events *m, int id, uint32_t *type)
{
	const struct pf_map *map;
	int ret = map_get(m, id, &map);

	if (!ret)
		*type = map->type;
	return ret;
}

/* A number of @size bytes at @d, sign-extended when @sgn. */
static uint64_t read_int(bool big_endian, const unsigned char *d,
			 uint32_t size, bool sgn)
{
	uint64_t v = text_read_num(big_endian, d, size);

	if (sgn && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	return v;
}

/* Where a string field's bytes are in a record of @n bytes: up to its
 * first NUL, inside the field and the record. */
static void str_at(const struct text_fmt_share *sh, const struct plan *p,
		   const unsigned char *d, size_t n, const char **s, size_t *len)
{
	uint64_t off = p->off, sz = p->size;
	const char *nul;

	*s = "";
	*len = 0;
	if (p->dyn) {
		uint32_t loc;

		if (off + 4 > n)
			return;
		loc = (uint32_t)text_read_num(sh->big_endian, d + off, 4);
		sz = loc >> 16;
		off = (loc & 0xffff) + (p->rel ? off + 4 : 0);
	} else if (!sz) {
		sz = n > off ? n - off : 0;	/* char buf[]: to the end */
	}
	if (off >= n)
		return;
	if (sz > n - off)
		sz = n - off;
	*s = (const char *)d + off;
	nul = memchr(*s, '\0', sz);
	*len = nul ? (size_t)(nul - *s) : sz;
}

/* Room for @n fields and @nf -R value ends in the scratch. */
static int scratch_room(struct text_pf_scratch *s, size_t n, size_t nf)
{
	if (n > s->cap) {
		void *p = realloc(s->fields, n * sizeof(*s->fields));

		if (!p)
			return -ENOMEM;
		s->fields = p;
		s->cap = n;
	}
	if (nf > s->nends) {
		void *p = realloc(s->ends, nf * sizeof(*s->ends));

		if (!p)
			return -ENOMEM;
		s->ends = p;
		s->nends = nf;
	}
	return 0;
}

/* A string field: cleaned into @s->strs; its offset kept in ->u until
 * the buffer stops moving (text_pf_event_make() points ->str then). */
static int put_str(struct text_pf_scratch *s, struct tdatfs_pf_field *f,
		   const char *v, size_t len)
{
	size_t at = s->strs.len;
	int ret = text_pf_utf8_put(&s->strs, v, len, TEXT_PF_STR_MAX);

	f->type = TDATFS_PF_STR;
	f->u = at;
	f->len = s->strs.len - at;
	return ret;
}

/*
 * A number at @off: 0 past @lim, the bytes libtraceevent's copy of the
 * record holds (a short last array reads on into the page, as -R shows).
 */
static uint64_t num_at(const struct text_fmt_share *sh, const unsigned char *d,
		       size_t lim, uint64_t off, uint32_t size, bool sgn)
{
	if (off + size > lim)
		return 0;
	return read_int(sh->big_endian, d + off, size, sgn);
}

/*
 * The -R values of a direct map's arrays (the numbers' values are not
 * needed: left empty), by text_fields_raw()'s rules: what follows a NUL
 * is empty, the last field loses one trailing newline.  Made on the
 * scratch's own copy of the record, without the tep lock.  Return 0, 1
 * when an array reads past the copy (@s->raw is then emptied and the
 * caller asks libtraceevent), or -ENOMEM.
 */
static int raw_direct(const struct text_fmt_share *sh,
		      const struct pf_map *map, const struct text_rec *r,
		      size_t n, struct text_pf_scratch *s)
{
	size_t copy, i;
	bool stop = false;
	int ret = 0;

	if (s->copy_size != sh->scratch_size) {
		free(s->copy);
		s->copy_size = 0;
		s->copy = calloc(1, sh->scratch_size);
		if (!s->copy)
			return -ENOMEM;
		s->copy_size = sh->scratch_size;
	}
	copy = text_fields_copy_size(sh, map->need, r, n);
	memcpy(s->copy, r->data, copy);
	for (i = 0; i < map->n && !ret; i++) {
		const struct plan *p = &map->p[i];
		size_t at = s->raw.len, len;
		const char *v;

		if (p->kind == K_TEXT && !stop) {
			ret = text_raw_array_put(sh, &p->arr, s->copy,
						 s->copy_size, n, &s->raw);
			len = s->raw.len - at;
			v = len ? s->raw.p + at : "";
			s->raw.len = at + text_fields_value_len(v, len,
					p->idx + 1 == map->nformat, &stop);
		}
		s->ends[p->idx] = s->raw.len;
	}
	memset(s->copy, 0, copy);
	if (ret)
		s->raw.len = 0;
	return ret;
}

/* The fields of a record of @n bytes (@lim readable) by its map's plans. */
static int fields_fill(const struct text_pf_events *m, const struct pf_map *map,
		       const unsigned char *d, size_t n, size_t lim,
		       struct text_pf_scratch *s, size_t *count)
{
	const struct text_fmt_share *sh = &m->sh;
	size_t k = 0, i;
	int ret = 0;

	for (i = 0; i < map->n && !ret; i++) {
		const struct plan *p = &map->p[i];
		struct tdatfs_pf_field *f = &s->fields[k++];
		uint32_t e;

		memset(f, 0, sizeof(*f));
		f->number = p->number;
		f->name = p->name;
		f->name_len = p->name_len;
		f->type = p->type;
		if (p->kind == K_INT) {
			f->u = num_at(sh, d, lim, p->off, p->size, p->sgn);
			f->i = (int64_t)f->u;
			if (p->func && f->u && s->nsyms < 4)
				s->syms[s->nsyms++] = f->u;
		} else if (p->kind == K_STR) {
			const char *v;
			size_t len;

			str_at(sh, p, d, n, &v, &len);
			if (p->trim && len && v[len - 1] == '\n')
				len--;
			ret = put_str(s, f, v, len);
		} else if (p->kind == K_TEXT) {
			size_t a = p->idx ? s->ends[p->idx - 1] : 0;

			ret = put_str(s, f, s->raw.p + a, s->ends[p->idx] - a);
		} else {
			k--;
			for (e = 0; e < p->count; e++) {
				f = &s->fields[k++];
				memset(f, 0, sizeof(*f));
				f->number = p->number;
				f->type = p->type;
				f->u = num_at(sh, d, lim,
					      (uint64_t)p->off + e * p->elem,
					      p->elem, p->sgn);
				f->i = (int64_t)f->u;
			}
		}
	}
	*count = k;
	return ret;
}

/**
 * text_pf_event_make() - one record as an FtraceEvent
 * @m: mapping
 * @r: the record
 * @ts: its time as the buffer's text shows it
 * @s: the thread's scratch; @e points into it until its next use
 * @e: filled: pid (common_pid), type, name, fields
 *
 * A record whose type, pid or fields do not lie inside it is left out
 * as one of an unknown id is (fields.tsv leaves it out too).
 *
 * Return: 0, -ENOENT for a record left out, or -ENOMEM.
 * Context: thread-safe for different scratches; takes the tep lock for
 * a generic event with string or array fields.
 */
int text_pf_event_make(struct text_pf_events *m, const struct text_rec *r,
		       uint64_t ts, struct text_pf_scratch *s,
		       struct tdatfs_pf_event *e)
{
	const struct text_event_desc *te = NULL;
	const unsigned char *d = r->data;
	size_t n = r->size, i, count = 0, lim;
	const struct pf_map *map;
	int ret, id, pid;

	if (n > m->sh.max_rec)
		n = m->sh.max_rec;
	lim = r->avail > n ? r->avail : n;
	if (lim > m->sh.max_rec)
		lim = m->sh.max_rec;
	if (!text_record_type(m->sh.evs, d, n, &id))
		return -ENOENT;
	ret = text_event_lookup(m->sh.evs, id, &te);
	if (ret < 0)
		return ret;
	if (!te || !text_record_pid(m->sh.evs, d, n, &pid) ||
	    !text_event_fits(m->sh.evs, te, d, n))
		return -ENOENT;
	ret = map_get(m, id, &map);
	if (!ret)
		ret = scratch_room(s, map->nout, map->nformat);
	if (ret)
		return ret;
	s->nsyms = 0;
	s->strs.len = 0;
	s->raw.len = 0;
	ret = map->direct ? raw_direct(&m->sh, map, r, n, s) : 1;
	if (ret < 0)
		return ret;
	if (map->text && ret == 1) {
		ret = text_fields_raw(m->fm, r, &s->raw, s->ends, s->nends);
		if (ret)
			return ret == 1 ? -ENOENT : ret;
	}
	ret = fields_fill(m, map, d, n, lim, s, &count);
	if (ret)
		return ret;
	for (i = 0; i < count; i++) {
		if (s->fields[i].type == TDATFS_PF_STR) {
			s->fields[i].str = s->strs.p ? s->strs.p + s->fields[i].u : "";
			s->fields[i].u = 0;
		}
	}
	memset(e, 0, sizeof(*e));
	e->timestamp = ts;
	e->pid = (uint32_t)pid;
	e->type = map->type;
	e->name = map->name;
	e->name_len = map->name_len;
	e->fields = s->fields;
	e->n = count;
	return 0;
}

/**
 * text_pf_scratch_release() - free what a scratch holds
 * @s: scratch, or NULL; zeroed, ready for use again
 */
void text_pf_scratch_release(struct text_pf_scratch *s)
{
	if (!s)
		return;
	free(s->fields);
	free(s->ends);
	free(s->copy);
	tdatfs_buf_release(&s->strs);
	tdatfs_buf_release(&s->raw);
	memset(s, 0, sizeof(*s));
}

/**
 * text_pf_symbol_name() - the kernel symbol holding an address
 * @m: mapping
 * @addr: the address (a kernel function field's value)
 * @name: set to the symbol's name (lives as long as the engine)
 * @len: set to its length
 *
 * The symbol trace-cmd names the address by (%ps, its function graph
 * display): the one that holds it, offset dropped, so that Perfetto
 * shows the name trace-cmd prints also for an address inside a function.
 *
 * Return: 0, -ENOENT when no symbol holds @addr (then the address is
 * not interned, and Perfetto shows it as trace-cmd does), or -ENOMEM.
 * Context: takes the tep lock.
 */
int text_pf_symbol_name(struct text_pf_events *m, uint64_t addr,
			const char **name, size_t *len)
{
	struct text_kallsyms *ks = NULL;
	unsigned long long start = 0;
	const char *nm = NULL;
	int ret;

	text_tep_lock(m->sh.tt);
	ret = text_tep_ksyms(m->sh.tt, &ks);
	if (!ret && ks)
		nm = text_kallsyms_find(ks, addr, &start);
	text_tep_unlock(m->sh.tt);
	if (ret)
		return ret;
	if (!nm)
		return -ENOENT;
	*name = nm;
	*len = strlen(nm);
	return 0;
}
