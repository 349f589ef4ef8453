/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/check.c - tdatfs_tree_check(): read everything a trace holds,
 * through the parser's tables and through every file of the tree, and list
 * what is damaged.  Serves `tdat check` and the fuzz target.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "internal.h"

/* Largest read; the read buffer's size. */
#define CHECK_CHUNK	(1024 * 1024)
/* Step over a damaged range of a stream without a known end. */
#define CHECK_STEP	4096

struct check {
	struct tdatfs_tree *t;
	const struct tdatfs_check_opts *o;
	char *buf;		/* CHECK_CHUNK bytes */
	uint64_t total;		/* bytes read so far */
	int problems;
	/* progress through the tree's files, in bytes of trace data */
	uint64_t plan;		/* all the work; 0 until the tree's files */
	uint64_t done;		/* of the files read to their end */
	uint64_t text_bytes;	/* text read of the texts done, */
	uint64_t text_weight;	/* and their weight: text per data byte */
};

/* Print one problem (when the caller wants them printed) and count it. */
static void __attribute__((format(printf, 2, 3)))
problem(struct check *c, const char *fmt, ...)
{
	va_list ap;

	c->problems++;
	if (!c->o->out)
		return;
	if (c->o->progress_clear)
		c->o->progress_clear(c->o->progress_ctx);
	va_start(ap, fmt);
	vfprintf(c->o->out, fmt, ap);
	va_end(ap);
}

/* Size of the next read at @off of a file: the caller's, within bounds. */
static size_t chunk(struct check *c, uint64_t off)
{
	size_t n = c->o->chunk ? c->o->chunk(c->o->ctx) : CHECK_CHUNK;

	if (!n || n > CHECK_CHUNK)
		n = CHECK_CHUNK;
	if (c->o->file_max && c->o->file_max - off < n)
		n = c->o->file_max - off;
	return n;
}

/* Whether the bounds stop reading a file at @off. */
static bool bounded(const struct check *c, uint64_t off)
{
	return (c->o->file_max && off >= c->o->file_max) ||
	       (c->o->total_max && c->total >= c->o->total_max);
}

/* One stream of the parser's tables: section, metadata blob, event format. */
enum stream_kind { STREAM_SECTION, STREAM_META, STREAM_EVENT };

static ssize_t stream_read(struct check *c, enum stream_kind kind, size_t i,
			   size_t len, uint64_t off)
{
	struct tdat_file *f = c->t->f;
	ssize_t r;

	if (kind == STREAM_SECTION)
		r = tdat_section_read(f, i, c->buf, len, off);
	else if (kind == STREAM_META)
		r = tdat_meta_read(f, (enum tdat_meta)i, c->buf, len, off);
	else
		r = tdat_event_read(f, i, c->buf, len, off);
	if (r > 0)
		c->total += r;
	return r;
}

/*
 * Read a whole stream of @size bytes.  After an error, step over the bad
 * range CHECK_STEP bytes at a time so that each damaged range is reported
 * once and the rest is still checked.
 */
static void check_stream(struct check *c, enum stream_kind kind, size_t i,
			 uint64_t size, const char *what)
{
	uint64_t off = 0, bad_start = 0;
	bool bad = false;

	while (off < size && !bounded(c, off)) {
		size_t want = bad ? CHECK_STEP : chunk(c, off);
		ssize_t n;

		if (want > size - off)
			want = size - off;
		n = stream_read(c, kind, i, want, off);
		if (n > 0 && bad) {
			problem(c, "%s: bytes %" PRIu64 "-%" PRIu64
				" unreadable\n", what, bad_start, off - 1);
			bad = false;
		}
		if (n > 0) {
			off += n;
			continue;
		}
		if (n == 0) {
			problem(c, "%s: ends at offset %" PRIu64 ", %" PRIu64
				" bytes expected\n", what, off, size);
			return;
		}
		if (!bad && want > CHECK_STEP) {
			/* Narrow down: re-read this range in small steps. */
			bad = true;
			bad_start = off;
			continue;
		}
		if (!bad) {
			bad = true;
			bad_start = off;
		}
		off += want;
	}
	if (bad)
		problem(c, "%s: bytes %" PRIu64 "-%" PRIu64 " unreadable\n",
			what, bad_start, size - 1);
}

