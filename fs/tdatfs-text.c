/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text.c - decoded event text: the engine.  It sets up the layers
 * below it on the first read, in trace-cmd's order, and gives each
 * (buffer, CPU selection) a stream on first use.
 *
 * Layers, each calling only those before it: text_buf; the handle
 * (tdatfs-text-tep.c), timestamps, comms and compiled formats; the event
 * table; the record source; the formatter (tdatfs-text-line.c); the
 * stream; this file.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-text-comm.h"
#include "tdatfs-text-engine.h"
#include "tdatfs-text-event.h"
#include "tdatfs-text-line.h"
#include "tdatfs-text-stream.h"
#include "tdatfs-text-tep.h"
#include "tdatfs-text-ts.h"

struct tdatfs_text {
	struct tdat_file *f;
	struct tdatfs_text_opts opts;
	pthread_mutex_t lock;		/* setup and the stream table */
	bool ready;
	int init_err;			/* <0: setup failed, returned on reads */

	struct text_tep *tep;
	struct text_events *evs;
	struct text_comms *comms;
	struct text_ts *ts;
	struct text_fmt *fmt;
	struct text_page_fmt pf;

	size_t nbuffers;
	struct text_stream ***streams;	/* [buffer][0 merged, 1 + cpu index] */
	struct text_stream *report;	/* every buffer merged */
};

struct tdatfs_text *tdatfs_text_new(struct tdat_file *f,
				    const struct tdatfs_text_opts *opts)
{
	struct tdatfs_text *t;

	if (!f) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->f = f;
	if (opts)
		t->opts = *opts;
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

/* Free what setup() built (also partly); streams first, they use it. */
static void teardown(struct tdatfs_text *t)
{
	size_t b;

	if (t->streams) {
		for (b = 0; b < t->nbuffers; b++) {
			const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);
			size_t i, n = 1 + (buf ? buf->ncpus : 0);

			if (!t->streams[b])
				continue;
			for (i = 0; i < n; i++)
				text_stream_free(t->streams[b][i]);
			free(t->streams[b]);
		}
		free(t->streams);
		t->streams = NULL;
	}
	text_stream_free(t->report);
	t->report = NULL;
	text_fmt_free(t->fmt);
	text_events_free(t->evs);
	text_comms_free(t->comms);
	text_ts_free(t->ts);
	text_tep_free(t->tep);
	t->fmt = NULL;
	t->evs = NULL;
	t->comms = NULL;
	t->ts = NULL;
	t->tep = NULL;
}

void tdatfs_text_free(struct tdatfs_text *t)
{
	if (!t)
		return;
	teardown(t);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* saved_cmdlines into the handle and into the comms of the engine. */
static int parse_cmdlines(struct tdatfs_text *t)
{
	uint64_t size;
	char *buf;
	int ret;

	ret = text_tep_read_meta(t->f, TDAT_META_CMDLINES, &buf, &size);
	if (ret < 0)
		return ret;
	if (buf)
		text_tep_parse_cmdlines(t->tep, buf);
	t->comms = text_comms_new(buf);
	free(buf);
	return t->comms ? 0 : -ENOMEM;
}

/* The non-ftrace formats: all of them, or in a lazy table the few first. */
static int parse_formats(struct tdatfs_text *t, bool ftrace)
{
	if (text_events_lazy(t->evs))
		return ftrace ? 0 : text_events_preload(t->evs);
	return text_tep_parse_formats(t->tep, ftrace);
}

/*
 * The metadata in the order trace-cmd reads it (v6: file order; v7: the
 * reverse of the option order, as its section list is built by
 * prepending).
 */
static int parse_meta(struct tdatfs_text *t)
{
	int ret;

	if (tdat_version(t->f) >= 7) {
		ret = parse_cmdlines(t);
		if (!ret)
			ret = text_tep_parse_printk(t->tep);
		if (!ret)
			ret = parse_formats(t, false);
		if (!ret)
			ret = parse_formats(t, true);
		if (!ret)
			ret = text_tep_parse_header_page(t->tep);
	} else {
		ret = text_tep_parse_header_page(t->tep);
		if (!ret)
			ret = parse_formats(t, true);
		if (!ret)
			ret = parse_formats(t, false);
		if (!ret)
			ret = text_tep_parse_printk(t->tep);
		if (!ret)
			ret = parse_cmdlines(t);
	}
	return ret;
}

static size_t max_page_size(struct tdat_file *f)
{
	uint32_t max_page = tdat_page_size(f);
	size_t i;

	for (i = 0; i < tdat_buffer_count(f); i++) {
		const struct tdat_buffer *b = tdat_buffer_get(f, i);

		if (b && b->page_size > max_page)
			max_page = b->page_size;
	}
	return max_page;
}

/*
 * Build the layers as trace-cmd builds its handle: plugins first (their
 * handlers attach when the formats are parsed), then the metadata.
 * Formats are parsed when first met where that prints the same
 * (tdatfs-text-event.c) and kallsyms is read at the first address lookup.
 */
static int setup(struct tdatfs_text *t)
{
	int ret;

	t->tep = text_tep_new(t->f);
	if (!t->tep)
		return -ENOMEM;
	t->evs = text_events_new(t->f, t->tep, t->opts.eager, t->opts.tep_only);
	if (!t->evs)
		return -ENOMEM;
	ret = parse_meta(t);
	if (ret < 0)
		return ret;
	text_tep_page_fmt(t->tep, &t->pf);
	t->ts = text_ts_new(t->f);
	if (!t->ts)
		return -ENOMEM;
	text_tep_sort_comms(t->tep);
	text_comms_find_events(t->comms, text_tep_handle(t->tep));
	ret = text_events_finish(t->evs);
	if (ret < 0)
		return ret;
	t->fmt = text_fmt_new(t->tep, t->evs, t->comms, t->ts, t->pf.big_endian,
			      max_page_size(t->f));
	if (!t->fmt)
		return -ENOMEM;
	return text_fmt_enable_graph(t->fmt, t->f);
}

/* Build the layers once; later calls return the first result. */
static int ensure_ready(struct tdatfs_text *t)
{
	size_t b;
	int ret;

	if (t->ready)
		return 0;
	if (t->init_err)
		return t->init_err;
	t->nbuffers = tdat_buffer_count(t->f);
	t->streams = calloc(t->nbuffers + 1, sizeof(*t->streams));
	if (!t->streams) {
		t->init_err = -ENOMEM;
		return t->init_err;
	}
	for (b = 0; b < t->nbuffers; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);

		t->streams[b] = calloc(2 + (buf ? buf->ncpus : 0),
				       sizeof(**t->streams));
		if (!t->streams[b]) {
			t->init_err = -ENOMEM;
			return t->init_err;
		}
	}
	ret = setup(t);
	if (ret < 0) {
		teardown(t);
		t->init_err = ret;
		return ret;
	}
	t->ready = true;
	return 0;
}

