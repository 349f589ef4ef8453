/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/timeline-pass.c - the gathering pass of timeline.svg
 * (text/timeline-pass.h): per CPU of a buffer, a source of that CPU
 * alone, its records' sched_switch pids and comms and ftrace print texts
 * read from the fields' places (found once in libtraceevent's formats,
 * under the tep lock), fed to the picture (tdatfs-timeline.h).
 *
 * The whole buffer is one pass per CPU from its start; its span comes
 * first from each CPU's first record and last page.  A window starts at
 * the merged text's first stretch whose records reach T0 (its checkpoint
 * holds every CPU's position) and reads each CPU up to T1.  The task
 * running on a CPU at that start is its last switch's next_pid, found
 * reading back; a CPU that never switched before T1 runs its first
 * switch's prev_pid, found reading on (both pass over the stretches
 * without sched_switch records).  Above the stream: it reads the stream's slots and
 * checkpoints (text/stream-internal.h), as the views do.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-timeline.h"
#include "account.h"
#include "bytes.h"
#include "engine.h"
#include "event-table.h"
#include "line.h"
#include "source.h"
#include "stream-internal.h"
#include "stream.h"
#include "tep.h"
#include "timeline-pass.h"

/* Records read between two polls of the cancel hook. */
#define POLL_EVERY	4096

/* Where a field is in its event's records. */
struct fld {
	bool ok;
	bool dyn, rel;		/* __data_loc, __rel_loc */
	uint32_t off, size;
};

/* What a CPU's reading knows of its running task. */
struct cpu_state {
	bool had_before;	/* records before the window's start position */
	bool any;		/* a record read */
	bool known;		/* a switch read: @cur runs since @cur_start */
	bool after;		/* a record at or past T1 */
	int cur;
	uint64_t cur_start;
	uint64_t start0;	/* the first record's time, 0 with had_before */
	uint64_t last_ts;
};

struct pass {
	struct text_fmt *fmt;
	struct text_fmt_share sh;
	struct tdatfs_timeline *tl;
	struct tdatfs_buf markers;	/* damage markers: not shown */
	struct tdat_file *f;
	size_t b;
	const struct text_page_fmt *pf;
	const struct text_timestamp *ts;
	unsigned int ncpu;
	size_t *cidx;
	uint64_t *npages;
	int sw, pr;			/* event ids, -1 for none */
	struct fld prev_pid, next_pid, prev_comm, next_comm, buf;
	uint64_t nrec, nswitch;
	/* a window: its keys, and the full text's stretches */
	bool window;
	uint64_t k0, k1;
	const struct text_account *acct;
	size_t nst;
	struct text_pos *spos;		/* (nst + 1) * ncpu */
};

/* The ids of sched:sched_switch and ftrace:print in the formats, or -1. */
static void events_find(struct pass *p)
{
	size_t i, n = tdat_event_count(p->f);

	p->sw = p->pr = -1;
	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(p->f, i);

		if (!e)
			continue;
		if (p->sw < 0 && !strcmp(e->name, "sched_switch") &&
		    !strcmp(e->system, "sched"))
			p->sw = e->id;
		else if (p->pr < 0 && !strcmp(e->name, "print") &&
			 !strcmp(e->system, "ftrace"))
			p->pr = e->id;
	}
}

static void fld_get(struct tep_event *ev, const char *name, struct fld *out)
{
	struct tep_format_field *fl = tep_find_field(ev, name);

	memset(out, 0, sizeof(*out));
	if (!fl || fl->offset < 0 || fl->size < 0)
		return;
	out->ok = true;
	out->off = fl->offset;
	out->size = fl->size;
	out->dyn = fl->flags & TEP_FIELD_IS_DYNAMIC;
	out->rel = fl->flags & TEP_FIELD_IS_RELATIVE;
}

