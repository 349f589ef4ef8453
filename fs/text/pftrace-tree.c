/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-tree.c - trace.pftrace's process tree
 * (text/pftrace-event.h): which threads the trace shows belonging to
 * which process, from the task_newtask and sched_process_fork events
 * made by text/pftrace-event.c, written as one process_tree packet.
 *
 * task_newtask (235) is written in the new task's parent (common_pid):
 * with CLONE_THREAD the child is a thread of the parent's process, else
 * a process of its own whose parent is the parent's process.
 * sched_process_fork (239) names parent and child but not whether the
 * child is a thread: it makes a process unless a task_newtask of the
 * same pid says CLONE_THREAD.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"
#include "pftrace-event.h"

#define T_NEWTASK	235
#define T_FORK		239
#define CLONE_THREAD	0x10000ull
/* the kernel's comm is 16 bytes; room for a cleaned longer one */
#define COMM_MAX	64
/* how far a thread's parent chain is followed to its process */
#define CHAIN_MAX	64

/* What one event says of one new task. */
struct task {
	bool used;
	int32_t pid;
	int32_t parent;		/* the parent thread */
	uint64_t ts;
	uint64_t flags;		/* clone_flags; 0 for a fork */
	uint8_t clen;
	char comm[COMM_MAX];
};

/* Tasks by pid: open addressing, at most half full. */
struct tasks {
	struct task *t;
	size_t cap, n;
};

struct text_pf_tree {
	struct tasks newtask, fork;
};

static size_t slot_of(const struct tasks *ts, int32_t pid)
{
	size_t h = ((uint32_t)pid * 2654435761u) & (ts->cap - 1);

	while (ts->t[h].used && ts->t[h].pid != pid)
		h = (h + 1) & (ts->cap - 1);
	return h;
}

static const struct task *find(const struct tasks *ts, int32_t pid)
{
	const struct task *t;

	if (!ts->cap)
		return NULL;
	t = &ts->t[slot_of(ts, pid)];
	return t->used ? t : NULL;
}

static int grow(struct tasks *ts)
{
	size_t cap = ts->cap ? ts->cap * 2 : 64, i;
	struct tasks bigger = { calloc(cap, sizeof(struct task)), cap, ts->n };

	if (!bigger.t)
		return -ENOMEM;
	for (i = 0; i < ts->cap; i++) {
		if (ts->t[i].used)
			bigger.t[slot_of(&bigger, ts->t[i].pid)] = ts->t[i];
	}
	free(ts->t);
	*ts = bigger;
	return 0;
}

/* Whether @a comes before @b: by time, ties by their values, so the
 * order events are noted in does not matter. */
static bool before(const struct task *a, const struct task *b)
{
	int c;

	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->parent != b->parent)
		return a->parent < b->parent;
	if (a->flags != b->flags)
		return a->flags < b->flags;
	c = memcmp(a->comm, b->comm, a->clen < b->clen ? a->clen : b->clen);
	return c ? c < 0 : a->clen < b->clen;
}

/* Keep @t for its pid unless an earlier one is kept. */
static int keep(struct tasks *ts, const struct task *t)
{
	struct task *at;
	int ret;

	if ((ts->n + 1) * 2 > ts->cap) {
		ret = grow(ts);
		if (ret)
			return ret;
	}
	at = &ts->t[slot_of(ts, t->pid)];
	if (!at->used) {
		ts->n++;
	} else if (!before(t, at)) {
		return 0;
	}
	*at = *t;
	at->used = true;
	return 0;
}

static const struct tdatfs_pf_field *field(const struct tdatfs_pf_event *e,
					   uint32_t number)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		if (e->fields[i].number == number)
			return &e->fields[i];
	}
	return NULL;
}

/* A comm cut to COMM_MAX bytes, at a UTF-8 character's start. */
static void comm_set(struct task *t, const struct tdatfs_pf_field *f)
{
	size_t len = f && f->type == TDATFS_PF_STR ? f->len : 0;

	if (len > COMM_MAX) {
		len = COMM_MAX;
		while (len && ((unsigned char)f->str[len] & 0xc0) == 0x80)
			len--;
	}
	if (len)
		memcpy(t->comm, f->str, len);
	t->clen = (uint8_t)len;
}

/**
 * text_pf_tree_new() - an empty process tree
 *
 * Return: the tree (free with text_pf_tree_free()), or NULL with errno.
 */
struct text_pf_tree *text_pf_tree_new(void)
{
	return calloc(1, sizeof(struct text_pf_tree));
}

/**
 * text_pf_tree_free() - free a process tree
 * @pt: tree, or NULL
 */
void text_pf_tree_free(struct text_pf_tree *pt)
{
	if (!pt)
		return;
	free(pt->newtask.t);
	free(pt->fork.t);
	free(pt);
}

