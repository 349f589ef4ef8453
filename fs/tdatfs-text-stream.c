/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-stream.c - text of one buffer (merged or one CPU), produced
 * on demand, with checkpoints and a few cursors.
 *
 * Record order is trace-cmd's tracecmd_read_next_data(): peek every CPU
 * (in the buffer's CPU order) and take the smallest timestamp; on a tie
 * the first CPU wins.  Pages follow trace-cmd's get_next_page(): page k
 * of a CPU exists while k * page_size < the CPU's data size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text-int.h"

#define NCURSORS	4
#define CKPT_BYTES	(64 * 1024)	/* text between checkpoints, at first */
/*
 * Checkpoint memory of one stream, at most: past it every other
 * checkpoint is dropped and the spacing doubles, so memory stays flat
 * however long the text (a read then decodes at most the spacing from
 * the checkpoint before it: 512 KiB for 16 copies of big.dat).
 */
#define CKPT_MEM	(512 * 1024)

#define COMMIT_MASK	((1u << 27) - 1)
#define MISSED_EVENTS	(1ull << 31)
#define MISSED_STORED	(1ull << 30)

/* Position of one CPU; what a checkpoint keeps. */
struct cpu_pos {
	uint64_t page;		/* page number in the CPU's stream */
	uint32_t idx;		/* records consumed on that page */
	uint32_t done;		/* no more records */
};

struct text_cpu {
	size_t c;		/* index in the buffer's cpus */
	unsigned int cpu;	/* CPU number */
	uint64_t npages;
	struct cpu_pos pos;
	bool loaded;		/* pos.page is in @kbuf */
	bool have;		/* a record is peeked */
	struct kbuffer *kbuf;
	unsigned char *page;	/* page_size bytes + slack */
	struct text_rec rec;	/* the peeked record */
};

struct text_cursor {
	bool valid;
	uint64_t used;		/* LRU tick */
	struct text_cpu *cpus;
	struct text_buf line;	/* text [off, off + line.len) */
	uint64_t off;
	size_t seen;		/* learned comms visible here */
	bool eof;
};

struct text_stream {
	pthread_mutex_t lock;
	struct tdatfs_text *t;
	size_t b;
	bool latency;
	uint32_t page_size;
	unsigned int ncpu;
	size_t *cidx;		/* buffer cpu indices merged */
	uint64_t *npages;

	size_t nckpt;
	size_t ckpt_cap;
	size_t ckpt_max;		/* thinned out when reached */
	uint64_t ckpt_every;		/* text bytes between checkpoints */
	uint64_t *ckpt_off;
	size_t *ckpt_seen;
	struct cpu_pos *ckpt_pos;	/* nckpt * ncpu */
	struct text_overlay ov;

	bool size_known;
	uint64_t size;

	uint64_t tick;
	struct text_cursor cur[NCURSORS];
};

static void cursor_release(struct text_stream *st, struct text_cursor *cu)
{
	unsigned int i;

	if (cu->cpus) {
		for (i = 0; i < st->ncpu; i++) {
			kbuffer_free(cu->cpus[i].kbuf);
			free(cu->cpus[i].page);
		}
	}
	free(cu->cpus);
	free(cu->line.p);
	memset(cu, 0, sizeof(*cu));
}

/**
 * text_stream_free() - free a stream; NULL is fine
 * @st: stream
 */
void text_stream_free(struct text_stream *st)
{
	int i;

	if (!st)
		return;
	for (i = 0; i < NCURSORS; i++)
		cursor_release(st, &st->cur[i]);
	free(st->cidx);
	free(st->npages);
	free(st->ckpt_off);
	free(st->ckpt_seen);
	free(st->ckpt_pos);
	text_overlay_free(&st->ov);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* Keep checkpoints 0, 2, 4, ... and double the spacing. */
static void ckpt_thin(struct text_stream *st)
{
	size_t k, n = (st->nckpt + 1) / 2;

	for (k = 1; k < n; k++) {
		st->ckpt_off[k] = st->ckpt_off[2 * k];
		st->ckpt_seen[k] = st->ckpt_seen[2 * k];
		memcpy(&st->ckpt_pos[k * st->ncpu], &st->ckpt_pos[2 * k * st->ncpu],
		       st->ncpu * sizeof(*st->ckpt_pos));
	}
	st->nckpt = n;
	st->ckpt_every *= 2;
}

static int ckpt_add(struct text_stream *st, uint64_t off, const struct text_cursor *cu)
{
	unsigned int i;

	if (st->nckpt >= st->ckpt_max)
		ckpt_thin(st);
	if (st->nckpt == st->ckpt_cap) {
		size_t cap = st->ckpt_cap ? st->ckpt_cap * 2 : 64;
		uint64_t *o = realloc(st->ckpt_off, cap * sizeof(*o));
		struct cpu_pos *p;
		size_t *sn;

		if (!o)
			return -ENOMEM;
		st->ckpt_off = o;
		sn = realloc(st->ckpt_seen, cap * sizeof(*sn));
		if (!sn)
			return -ENOMEM;
		st->ckpt_seen = sn;
		p = realloc(st->ckpt_pos, cap * st->ncpu * sizeof(*p) + 1);
		if (!p)
			return -ENOMEM;
		st->ckpt_pos = p;
		st->ckpt_cap = cap;
	}
	st->ckpt_off[st->nckpt] = off;
	st->ckpt_seen[st->nckpt] = cu ? cu->seen : 0;
	for (i = 0; i < st->ncpu; i++)
		st->ckpt_pos[st->nckpt * st->ncpu + i] =
			cu ? cu->cpus[i].pos : (struct cpu_pos){ 0, 0, 0 };
	st->nckpt++;
	return 0;
}

/**
 * text_stream_new() - a stream for one buffer
 * @t: engine (set up)
 * @b: buffer index
 * @cpu: buffer cpu index, or -1 for all merged
 *
 * Return: the stream, or NULL with errno set.
 */
struct text_stream *text_stream_new(struct tdatfs_text *t, size_t b, int cpu)
{
	const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);
	struct text_stream *st;
	unsigned int i;
	int err = ENOMEM;

	if (!buf || (cpu >= 0 && (unsigned int)cpu >= buf->ncpus)) {
		errno = ENOENT;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	pthread_mutex_init(&st->lock, NULL);
	st->t = t;
	st->b = b;
	st->latency = buf->latency;
	st->page_size = buf->page_size;
	if (st->latency)
		return st;
	if (st->page_size < 64 || st->page_size > (1u << 27)) {
		err = EINVAL;
		goto fail;
	}
	st->ncpu = cpu < 0 ? buf->ncpus : 1;
	st->ckpt_every = CKPT_BYTES;
	st->ckpt_max = CKPT_MEM / (sizeof(*st->ckpt_off) + sizeof(*st->ckpt_seen) +
				   st->ncpu * sizeof(*st->ckpt_pos));
	if (st->ckpt_max < 64)
		st->ckpt_max = 64;
	/* tests make the thinning happen on small traces */
	if (t->opts.max_checkpoints)
		st->ckpt_max = t->opts.max_checkpoints < 2 ? 2 :
			       t->opts.max_checkpoints;
	st->cidx = calloc(st->ncpu + 1, sizeof(*st->cidx));
	st->npages = calloc(st->ncpu + 1, sizeof(*st->npages));
	if (!st->cidx || !st->npages)
		goto fail;
	for (i = 0; i < st->ncpu; i++) {
		uint64_t size = 0;

		st->cidx[i] = cpu < 0 ? i : (size_t)cpu;
		/* a CPU whose size is unreadable shows as empty */
		if (tdat_cpu_size(t->f, b, st->cidx[i], &size) < 0)
			size = 0;
		st->npages[i] = (size + st->page_size - 1) / st->page_size;
	}
	if (ckpt_add(st, 0, NULL) < 0)
		goto fail;
	return st;
fail:
	text_stream_free(st);
	errno = err;
	return NULL;
}

static int cursor_alloc(struct text_stream *st, struct text_cursor *cu)
{
	const struct tdat_buffer *buf = tdat_buffer_get(st->t->f, st->b);
	unsigned int i;

	cu->cpus = calloc(st->ncpu, sizeof(*cu->cpus));
	if (!cu->cpus)
		return -ENOMEM;
	for (i = 0; i < st->ncpu; i++) {
		struct text_cpu *tc = &cu->cpus[i];

		tc->c = st->cidx[i];
		tc->cpu = buf->cpus[tc->c].cpu;
		tc->npages = st->npages[i];
		tc->kbuf = kbuffer_alloc(st->t->klong, st->t->kendian);
		/* slack: kbuffer may read an event header past the data */
		tc->page = calloc(1, (size_t)st->page_size + 64);
		if (!tc->kbuf || !tc->page)
			return -ENOMEM;
		if (st->t->old_format)
			kbuffer_set_old_format(tc->kbuf);
	}
	return 0;
}

/* Put a cursor at checkpoint @k. */
static void cursor_seek(struct text_stream *st, struct text_cursor *cu, size_t k)
{
	unsigned int i;

	for (i = 0; i < st->ncpu; i++) {
		cu->cpus[i].pos = st->ckpt_pos[k * st->ncpu + i];
		cu->cpus[i].loaded = false;
		cu->cpus[i].have = false;
	}
	cu->off = st->ckpt_off[k];
	cu->seen = st->ckpt_seen[k];
	cu->line.len = 0;
	cu->eof = false;
	cu->valid = true;
}

static uint64_t get_num(const struct tdatfs_text *t, const unsigned char *p,
			unsigned int size)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int k = t->big_endian ? i : size - 1 - i;

		v = (v << 8) | p[k];
	}
	return v;
}