/* The fields of sched_switch and print, where those events are parsed. */
static int fields_find(struct pass *p)
{
	const struct text_event_desc *ds = NULL, *dp = NULL;
	int ret = 0;

	if (p->sw >= 0)
		ret = text_event_lookup(p->sh.evs, p->sw, &ds);
	if (!ret && p->pr >= 0)
		ret = text_event_lookup(p->sh.evs, p->pr, &dp);
	if (ret < 0)
		return ret;
	text_tep_lock(p->sh.tt);
	if (ds && ds->ev) {
		fld_get(ds->ev, "prev_pid", &p->prev_pid);
		fld_get(ds->ev, "next_pid", &p->next_pid);
		fld_get(ds->ev, "prev_comm", &p->prev_comm);
		fld_get(ds->ev, "next_comm", &p->next_comm);
	}
	if (dp && dp->ev)
		fld_get(dp->ev, "buf", &p->buf);
	text_tep_unlock(p->sh.tt);
	if (!p->prev_pid.ok || !p->next_pid.ok)
		p->sw = -1;
	if (!p->buf.ok)
		p->pr = -1;
	return 0;
}

/* A number field of @n bytes at @d, as an int (sign-extended). */
static bool fld_int(const struct pass *p, const struct fld *f,
		    const unsigned char *d, size_t n, int *v)
{
	uint64_t x;

	if (!f->ok || f->dyn || !f->size || f->size > 8 || f->off > n ||
	    f->size > n - f->off)
		return false;
	x = text_read_num(p->sh.big_endian, d + f->off, f->size);
	if (f->size == 4)
		x = (uint64_t)(int64_t)(int32_t)x;
	*v = (int)(int64_t)x;
	return true;
}

/* A string field: its bytes up to a NUL or its end. */
static bool fld_str(const struct pass *p, const struct fld *f,
		    const unsigned char *d, size_t n, const char **s, size_t *len)
{
	uint64_t off = f->off, sz = f->size;
	const char *nul;

	if (!f->ok || off > n)
		return false;
	if (f->dyn) {
		uint32_t loc;

		if (sz != 4 || n - off < 4)
			return false;
		loc = (uint32_t)text_read_num(p->sh.big_endian, d + off, 4);
		sz = loc >> 16;
		off = (loc & 0xffff) + (f->rel ? off + 4 : 0);
		if (off > n)
			return false;
	}
	if (!sz || sz > n - off)
		sz = n - off;	/* char buf[]: to the record's end */
	*s = (const char *)d + off;
	nul = memchr(*s, '\0', sz);
	*len = nul ? (size_t)(nul - *s) : sz;
	return true;
}

/* A switch at @ts on lane @c: the interval it ends, the task it starts. */
static int on_switch(struct pass *p, unsigned int c, const unsigned char *d,
		     size_t n, uint64_t ts, uint64_t key, struct cpu_state *cs)
{
	int prev, next, ret;
	const char *s;
	size_t len;

	if (!fld_int(p, &p->prev_pid, d, n, &prev) ||
	    !fld_int(p, &p->next_pid, d, n, &next))
		return 0;
	p->nswitch++;
	ret = tdatfs_timeline_run(p->tl, p->cidx[c], cs->known ? cs->cur : prev,
			   cs->known ? cs->cur_start : cs->start0, ts);
	cs->known = true;
	cs->cur = next;
	cs->cur_start = ts;
	if (ret || (p->window && key >= p->k1))
		return ret;
	if (fld_str(p, &p->prev_comm, d, n, &s, &len))
		ret = tdatfs_timeline_comm(p->tl, prev, s, len, ts);
	if (!ret && fld_str(p, &p->next_comm, d, n, &s, &len))
		ret = tdatfs_timeline_comm(p->tl, next, s, len, ts);
	return ret;
}

/* One record of lane @c, inside the window (or of the whole buffer). */
static int on_record(struct pass *p, unsigned int c, const struct text_rec *r,
		     uint64_t key, struct cpu_state *cs)
{
	const unsigned char *d = r->data;
	size_t n = r->size < r->avail ? r->size : r->avail;
	uint64_t at = r->ts;
	const char *s;
	size_t len;
	bool in = !p->window || key >= p->k0;
	int id, ret = 0;

	/* a record the window's trace shows is drawn inside the span */
	if (p->window && at < p->k0)
		at = p->k0;
	if (p->window && at >= p->k1)
		at = p->k1 - 1;
	if (in)
		ret = tdatfs_timeline_record(p->tl, p->cidx[c], at);
	if (ret || !text_record_type(p->sh.evs, d, n, &id))
		return ret;
	if (id == p->sw)
		return on_switch(p, c, d, n, r->ts, key, cs);
	if (id == p->pr && in && fld_str(p, &p->buf, d, n, &s, &len))
		return tdatfs_timeline_print(p->tl, p->cidx[c], at, s, len);
	return 0;
}