/* Sections that are not a buffer's data (those are read as CPU streams). */
static void check_sections(struct check *c)
{
	struct tdat_file *f = c->t->f;
	size_t i, b, n = tdat_section_count(f), nb = tdat_buffer_count(f);
	char what[512];

	for (i = 0; i < n; i++) {
		const struct tdat_section *s = tdat_section_get(f, i);

		if (!s)
			continue;
		for (b = 0; b < nb; b++)
			if (tdat_buffer_get(f, b) &&
			    tdat_buffer_get(f, b)->section == (long)i)
				break;
		if (b < nb)
			continue;
		snprintf(what, sizeof(what), "section %zu (id %u) at offset %"
			 PRIu64, i, s->id, s->offset);
		check_stream(c, STREAM_SECTION, i, s->data_size, what);
	}
}

static void check_meta_and_events(struct check *c)
{
	struct tdat_file *f = c->t->f;
	char what[512];
	size_t i, n;

	for (i = 0; i < TDAT_META_COUNT; i++) {
		uint64_t size;

		if (tdat_meta_size(f, i, &size))
			continue;
		check_stream(c, STREAM_META, i, size, tree_meta_label(i));
	}
	n = tdat_event_count(f);
	for (i = 0; i < n; i++) {
		const struct tdat_event_format *ev = tdat_event_get(f, i);

		if (!ev)
			continue;
		snprintf(what, sizeof(what), "event format %s/%s", ev->system,
			 ev->name);
		check_stream(c, STREAM_EVENT, i, ev->size, what);
	}
}

/* Past the damaged range holding @off: the registry knows its end. */
static uint64_t skip_damage(struct tdat_file *f, size_t b, unsigned int cpu,
			    uint64_t off, uint32_t page)
{
	size_t i, n = tdat_error_count(f);
	struct tdat_error e;

	for (i = 0; i < n; i++) {
		if (tdat_error_get(f, i, &e))
			break;
		if (e.buffer == b && e.cpu == cpu && e.start <= off &&
		    off - e.start < e.length)
			return e.start + e.length;
	}
	return off + (page ? page : 4096);
}

/*
 * Read one CPU stream to its end.  Damage is not printed here: the parser
 * records each damaged chunk in its registry, listed at the end.
 */
static void check_cpu(struct check *c, size_t i, unsigned int cpu)
{
	struct tdat_file *f = c->t->f;
	const struct tdat_buffer *b = tdat_buffer_get(f, i);
	const char *name = *b->name ? b->name : "top";
	uint64_t size, off = 0;
	int err = tdat_cpu_size(f, i, cpu, &size);

	if (err) {
		problem(c, "buffer %s cpu%u (data at file offset %" PRIu64
			"): unreadable: %s\n", name, b->cpus[cpu].cpu,
			b->cpus[cpu].offset, strerror(-err));
		return;
	}
	while (off < size && !bounded(c, off)) {
		ssize_t r = tdat_cpu_read(f, i, cpu, c->buf, chunk(c, off), off);

		if (r > 0) {
			off += r;
			c->total += r;
		} else if (r == -EIO) {
			off = skip_damage(f, i, cpu, off, b->page_size);
		} else {
			problem(c, "buffer %s cpu%u (data at file offset %" PRIu64
				"): read at offset %" PRIu64 ": %s\n", name,
				b->cpus[cpu].cpu, b->cpus[cpu].offset, off,
				r ? strerror((int)-r) : "ends early");
			return;
		}
	}
}

static void check_cpu_streams(struct check *c)
{
	size_t i, n = tdat_buffer_count(c->t->f);

	for (i = 0; i < n; i++) {
		const struct tdat_buffer *b = tdat_buffer_get(c->t->f, i);
		unsigned int cpu;

		for (cpu = 0; b && cpu < b->ncpus; cpu++)
			check_cpu(c, i, cpu);
	}
}

/* ---- progress --------------------------------------------------------- */

/*
 * What reading node @n costs, in bytes of trace data: a text the pages
 * it decodes, any other file its size.  Only sizes known without a read
 * are asked for (sections/index is rendered by its read, so weighs 0).
 */
static uint64_t weight(struct check *c, const struct tree_node *n)
{
	const struct tree_kind_ops *ops = tree_kind_ops(n);
	struct tdatfs_text_key k = { .report = n->kind == TREE_REPORT };
	uint64_t size = 0;

	if (ops->is_dir || ops->check == TREE_CHECK_SKIP ||
	    ops->check == TREE_CHECK_VIEW || n->kind == TREE_INDEX)
		return 0;
	if (!ops->is_text)
		return ops->size(c->t, n, &size) ? 0 : size;
	if (!k.report) {
		k.buffer = n->u.text.buffer;
		k.cpu = (int)n->u.text.cpu;
	}
	return tdatfs_text_pages(c->t->text, &k) * tdat_page_size(c->t->f);
}

