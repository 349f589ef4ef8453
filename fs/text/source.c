/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/source.c - the records of some CPUs of a buffer, page by
 * page, walked as kbuffer walks them (text/kbuffer.h); damaged pages
 * become marker lines.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "bytes.h"
#include "kbuffer.h"
#include "source.h"
#include "tep.h"
#include "timestamp.h"

#define COMMIT_MASK	((1u << 27) - 1)
#define MISSED_EVENTS	(1ull << 31)
#define MISSED_STORED	(1ull << 30)

struct src_cpu {
	size_t c;		/* index in the buffer's cpus */
	unsigned int cpu;	/* CPU number */
	int ts_slot;		/* text_timestamp_slot() of the CPU */
	uint64_t npages;
	struct text_pos pos;
	bool loaded;		/* pos.page is in @kbuf */
	bool have;		/* a record is peeked */
	uint64_t runs;		/* damaged runs skipped (marker lines) */
	struct text_kbuffer kbuf;
	unsigned char *page;	/* page_size bytes + slack; @kbuf reads it */
	unsigned char *spare;	/* the page before, still valid */
	struct text_rec rec;	/* the peeked record */
};

struct text_source {
	struct tdat_file *f;
	size_t b;
	uint32_t page_size;
	struct text_page_fmt pf;
	const struct text_timestamp *ts;
	unsigned int ncpu;
	struct src_cpu *cpus;
	struct tdatfs_buf aside;	/* markers met by text_source_peek() */
	uint64_t consumed;	/* records consumed since made, in all */
};

/**
 * text_source_free() - free a source; NULL is fine
 * @src: source
 */
void text_source_free(struct text_source *src)
{
	unsigned int i;

	if (!src)
		return;
	if (src->cpus) {
		for (i = 0; i < src->ncpu; i++) {
			free(src->cpus[i].page);
			free(src->cpus[i].spare);
		}
	}
	free(src->cpus);
	tdatfs_buf_release(&src->aside);
	free(src);
}

/**
 * text_source_new() - a source over some CPUs of a buffer
 * @f: the trace; must outlive the source
 * @b: buffer index
 * @cidx: @ncpu indices into the buffer's cpus
 * @npages: for each, its page count
 * @ncpu: count
 * @pf: page layout (copied)
 * @ts: timestamp settings; must outlive the source
 *
 * The source starts with every CPU at page 0, nothing consumed.
 *
 * Return: the source (free with text_source_free()), or NULL with errno set.
 */
struct text_source *text_source_new(struct tdat_file *f, size_t b,
				    const size_t *cidx, const uint64_t *npages,
				    unsigned int ncpu,
				    const struct text_page_fmt *pf,
				    const struct text_timestamp *ts)
{
	const struct tdat_buffer *buf = tdat_buffer_get(f, b);
	struct text_source *src;
	unsigned int i;

	if (!buf) {
		errno = ENOENT;
		return NULL;
	}
	src = calloc(1, sizeof(*src));
	if (!src)
		return NULL;
	src->f = f;
	src->b = b;
	src->page_size = buf->page_size;
	src->pf = *pf;
	src->ts = ts;
	src->ncpu = ncpu;
	src->cpus = calloc(ncpu + 1, sizeof(*src->cpus));
	if (!src->cpus)
		goto fail;
	for (i = 0; i < ncpu; i++) {
		struct src_cpu *tc = &src->cpus[i];

		tc->c = cidx[i];
		tc->cpu = buf->cpus[tc->c].cpu;
		tc->ts_slot = text_timestamp_slot(ts, b, tc->c);
		tc->npages = npages[i];
		text_kbuffer_init(&tc->kbuf, pf->kernel_long == 8,
				  pf->big_endian, pf->old_format);
		/* slack: an event header may be read past the data */
		tc->page = calloc(1, (size_t)src->page_size + 64);
		tc->spare = calloc(1, (size_t)src->page_size + 64);
		if (!tc->page || !tc->spare)
			goto fail;
	}
	return src;
fail:
	text_source_free(src);
	errno = ENOMEM;
	return NULL;
}

/**
 * text_source_seek() - put every CPU at a position
 * @src: source
 * @pos: one position per CPU, in the source's order
 *
 * Records peeked before are gone; so are markers not flushed.
 */
void text_source_seek(struct text_source *src, const struct text_pos *pos)
{
	unsigned int i;

	for (i = 0; i < src->ncpu; i++) {
		src->cpus[i].pos = pos[i];
		src->cpus[i].loaded = false;
		src->cpus[i].have = false;
	}
	src->aside.len = 0;
}