/* What every stream of @t reads and formats with. */
static struct text_stream_env stream_env(const struct tdatfs_text *t)
{
	struct text_stream_env env = {
		.f = t->f,
		.fmt = t->fmt,
		.pf = &t->pf,
		.ts = t->ts,
		.max_checkpoints = t->opts.max_checkpoints,
	};

	return env;
}

/*
 * Take @t's lock and set the engine up, unless it is not set up and
 * @create is false (a size asked before any read): then @locked is false
 * and the return -EAGAIN.  Return: 0 or the setup's error.
 */
static int lock_ready(struct tdatfs_text *t, bool create, bool *locked)
{
	pthread_mutex_lock(&t->lock);
	if (!t->ready && !create) {
		pthread_mutex_unlock(&t->lock);
		*locked = false;
		return -EAGAIN;
	}
	*locked = true;
	return ensure_ready(t);
}

/* The stream of (buffer, cpu), made on first use when @create. */
static int get_stream(struct tdatfs_text *t, size_t buffer, int cpu, bool create,
		      struct text_stream **out)
{
	const struct tdat_buffer *buf;
	struct text_stream **slot;
	bool locked;
	int ret;

	*out = NULL;
	ret = lock_ready(t, create, &locked);
	if (!locked)
		return ret;
	if (ret < 0)
		goto out;
	buf = tdat_buffer_get(t->f, buffer);
	if (buffer >= t->nbuffers || !buf || cpu < -1 ||
	    (cpu >= 0 && (unsigned int)cpu >= buf->ncpus)) {
		ret = -ENOENT;
		goto out;
	}
	slot = &t->streams[buffer][cpu + 1];
	if (!*slot && create) {
		struct text_stream_env env = stream_env(t);

		*slot = text_stream_new(&env, buffer, cpu);
		if (!*slot)
			ret = -errno;
	}
	*out = *slot;
	if (!*out && !ret)
		ret = -EAGAIN;
out:
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/* How trace-cmd names a buffer on its lines: after the last '/'. */
static const char *report_name(const struct tdat_buffer *buf)
{
	const char *slash = strrchr(buf->name, '/');

	return slash ? slash + 1 : buf->name;
}

/*
 * The report's buffers and prefixes: trace-cmd's print_handle_file()
 * puts "NAME: " right-aligned to the longest instance name before an
 * instance's lines and as many spaces plus two before the top buffer's,
 * and nothing at all without instances.  Latency buffers have no records
 * and 0-CPU buffers no lines, but a 0-CPU instance's name still counts.
 * The caller frees *@parts and each prefix.
 */
static int report_parts(struct tdatfs_text *t, struct text_stream_part **parts,
			size_t *nparts)
{
	size_t b, n = 0;
	int w = -1;

	for (b = 0; b < t->nbuffers; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);

		if (buf && buf->name && *buf->name &&
		    (int)strlen(report_name(buf)) > w)
			w = strlen(report_name(buf));
	}
	*parts = calloc(t->nbuffers + 1, sizeof(**parts));
	if (!*parts)
		return -ENOMEM;
	for (b = 0; b < t->nbuffers; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);
		bool named = buf && buf->name && *buf->name;
		char *pre = NULL;