static uint64_t plan_dir(struct check *c, const struct tree_node *dir)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < dir->u.dir.nkids; i++) {
		const struct tree_node *k = &c->t->nodes[dir->u.dir.kids[i]];

		sum += tree_kind_ops(k)->is_dir ? plan_dir(c, k) : weight(c, k);
	}
	return sum;
}

/*
 * Tell the caller how far the check is, @off bytes into a file of weight
 * @w.  A text's share is a guess until its end, from the text per data
 * byte of the texts before it (2 before any), and stays below its weight.
 */
static void tick(struct check *c, bool text, uint64_t w, uint64_t off)
{
	uint64_t in = off;

	if (!c->o->progress || !c->plan)
		return;
	if (text) {
		double per = c->text_weight ?
			(double)c->text_bytes / (double)c->text_weight : 2.0;

		in = per > 0 ? (uint64_t)((double)off / per) : 0;
		if (in > w - w / 10)
			in = w - w / 10;
	} else if (in > w) {
		in = w;
	}
	c->o->progress(c->o->progress_ctx, c->done + in, c->plan);
}

/* Read one file of the tree to its end, as its kind asks. */
static void check_file(struct check *c, const struct tree_node *n,
		       const char *path)
{
	const struct tree_kind_ops *ops = tree_kind_ops(n);
	uint64_t off = 0, w = c->plan ? weight(c, n) : 0;

	/* The registry, and views of the texts read whole */
	if (ops->check == TREE_CHECK_SKIP || ops->check == TREE_CHECK_VIEW)
		return;
	while (!bounded(c, off)) {
		ssize_t r = ops->read(c->t, n, c->buf, chunk(c, off), off);

		if (r > 0) {
			off += r;
			c->total += r;
			tick(c, ops->is_text, w, off);
			continue;
		}
		/* Raw data: damage is in the registry; skip a page. */
		if (r == -EIO && ops->check == TREE_CHECK_PAGES) {
			off += 4096;
			continue;
		}
		if (r < 0 && ops->check != TREE_CHECK_QUIET)
			problem(c, "%s: read at offset %" PRIu64 ": %s\n",
				path, off, strerror((int)-r));
		break;
	}
	c->done += w;
	if (ops->is_text && w) {
		c->text_bytes += off;
		c->text_weight += w;
	}
	tick(c, false, 0, 0);
}

/*
 * Every file under directory @dir (path @prefix), in readdir order: the
 * decoded texts to their end (the text engine records the damage it finds
 * in the registry), the rest too so that nothing reachable fails unnoticed.
 */
static void check_dir(struct check *c, const struct tree_node *dir,
		      const char *prefix)
{
	uint32_t i;

	for (i = 0; i < dir->u.dir.nkids; i++) {
		const struct tree_node *k = &c->t->nodes[dir->u.dir.kids[i]];
		char *path;

		if (asprintf(&path, "%s/%s", prefix, k->name) < 0) {
			c->problems++;
			return;
		}
		if (tree_kind_ops(k)->is_dir)
			check_dir(c, k, path);
		else
			check_file(c, k, path);
		free(path);
	}
}

/* Everything damaged that the reads above ran into. */
static void check_registry(struct check *c)
{
	struct tdat_file *f = c->t->f;
	size_t i, n = tdat_error_count(f);
	struct tdat_error e;
	uint64_t total;
	char what[512];

	for (i = 0; i < n; i++) {
		if (tdat_error_get(f, i, &e))
			break;
		tdat_error_format(&e, what, sizeof(what));
		problem(c, "%s", what);
	}
	total = tdat_error_total(f);
	if (total > n)
		problem(c, "%" PRIu64 " more damaged ranges not listed\n",
			total - n);
}

int tdatfs_tree_check(struct tdatfs_tree *t,
		      const struct tdatfs_check_opts *opts)
{
	static const struct tdatfs_check_opts defaults = { 0 };
	struct check c = { .t = t, .o = opts ? opts : &defaults };

	c.buf = malloc(CHECK_CHUNK);
	if (!c.buf)
		return -ENOMEM;
	/* Options were all validated by tdat_open(); sections are read here. */
	check_sections(&c);
	check_meta_and_events(&c);
	check_cpu_streams(&c);
	/* Planned only now: each CPU stream's size is known (asking for one
	 * earlier could record a damaged table out of the check's order). */
	if (c.o->progress) {
		c.done = c.total;
		c.plan = c.done + plan_dir(&c, &t->nodes[0]);
	}
	check_dir(&c, &t->nodes[0], "");
	check_registry(&c);
	free(c.buf);
	return c.problems;
}