/**
 * text_source_tell() - the position of every CPU
 * @src: source
 * @pos: set, one per CPU in the source's order
 *
 * A peeked record is not consumed: seeking back to @pos peeks it again.
 */
void text_source_tell(const struct text_source *src, struct text_pos *pos)
{
	unsigned int i;

	for (i = 0; i < src->ncpu; i++)
		pos[i] = src->cpus[i].pos;
}

/**
 * text_source_at() - where one CPU stands, and the damage it met
 * @src: source
 * @i: the CPU's index in the source
 * @pos: set to its position (what a checkpoint of it keeps)
 *
 * Return: the count of damaged runs the CPU skipped since the source was
 * made (each one a marker line): a text made beside this source's, whose
 * markers would fall elsewhere, sees that it met one.
 */
uint64_t text_source_at(const struct text_source *src, unsigned int i,
			struct text_pos *pos)
{
	*pos = src->cpus[i].pos;
	return src->cpus[i].runs;
}

/* Read and load page tc->pos.page; skip the records already consumed. */
static int load_page(struct text_source *st, struct src_cpu *tc)
{
	const struct text_page_fmt *pf = &st->pf;
	uint32_t ps = st->page_size;
	unsigned int start = pf->kernel_long == 8 ? 16 : 12;
	uint64_t commit, size;
	ssize_t n;
	uint32_t i;

	n = tdat_cpu_read(st->f, st->b, tc->c, tc->page, ps,
			  tc->pos.page * (uint64_t)ps);
	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	if ((size_t)n < ps)
		memset(tc->page + n, 0, ps - n);
	/* -EBADMSG: the page reads but does not parse */
	if (!pf->ts_ok)
		return -EBADMSG;
	commit = text_read_num(pf->big_endian, tc->page + 8, pf->kernel_long);
	size = commit & COMMIT_MASK;
	if (start + size > ps)
		return -EBADMSG;
	if ((commit & MISSED_EVENTS) && (commit & MISSED_STORED) &&
	    start + size + pf->kernel_long > ps)
		return -EBADMSG;
	text_kbuffer_load(&tc->kbuf, tc->page);
	/* a length that steps back or out: kbuffer would loop or stray */
	if (!text_kbuffer_walks(&tc->kbuf))
		return -EBADMSG;
	for (i = 0; i < tc->pos.idx; i++)
		text_kbuffer_next(&tc->kbuf);
	return 0;
}

/* Tell the damage registry about pages @first..@end (excl.) that read
 * fine but do not parse; the parser records only what does not read. */
static void mark_unparsed(struct text_source *st, struct src_cpu *tc,
			  uint64_t first, uint64_t end)
{
	if (end > first)
		tdat_cpu_mark_damaged(st->f, st->b, tc->c,
				      first * st->page_size,
				      (end - first) * st->page_size,
				      "does not parse");
}

/*
 * Whether a page load failed because the file is damaged there (-EIO: the
 * data does not read or decompress; -EBADMSG: it does not parse).  Any
 * other error (-ENOMEM above all) says nothing of the file: it fails the
 * read instead of turning into a marker line and other text.
 */
static bool is_damage(int err)
{
	return err == -EIO || err == -EBADMSG;
}

/*
 * Skip the run of damaged pages starting at tc->pos.page (whose load
 * failed with @err) and put ONE marker line for all of it, so a damaged
 * chunk of many pages is one line.  The run is decided by the data alone,
 * never by where a read started, and a cursor never stops inside it, so
 * the text stays the same at any offset.  Leaves the first good page
 * after the run loaded, if any.
 */
static int skip_damaged(struct text_source *st, struct src_cpu *tc, int err,
			struct tdatfs_buf *markers)
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
		/* not damage (no memory): the run is decided again on a retry */
		if (!is_damage(err)) {
			tc->pos.page = first;
			tc->loaded = false;
			return err;
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
	tc->runs++;
	return tdatfs_buf_printf(markers,
		"[tdatfs: CPU %u: %llu bytes at offset %llu skipped: damaged data]\n",
		tc->cpu, (unsigned long long)(tc->pos.page - first) * st->page_size,
		(unsigned long long)(first * st->page_size));
}

/* Load tc->pos.page into the other page buffer; a damaged run is skipped. */
static int next_page(struct text_source *st, struct src_cpu *tc,
		     struct tdatfs_buf *markers)
{
	unsigned char *p = tc->page;
	int ret;