/* Read and load page tc->pos.page; skip the records already consumed. */
static int load_page(struct text_stream *st, struct text_cpu *tc)
{
	struct tdatfs_text *t = st->t;
	uint32_t ps = st->page_size;
	unsigned int start = t->kernel_long == 8 ? 16 : 12;
	uint64_t commit, size;
	ssize_t n;
	uint32_t i;

	n = tdat_cpu_read(t->f, st->b, tc->c, tc->page, ps,
			  tc->pos.page * (uint64_t)ps);
	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	if ((size_t)n < ps)
		memset(tc->page + n, 0, ps - n);
	/* -EBADMSG: the page reads but does not parse */
	if (!t->ts_ok)
		return -EBADMSG;
	commit = get_num(t, tc->page + 8, t->kernel_long);
	size = commit & COMMIT_MASK;
	if (start + size > ps)
		return -EBADMSG;
	if ((commit & MISSED_EVENTS) && (commit & MISSED_STORED) &&
	    start + size + t->kernel_long > ps)
		return -EBADMSG;
	kbuffer_load_subbuffer(tc->kbuf, tc->page);
	for (i = 0; i < tc->pos.idx; i++) {
		if (!kbuffer_next_event(tc->kbuf, NULL))
			break;
	}
	return 0;
}

/* Tell the damage registry about pages @first..@end (excl.) that read
 * fine but do not parse; the parser records only what does not read. */
