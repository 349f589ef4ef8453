/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/comm.c - saved_cmdlines, the sched events whose plugin
 * handler registers comms, and per stream a model of libtraceevent's
 * comm list and sorted array (doc/trace-cmd-parity.md, section 4).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-common.h"
#include "bytes.h"
#include "comm-table.h"
#include "comm.h"
#include "pack.h"

/* Where a duplicate run stands at the frontier, and what it showed when. */
struct dup_state {
	size_t below, above;	/* with the pids added after the array */
	size_t nh, hcap;
	struct dup_hit {
		size_t from;	/* registrations seen from which ... */
		size_t idx;	/* ... bsearch() returns comm[idx] */
	} *h;
};

/* A field the plugin reads, copied from the format. */
struct comm_field {
	bool have;		/* the format has it */
	uint32_t offset;
	uint32_t size;
};

struct text_comms {
	struct text_comm_reg *saved;	/* saved_cmdlines, in file order */
	size_t nsaved;
	struct text_comm_table stab;	/* the array of saved_cmdlines alone */
	/* events whose plugin handler registers comms, and their fields */
	bool big_endian;
	int sw_id, wk_id, wkn_id;
	struct comm_field sw_ppid, sw_pcomm, sw_npid, sw_ncomm;
	struct comm_field wk_pid, wk_comm, wkn_pid, wkn_comm;
};

/*
 * The model of one stream.  Registrations are counted in stream order
 * (text_comm_ctx.seen): first every one made before the array exists
 * (the list), then the pids added to the array after it.
 */
struct text_overlay {
	/* the list: registrations before the array, duplicates included */
	size_t n1, cap1;
	int *pid1;
	char **comm1;
	/* the array, made at the first lookup of a pid other than 0 */
	bool built;
	const struct text_comm_table *tab;	/* ->own, or the saved one */
	struct text_comm_table *own;
	struct dup_state *ds;		/* tab->ndup of them */
	/* the pids added after it, in stream order */
	size_t n, cap;
	int *pid;
	char **comm;
	size_t hcap;		/* power of two; 0 = empty */
	int32_t *hash;		/* index + 1, 0 = free */
};

/* The comm of dup run @k when @seen registrations are visible. */
static const char *dup_comm(const struct text_comm_table *tb,
			    const struct dup_state *ds, size_t k, size_t seen)
{
	const struct text_comm_table_dup *du = &tb->dup[k];
	size_t lo = 0, hi;

	if (!ds)
		return du->comm[text_comm_table_pick(du->below, du->n,
						     du->above)];
	hi = ds[k].nh;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ds[k].h[mid].from <= seen)
			lo = mid;
		else
			hi = mid;
	}
	return du->comm[ds[k].h[lo].idx];
}

/* The comm of @pid in @tb, or NULL when the array has none. */
static const char *tab_comm(const struct text_comm_table *tb,
			    const struct dup_state *ds, int pid, size_t seen)
{
	const struct text_comm_table_hit *h = text_comm_table_look(tb, pid);

	if (h->kind == TEXT_CTAB_ONCE)
		return h->comm;
	return h->kind == TEXT_CTAB_DUP ? dup_comm(tb, ds, h->dup, seen) : NULL;
}

/*
 * One line as libtraceevent's sscanf(line, "%d %m[^\n]s") reads it: an
 * int after optional space (strtol()'s rules: base 10, a sign, a long cut
 * to int, ERANGE past a long), optional space, then the rest of the line
 * (it holds no newline), which must not be empty.  By hand because
 * sscanf() was 15% of the first read of a text of big.dat (perf).
 * Return: 1 with *@pid and *@comm (malloc()ed) set, 0 for a line that
 * ends the list, -ENOMEM.
 */
static int saved_line(const char *line, int *pid, char **comm)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(line, &end, 10);
	if (errno || end == line)
		return 0;
	while (isspace((unsigned char)*end))
		end++;
	if (!*end)
		return 0;
	*pid = (int)v;
	*comm = strdup(end);
	return *comm ? 1 : -ENOMEM;
}