/* Whether this thread's request is to stop, polled every POLL_EVERY. */
static bool stop_now(struct pass *p)
{
	return ++p->nrec % POLL_EVERY == 0 && text_stream_cancelled();
}

/* The next record of @src (NULL at the end), polling the cancel hook. */
static int next_rec(struct pass *p, struct text_source *src,
		    const struct text_rec **r)
{
	int ret = text_source_peek_index(src, 0, &p->markers, r);

	p->markers.len = 0;
	if (ret < 0 || !*r)
		return ret;
	return stop_now(p) ? -EINTR : 0;
}

/* Step @src past the record peeked. */
static int step(struct pass *p, struct text_source *src)
{
	int ret = text_source_consume_index(src, 0, &p->markers);

	p->markers.len = 0;
	return ret < 0 ? ret : 0;
}

/*
 * Lane @c's records from where @src is, up to T1 (a window) or the end,
 * into @cs.
 */
static int read_lane(struct pass *p, unsigned int c, struct text_source *src,
		     struct cpu_state *cs)
{
	const struct text_rec *r;
	uint64_t key;
	int ret;

	for (;;) {
		ret = next_rec(p, src, &r);
		if (ret < 0 || !r)
			return ret;
		key = text_fmt_time_key(p->fmt, r->ts);
		if (p->window && key >= p->k1) {
			cs->after = true;
			return 0;
		}
		if (!cs->any && !cs->had_before)
			cs->start0 = r->ts;
		cs->any = true;
		cs->last_ts = r->ts;
		ret = on_record(p, c, r, key, cs);
		if (!ret)
			ret = step(p, src);
		if (ret < 0)
			return ret;
	}
}

static bool pos_before(const struct text_pos *a, const struct text_pos *b)
{
	if (a->done)
		return false;
	return b->done || a->page < b->page ||
	       (a->page == b->page && a->idx < b->idx);
}

/* The start position of lane @c in stretch @k (nst: the end). */
static const struct text_pos *spos(const struct pass *p, size_t k, unsigned int c)
{
	return &p->spos[k * p->ncpu + c];
}

/*
 * The switches of lane @c in stretch @k: the first one's prev_pid
 * (@first) or the last one's next_pid; -1 when it has none.
 */
static int stretch_switch(struct pass *p, unsigned int c, struct text_source *src,
			  size_t k, bool first, int *pid)
{
	const struct text_rec *r;
	struct text_pos at;
	size_t n;
	int ret, v;

	text_source_seek(src, spos(p, k, c));
	*pid = -1;
	for (;;) {
		text_source_tell(src, &at);
		if (!pos_before(&at, spos(p, k + 1, c)))
			return 0;
		ret = next_rec(p, src, &r);
		if (ret < 0 || !r)
			return ret;
		n = r->size < r->avail ? r->size : r->avail;
		if (text_record_type(p->sh.evs, r->data, n, &v) && v == p->sw &&
		    fld_int(p, first ? &p->prev_pid : &p->next_pid, r->data, n,
			    &v)) {
			*pid = v;
			if (first)
				return 0;
		}
		ret = step(p, src);
		if (ret < 0)
			return ret;
	}
}

/*
 * The task running on lane @c at the start of stretch @k: the next_pid
 * of its last switch before; -1 when it has none.
 */
static int task_before(struct pass *p, unsigned int c, struct text_source *src,
		       size_t k, int *pid)
{
	int ret = 0;

	*pid = -1;
	for (; !ret && *pid < 0 && k > 0; k--)
		if (text_account_find(p->acct, k - 1, p->sw) &&
		    pos_before(spos(p, k - 1, c), spos(p, k, c)))
			ret = stretch_switch(p, c, src, k - 1, false, pid);
	return ret;
}