/**
 * text_pf_tree_note() - learn what an event says of processes
 * @pt: tree
 * @e: an event of text_pf_event_make(); only typed task_newtask and
 *	sched_process_fork say anything, the others are passed over
 *
 * Return: 0 or -ENOMEM.
 */
int text_pf_tree_note(struct text_pf_tree *pt, const struct tdatfs_pf_event *e)
{
	const struct tdatfs_pf_field *pid, *parent, *comm, *flags = NULL;
	struct task t;

	if (e->type == T_NEWTASK) {
		pid = field(e, 1);
		comm = field(e, 2);
		flags = field(e, 3);
		parent = NULL;
	} else if (e->type == T_FORK) {
		parent = field(e, 2);
		comm = field(e, 3);
		pid = field(e, 4);
	} else {
		return 0;
	}
	/* Perfetto skips pid 0 too: the idle task is no new task */
	if (!pid || (int32_t)pid->i <= 0)
		return 0;
	memset(&t, 0, sizeof(t));
	t.pid = (int32_t)pid->i;
	t.parent = parent ? (int32_t)parent->i : (int32_t)e->pid;
	t.ts = e->timestamp;
	t.flags = flags ? flags->u : 0;
	comm_set(&t, comm);
	return keep(e->type == T_NEWTASK ? &pt->newtask : &pt->fork, &t);
}

/* Every task of @src kept in @dst as if noted there. */
static int keep_all(struct tasks *dst, const struct tasks *src)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < src->cap; i++)
		if (src->t[i].used)
			ret = keep(dst, &src->t[i]);
	return ret;
}

/**
 * text_pf_tree_merge() - what another tree learned, learned by @dst
 * @dst: tree
 * @src: a tree noted from other events (a part of a pass); unchanged
 *
 * @dst is then the tree of both trees' events, as the order they are
 * noted in does not matter.
 *
 * Return: 0 or -ENOMEM.
 */
int text_pf_tree_merge(struct text_pf_tree *dst, const struct text_pf_tree *src)
{
	int ret = keep_all(&dst->newtask, &src->newtask);

	return ret ? ret : keep_all(&dst->fork, &src->fork);
}

/* The process of thread @tid: up its CLONE_THREAD parents. */
static int32_t tgid_of(const struct text_pf_tree *pt, int32_t tid)
{
	unsigned int i;

	for (i = 0; i < CHAIN_MAX; i++) {
		const struct task *t = find(&pt->newtask, tid);

		if (!t || !(t->flags & CLONE_THREAD))
			break;
		tid = t->parent;
	}
	return tid;
}

static int proc_cmp(const void *a, const void *b)
{
	const struct tdatfs_pf_process *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int thread_cmp(const void *a, const void *b)
{
	const struct tdatfs_pf_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* One task as a process or a thread. */
static void place(const struct text_pf_tree *pt, const struct task *t,
		  struct tdatfs_pf_process *p, size_t *np,
		  struct tdatfs_pf_thread *th, size_t *nt)
{
	if (t->flags & CLONE_THREAD) {
		th[*nt].tid = t->pid;
		th[*nt].tgid = tgid_of(pt, t->parent);
		(*nt)++;
		return;
	}
	p[*np].pid = t->pid;
	p[*np].ppid = tgid_of(pt, t->parent);
	p[*np].cmdline = t->comm;
	p[*np].len = t->clen;
	(*np)++;
}

/**
 * text_pf_tree_write() - append the process_tree packet
 * @pt: tree
 * @b: buffer
 *
 * Processes {pid, ppid, cmdline = [comm]} sorted by pid, threads {tid,
 * tgid} sorted by tid; nothing at all when no event linked a task.
 *
 * Return: 0 or -ENOMEM (nothing appended).
 */
int text_pf_tree_write(const struct text_pf_tree *pt, struct tdatfs_buf *b)
{
	size_t max = pt->newtask.n + pt->fork.n, np = 0, nt = 0, i;
	struct tdatfs_pf_process *p;
	struct tdatfs_pf_thread *th;
	int ret;

	if (!max)
		return 0;
	p = calloc(max, sizeof(*p));
	th = calloc(max, sizeof(*th));
	if (!p || !th) {
		free(p);
		free(th);
		return -ENOMEM;
	}
	for (i = 0; i < pt->newtask.cap; i++) {
		if (pt->newtask.t[i].used)
			place(pt, &pt->newtask.t[i], p, &np, th, &nt);
	}
	for (i = 0; i < pt->fork.cap; i++) {
		const struct task *t = &pt->fork.t[i];

		if (t->used && !find(&pt->newtask, t->pid))
			place(pt, t, p, &np, th, &nt);
	}
	qsort(p, np, sizeof(*p), proc_cmp);
	qsort(th, nt, sizeof(*th), thread_cmp);
	ret = tdatfs_pf_process_tree(b, p, np, th, nt);
	free(p);
	free(th);
	return ret;
}
