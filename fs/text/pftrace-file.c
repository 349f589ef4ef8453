/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-file.c - trace.pftrace (text/pftrace-file.h): a pass
 * over a buffer's records, each CPU read alone through a source of its
 * own (text/source.h), that encodes every page's bundle once to measure
 * it and gathers the head's symbols and process tree; reads encode
 * again the pages they cover.
 *
 * A window's pass reads each CPU from the merged text's first stretch
 * whose records reach T0 to the end of the last one whose records start
 * before T1 (the stretches' key times come from its account, as the
 * window's text is cut), and keeps the records inside: any record of
 * the window lies in such a stretch, so the filter is exact whatever
 * the order of the times.  Above the stream: it reads the stream's
 * slots and checkpoints (text/stream-internal.h), as the views do.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"
#include "tdatfs-text.h"
#include "account.h"
#include "engine.h"
#include "line.h"
#include "pftrace-event.h"
#include "pftrace-file.h"
#include "pftrace-head.h"
#include "read-ahead.h"
#include "source.h"
#include "stream-internal.h"
#include "stream.h"

/* Records read between two polls of the cancel hook. */
#define POLL_EVERY	4096
/* A pass's caller polls it this often while its other threads finish. */
#define POLL_NS		(10 * 1000 * 1000L)
/* A unit's page number with this bit: its bundle says lost_events. */
#define UNIT_LOST	(1ull << 63)

/* One page's bundle: where it ends past the head, and which page. */
struct pf_unit {
	uint64_t end;
	uint64_t page;		/* | UNIT_LOST */
};

struct text_pf_file {
	/* the engine's, valid as long as it */
	struct tdat_file *f;
	struct text_fmt *fmt;
	const struct text_page_fmt *pgf;
	const struct text_timestamp *ts;
	size_t b;
	bool window;
	uint64_t k0, k1;
	/* the buffer's CPUs with data (the merged stream's slots) */
	unsigned int ncpu;
	size_t *cidx;
	uint64_t *npages;
	unsigned int *cpu;	/* CPU numbers */
	struct text_pf_events *m;
	unsigned int threads;	/* a pass's, at most (the engine's workers) */
	/* the file */
	char *head;
	size_t hlen;
	struct pf_unit *u;
	size_t nu;
	size_t *ufirst;		/* per slot, its first unit; ncpu + 1 */
	size_t charged;		/* of @u, to @f's chunk cache during a pass */
};

/* What one encoding of pages needs; one per thread. */
struct pf_ctx {
	struct text_pf_file *pf;
	struct text_pf_scratch s;
	struct tdatfs_buf markers;	/* damage markers: only counted */
	/* the pass only: what the head is made of */
	bool collect;
	struct text_pf_tree *tree;
	struct text_pf_syms syms;
	uint64_t nrec;
	const _Atomic bool *stop;	/* a pass on several threads: stop */
};

/* What page_run() found of a page. */
struct page_out {
	size_t nev;		/* events written */
	bool lost;		/* the bundle says lost_events */
	bool redo;		/* a record after the first one missed events */
};

static bool in_window(const struct text_pf_file *pf, uint64_t ts)
{
	uint64_t key;

	if (!pf->window)
		return true;
	key = text_fmt_time_key(pf->fmt, ts);
	return key >= pf->k0 && key < pf->k1;
}

/* One record into the bundle, opened at the first one; 0 or -errno. */
static int page_event(struct pf_ctx *x, unsigned int c, const struct text_rec *r,
		      struct tdatfs_pf_bundle *pb, struct tdatfs_buf *out,
		      struct page_out *po)
{
	struct tdatfs_pf_event e;
	int ret = text_pf_event_make(x->pf->m, r, r->ts, &x->s, &e);

	if (ret == -ENOENT)
		return 0;	/* an id without a format: left out */
	if (ret < 0)
		return ret;
	if (!po->nev) {
		po->lost |= r->missed != 0;
		ret = tdatfs_pf_bundle_begin(pb, out, x->pf->cpu[c], po->lost);
		if (ret < 0)
			return ret;
	} else if (r->missed && !po->lost) {
		po->redo = true;
	}
	po->nev++;
	ret = tdatfs_pf_bundle_event(pb, &e);
	if (!ret && x->collect)
		ret = text_pf_tree_note(x->tree, &e);
	if (!ret && x->collect)
		ret = text_pf_syms_note(&x->syms, x->s.syms,
					x->s.nsyms < 4 ? x->s.nsyms : 4);
	return ret;
}

/*
 * The records of slot @c's page @page from where @src stands (the
 * page's start), those of the window, as one bundle appended to @out
 * (nothing when none).  @po->lost in: the bundle's lost_events.  Stops
 * with the next page's first record peeked: markers of a damaged run
 * before it are in x->markers.
 */
static int page_run(struct pf_ctx *x, struct text_source *src, unsigned int c,
		    uint64_t page, struct tdatfs_buf *out, struct page_out *po)
{
	struct tdatfs_pf_bundle pb;
	const struct text_rec *r;
	struct text_pos at;
	int ret;

	po->nev = 0;
	po->redo = false;
	for (;;) {
		ret = text_source_peek_index(src, 0, &x->markers, &r);
		if (ret < 0 || !r)
			break;
		text_source_tell(src, &at);
		if (at.page != page)
			break;
		if (in_window(x->pf, r->ts))
			ret = page_event(x, c, r, &pb, out, po);
		if (!ret && x->collect && ++x->nrec % POLL_EVERY == 0 &&
		    (text_stream_cancelled() || atomic_load(x->stop)))
			ret = -EINTR;
		if (!ret)
			ret = text_source_consume_index(src, 0, &x->markers);
		if (ret < 0)
			break;
	}
	if (ret < 0 && po->nev)
		tdatfs_pf_bundle_abort(&pb);
	else if (po->nev)
		ret = tdatfs_pf_bundle_end(&pb);
	return ret < 0 ? ret : 0;
}

/* A source of slot @c alone, reading up to page @end (excluded). */
static struct text_source *source_of(struct text_pf_file *pf, unsigned int c,
				     uint64_t end)
{
	if (end > pf->npages[c])
		end = pf->npages[c];
	return text_source_new(pf->f, pf->b, &pf->cidx[c], &end, 1, pf->pgf,
			       pf->ts);
}

/*
 * One slot's units as a pass finds them, their ends counted from the
 * slot's first bundle, in a region of the file's table of its own: a
 * unit is a page, so the slot's pages are its room, threads write apart,
 * and the regions are closed up in slot order after (units_join()),
 * without a second table (room never written costs no memory).
 */
struct slot_units {
	struct pf_unit *u;	/* its region of pf->u */
	size_t nu, cap;
	uint64_t end;
	size_t charged;		/* of @u, to the file's chunk cache */
};

/* Room for one more unit: 0, or -EIO past the slot's pages. */
static int units_room(const struct slot_units *su)
{
	return su->nu < su->cap ? 0 : -EIO;
}

/* The file's table, with each slot's region for the pages it reads. */
static int units_regions(struct text_pf_file *pf, const uint64_t *from,
			 const uint64_t *to, struct slot_units *su)
{
	size_t total = 0;
	unsigned int c;

	for (c = 0; c < pf->ncpu; c++) {
		uint64_t end = to[c] < pf->npages[c] ? to[c] : pf->npages[c];

		su[c].cap = from[c] < end ? end - from[c] : 0;
		total += su[c].cap;
	}
	pf->u = malloc((total ? total : 1) * sizeof(*pf->u));
	if (!pf->u)
		return -ENOMEM;
	total = 0;
	for (c = 0; c < pf->ncpu; c++) {
		su[c].u = pf->u + total;
		total += su[c].cap;
	}
	return 0;
}

#define UNITS_CHARGE_STEP	(1u << 20)

/*
 * Charge the units' table to the chunk cache as it grows, a step at a
 * time, rather than when the file is kept after the pass: the table grows
 * with the trace (8.8 MB at 16 times big.dat), and until charged the
 * cache holds its whole bound beside it.
 */
static void units_charge(struct text_pf_file *pf, struct slot_units *su)
{
	size_t now = su->nu * sizeof(*su->u);

	if (now - su->charged >= UNITS_CHARGE_STEP) {
		tdat_cache_charge(pf->f, now - su->charged, false);
		su->charged = now;
	}
}

/*
 * The pass over slot @c from page @from to page @to (excluded): each
 * page's bundle measured into a unit.  @out: scratch for the bundle.
 */
static int pass_slot(struct pf_ctx *x, unsigned int c, uint64_t from,
		     uint64_t to, struct tdatfs_buf *out, struct slot_units *su)
{
	struct text_pf_file *pf = x->pf;
	struct text_pos at = { .page = from };
	struct text_source *src = source_of(pf, c, to);
	const struct text_rec *r;
	struct page_out po;
	bool pending = false;
	int ret = src ? 0 : -errno;

	if (src)
		text_source_seek(src, &at);
	x->markers.len = 0;
	while (!ret) {
		/* markers: a damaged run met reaching this page */
		ret = text_source_peek_index(src, 0, &x->markers, &r);
		pending |= x->markers.len != 0;
		x->markers.len = 0;
		if (ret < 0 || !r)
			break;
		text_source_tell(src, &at);
		at.idx = 0;
		out->len = 0;
		po.lost = pending;
		ret = page_run(x, src, c, at.page, out, &po);
		if (!ret && po.redo) {
			/* a record inside the page missed events */
			text_source_seek(src, &at);
			out->len = 0;
			po.lost = true;
			ret = page_run(x, src, c, at.page, out, &po);
		}
		if (ret < 0 || !po.nev)
			continue;
		pending = false;
		ret = units_room(su);
		if (ret < 0)
			break;
		su->end += out->len;
		su->u[su->nu].end = su->end;
		su->u[su->nu].page = at.page | (po.lost ? UNIT_LOST : 0);
		su->nu++;
		units_charge(pf, su);
	}
	text_source_free(src);
	return ret;
}

/*
 * A window's pages of each slot, from the merged text's stretches (lock
 * held): from the first stretch whose records reach T0 to the page
 * where the last one whose records start before T1 ends.  Records of
 * the stretches outside have keys outside the window: reading a page
 * more at each end changes nothing.
 */
static void window_pages(const struct text_pf_file *pf,
			 const struct text_stream *st, uint64_t *from,
			 uint64_t *to)
{
	size_t k, nst = text_account_stretches(st->acct), k0 = SIZE_MAX, k1 = 0;
	const struct text_pos *at;
	uint64_t lo, hi;
	unsigned int c;

	if (nst > st->nckpt)
		nst = st->nckpt;
	for (k = 0; k < nst; k++) {
		if (!text_account_times(st->acct, k, &lo, &hi) ||
		    hi < pf->k0 || lo >= pf->k1)
			continue;
		if (k0 == SIZE_MAX)
			k0 = k;
		k1 = k + 1;
	}
	for (c = 0; c < pf->ncpu; c++) {
		from[c] = to[c] = 0;
		if (k0 == SIZE_MAX)
			continue;
		from[c] = st->ckpt_pos[k0 * pf->ncpu + c].page;
		to[c] = pf->npages[c];
		at = k1 < nst ? &st->ckpt_pos[k1 * pf->ncpu + c] : NULL;
		if (at && !at->done && at->page < to[c])
			to[c] = at->page + 1;
	}
}

/*
 * The slots of buffer @b's merged stream, and the pages of each a pass
 * reads (*@from, *@to; not made when @from is NULL: a layout needs none).
 */
static int file_setup(struct text_pf_file *pf, struct tdatfs_text *t,
		      uint64_t **from, uint64_t **to)
{
	const struct tdat_buffer *buf = tdat_buffer_get(pf->f, pf->b);
	const struct text_comms *cm;
	struct text_stream *st;
	unsigned int c;
	int ret = text_engine_fmt(t, &pf->fmt, &cm);

	if (ret < 0 || !buf->ncpus)
		return ret;
	st = text_engine_stream(t, pf->b, -1);
	if (!st)
		return -errno;
	pthread_mutex_lock(&st->lock);
	pf->pgf = st->env.pf;
	pf->ts = st->env.ts;
	pf->ncpu = st->nparts == 1 ? st->ncpu : 0;
	pf->cidx = calloc(pf->ncpu + 1, sizeof(*pf->cidx));
	pf->npages = calloc(pf->ncpu + 1, sizeof(*pf->npages));
	pf->cpu = calloc(pf->ncpu + 1, sizeof(*pf->cpu));
	if (from) {
		*from = calloc(pf->ncpu + 1, sizeof(**from));
		*to = calloc(pf->ncpu + 1, sizeof(**to));
	}
	if (!pf->cidx || !pf->npages || !pf->cpu ||
	    (from && (!*from || !*to)))
		ret = -ENOMEM;
	else if (pf->window && (!st->size_known || !st->acct))
		ret = -EAGAIN;
	for (c = 0; !ret && c < pf->ncpu; c++) {
		pf->cidx[c] = st->cidx[c];
		pf->npages[c] = st->npages[c];
		if (to)
			(*to)[c] = st->npages[c];
		if (pf->cidx[c] >= buf->ncpus)
			ret = -EIO;
		else
			pf->cpu[c] = buf->cpus[pf->cidx[c]].cpu;
	}
	if (!ret && pf->window)
		window_pages(pf, st, *from, *to);
	pthread_mutex_unlock(&st->lock);
	return ret;
}

static void ctx_release(struct pf_ctx *x)
{
	text_pf_scratch_release(&x->s);
	tdatfs_buf_release(&x->markers);
	text_pf_tree_free(x->tree);
	text_pf_syms_release(&x->syms);
}

/*
 * A pass on up to pf->threads threads: each takes the next slot no one
 * took, measures it into that slot's units with a context of its own
 * (its own tree and symbols, joined after: neither depends on the order
 * records were read in), and all stop at the first failure.
 */
struct pass {
	struct text_pf_file *pf;
	const uint64_t *from, *to;
	struct slot_units *su;		/* one per slot */
	_Atomic unsigned int next;	/* the first slot no one took */
	_Atomic bool stop;
	_Atomic unsigned int running;	/* threads of the pass not done */
};

struct pass_part {
	struct pass *ps;
	struct pf_ctx x;
	pthread_t tid;
	bool started;			/* a thread of its own */
	int ret;
};

static void part_run(struct pass_part *pp)
{
	struct pass *ps = pp->ps;
	struct tdatfs_buf out = { 0 };
	unsigned int c;

	while (!pp->ret && !atomic_load(&ps->stop)) {
		c = atomic_fetch_add(&ps->next, 1);
		if (c >= ps->pf->ncpu)
			break;
		if (ps->from[c] < ps->to[c])
			pp->ret = pass_slot(&pp->x, c, ps->from[c], ps->to[c],
					    &out, &ps->su[c]);
	}
	if (pp->ret)
		atomic_store(&ps->stop, true);
	tdatfs_buf_release(&out);
}

/* The cancel hook of a pass's own threads: the pass stopped. */
static bool pass_stopped(void *ctx)
{
	return atomic_load((_Atomic bool *)ctx);
}

static void *part_thread(void *arg)
{
	struct pass_part *pp = arg;

	tdatfs_text_cancel_set(pass_stopped, &pp->ps->stop);
	part_run(pp);
	tdatfs_text_cancel_set(NULL, NULL);
	atomic_fetch_sub(&pp->ps->running, 1);
	return NULL;
}

/*
 * Parts 1 and on on threads of their own (those that do not start leave
 * their slots to the others), part 0 on the caller's, whose cancel hook
 * stops them all: polled while the others finish too, so that a cancel
 * ends the pass within a poll however long a CPU's pages.
 * Return: the first failure, not a stop it caused.
 */
static int parts_run(struct pass_part *pp, unsigned int n)
{
	const struct timespec nap = { 0, POLL_NS };
	unsigned int i;
	int ret = 0;

	for (i = 1; i < n; i++) {
		atomic_fetch_add(&pp->ps->running, 1);
		pp[i].started = !pthread_create(&pp[i].tid, NULL, part_thread,
						&pp[i]);
		if (!pp[i].started)
			atomic_fetch_sub(&pp->ps->running, 1);
	}
	part_run(&pp[0]);
	while (atomic_load(&pp->ps->running)) {
		if (text_stream_cancelled())
			atomic_store(&pp->ps->stop, true);
		nanosleep(&nap, NULL);
	}
	for (i = 1; i < n; i++)
		if (pp[i].started)
			pthread_join(pp[i].tid, NULL);
	for (i = 0; i < n; i++)
		if (pp[i].ret < 0 && (!ret || ret == -EINTR))
			ret = pp[i].ret;
	return ret;
}

/*
 * The slots' regions closed up in slot order, ends counted from the
 * file's first bundle; a unit only moves down (a region starts past
 * every unit before it), and the table is cut to its units.
 */
static void units_join(struct text_pf_file *pf, struct slot_units *su)
{
	struct pf_unit *u;
	size_t at = 0, i;
	uint64_t base = 0;
	unsigned int c;

	for (c = 0; c < pf->ncpu; c++) {
		pf->ufirst[c] = at;
		for (i = 0; i < su[c].nu; i++) {
			pf->u[at] = su[c].u[i];
			pf->u[at++].end += base;
		}
		base += su[c].end;
	}
	pf->ufirst[pf->ncpu] = at;
	pf->nu = at;
	u = realloc(pf->u, (at ? at : 1) * sizeof(*u));
	if (u)
		pf->u = u;
}

/* Part 0's tree and symbols made those of every part. */
static int parts_join(struct pass_part *pp, unsigned int n)
{
	int ret = 0;

	for (unsigned int i = 1; !ret && i < n; i++) {
		ret = text_pf_tree_merge(pp[0].x.tree, pp[i].x.tree);
		if (!ret)
			ret = text_pf_syms_join(&pp[0].x.syms, &pp[i].x.syms);
	}
	return ret;
}

/* The pass: every slot's units, then the head. */
static int file_pass(struct text_pf_file *pf, const uint64_t *from,
		     const uint64_t *to)
{
	struct pass ps = { .pf = pf, .from = from, .to = to };
	unsigned int n = pf->threads < pf->ncpu ? pf->threads : pf->ncpu, i;
	struct pass_part *pp;
	int ret = 0;

	if (!n)
		n = 1;
	pp = calloc(n, sizeof(*pp));
	ps.su = calloc(pf->ncpu + 1, sizeof(*ps.su));
	pf->ufirst = calloc(pf->ncpu + 1, sizeof(*pf->ufirst));
	if (!pp || !ps.su || !pf->ufirst)
		ret = -ENOMEM;
	for (i = 0; !ret && i < n; i++) {
		pp[i] = (struct pass_part){ .ps = &ps, .x = { .pf = pf,
			.collect = true, .stop = &ps.stop } };
		pp[i].x.tree = text_pf_tree_new();
		if (!pp[i].x.tree)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = units_regions(pf, from, to, ps.su);
	if (!ret)
		ret = parts_run(pp, n);
	if (!ret) {
		units_join(pf, ps.su);
		ret = parts_join(pp, n);
	}
	if (!ret)
		ret = text_pf_head_make(pf->f, pf->m, &pp[0].x.syms,
					pp[0].x.tree, &pf->head, &pf->hlen);
	for (i = 0; ps.su && i < pf->ncpu; i++)
		pf->charged += ps.su[i].charged;
	for (i = 0; pp && i < n; i++)
		ctx_release(&pp[i].x);
	free(pp);
	free(ps.su);
	return ret;
}

/*
 * A file of buffer @buffer set up (its slots, pages and event maps), to
 * be filled by a pass or a layout; *@from and *@to: each slot's pages to
 * read (the caller frees them, set or not; both NULL for a layout).  Return: 0 with *@out set,
 * or a negative errno as text_pf_file_make()'s with *@out NULL.
 */
static int file_new(struct tdatfs_text *t, size_t buffer, uint64_t t0,
		    uint64_t t1, struct text_pf_file **out, uint64_t **from,
		    uint64_t **to)
{
	struct tdat_file *f = text_engine_file(t);
	const struct tdat_buffer *buf = tdat_buffer_get(f, buffer);
	struct text_pf_file *pf;
	int ret;

	*out = NULL;
	if (!buf || buf->latency)
		return -ENOENT;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	pf->f = f;
	pf->b = buffer;
	pf->window = t1 != 0;
	pf->k0 = t0;
	pf->k1 = t1;
	pf->threads = text_read_ahead_threads(text_engine_ahead(t));
	ret = file_setup(pf, t, from, to);
	if (!ret && pf->fmt) {
		pf->m = text_pf_events_new(pf->fmt);
		ret = pf->m ? 0 : -errno;
	}
	if (ret < 0) {
		text_pf_file_free(pf);
		return ret;
	}
	*out = pf;
	return 0;
}

/**
 * text_pf_file_make() - make a buffer's trace.pftrace: the pass
 * @t: engine
 * @buffer: buffer index
 * @t0: a window's first time (tdatfs_text_time_parse()), or 0 with @t1
 *	0 for the whole buffer
 * @t1: the window's first time past it
 * @out: set to the file (free with text_pf_file_free())
 *
 * Return: 0, -ENOENT for a buffer without text (latency), -EAGAIN for a
 * window before the buffer's merged text was produced, -EINTR when this
 * thread's request was cancelled, -ENOMEM, or a read's error.
 */
int text_pf_file_make(struct tdatfs_text *t, size_t buffer, uint64_t t0,
		      uint64_t t1, struct text_pf_file **out)
{
	uint64_t *from = NULL, *to = NULL;
	struct text_pf_file *pf;
	int ret = file_new(t, buffer, t0, t1, &pf, &from, &to);

	*out = NULL;
	if (!ret)
		ret = file_pass(pf, from, to);
	free(from);
	free(to);
	/* the caller charges the file it keeps (text_pf_file_mem()) */
	if (pf) {
		tdat_cache_charge(pf->f, pf->charged, true);
		pf->charged = 0;
	}
	if (ret < 0) {
		text_pf_file_free(pf);
		return ret;
	}
	*out = pf;
	return 0;
}

/*
 * A layout's bytes (text_pf_file_save()), in host order: LAYOUT_MAGIC,
 * u32 slots, u64 head length, u64 units, u64 first unit per slot and
 * one past the last (slots + 1), each unit's u64 end and u64 page, then
 * the head.
 */
#define LAYOUT_MAGIC	0x31465050u	/* "PPF1" read in little-endian */
#define LAYOUT_HEAD	24

/**
 * text_pf_file_save() - the layout of a file made: what its pass found
 * @pf: a whole buffer's file (text_pf_file_make() with t1 = 0)
 * @bytes: set to them (the caller frees them with free())
 * @len: set to their size
 *
 * Return: 0, -EINVAL for a window's file, or -ENOMEM.
 */
int text_pf_file_save(const struct text_pf_file *pf, void **bytes, size_t *len)
{
	size_t n = LAYOUT_HEAD + (pf->ncpu + 1) * 8 + pf->nu * 16 + pf->hlen;
	uint32_t h32[2] = { LAYOUT_MAGIC, pf->ncpu };
	uint64_t h64[2] = { pf->hlen, pf->nu };
	unsigned int c;
	uint8_t *p, *q;

	if (pf->window)
		return -EINVAL;
	p = malloc(n);
	if (!p)
		return -ENOMEM;
	memcpy(p, h32, sizeof(h32));
	memcpy(p + 8, h64, sizeof(h64));
	q = p + LAYOUT_HEAD;
	for (c = 0; c <= pf->ncpu; c++, q += 8)
		memcpy(q, &pf->ufirst[c], 8);
	for (size_t i = 0; i < pf->nu; i++, q += 16) {
		memcpy(q, &pf->u[i].end, 8);
		memcpy(q + 8, &pf->u[i].page, 8);
	}
	memcpy(q, pf->head, pf->hlen);
	*bytes = p;
	*len = n;
	return 0;
}

/*
 * The units of a layout checked against the buffer as this engine sees
 * it: each slot's run of units within the table, pages of the slot in
 * increasing order, every bundle non-empty.  Return: 0 or -EINVAL.
 */
static int layout_units(const struct text_pf_file *pf)
{
	uint64_t end = 0, page;
	unsigned int c;
	size_t i;

	if (pf->ufirst[0] || pf->ufirst[pf->ncpu] != pf->nu)
		return -EINVAL;
	for (c = 0; c < pf->ncpu; c++) {
		if (pf->ufirst[c + 1] < pf->ufirst[c])
			return -EINVAL;
		for (i = pf->ufirst[c]; i < pf->ufirst[c + 1]; i++) {
			page = pf->u[i].page & ~UNIT_LOST;
			if (page >= pf->npages[c] || pf->u[i].end <= end ||
			    (i > pf->ufirst[c] &&
			     page <= (pf->u[i - 1].page & ~UNIT_LOST)))
				return -EINVAL;
			end = pf->u[i].end;
		}
	}
	return 0;
}

/* The layout's tables and head taken into @pf; 0, -EINVAL or -ENOMEM. */
static int layout_take(struct text_pf_file *pf, const uint8_t *p, size_t len,
		       uint64_t size)
{
	uint32_t h32[2];
	uint64_t h64[2], v;
	unsigned int c;

	if (len < LAYOUT_HEAD)
		return -EINVAL;
	memcpy(h32, p, sizeof(h32));
	memcpy(h64, p + 8, sizeof(h64));
	/* every count against the bytes there are before any is used */
	if (h32[0] != LAYOUT_MAGIC || h32[1] != pf->ncpu ||
	    h64[0] > len || h64[1] > len / 16 ||
	    len - LAYOUT_HEAD != (pf->ncpu + 1) * 8 + h64[1] * 16 + h64[0])
		return -EINVAL;
	pf->hlen = (size_t)h64[0];
	pf->nu = (size_t)h64[1];
	pf->ufirst = calloc(pf->ncpu + 1, sizeof(*pf->ufirst));
	pf->u = calloc(pf->nu ? pf->nu : 1, sizeof(*pf->u));
	pf->head = malloc(pf->hlen ? pf->hlen : 1);
	if (!pf->ufirst || !pf->u || !pf->head)
		return -ENOMEM;
	p += LAYOUT_HEAD;
	for (c = 0; c <= pf->ncpu; c++, p += 8) {
		memcpy(&v, p, 8);
		if (v > pf->nu)
			return -EINVAL;
		pf->ufirst[c] = (size_t)v;
	}
	for (size_t i = 0; i < pf->nu; i++, p += 16) {
		memcpy(&pf->u[i].end, p, 8);
		memcpy(&pf->u[i].page, p + 8, 8);
	}
	memcpy(pf->head, p, pf->hlen);
	if (layout_units(pf) < 0 || text_pf_file_size(pf) != size)
		return -EINVAL;
	return 0;
}

/**
 * text_pf_file_load() - a whole buffer's trace.pftrace from the layout
 * an earlier pass found (text_pf_file_save()), without a pass
 * @t: engine
 * @buffer: buffer index
 * @bytes: the layout
 * @len: its size
 * @size: the file's size kept with it
 * @out: set to the file (free with text_pf_file_free())
 *
 * The layout is checked against the buffer (its CPUs, their pages) and
 * @size before it is used; what it cannot be checked for (a bundle's
 * length) a read checks as it encodes.
 *
 * Return: 0, -EINVAL for a layout refused (make the file with
 * text_pf_file_make()), -ENOENT for a buffer without text, -ENOMEM.
 */
int text_pf_file_load(struct tdatfs_text *t, size_t buffer, const void *bytes,
		      size_t len, uint64_t size, struct text_pf_file **out)
{
	struct text_pf_file *pf;
	int ret = file_new(t, buffer, 0, 0, &pf, NULL, NULL);

	*out = NULL;
	if (!ret)
		ret = layout_take(pf, bytes, len, size);
	if (ret < 0) {
		text_pf_file_free(pf);
		return ret;
	}
	*out = pf;
	return 0;
}

/**
 * text_pf_file_size() - the size of a file made
 * @pf: the file
 *
 * Return: its size in bytes.
 */
uint64_t text_pf_file_size(const struct text_pf_file *pf)
{
	return pf->hlen + (pf->nu ? pf->u[pf->nu - 1].end : 0);
}

/**
 * text_pf_file_mem() - the memory a file made holds
 * @pf: the file
 *
 * Return: bytes, its table and head (for the engine's bound).
 */
size_t text_pf_file_mem(const struct text_pf_file *pf)
{
	return sizeof(*pf) + pf->hlen + pf->nu * sizeof(*pf->u) +
	       pf->ncpu * (2 * sizeof(size_t) + sizeof(uint64_t) +
			   sizeof(unsigned int));
}

/* The slot of unit @i. */
static unsigned int slot_of(const struct text_pf_file *pf, size_t i)
{
	unsigned int c = 0;

	while (c + 1 < pf->ncpu && pf->ufirst[c + 1] <= i)
		c++;
	return c;
}

/* The first unit that ends past @x (units' offsets, past the head). */
static size_t unit_at(const struct text_pf_file *pf, uint64_t x)
{
	size_t lo = 0, hi = pf->nu;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pf->u[mid].end > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Unit @i encoded again into @out (emptied first), with @src, the
 * source of its slot (made when NULL or of another slot, reading up to
 * the last page of the slot's units up to @last).
 */
static int unit_encode(struct pf_ctx *x, size_t i, size_t last,
		       struct text_source **src, unsigned int *sc,
		       struct tdatfs_buf *out)
{
	struct text_pf_file *pf = x->pf;
	unsigned int c = slot_of(pf, i);
	uint64_t page = pf->u[i].page & ~UNIT_LOST;
	struct text_pos at = { .page = page };
	struct page_out po = { .lost = pf->u[i].page & UNIT_LOST };
	size_t l;

	if (!*src || *sc != c) {
		text_source_free(*src);
		l = pf->ufirst[c + 1] - 1 < last ? pf->ufirst[c + 1] - 1 : last;
		*src = source_of(pf, c, (pf->u[l].page & ~UNIT_LOST) + 1);
		if (!*src)
			return -errno;
		*sc = c;
		text_source_seek(*src, &at);
	} else {
		/* a page that follows is where the last one stopped */
		text_source_tell(*src, &at);
		if (at.page != page || at.idx || at.done) {
			at = (struct text_pos){ .page = page };
			text_source_seek(*src, &at);
		}
	}
	out->len = 0;
	x->markers.len = 0;
	return page_run(x, *src, c, page, out, &po);
}

/**
 * text_pf_file_read() - read a file made
 * @pf: the file
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the file
 *
 * Return: bytes read (0 at the end), -EIO when a page does not encode
 * as the pass measured it (the trace changed under us), -ENOMEM.
 * Context: thread-safe (each call reads with sources of its own).
 */
ssize_t text_pf_file_read(struct text_pf_file *pf, char *buf, size_t len,
			  uint64_t off)
{
	uint64_t size = text_pf_file_size(pf), x0, start;
	struct pf_ctx x = { .pf = pf };
	struct tdatfs_buf out = { 0 };
	struct text_source *src = NULL;
	unsigned int sc = 0;
	size_t got = 0, i, last, n;
	int ret = 0;

	if (off >= size)
		return 0;
	if (len > size - off)
		len = size - off;
	if (off < pf->hlen) {
		got = pf->hlen - off < len ? pf->hlen - off : len;
		memcpy(buf, pf->head + off, got);
	}
	if (got == len)
		return got;
	x0 = off + got - pf->hlen;
	i = unit_at(pf, x0);
	last = unit_at(pf, off + len - 1 - pf->hlen);
	for (; !ret && got < len && i <= last && i < pf->nu; i++) {
		start = i ? pf->u[i - 1].end : 0;
		ret = unit_encode(&x, i, last, &src, &sc, &out);
		if (!ret && out.len != pf->u[i].end - start)
			ret = -EIO;
		if (ret < 0)
			break;
		n = out.len - (x0 - start);
		if (n > len - got)
			n = len - got;
		memcpy(buf + got, out.p + (x0 - start), n);
		got += n;
		x0 += n;
	}
	text_source_free(src);
	tdatfs_buf_release(&out);
	ctx_release(&x);
	return ret < 0 ? ret : (ssize_t)got;
}

/**
 * text_pf_file_free() - free a file made; NULL is fine
 * @pf: the file
 */
void text_pf_file_free(struct text_pf_file *pf)
{
	if (!pf)
		return;
	text_pf_events_free(pf->m);
	free(pf->cidx);
	free(pf->npages);
	free(pf->cpu);
	free(pf->head);
	free(pf->u);
	free(pf->ufirst);
	free(pf);
}