/*
 * The task running on lane @c before its first switch, which is at or
 * after stretch @from: that switch's prev_pid; -1 when it has none.
 */
static int task_after(struct pass *p, unsigned int c, struct text_source *src,
		      size_t from, int *pid)
{
	size_t k;
	int ret = 0;

	*pid = -1;
	for (k = from; !ret && *pid < 0 && k < p->nst; k++)
		if (text_account_find(p->acct, k, p->sw) &&
		    pos_before(spos(p, k, c), spos(p, k + 1, c)))
			ret = stretch_switch(p, c, src, k, true, pid);
	return ret;
}

/* The stretch holding lane @c's position @at (nst past the last). */
static size_t stretch_of(const struct pass *p, unsigned int c,
			 const struct text_pos *at)
{
	size_t k = 0;

	while (k < p->nst && !pos_before(at, spos(p, k + 1, c)))
		k++;
	return k;
}

/*
 * A window's lane @c before its records from stretch @k are read: the
 * task its last switch before started runs from the span's start.
 */
static int lane_start(struct pass *p, unsigned int c, struct text_source *src,
		      size_t k, struct cpu_state *cs)
{
	int ret, pid;

	cs->had_before = spos(p, k, c)->page || spos(p, k, c)->idx;
	if (cs->had_before && p->sw >= 0) {
		ret = task_before(p, c, src, k, &pid);
		if (ret < 0)
			return ret;
		if (pid >= 0) {
			cs->known = true;
			cs->cur = pid;
			cs->cur_start = 0;
		}
	}
	text_source_seek(src, spos(p, k, c));
	return 0;
}

/*
 * Lane @c: its records read from stretch @k (0 for the whole buffer).
 * A window's lane that never switched before T1 runs its first switch's
 * prev_pid from its first record (TIMELINE.md "Running intervals").
 */
static int do_lane(struct pass *p, unsigned int c, size_t k)
{
	struct text_source *src;
	struct cpu_state cs;
	struct text_pos at;
	uint64_t end;
	int ret = 0, pid = -1;

	src = text_source_new(p->f, p->b, &p->cidx[c], &p->npages[c], 1, p->pf,
			      p->ts);
	if (!src)
		return errno ? -errno : -ENOMEM;
	memset(&cs, 0, sizeof(cs));
	if (p->window)
		ret = lane_start(p, c, src, k, &cs);
	if (!ret)
		ret = read_lane(p, c, src, &cs);
	end = cs.after ? p->k1 : cs.last_ts;
	if (!ret && cs.known) {
		ret = tdatfs_timeline_run(p->tl, p->cidx[c], cs.cur, cs.cur_start, end);
	} else if (!ret && p->window && (cs.any || (cs.had_before && cs.after)) &&
		   p->sw >= 0) {
		text_source_tell(src, &at);
		ret = task_after(p, c, src, stretch_of(p, c, &at), &pid);
		if (!ret && pid >= 0)
			ret = tdatfs_timeline_run(p->tl, p->cidx[c], pid, cs.start0, end);
	}
	text_source_free(src);
	return ret;
}

/* The time of the last record from where @src is; false for none. */
static bool last_from(struct pass *p, struct text_source *src, uint64_t *last)
{
	const struct text_rec *r;
	bool found = false;

	while (text_source_peek_index(src, 0, &p->markers, &r) == 0 && r) {
		*last = r->ts;
		found = true;
		if (text_source_consume_index(src, 0, &p->markers) <= 0)
			break;
		p->markers.len = 0;
	}
	p->markers.len = 0;
	return found;
}

/*
 * The first and last record times of lane @c, from its first page and
 * its last pages: read to the end from 1, 2, 4 ... pages before it until
 * a record is met (damaged last pages cost twice their count, not their
 * square); false when it has none.
 */