static void mark_unparsed(struct text_stream *st, struct text_cpu *tc,
			  uint64_t first, uint64_t end)
{
	if (end > first)
		tdat_cpu_mark_damaged(st->t->f, st->b, tc->c,
				      first * st->page_size,
				      (end - first) * st->page_size,
				      "does not parse");
}

/*
 * Skip the run of damaged pages starting at tc->pos.page (whose load
 * failed with @err) and put ONE marker line for all of it, so a damaged
 * chunk of many pages is one line.  The run is decided by the data alone,
 * never by where a read started, and a cursor never stops inside it, so
 * the text stays the same at any offset.  Leaves the first good page
 * after the run loaded, if any.
 */
static int skip_damaged(struct text_stream *st, struct text_cursor *cu,
			struct text_cpu *tc, int err)
{
	uint64_t first = tc->pos.page, bad_first = first;
	bool bad = err == -EBADMSG;

	tc->pos.idx = 0;
	for (;;) {
		tc->pos.page++;
		/* the line's %u must hold the run's size */
		if (tc->pos.page >= tc->npages ||
		    (tc->pos.page - first + 1) * st->page_size > (1u << 31))
			break;
		err = load_page(st, tc);
		if (!err) {
			tc->loaded = true;
			break;
		}
		if (bad && err != -EBADMSG) {
			mark_unparsed(st, tc, bad_first, tc->pos.page);
			bad = false;
		} else if (!bad && err == -EBADMSG) {
			bad_first = tc->pos.page;
			bad = true;
		}
	}
	if (bad)
		mark_unparsed(st, tc, bad_first, tc->pos.page);
	return text_buf_printf(&cu->line,
		"[tdatfs: CPU %u: %llu bytes at offset %llu skipped: damaged data]\n",
		tc->cpu, (unsigned long long)(tc->pos.page - first) * st->page_size,
		(unsigned long long)(first * st->page_size));
}

