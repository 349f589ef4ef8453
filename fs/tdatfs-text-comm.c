/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-comm.c - saved_cmdlines, the sched events whose plugin
 * handler registers comms, and the per-stream overlay of what those
 * handlers register while printing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-text-comm.h"

struct text_comm {
	int pid;
	size_t seq;		/* line number, to keep the first of a pid */
	char *comm;
};

struct text_comms {
	struct text_comm *comms;	/* sorted by pid */
	size_t ncomms;
	/* events whose plugin handler registers comms, and their fields */
	int sw_id, wk_id, wkn_id;
	struct tep_format_field *sw_ppid, *sw_pcomm, *sw_npid, *sw_ncomm;
	struct tep_format_field *wk_pid, *wk_comm, *wkn_pid, *wkn_comm;
};

struct text_overlay {
	size_t n, cap;
	int *pid;
	char **comm;
	size_t hcap;		/* power of two; 0 = empty */
	int32_t *hash;		/* index + 1, 0 = free */
};

static int comm_cmp(const void *a, const void *b)
{
	const struct text_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* of two lines for one pid the first read wins */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The pid -> comm table, read as tep_parse_saved_cmdlines() reads it
 * (lines "PID COMM", stop at the first bad line; the first entry of a pid
 * wins, as tep_register_comm() does not override).
 */
static int build_comms(struct text_comms *t, char *buf)
{
	char *line, *next = NULL;
	size_t cap = 0, i, j;

	for (line = strtok_r(buf, "\n", &next); line;
	     line = strtok_r(NULL, "\n", &next)) {
		char *comm = NULL;
		int pid, n;

		errno = 0;
		n = sscanf(line, "%d %m[^\n]s", &pid, &comm);
		if (errno || n != 2 || !comm) {
			free(comm);
			break;
		}
		if (t->ncomms == cap) {
			struct text_comm *c;

			cap = cap ? cap * 2 : 256;
			c = realloc(t->comms, cap * sizeof(*c));
			if (!c) {
				free(comm);
				return -ENOMEM;
			}
			t->comms = c;
		}
		t->comms[t->ncomms].pid = pid;
		t->comms[t->ncomms].comm = comm;
		t->comms[t->ncomms].seq = t->ncomms;
		t->ncomms++;
	}
	qsort(t->comms, t->ncomms, sizeof(*t->comms), comm_cmp);
	for (i = 0, j = 0; i < t->ncomms; i++) {
		if (j && t->comms[j - 1].pid == t->comms[i].pid) {
			free(t->comms[i].comm);
			continue;
		}
		t->comms[j++] = t->comms[i];
	}
	t->ncomms = j;
	return 0;
}

static const char *find_comm(const struct text_comms *t, int pid)
{
	size_t lo = 0, hi = t->ncomms;

	if (!pid)
		return "<idle>";
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->comms[mid].pid == pid)
			return t->comms[mid].comm;
		if (t->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "<...>";
}

static bool in_saved(const struct text_comms *t, int pid)
{
	return strcmp(find_comm(t, pid), "<...>") != 0 || !pid;
}

static size_t ov_slot(const struct text_overlay *ov, int pid)
{
	size_t h = ((uint32_t)pid * 2654435761u) & (ov->hcap - 1);

	while (ov->hash[h] && ov->pid[ov->hash[h] - 1] != pid)
		h = (h + 1) & (ov->hcap - 1);
	return h;
}

/* Index of the first registration of @pid, or -1. */
static long ov_find(const struct text_overlay *ov, int pid)
{
	size_t h;

	if (!ov->hcap)
		return -1;
	h = ov_slot(ov, pid);
	return ov->hash[h] ? ov->hash[h] - 1 : -1;
}

static int ov_add(struct text_overlay *ov, int pid, const char *comm, size_t len)
{
	size_t i;

	if (ov->n >= INT32_MAX - 1)
		return -ENOSPC;
	if ((ov->n + 1) * 2 > ov->hcap) {
		size_t cap = ov->hcap ? ov->hcap * 2 : 64;
		int32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -ENOMEM;
		free(ov->hash);
		ov->hash = h;
		ov->hcap = cap;
		for (i = 0; i < ov->n; i++)
			ov->hash[ov_slot(ov, ov->pid[i])] = i + 1;
	}
	if (ov->n == ov->cap) {
		size_t cap = ov->cap ? ov->cap * 2 : 64;
		int *p = realloc(ov->pid, cap * sizeof(*p));
		char **c;

		if (!p)
			return -ENOMEM;
		ov->pid = p;
		c = realloc(ov->comm, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		ov->comm = c;
		ov->cap = cap;
	}
	ov->comm[ov->n] = strndup(comm, len);
	if (!ov->comm[ov->n])
		return -ENOMEM;
	ov->pid[ov->n] = pid;
	ov->hash[ov_slot(ov, pid)] = ov->n + 1;
	ov->n++;
	return 0;
}

/**
 * text_overlay_new() - an empty overlay for a stream
 *
 * Return: the overlay (free with text_overlay_free()), or NULL.
 */
struct text_overlay *text_overlay_new(void)
{
	return calloc(1, sizeof(struct text_overlay));
}

/**
 * text_overlay_free() - free the learned comms of a stream; NULL is fine
 * @ov: overlay
 */
void text_overlay_free(struct text_overlay *ov)
{
	if (!ov)
		return;
	while (ov->n)
		free(ov->comm[--ov->n]);
	free(ov->comm);
	free(ov->pid);
	free(ov->hash);
	free(ov);
}

/**
 * text_comm_lookup() - the comm trace-cmd shows for a pid at a position
 * @t: the comms
 * @cc: the stream's learned comms and the count visible here, or NULL
 * @pid: pid
 *
 * Return: saved_cmdlines' comm, else a comm learned before this position,
 * else "<...>" ("<idle>" for pid 0).
 * Context: the caller holds the stream lock (for @cc).
 */
const char *text_comm_lookup(const struct text_comms *t,
			     const struct text_comm_ctx *cc, int pid)
{
	const char *c = find_comm(t, pid);
	long i;

	if (strcmp(c, "<...>") || !cc)
		return c;
	i = ov_find(cc->ov, pid);
	if (i >= 0 && (size_t)i < *cc->seen)
		return cc->ov->comm[i];
	return c;
}

/*
 * What the plugin's write_and_save_comm() does, into the overlay: register
 * the comm of @pidf's pid unless saved_cmdlines has one.  Only the
 * stream's frontier meets a pid first; behind it the registration is
 * already known and only counted.
 *
 */
static int comm_register(const struct text_comms *t, struct text_comm_ctx *cc,
			 const struct tep_format_field *pidf,
			 const struct tep_format_field *commf,
			 const unsigned char *data)
{
	unsigned long long val;
	long i;
	int pid;

	if (!pidf || !commf || tep_read_number_field((struct tep_format_field *)pidf,
						     data, &val))
		return 0;
	pid = (int)val;
	if (in_saved(t, pid))
		return 0;
	i = ov_find(cc->ov, pid);
	if (i < 0) {
		/* only the stream's frontier meets a pid first */
		if (*cc->seen != cc->ov->n)
			return 0;
		if (ov_add(cc->ov, pid, (const char *)data + commf->offset,
			   commf->size > 0 ? (size_t)commf->size : 0) < 0)
			return -ENOMEM;
		(*cc->seen)++;
	} else if ((size_t)i == *cc->seen) {
		(*cc->seen)++;
	}
	return 0;
}

/**
 * text_comms_find_events() - the events whose handler registers comms
 * @t: comms
 * @tep: the handle, after the sched formats were parsed
 *
 * sched_switch, sched_wakeup and sched_wakeup_new, when a plugin handler
 * is attached to them.
 *
 * Context: at setup.
 */
void text_comms_find_events(struct text_comms *t, struct tep_handle *tep)
{
	struct tep_event *ev;

	t->sw_id = t->wk_id = t->wkn_id = -1;
	ev = tep_find_event_by_name(tep, "sched", "sched_switch");
	if (ev && ev->handler) {
		t->sw_id = ev->id;
		t->sw_ppid = tep_find_field(ev, "prev_pid");
		t->sw_pcomm = tep_find_any_field(ev, "prev_comm");
		t->sw_npid = tep_find_field(ev, "next_pid");
		t->sw_ncomm = tep_find_any_field(ev, "next_comm");
	}
	ev = tep_find_event_by_name(tep, "sched", "sched_wakeup");
	if (ev && ev->handler) {
		t->wk_id = ev->id;
		t->wk_pid = tep_find_field(ev, "pid");
		t->wk_comm = tep_find_any_field(ev, "comm");
	}
	ev = tep_find_event_by_name(tep, "sched", "sched_wakeup_new");
	if (ev && ev->handler) {
		t->wkn_id = ev->id;
		t->wkn_pid = tep_find_field(ev, "pid");
		t->wkn_comm = tep_find_any_field(ev, "comm");
	}
}

/**
 * text_comms_learn() - the comms the sched plugin registers for a record
 * @t: comms
 * @id: the record's event id
 * @cc: the stream's learned comms and the count visible here, or NULL
 * @data: the record
 *
 * Return: 0 or -ENOMEM.
 * Context: the caller holds the stream lock and the tep lock (the pid is
 * read through libtraceevent).
 */
int text_comms_learn(const struct text_comms *t, int id,
		     struct text_comm_ctx *cc, const unsigned char *data)
{
	int ret = 0;

	if (!cc)
		return 0;
	if (id == t->sw_id) {
		ret = comm_register(t, cc, t->sw_ppid, t->sw_pcomm, data);
		if (!ret)
			ret = comm_register(t, cc, t->sw_npid, t->sw_ncomm, data);
	} else if (id == t->wk_id) {
		ret = comm_register(t, cc, t->wk_pid, t->wk_comm, data);
	} else if (id == t->wkn_id) {
		ret = comm_register(t, cc, t->wkn_pid, t->wkn_comm, data);
	}
	return ret;
}

/**
 * text_comms_new() - the comms of saved_cmdlines
 * @cmdlines: the blob's text, or NULL for none; changed (split in lines)
 *
 * Until text_comms_find_events() no event registers comms.
 *
 * Return: the comms (free with text_comms_free()), or NULL with errno set.
 */
struct text_comms *text_comms_new(char *cmdlines)
{
	struct text_comms *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sw_id = t->wk_id = t->wkn_id = -1;
	if (cmdlines && build_comms(t, cmdlines) < 0) {
		text_comms_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

/**
 * text_comms_free() - free the comms; NULL is fine
 * @t: comms
 */
void text_comms_free(struct text_comms *t)
{
	if (!t)
		return;
	while (t->ncomms)
		free(t->comms[--t->ncomms].comm);
	free(t->comms);
	free(t);
}