		if (!buf || buf->latency || !buf->ncpus)
			continue;
		if (w < 0)
			pre = strdup("");
		else if (asprintf(&pre, named ? "%*s: " : "%*s  ", w,
				  named ? report_name(buf) : "") < 0)
			pre = NULL;
		if (!pre)
			break;
		(*parts)[n].b = b;
		(*parts)[n++].prefix = pre;
	}
	*nparts = n;
	return b < t->nbuffers ? -ENOMEM : 0;
}

/* The report's stream, made on first use when @create (engine lock held). */
static int report_stream(struct tdatfs_text *t, bool create)
{
	struct text_stream_env env = stream_env(t);
	struct text_stream_part *parts;
	char head[32];
	size_t i, n = 0;
	int ret;

	if (t->report || !create)
		return t->report ? 0 : -EAGAIN;
	ret = report_parts(t, &parts, &n);
	snprintf(head, sizeof(head), "cpus=%u\n", tdat_cpu_count(t->f));
	if (!ret) {
		t->report = text_stream_new_multi(&env, parts, n, head);
		if (!t->report)
			ret = -errno;
	}
	for (i = 0; i < n; i++)
		free((char *)parts[i].prefix);
	free(parts);
	return ret;
}

/* The report's stream, made on first use when @create. */
static int get_report(struct tdatfs_text *t, bool create,
		      struct text_stream **out)
{
	bool locked;
	int ret;

	*out = NULL;
	ret = lock_ready(t, create, &locked);
	if (!locked)
		return ret;
	if (!ret)
		ret = report_stream(t, create);
	*out = t->report;
	pthread_mutex_unlock(&t->lock);
	return ret;
}

ssize_t tdatfs_text_report_read(struct tdatfs_text *t, char *buf, size_t len,
				uint64_t off)
{
	struct text_stream *st;
	int ret;

	if (!t || (!buf && len))
		return -EINVAL;
	ret = get_report(t, true, &st);
	if (ret < 0)
		return ret;
	return text_stream_read(st, buf, len, off);
}

int tdatfs_text_report_size(struct tdatfs_text *t, uint64_t *size)
{
	struct text_stream *st;
	int ret;

	if (!t || !size)
		return -EINVAL;
	ret = get_report(t, false, &st);
	if (ret < 0)
		return ret;
	return text_stream_size(st, size);
}

ssize_t tdatfs_text_read(struct tdatfs_text *t, size_t buffer, int cpu,
			 char *buf, size_t len, uint64_t off)
{
	struct text_stream *st;
	int ret;

	if (!t || (!buf && len))
		return -EINVAL;
	ret = get_stream(t, buffer, cpu, true, &st);
	if (ret < 0)
		return ret;
	return text_stream_read(st, buf, len, off);
}

int tdatfs_text_size(struct tdatfs_text *t, size_t buffer, int cpu, uint64_t *size)
{
	const struct tdat_buffer *buf;
	struct text_stream *st;
	int ret;

	if (!t || !size)
		return -EINVAL;
	buf = tdat_buffer_get(t->f, buffer);
	if (!buf || cpu < -1 || (cpu >= 0 && (unsigned int)cpu >= buf->ncpus))
		return -ENOENT;
	ret = get_stream(t, buffer, cpu, false, &st);
	if (ret < 0)
		return ret;
	return text_stream_size(st, size);
}

/**
 * text_engine_stream() - the stream of (buffer, cpu), made if need be
 * @t: engine
 * @buffer: buffer index
 * @cpu: index into the buffer's cpus, or -1
 *
 * Return: the stream (the engine's), or NULL with errno set.
 */
struct text_stream *text_engine_stream(struct tdatfs_text *t, size_t buffer,
				       int cpu)
{
	struct text_stream *st;
	int ret = get_stream(t, buffer, cpu, true, &st);

	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	return st;
}

/**
 * text_engine_report() - the report's stream, made if need be
 * @t: engine
 *
 * Return: the stream (the engine's), or NULL with errno set.
 */
struct text_stream *text_engine_report(struct tdatfs_text *t)
{
	struct text_stream *st;
	int ret = get_report(t, true, &st);

	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	return st;
}