/* Find the next record of a CPU; damaged pages become marker lines. */
static int peek(struct text_stream *st, struct text_cursor *cu, struct text_cpu *tc)
{
	unsigned long long ts;
	void *data;
	int ret;

	while (!tc->have && !tc->pos.done) {
		if (!tc->loaded) {
			if (tc->pos.page >= tc->npages) {
				tc->pos.done = 1;
				break;
			}
			ret = load_page(st, tc);
			if (ret < 0) {
				ret = skip_damaged(st, cu, tc, ret);
				if (ret < 0)
					return ret;
				continue;
			}
			tc->loaded = true;
		}
		data = kbuffer_read_event(tc->kbuf, &ts);
		if (!data) {
			tc->pos.page++;
			tc->pos.idx = 0;
			tc->loaded = false;
			continue;
		}
		tc->have = true;
		tc->rec.ts = text_ts_calc(st->t, ts);
		tc->rec.cpu = tc->cpu;
		tc->rec.missed = kbuffer_missed_events(tc->kbuf);
		tc->rec.data = data;
		{
			int sz = kbuffer_event_size(tc->kbuf);
			size_t avail = tc->page + st->page_size - (unsigned char *)data;

			if ((unsigned char *)data < tc->page || sz < 0)
				sz = 0;
			if ((size_t)sz > avail)
				sz = avail;
			tc->rec.size = sz;
			tc->rec.offset = tc->pos.page * (uint64_t)st->page_size +
					 ((unsigned char *)data - tc->page);
		}
	}
	return 0;
}

/*
 * One step: the lines of the next record (and markers met on the way)
 * appended to cu->line.  Return: 1 text added, 0 end of text, <0 error.
 */
static int step(struct text_stream *st, struct text_cursor *cu)
{
	struct text_cpu *best = NULL;
	size_t before = cu->line.len;
	struct text_comm_ctx cc;
	unsigned int i;
	int ret;

	for (i = 0; i < st->ncpu; i++) {
		struct text_cpu *tc = &cu->cpus[i];

		ret = peek(st, cu, tc);
		if (ret < 0)
			return ret;
		if (tc->have && (!best || tc->rec.ts < best->rec.ts))
			best = tc;
	}
	if (!best)
		return cu->line.len > before ? 1 : 0;
	cc.ov = &st->ov;
	cc.seen = &cu->seen;
	ret = text_format_record(st->t, &best->rec, &cc, &cu->line);
	if (ret < 0)
		return ret;
	kbuffer_next_event(best->kbuf, NULL);
	best->pos.idx++;
	best->have = false;
	return 1;
}