	tc->page = tc->spare;
	tc->spare = p;
	ret = load_page(st, tc);
	if (ret < 0 && !is_damage(ret)) {
		/* the page of the last record stays where it was */
		tc->spare = tc->page;
		tc->page = p;
		return ret;
	}
	if (ret < 0)
		return skip_damaged(st, tc, ret, markers);
	tc->loaded = true;
	return 0;
}

/* The peeked record from where the page walk stands. */
static void set_rec(struct text_source *st, struct src_cpu *tc, const void *data,
		    uint64_t ts)
{
	int sz = text_kbuffer_event_size(&tc->kbuf);
	size_t avail = tc->page + st->page_size - (unsigned char *)data;

	tc->have = true;
	tc->rec.ts = text_timestamp_calc(st->ts, tc->ts_slot, ts);
	tc->rec.cpu = tc->cpu;
	tc->rec.missed = text_kbuffer_missed(&tc->kbuf);
	tc->rec.data = data;
	if ((unsigned char *)data < tc->page ||
	    (unsigned char *)data > tc->page + st->page_size)
		avail = 0;
	if (sz < 0)
		sz = 0;
	if ((size_t)sz > avail)
		sz = avail;
	tc->rec.size = sz;
	tc->rec.avail = avail;
	tc->rec.offset = tc->pos.page * (uint64_t)st->page_size +
			 ((unsigned char *)data - tc->page);
}

/**
 * text_source_peek_index() - the next record of one CPU, not consumed
 * @src: source
 * @i: the CPU's index in the source
 * @markers: where marker lines of damaged runs met on the way go
 * @rec: set to the record (valid until its CPU moves on), NULL at the end
 *
 * Return: 0 or a negative errno (-ENOMEM for a marker line).
 */
int text_source_peek_index(struct text_source *src, unsigned int i,
			   struct tdatfs_buf *markers,
			   const struct text_rec **rec)
{
	struct src_cpu *tc = &src->cpus[i];
	const void *data;
	uint64_t ts;
	int ret;

	while (!tc->have && !tc->pos.done) {
		if (!tc->loaded) {
			if (tc->pos.page >= tc->npages) {
				tc->pos.done = 1;
				break;
			}
			ret = next_page(src, tc, markers);
			if (ret < 0)
				return ret;
			continue;
		}
		data = text_kbuffer_read(&tc->kbuf, &ts);
		if (!data) {
			tc->pos.page++;
			tc->pos.idx = 0;
			tc->loaded = false;
			continue;
		}
		set_rec(src, tc, data, ts);
	}
	*rec = tc->have ? &tc->rec : NULL;
	return 0;
}

/**
 * text_source_peek_first() - the earliest next record of the source's CPUs
 * @src: source
 * @only: the index of the one CPU printed, or -1 for all of them
 * @markers: where marker lines of the CPUs printed go
 * @discard: where those of the others go; emptied after each CPU
 * @rec: set to the record, a tie going to the first CPU; NULL when
 *	every CPU is at its end, or when CPU @only is
 * @idx: set to its CPU's index when @rec is set
 *
 * The CPUs are peeked in order, as text_source_peek_index() of each
 * would (the same pages loaded, the same markers met), and a CPU
 * whose record is peeked already costs no call: a stream asks this
 * for every record it prints.
 *
 * Return: 0, 1 when CPU @only is at its end (the CPUs after it not
 * peeked), or a negative errno.
 */
int text_source_peek_first(struct text_source *src, int only,
			   struct tdatfs_buf *markers,
			   struct tdatfs_buf *discard,
			   const struct text_rec **rec, unsigned int *idx)
{
	const struct text_rec *r, *best = NULL;
	unsigned int i;
	int ret;

	*rec = NULL;
	for (i = 0; i < src->ncpu; i++) {
		struct src_cpu *tc = &src->cpus[i];

		if (tc->have) {
			r = &tc->rec;
		} else if (tc->pos.done) {
			r = NULL;
		} else {
			ret = text_source_peek_index(src, i, only < 0 ||
						     (int)i == only ?
						     markers : discard, &r);
			discard->len = 0;
			if (ret < 0)
				return ret;
		}
		if (!r && (int)i == only)
			return 1;
		if (r && (!best || r->ts < best->ts)) {
			best = r;
			*idx = i;
		}
	}
	*rec = best;
	return 0;
}