/*
 * saved_cmdlines as tep_parse_saved_cmdlines() reads it: lines "PID
 * COMM", up to the first bad line, every line registered (duplicates
 * too), then the array libtraceevent makes of them alone.
 */
static int build_saved(struct text_comms *t, char *buf)
{
	char *line, *next = NULL;
	size_t cap = 0;

	for (line = strtok_r(buf, "\n", &next); line;
	     line = strtok_r(NULL, "\n", &next)) {
		char *comm = NULL;
		int pid, n = saved_line(line, &pid, &comm);

		if (n < 0)
			return n;
		if (!n)
			break;
		if (t->nsaved == cap) {
			struct text_comm_reg *c;

			cap = cap ? cap * 2 : 256;
			c = realloc(t->saved, cap * sizeof(*c));
			if (!c) {
				free(comm);
				return -ENOMEM;
			}
			t->saved = c;
		}
		t->saved[t->nsaved].pid = pid;
		t->saved[t->nsaved].seq = t->nsaved;
		t->saved[t->nsaved].comm = comm;
		t->nsaved++;
	}
	return 0;
}

static size_t ov_slot(const struct text_overlay *ov, int pid)
{
	size_t h = ((uint32_t)pid * 2654435761u) & (ov->hcap - 1);

	while (ov->hash[h] && ov->pid[ov->hash[h] - 1] != pid)
		h = (h + 1) & (ov->hcap - 1);
	return h;
}

/* Index of @pid among the pids added after the array, or -1. */
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