static bool lane_span(struct pass *p, unsigned int c, uint64_t *first,
		      uint64_t *last)
{
	struct text_source *src;
	const struct text_rec *r;
	struct text_pos at = { 0 };
	bool found = false;
	uint64_t back;

	src = text_source_new(p->f, p->b, &p->cidx[c], &p->npages[c], 1, p->pf,
			      p->ts);
	if (!src)
		return false;
	if (text_source_peek_index(src, 0, &p->markers, &r) == 0 && r) {
		*first = r->ts;
		for (back = 1; !found; back *= 2) {
			at.page = back < p->npages[c] ? p->npages[c] - back : 0;
			text_source_seek(src, &at);
			found = last_from(p, src, last);
			if (!at.page)
				break;
		}
	}
	p->markers.len = 0;
	text_source_free(src);
	return found;
}

static void pass_release(struct pass *p)
{
	tdatfs_timeline_free(p->tl);
	free(p->cidx);
	free(p->npages);
	free(p->spos);
	tdatfs_buf_release(&p->markers);
}

/* A window's stretches: the finished merged text's checkpoints (lock held). */
static int stretches_copy(struct pass *p, const struct text_stream *st)
{
	unsigned int c;

	if (!st->size_known || !st->acct)
		return -EAGAIN;
	p->acct = st->acct;
	p->nst = text_account_stretches(st->acct);
	if (p->nst > st->nckpt)
		p->nst = st->nckpt;
	p->spos = calloc((p->nst + 1) * (size_t)p->ncpu + 1, sizeof(*p->spos));
	if (!p->spos)
		return -ENOMEM;
	memcpy(p->spos, st->ckpt_pos, p->nst * p->ncpu * sizeof(*p->spos));
	for (c = 0; c < p->ncpu; c++) {
		p->spos[p->nst * p->ncpu + c].page = p->npages[c];
		p->spos[p->nst * p->ncpu + c].done = 1;
	}
	return 0;
}

/* The engine's formatter, and the slots of buffer @b's merged stream. */
static int pass_setup(struct pass *p, struct tdatfs_text *t, size_t b)
{
	const struct text_comms *cm;
	struct text_stream *st;
	int ret = text_engine_fmt(t, &p->fmt, &cm);

	if (ret < 0)
		return ret;
	text_fmt_share(p->fmt, &p->sh);
	p->f = text_engine_file(t);
	p->b = b;
	st = text_engine_stream(t, b, -1);
	if (!st)
		return -errno;
	pthread_mutex_lock(&st->lock);
	p->pf = st->env.pf;
	p->ts = st->env.ts;
	p->ncpu = st->ncpu;
	p->cidx = calloc(p->ncpu + 1, sizeof(*p->cidx));
	p->npages = calloc(p->ncpu + 1, sizeof(*p->npages));
	if (!p->cidx || !p->npages || !p->ncpu || st->nparts != 1) {
		ret = p->ncpu && st->nparts == 1 ? -ENOMEM : -ENOENT;
	} else {
		memcpy(p->cidx, st->cidx, p->ncpu * sizeof(*p->cidx));
		memcpy(p->npages, st->npages, p->ncpu * sizeof(*p->npages));
		if (p->window)
			ret = stretches_copy(p, st);
	}
	pthread_mutex_unlock(&st->lock);
	if (ret < 0)
		return ret;
	events_find(p);
	return fields_find(p);
}

/* The whole buffer's span: its first record time to past its last. */
static void whole_span(struct pass *p, struct tdatfs_timeline_opts *o)
{
	uint64_t first, last;
	bool any = false;
	unsigned int c;

	o->t0 = 0;
	o->t1 = 1;
	for (c = 0; c < p->ncpu; c++) {
		if (!lane_span(p, c, &first, &last))
			continue;
		if (!any || first < o->t0)
			o->t0 = first;
		if (!any || last >= o->t1)
			o->t1 = last + 1;
		any = true;
	}
	if (o->t1 <= o->t0)
		o->t1 = o->t0 + 1;
}