/**
 * text_source_consume_index() - step one CPU past its next record
 * @src: source
 * @i: the CPU's index in the source
 * @markers: as for text_source_peek_index(), if the record was not peeked
 *
 * The record stays valid (text_source_peek_index()'s @rec) until the CPU
 * changes page a second time.
 *
 * Return: 1 consumed, 0 at the end, or a negative errno.
 */
int text_source_consume_index(struct text_source *src, unsigned int i,
			      struct tdatfs_buf *markers)
{
	struct src_cpu *tc = &src->cpus[i];
	const struct text_rec *rec;
	int ret;

	/* the stream consumes the record it just peeked: no call then */
	if (!tc->have) {
		ret = text_source_peek_index(src, i, markers, &rec);
		if (ret < 0 || !rec)
			return ret;
	}
	text_kbuffer_next(&tc->kbuf);
	tc->pos.idx++;
	tc->have = false;
	src->consumed++;
	return 1;
}

/**
 * text_source_consumed() - records consumed since the source was made
 * @src: source
 *
 * Seeks do not change it: the stream counts records by differences.
 *
 * Return: the count.
 */
uint64_t text_source_consumed(const struct text_source *src)
{
	return src->consumed;
}

/**
 * text_source_flush() - move the markers text_source_peek() met to @out
 * @src: source
 * @out: destination
 *
 * Return: 0 or -ENOMEM.
 */
int text_source_flush(struct text_source *src, struct tdatfs_buf *out)
{
	int ret = 0;

	if (src->aside.len)
		ret = tdatfs_buf_put(out, src->aside.p, src->aside.len);
	src->aside.len = 0;
	return ret;
}

static int cpu_index(const struct text_source *src, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < src->ncpu; i++) {
		if (src->cpus[i].cpu == cpu)
			return (int)i;
	}
	return -ENOENT;
}

/**
 * text_source_peek() - the next record of a CPU, for a formatter
 * @src: the source the record being formatted came from
 * @cpu: CPU number (struct text_rec's @cpu)
 * @rec: set to the record, NULL at the end of the CPU
 *
 * When the stream formats a record it has consumed it, so this is the
 * record after it.  Marker lines of damaged pages met are put after the
 * text of the record being formatted.
 *
 * Return: 0, -ENOENT for a CPU not in the source, or a negative errno.
 */
int text_source_peek(struct text_source *src, unsigned int cpu,
		     const struct text_rec **rec)
{
	int i = cpu_index(src, cpu);

	*rec = NULL;
	if (i < 0)
		return i;
	return text_source_peek_index(src, (unsigned int)i, &src->aside, rec);
}

/**
 * text_source_peek_next() - the record the whole source gives next
 * @src: the source the record being formatted came from
 * @rec: set to the record, NULL when every CPU is at its end
 *
 * The earliest next record of all the source's CPUs, a tie going to the
 * first CPU in the source's order: trace-cmd's tracecmd_peek_next_data(),
 * whose answer its function_graph leaf test takes.  Marker lines of damaged
 * pages met go where text_source_peek()'s go.
 *
 * Return: 0 or a negative errno.
 */
int text_source_peek_next(struct text_source *src, const struct text_rec **rec)
{
	const struct text_rec *r;
	unsigned int i;
	int ret;

	*rec = NULL;
	for (i = 0; i < src->ncpu; i++) {
		ret = text_source_peek_index(src, i, &src->aside, &r);
		if (ret < 0)
			return ret;
		if (r && (!*rec || r->ts < (*rec)->ts))
			*rec = r;
	}
	return 0;
}

/**
 * text_source_consume() - take the record text_source_peek() gives
 * @src: source
 * @cpu: CPU number
 *
 * A formatter that prints two records as one (trace-cmd's function_graph
 * does) consumes the second, so the stream does not print it again.
 *
 * Return: 1 consumed, 0 at the end of the CPU, -ENOENT for a CPU not in
 * the source, or a negative errno.
 */
int text_source_consume(struct text_source *src, unsigned int cpu)
{
	int i = cpu_index(src, cpu);

	if (i < 0)
		return i;
	return text_source_consume_index(src, (unsigned int)i, &src->aside);
}

/**
 * text_source_pos() - where a CPU of the source stands
 * @src: source
 * @cpu: CPU number
 * @pos: set to its position (what a checkpoint of it would keep)
 *
 * Return: 0, or -ENOENT for a CPU not in the source.
 */
int text_source_pos(const struct text_source *src, unsigned int cpu,
		    struct text_pos *pos)
{
	int i = cpu_index(src, cpu);

	if (i < 0)
		return i;
	*pos = src->cpus[i].pos;
	return 0;
}