/* Prepend to the list (appended here: the order is kept by seq). */
static int list_add(struct text_overlay *ov, int pid, const char *comm, size_t len)
{
	if (ov->n1 == ov->cap1) {
		size_t cap = ov->cap1 ? ov->cap1 * 2 : 16;
		int *p = realloc(ov->pid1, cap * sizeof(*p));
		char **c;

		if (!p)
			return -ENOMEM;
		ov->pid1 = p;
		c = realloc(ov->comm1, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		ov->comm1 = c;
		ov->cap1 = cap;
	}
	ov->comm1[ov->n1] = strndup(comm, len);
	if (!ov->comm1[ov->n1])
		return -ENOMEM;
	ov->pid1[ov->n1++] = pid;
	return 0;
}

static void dup_states_free(struct dup_state *ds, size_t n)
{
	size_t k;

	if (!ds)
		return;
	for (k = 0; k < n; k++)
		free(ds[k].h);
	free(ds);
}

/* What each duplicate run shows from the array's making on. */
static struct dup_state *dup_states_new(const struct text_comm_table *tb,
					size_t from)
{
	struct dup_state *ds = calloc(tb->ndup + 1, sizeof(*ds));
	size_t k;

	if (!ds)
		return NULL;
	for (k = 0; k < tb->ndup; k++) {
		ds[k].h = malloc(4 * sizeof(*ds[k].h));
		if (!ds[k].h) {
			dup_states_free(ds, tb->ndup);
			return NULL;
		}
		ds[k].hcap = 4;
		ds[k].nh = 1;
		ds[k].below = tb->dup[k].below;
		ds[k].above = tb->dup[k].above;
		ds[k].h[0].from = from;
		ds[k].h[0].idx = text_comm_table_pick(ds[k].below, tb->dup[k].n,
						      ds[k].above);
	}
	return ds;
}

/*
 * cmdline_init() at the first lookup of a pid other than 0: the array
 * of saved_cmdlines and the stream's list.  Only the stream's frontier
 * gets here (behind it the array exists), so the list is complete.
 */
static int model_build(const struct text_comms *t, struct text_overlay *ov)
{
	if (ov->n1) {
		ov->own = calloc(1, sizeof(*ov->own));
		if (!ov->own)
			return -ENOMEM;
		if (text_comm_table_build(ov->own, t->saved, t->nsaved,
					  ov->pid1, ov->comm1, ov->n1) < 0) {
			free(ov->own);
			ov->own = NULL;
			return -ENOMEM;
		}
	}
	ov->tab = ov->own ? ov->own : &t->stab;
	ov->ds = dup_states_new(ov->tab, ov->n1);
	if (!ov->ds) {
		if (ov->own)
			text_comm_table_release(ov->own);
		free(ov->own);
		ov->own = NULL;
		return -ENOMEM;
	}
	ov->built = true;
	return 0;
}

/* Room for one more hit in every duplicate run, before an addition. */
static int dup_reserve(struct text_overlay *ov)
{
	size_t k;

	for (k = 0; k < ov->tab->ndup; k++) {
		struct dup_state *d = &ov->ds[k];
		struct dup_hit *h;

		if (d->nh < d->hcap)
			continue;
		h = realloc(d->h, 2 * d->hcap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		d->h = h;
		d->hcap *= 2;
	}
	return 0;
}

/*
 * add_new_comm() inserts @pid at its sorted place: the runs of other
 * pids shift, and bsearch() may land on another of their entries from
 * @from registrations on.
 */
static void dup_shift(struct text_overlay *ov, int pid, size_t from)
{
	size_t k;

	for (k = 0; k < ov->tab->ndup; k++) {
		struct dup_state *d = &ov->ds[k];
		size_t idx;

		if (pid < ov->tab->dup[k].pid)
			d->below++;
		else
			d->above++;
		idx = text_comm_table_pick(d->below, ov->tab->dup[k].n,
					   d->above);
		if (idx != d->h[d->nh - 1].idx) {
			d->h[d->nh].from = from;
			d->h[d->nh].idx = idx;
			d->nh++;
		}
	}
}

/**
 * text_overlay_new() - an empty model for a stream
 *
 * Return: the model (free with text_overlay_free()), or NULL.
 */
struct text_overlay *text_overlay_new(void)
{
	return calloc(1, sizeof(struct text_overlay));
}

/**
 * text_overlay_free() - free the model of a stream; NULL is fine
 * @ov: model
 */
void text_overlay_free(struct text_overlay *ov)
{
	if (!ov)
		return;
	if (ov->tab)
		dup_states_free(ov->ds, ov->tab->ndup);
	if (ov->own)
		text_comm_table_release(ov->own);
	free(ov->own);
	while (ov->n1)
		free(ov->comm1[--ov->n1]);
	free(ov->comm1);
	free(ov->pid1);
	while (ov->n)
		free(ov->comm[--ov->n]);
	free(ov->comm);
	free(ov->pid);
	free(ov->hash);
	free(ov);
}

/* One registration's bytes: pid, length, the comm without its NUL. */
static int pack_comm(struct tdatfs_buf *out, int pid, const char *comm)
{
	size_t len = strlen(comm);

	if (text_pack_u32(out, (uint32_t)pid) < 0 ||
	    text_pack_u32(out, (uint32_t)len) < 0 ||
	    text_pack(out, comm, len) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * text_overlay_save() - the registrations a model was made of
 * @ov: model
 * @out: where the bytes are appended
 *
 * The model is a function of its registrations (text/comm.h): the
 * list before the array, whether the array was made, and the pids added
 * after it.  text_overlay_load() replays them.
 *
 * Return: 0 or -ENOMEM (then @out holds part of the bytes).
 * Context: the caller holds the stream lock.
 */
int text_overlay_save(const struct text_overlay *ov, struct tdatfs_buf *out)
{
	size_t i;

	if (text_pack_u64(out, ov->n1) < 0)
		return -ENOMEM;
	for (i = 0; i < ov->n1; i++)
		if (pack_comm(out, ov->pid1[i], ov->comm1[i]) < 0)
			return -ENOMEM;
	if (text_pack_u32(out, ov->built) < 0 || text_pack_u64(out, ov->n) < 0)
		return -ENOMEM;
	for (i = 0; i < ov->n; i++)
		if (pack_comm(out, ov->pid[i], ov->comm[i]) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * A count of registrations and then each one, checked to fit: *@n set
 * to the count.  With @cb, it is called for each in turn (the comm is
 * not NUL-terminated: @len bytes); without, they are only checked.
 */
static int unpack_regs(struct text_unpack *u, uint64_t *n,
		       int (*cb)(void *arg, int pid, const char *comm, size_t len),
		       void *arg)
{
	uint64_t i;
	int ret;

	*n = text_unpack_u64(u);
	/* each registration is at least a pid and a length */
	if (!text_pack_fits(u, *n, 8) || *n >= INT32_MAX - 1)
		return -EINVAL;
	for (i = 0; i < *n; i++) {
		int pid = (int)text_unpack_u32(u);
		uint32_t len = text_unpack_u32(u);
		const char *comm = (const char *)u->p;

		if (u->bad || len > u->left || memchr(comm, 0, len))
			return -EINVAL;
		u->p += len;
		u->left -= len;
		if (cb) {
			ret = cb(arg, pid, comm, len);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/**
 * text_overlay_check() - whether bytes are a saved model, and its size
 * @u: the bytes, read past the model's on success
 * @nreg: set to the count of registrations the model was made of (the
 *	most a position of its stream may see)
 *
 * Checks the layout only: whether the pids fit the array needs the comms
 * (text_overlay_load()).
 *
 * Return: 0 or -EINVAL.
 */
int text_overlay_check(struct text_unpack *u, size_t *nreg)
{
	uint64_t n1, n;
	uint32_t built;

	if (unpack_regs(u, &n1, NULL, NULL) < 0)
		return -EINVAL;
	built = text_unpack_u32(u);
	if (u->bad || built > 1 || unpack_regs(u, &n, NULL, NULL) < 0 ||
	    (!built && n))
		return -EINVAL;
	*nreg = n1 + n;
	return 0;
}

static int replay_list(void *arg, int pid, const char *comm, size_t len)
{
	return list_add(arg, pid, comm, len);
}

/* register_after() at the frontier, as the pid was first met there. */
static int replay_after(void *arg, int pid, const char *comm, size_t len)
{
	struct text_overlay *ov = arg;

	/* register_after() adds only a pid that is neither 0 nor known */
	if (!pid ||
	    text_comm_table_look(ov->tab, pid)->kind != TEXT_CTAB_ABSENT ||
	    ov_find(ov, pid) >= 0)
		return -EINVAL;
	if (dup_reserve(ov) < 0 || ov_add(ov, pid, comm, len) < 0)
		return -ENOMEM;
	dup_shift(ov, pid, ov->n1 + ov->n);
	return 0;
}

/**
 * text_overlay_load() - make a model again from its saved registrations
 * @ov: an empty model (text_overlay_new())
 * @t: the comms of the engine the model was saved from
 * @u: bytes text_overlay_save() wrote, read past the model
 *
 * Replays the registrations in their order as the stream met them, so
 * the model ends as the saved one was.
 *
 * Return: 0, -EINVAL for bytes that are not a model of these comms (a pid
 * added after the array that it could not add), -ENOMEM.  On an error
 * @ov holds part of the model: the caller frees it.
 */
int text_overlay_load(struct text_overlay *ov, const struct text_comms *t,
		      struct text_unpack *u)
{
	uint64_t n1, n;
	uint32_t built;
	int ret;

	if (ov->n1 || ov->built)
		return -EINVAL;
	ret = unpack_regs(u, &n1, replay_list, ov);
	if (ret < 0)
		return ret;
	built = text_unpack_u32(u);
	if (u->bad || built > 1)
		return -EINVAL;
	if (built) {
		ret = model_build(t, ov);
		if (ret < 0)
			return ret;
	}
	ret = unpack_regs(u, &n, built ? replay_after : NULL, ov);
	if (ret < 0)
		return ret;
	return !built && n ? -EINVAL : 0;
}

/**
 * text_overlay_copy() - a model made again from another's registrations
 * @ov: the model (its stream's lock held, or no one else uses it)
 * @t: the comms of the engine the copy serves (the same trace's)
 *
 * The second part of a split text starts from a copy of the first
 * part's model, on its own engine (text/stream-split.c).
 *
 * Return: the copy (free with text_overlay_free()), or NULL with errno
 * set (ENOMEM; EINVAL when @t cannot hold them: another trace).
 */
struct text_overlay *text_overlay_copy(const struct text_overlay *ov,
				       const struct text_comms *t)
{
	struct text_overlay *c = text_overlay_new();
	struct tdatfs_buf b = { 0 };
	struct text_unpack u;
	int ret = c ? text_overlay_save(ov, &b) : -ENOMEM;

	if (!ret) {
		u.p = (const unsigned char *)b.p;
		u.left = b.len;
		u.bad = false;
		ret = text_overlay_load(c, t, &u);
	}
	tdatfs_buf_release(&b);
	if (ret < 0) {
		text_overlay_free(c);
		errno = -ret;
		return NULL;
	}
	return c;
}

/**
 * text_overlay_built() - whether a model made its array
 * @ov: model
 *
 * Return: true once its stream looked a pid other than 0 up.
 */
bool text_overlay_built(const struct text_overlay *ov)
{
	return ov->built;
}

/**
 * text_comm_lookup() - the comm trace-cmd shows for a pid at a position
 * @t: the comms
 * @cc: the stream's model and the registrations visible here, or NULL
 *	for saved_cmdlines alone
 * @pid: pid
 *
 * find_cmdline(): "<idle>" for pid 0; else, the array made first if it
 * does not exist yet, the entry glibc's bsearch() finds in it, or
 * "<...>".
 *
 * Return: the comm, valid while the stream is, or NULL when out of
 * memory.
 * Context: the caller holds the stream lock (for @cc).
 */
const char *text_comm_lookup(const struct text_comms *t,
			     const struct text_comm_ctx *cc, int pid)
{
	struct text_overlay *ov;
	const char *c;
	long i;

	if (!pid)
		return "<idle>";
	if (!cc) {
		c = tab_comm(&t->stab, NULL, pid, 0);
		return c ? c : "<...>";
	}
	ov = cc->ov;
	if (!ov->built && model_build(t, ov) < 0)
		return NULL;
	c = tab_comm(ov->tab, ov->ds, pid, *cc->seen);
	if (c)
		return c;
	i = ov_find(ov, pid);
	if (i >= 0 && (size_t)i + ov->n1 < *cc->seen)
		return ov->comm[i];
	return "<...>";
}

/*
 * tep_register_comm() after the array exists (add_new_comm()): pid 0
 * and pids the array has are ignored, others inserted.  Only the
 * stream's frontier meets a pid first; behind it the addition is
 * already known and only counted.
 */
static int register_after(struct text_overlay *ov, size_t *seen, int pid,
			  const char *comm, size_t len)
{
	size_t vis = *seen - ov->n1;
	long i;

	if (!pid ||
	    text_comm_table_look(ov->tab, pid)->kind != TEXT_CTAB_ABSENT)
		return 0;
	i = ov_find(ov, pid);
	if (i >= 0) {
		if ((size_t)i == vis)
			(*seen)++;
		return 0;
	}
	if (vis != ov->n)
		return 0;
	if (dup_reserve(ov) < 0 || ov_add(ov, pid, comm, len) < 0)
		return -ENOMEM;
	(*seen)++;
	dup_shift(ov, pid, *seen);
	return 0;
}

/*
 * What the plugin's write_and_save_comm() does: register the comm of
 * @pidf's pid, the field's text up to its size or a NUL.  Before the
 * array exists every registration goes to the list (known already
 * behind the frontier: only counted).  The pid is read as
 * tep_read_number_field() reads it; 1: it does not read (the plugin's
 * handler stops there).
 */
static int comm_register(const struct text_comms *t, struct text_comm_ctx *cc,
			 const struct comm_field *pidf,
			 const struct comm_field *commf,
			 const unsigned char *data)
{
	struct text_overlay *ov = cc->ov;
	const char *comm;
	int pid;

	if (!pidf->have || (pidf->size != 1 && pidf->size != 2 &&
			    pidf->size != 4 && pidf->size != 8))
		return 1;
	if (!commf->have)
		return 0;
	pid = (int)text_read_num(t->big_endian, data + pidf->offset, pidf->size);
	comm = (const char *)data + commf->offset;
	if (ov->built && *cc->seen >= ov->n1)
		return register_after(ov, cc->seen, pid, comm, commf->size);
	if (*cc->seen == ov->n1 && list_add(ov, pid, comm, commf->size) < 0)
		return -ENOMEM;
	(*cc->seen)++;
	return 0;
}

/* @name of @ev as tep_find_field() (or, @any, tep_find_any_field()) finds
 * it. */
static struct comm_field comm_field(struct tep_event *ev, const char *name,
				    bool any)
{
	struct tep_format_field *f = any ? tep_find_any_field(ev, name) :
				     tep_find_field(ev, name);
	struct comm_field cf = { false, 0, 0 };

	if (f && f->offset >= 0 && f->size >= 0) {
		cf.have = true;
		cf.offset = f->offset;
		cf.size = f->size;
	}
	return cf;
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

	t->big_endian = tep_is_file_bigendian(tep);
	t->sw_id = t->wk_id = t->wkn_id = -1;
	ev = tep_find_event_by_name(tep, "sched", "sched_switch");
	if (ev && ev->handler) {
		t->sw_id = ev->id;
		t->sw_ppid = comm_field(ev, "prev_pid", false);
		t->sw_pcomm = comm_field(ev, "prev_comm", true);
		t->sw_npid = comm_field(ev, "next_pid", false);
		t->sw_ncomm = comm_field(ev, "next_comm", true);
	}
	ev = tep_find_event_by_name(tep, "sched", "sched_wakeup");
	if (ev && ev->handler) {
		t->wk_id = ev->id;
		t->wk_pid = comm_field(ev, "pid", false);
		t->wk_comm = comm_field(ev, "comm", true);
	}
	ev = tep_find_event_by_name(tep, "sched", "sched_wakeup_new");
	if (ev && ev->handler) {
		t->wkn_id = ev->id;
		t->wkn_pid = comm_field(ev, "pid", false);
		t->wkn_comm = comm_field(ev, "comm", true);
	}
}

/**
 * text_comms_learn() - the comms the sched plugin registers for a record
 * @t: comms
 * @id: the record's event id
 * @cc: the stream's model and the registrations visible here, or NULL
 * @data: the record
 *
 * Return: 0 or -ENOMEM.
 * Context: the caller holds the stream lock; reads the fields copied at
 * setup only, so no tep lock is needed.
 */
int text_comms_learn(const struct text_comms *t, int id,
		     struct text_comm_ctx *cc, const unsigned char *data)
{
	int ret = 0;

	if (!cc)
		return 0;
	if (id == t->sw_id) {
		/* no next registration when prev_pid does not read */
		ret = comm_register(t, cc, &t->sw_ppid, &t->sw_pcomm, data);
		if (!ret)
			ret = comm_register(t, cc, &t->sw_npid, &t->sw_ncomm, data);
	} else if (id == t->wk_id) {
		ret = comm_register(t, cc, &t->wk_pid, &t->wk_comm, data);
	} else if (id == t->wkn_id) {
		ret = comm_register(t, cc, &t->wkn_pid, &t->wkn_comm, data);
	}
	return ret < 0 ? ret : 0;
}

/**
 * text_comms_learns() - whether records of an event register comms
 * @t: the comms
 * @id: event id
 *
 * Return: true for the events text_comms_learn() registers from.
 */
bool text_comms_learns(const struct text_comms *t, int id)
{
	return id >= 0 && (id == t->sw_id || id == t->wk_id || id == t->wkn_id);
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
	if ((cmdlines && build_saved(t, cmdlines) < 0) ||
	    text_comm_table_build(&t->stab, t->saved, t->nsaved,
				  NULL, NULL, 0) < 0) {
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
	text_comm_table_release(&t->stab);
	while (t->nsaved)
		free((char *)t->saved[--t->nsaved].comm);
	free(t->saved);
	free(t);
}