/* The first stretch whose records reach T0, and the window's switches. */
static size_t window_start(struct pass *p, uint64_t *nswitch)
{
	const struct text_account_total *tot;
	uint64_t lo, hi;
	size_t k, i, n;

	tot = text_account_totals(p->acct, &n);
	*nswitch = 0;
	for (i = 0; i < n; i++)
		if (tot[i].id == p->sw)
			*nswitch = tot[i].records;
	for (k = 0; k < p->nst; k++)
		if (text_account_times(p->acct, k, &lo, &hi) && hi >= p->k0)
			break;
	return k;
}

/* The picture of a buffer without CPUs: no lanes. */
static int empty_make(struct tdatfs_text *t, const struct tdat_buffer *buf,
		      uint64_t t0, uint64_t t1, char **out, size_t *len)
{
	struct tdatfs_timeline_opts o = { .t0 = t1 ? t0 : 0, .t1 = t1 ? t1 : 1 };
	const struct text_comms *cm;
	struct text_fmt *fmt;
	struct tdatfs_timeline *tl;
	int ret = text_engine_fmt(t, &fmt, &cm);

	if (ret < 0)
		return ret;
	o.title = buf->name && buf->name[0] ? buf->name : "top";
	o.in_secs = text_fmt_in_usecs(fmt);
	tl = tdatfs_timeline_new(&o);
	if (!tl)
		return -errno;
	ret = tdatfs_timeline_render(tl, true, out, len);
	tdatfs_timeline_free(tl);
	return ret;
}

/**
 * text_timeline_make() - the bytes of a buffer's timeline.svg
 * @t: engine
 * @buffer: buffer index
 * @t0: a window's first time (tdatfs_text_time_parse()), or 0 with @t1 0
 *	for the whole buffer
 * @t1: the window's first time past it
 * @out: set to the bytes (malloc'd)
 * @len: set to their count
 *
 * Return: 0, -ENOENT for a buffer without text (latency), -EAGAIN for a
 * window before the buffer's merged text was produced, -EINTR when this
 * thread's request was cancelled, -ENOMEM, or a read's error.
 */
int text_timeline_make(struct tdatfs_text *t, size_t buffer, uint64_t t0,
		       uint64_t t1, char **out, size_t *len)
{
	const struct tdat_buffer *buf = tdat_buffer_get(text_engine_file(t), buffer);
	struct tdatfs_timeline_opts o = { 0 };
	struct pass p = { .window = t1 != 0, .k0 = t0, .k1 = t1 };
	unsigned int *cpus = NULL, c;
	uint64_t nswitch = 0;
	size_t k = 0;
	int ret;

	if (!buf || buf->latency)
		return -ENOENT;
	if (!buf->ncpus)
		return empty_make(t, buf, t0, t1, out, len);
	ret = pass_setup(&p, t, buffer);
	/* a lane for every CPU the buffer lists (per_cpu/ shows them all),
	 * also those without data, which the merged stream leaves out */
	if (!ret) {
		cpus = calloc(buf->ncpus, sizeof(*cpus));
		ret = cpus ? 0 : -ENOMEM;
	}
	for (c = 0; !ret && c < buf->ncpus; c++)
		cpus[c] = buf->cpus[c].cpu;
	for (c = 0; !ret && c < p.ncpu; c++)
		if (p.cidx[c] >= buf->ncpus)
			ret = -EIO;
	o.title = buf->name && buf->name[0] ? buf->name : "top";
	o.in_secs = !ret && text_fmt_in_usecs(p.fmt);
	o.nlanes = buf->ncpus;
	o.cpus = cpus;
	o.t0 = t0;
	o.t1 = t1;
	if (!ret && p.window)
		k = window_start(&p, &nswitch);
	else if (!ret)
		whole_span(&p, &o);
	if (!ret) {
		p.tl = tdatfs_timeline_new(&o);
		ret = p.tl ? 0 : -errno;
	}
	for (c = 0; !ret && c < p.ncpu; c++)
		ret = do_lane(&p, c, k);
	if (!p.window)
		nswitch = p.nswitch;
	if (!ret)
		ret = tdatfs_timeline_render(p.tl, nswitch == 0, out, len);
	free(cpus);
	pass_release(&p);
	return ret;
}