/* The cursor to serve a read at @off, positioned at or before it. */
static struct text_cursor *pick_cursor(struct text_stream *st, uint64_t off, int *err)
{
	struct text_cursor *cu = NULL, *victim = NULL;
	size_t lo = 0, hi = st->nckpt;
	int i;

	for (i = 0; i < NCURSORS; i++) {
		struct text_cursor *c = &st->cur[i];

		if (!c->valid) {
			if (!victim || victim->valid)
				victim = c;
			continue;
		}
		if (c->off <= off && (!cu || c->off > cu->off))
			cu = c;
		if (!victim || (victim->valid && c->used < victim->used))
			victim = c;
	}
	/* last checkpoint at or before off */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (st->ckpt_off[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (cu && cu->off >= st->ckpt_off[lo])
		return cu;
	if (!victim->cpus) {
		*err = cursor_alloc(st, victim);
		if (*err < 0) {
			cursor_release(st, victim);
			return NULL;
		}
	}
	cursor_seek(st, victim, lo);
	return victim;
}

/**
 * text_stream_read() - read text of a stream
 * @st: stream
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the text
 *
 * Return: bytes read (0 at end), or a negative errno.
 * Context: takes the stream lock, and the engine's tep lock per record.
 */
ssize_t text_stream_read(struct text_stream *st, char *buf, size_t len, uint64_t off)
{
	struct text_cursor *cu;
	size_t done = 0;
	int err = 0;

	if (st->latency) {
		/* a latency buffer's text is stored as it is shown */
		return tdat_cpu_read(st->t->f, st->b, 0, buf, len, off);
	}
	pthread_mutex_lock(&st->lock);
	if ((st->size_known && off >= st->size) || !len) {
		pthread_mutex_unlock(&st->lock);
		return 0;
	}
	cu = pick_cursor(st, off, &err);
	if (!cu) {
		pthread_mutex_unlock(&st->lock);
		return err ? err : -ENOMEM;
	}
	cu->used = ++st->tick;
	while (done < len) {
		uint64_t pos = off + done;
		int ret;

		if (pos < cu->off + cu->line.len) {
			size_t n = cu->off + cu->line.len - pos;

			if (n > len - done)
				n = len - done;
			memcpy(buf + done, cu->line.p + (pos - cu->off), n);
			done += n;
			continue;
		}
		if (cu->eof)
			break;
		cu->off += cu->line.len;
		cu->line.len = 0;
		if (cu->off >= st->ckpt_off[st->nckpt - 1] + st->ckpt_every &&
		    !st->size_known) {
			ret = ckpt_add(st, cu->off, cu);
			if (ret < 0) {
				err = ret;
				break;
			}
		}
		ret = step(st, cu);
		if (ret < 0) {
			/* the cursor's state is unknown now: drop it */
			cu->valid = false;
			err = ret;
			break;
		}
		if (ret == 0) {
			cu->eof = true;
			st->size_known = true;
			st->size = cu->off;
		}
	}
	pthread_mutex_unlock(&st->lock);
	if (!done && err)
		return err;
	return done;
}

/**
 * text_stream_size() - size of a stream's text, when known
 * @st: stream
 * @size: set to the size
 *
 * Return: 0, or -EAGAIN while the text was not produced to its end.
 */
int text_stream_size(struct text_stream *st, uint64_t *size)
{
	int ret = -EAGAIN;

	if (st->latency) {
		return tdat_cpu_size(st->t->f, st->b, 0, size);
	}
	pthread_mutex_lock(&st->lock);
	if (st->size_known) {
		*size = st->size;
		ret = 0;
	}
	pthread_mutex_unlock(&st->lock);
	return ret;
}
