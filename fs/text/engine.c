/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/engine.c - decoded event text: the engine.  It sets up the layers
 * below it on the first read, in trace-cmd's order, and gives each
 * (buffer, CPU selection) a stream on first use.
 *
 * Layers, each calling only those before it: tdatfs_buf; the handle
 * (text/tep.c), timestamps, comms and compiled formats; the event
 * table; the record source; the formatter (text/line.c); the
 * stream; its saved states (text/stream-state.c); the setup of the layers
 * below the stream (text/setup.c); this file.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "account.h"
#include "engine-internal.h"
#include "engine.h"
#include "event-table.h"
#include "kallsyms.h"
#include "read-ahead.h"
#include "setup.h"
#include "stream-state.h"
#include "stream.h"

/* Whether a buffer has lines in the report: not latency, some CPU. */
static bool in_report(const struct tdat_buffer *buf)
{
	return buf && !buf->latency && buf->ncpus;
}

/*
 * The buffer whose merged text the report is made of, or -1: when it has
 * the only lines of the report and no buffer has a name, text_eng_report_parts()
 * gives one part without a prefix, and the report is its head and that
 * text.  Depends on the buffer table alone, so it is known at creation.
 */
static long report_alias(const struct tdatfs_text *t)
{
	size_t b, n = 0;
	long a = -1;

	for (b = 0; b < t->nbuffers; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);

		if (buf && buf->name && *buf->name)
			return -1;
		if (in_report(buf)) {
			a = (long)b;
			n++;
		}
	}
	return n == 1 ? a : -1;
}

/*
 * The text (buffer, @cpu) is made of: the one CPU of a one-CPU buffer has
 * the buffer's merged text.  Its stream would read the same records in the
 * same order, print them alone and learn the same comms (function_graph's
 * reading of every CPU needs several), so its bytes are the same; making
 * it once halves what an index of such a trace produces.
 */
static int text_cpu(const struct tdatfs_text *t, size_t buffer, int cpu)
{
	const struct tdat_buffer *buf = tdat_buffer_get(t->f, buffer);

	return cpu == 0 && buf && buf->ncpus == 1 ? -1 : cpu;
}

/**
 * text_eng_cpu_aliased() - whether (buffer, @cpu) is made of another text
 * @t: engine
 * @buffer: buffer index
 * @cpu: cpu index, or -1
 *
 * Return: true for a one-CPU buffer's CPU, whose text is the merged one
 * (text_cpu()).
 */
bool text_eng_cpu_aliased(const struct tdatfs_text *t, size_t buffer, int cpu)
{
	return text_cpu(t, buffer, cpu) != cpu;
}

/* The workers of opts.decode_threads (not started yet). */
static int ahead_setup(struct tdatfs_text *t)
{
	long n = t->opts.decode_threads;

	if (!n)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 0)
		return 0;
	if (n > 64)
		n = 64;
	t->ahead = text_read_ahead_new(n);
	return t->ahead ? 0 : -ENOMEM;
}

/* An engine of @f taking its kallsyms from @ksyms (a reference is taken). */
static struct tdatfs_text *engine_new(struct tdat_file *f,
				      const struct tdatfs_text_opts *opts,
				      struct text_kallsyms_share *ksyms)
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
	t->nbuffers = tdat_buffer_count(f);
	t->alias = report_alias(t);
	snprintf(t->head, sizeof(t->head), "cpus=%u\n", tdat_cpu_count(f));
	t->ksyms = ksyms ? text_kallsyms_share_ref(ksyms) :
			   text_kallsyms_share_new();
	if (!t->ksyms || ahead_setup(t) < 0) {
		tdatfs_text_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

struct tdatfs_text *tdatfs_text_new(struct tdat_file *f,
				    const struct tdatfs_text_opts *opts)
{
	return engine_new(f, opts, NULL);
}

struct tdatfs_text *tdatfs_text_new_like(struct tdatfs_text *like,
					 const struct tdatfs_text_opts *opts)
{
	if (!like) {
		errno = EINVAL;
		return NULL;
	}
	return engine_new(like->f, opts, like->ksyms);
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
	text_layers_release(&t->l);
}

/*
 * Give back the whole pages of @len bytes at @p, bytes nobody reads again
 * inside a buffer that stays allocated: an adopted index keeps no more
 * resident than the states not taken yet, as their copies did.
 */
static void pages_release(void *p, size_t len)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p, e = a + len;

	if (ps <= 0)
		return;
	a = (a + (uintptr_t)ps - 1) & ~((uintptr_t)ps - 1);
	e &= ~((uintptr_t)ps - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_DONTNEED);
}

/*
 * Let go of @sh's state: its own bytes, or its share of adopted ones,
 * and their charge to @t's chunk cache.
 */
static void stash_drop(struct tdatfs_text *t, struct text_stash *sh)
{
	if (sh->blob)
		tdat_cache_charge(t->f, sh->len, true);
	if (!sh->from) {
		free(sh->blob);
	} else if (!--sh->from->users) {
		free(sh->from->bytes);
		free(sh->from);
	} else {
		pages_release(sh->blob, sh->len);
	}
	sh->blob = NULL;
	sh->from = NULL;
}

void tdatfs_text_free(struct tdatfs_text *t)
{
	size_t b;

	if (!t)
		return;
	/* the workers read the streams: stopped first */
	text_read_ahead_free(t->ahead);
	if (t->ext_free)
		t->ext_free(t->ext);
	teardown(t);
	for (b = 0; t->stash && b < t->nbuffers; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);
		size_t i, n = 1 + (buf ? buf->ncpus : 0);

		for (i = 0; t->stash[b] && i < n; i++)
			stash_drop(t, &t->stash[b][i]);
		free(t->stash[b]);
	}
	free(t->stash);
	stash_drop(t, &t->rstash);
	text_kallsyms_share_free(t->ksyms);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Build the layers once; later calls return the first error, but for -ENOMEM. */
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
	if (!t->streams)
		return -ENOMEM;
	for (b = 0; b < t->nbuffers; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);

		t->streams[b] = calloc(2 + (buf ? buf->ncpus : 0),
				       sizeof(**t->streams));
		if (!t->streams[b]) {
			teardown(t);
			return -ENOMEM;
		}
	}
	ret = text_layers_setup(&t->l, t->f, &t->opts, t->ksyms);
	if (ret < 0) {
		teardown(t);
		/*
		 * What the file holds fails the same way every time; memory
		 * that ran out may be there at the next read, which tries
		 * again instead of failing for the life of the mount.
		 */
		if (ret != -ENOMEM)
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
		.fmt = t->l.fmt,
		.pf = &t->l.pf,
		.ts = t->l.ts,
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

/**
 * text_eng_stash_get() - the stash of (buffer, cpu)
 * @t: engine, its lock held
 * @buffer: buffer index, or t->nbuffers for the report's
 * @cpu: cpu index, or -1
 * @create: make it when there is none
 *
 * Return: the stash (the engine's), or NULL when there is none or out of
 * memory.
 */
struct text_stash *text_eng_stash_get(struct tdatfs_text *t, size_t buffer,
				      int cpu, bool create)
{
	const struct tdat_buffer *buf;

	if (buffer == t->nbuffers)
		return &t->rstash;
	buf = tdat_buffer_get(t->f, buffer);
	if (!buf || buffer > t->nbuffers || cpu < -1 ||
	    (cpu >= 0 && (unsigned int)cpu >= buf->ncpus))
		return NULL;
	if (!t->stash && create)
		t->stash = calloc(t->nbuffers + 1, sizeof(*t->stash));
	if (!t->stash)
		return NULL;
	if (!t->stash[buffer] && create)
		t->stash[buffer] = calloc(buf->ncpus + 2, sizeof(**t->stash));
	return t->stash[buffer] ? &t->stash[buffer][cpu + 1] : NULL;
}

/*
 * Give the stream just made in *@slot the state loaded for it, if any.
 * A state the stream does not take (it was checked against the trace, so
 * only an engine that makes other streams gets here) leaves no stream:
 * its reads fail, as the size already given may not be the text's.
 * Return: 0 or -EIO.
 */
static int stash_install(struct tdatfs_text *t, struct text_stash *sh,
			 struct text_stream **slot)
{
	int ret;

	if (!sh || !sh->blob)
		return 0;
	ret = text_stream_state_load(*slot, t->l.comms, sh->blob, sh->len);
	stash_drop(t, sh);
	if (ret < 0) {
		text_stream_free(*slot);
		*slot = NULL;
		sh->err = -EIO;
	}
	return sh->err;
}

/**
 * text_eng_stream_as() - the stream of (buffer, cpu), made on first use
 * @t: engine
 * @buffer: buffer index
 * @cpu: cpu index in the buffer, or -1
 * @create: make it when there is none
 * @fresh: how a new stream of one CPU reads, unless a state loaded for it
 *	says otherwise
 * @out: set to the stream (the engine's), or NULL
 *
 * Return: 0, -EAGAIN when there is none and not @create, or a negative
 * errno.
 */
int text_eng_stream_as(struct tdatfs_text *t, size_t buffer, int cpu, bool create,
		       enum text_cpu_read fresh, struct text_stream **out)
{
	const struct tdat_buffer *buf;
	struct text_stream **slot;
	struct text_stash *sh;
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
	sh = text_eng_stash_get(t, buffer, cpu, false);
	if (sh && sh->err) {
		ret = sh->err;
		goto out;
	}
	if (!*slot && create) {
		struct text_stream_env env = stream_env(t);
		/* a stream that takes a state reads as the one that saved it */
		enum text_cpu_read how = sh && sh->blob ?
			text_stream_state_cpu_read(sh->blob, sh->len, cpu) : fresh;

		*slot = text_stream_new(&env, buffer, cpu, how);
		if (!*slot)
			ret = -errno;
		else
			ret = stash_install(t, sh, slot);
	}
	*out = *slot;
	if (!*out && !ret)
		ret = -EAGAIN;
out:
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/* The stream of (buffer, cpu) for readers: a new one looks at its CPU first. */
static int get_stream(struct tdatfs_text *t, size_t buffer, int cpu, bool create,
		      struct text_stream **out)
{
	return text_eng_stream_as(t, buffer, cpu, create, TEXT_CPU_LOOK, out);
}

/**
 * text_eng_stream_forget() - free the stream of (buffer, cpu), if made
 * @t: engine, which no other thread uses meanwhile
 * @buffer: buffer index
 * @cpu: cpu index in the buffer, or -1
 *
 * The next use makes it again: for a producer whose stream is to be made
 * another way (tdatfs_text_produce_sole()) or was left unfinished
 * (tdatfs_text_produce_led()).
 */
void text_eng_stream_forget(struct tdatfs_text *t, size_t buffer, int cpu)
{
	struct text_stream **slot;

	pthread_mutex_lock(&t->lock);
	slot = &t->streams[buffer][cpu + 1];
	text_read_ahead_forget(t->ahead, *slot);
	text_stream_free(*slot);
	*slot = NULL;
	pthread_mutex_unlock(&t->lock);
}

/* How trace-cmd names a buffer on its lines: after the last '/'. */
static const char *report_name(const struct tdat_buffer *buf)
{
	const char *slash = strrchr(buf->name, '/');

	return slash ? slash + 1 : buf->name;
}

/**
 * text_eng_report_parts() - the report's buffers and prefixes
 * @t: engine
 * @parts: set to the parts, one per buffer in the report
 * @nparts: set to their count
 *
 * trace-cmd's print_handle_file() puts "NAME: " right-aligned to the
 * longest instance name before an instance's lines and as many spaces
 * plus two before the top buffer's, and nothing at all without
 * instances.  Latency buffers have no records and 0-CPU buffers no lines,
 * but a 0-CPU instance's name still counts.  The caller frees *@parts
 * and each prefix.
 *
 * Return: 0 or -ENOMEM.
 */
int text_eng_report_parts(struct tdatfs_text *t, struct text_stream_part **parts,
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

		if (!in_report(buf))
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
	size_t i, n = 0;
	int ret;

	if (t->rstash.err)
		return t->rstash.err;
	if (t->report || !create)
		return t->report ? 0 : -EAGAIN;
	ret = text_eng_report_parts(t, &parts, &n);
	if (!ret) {
		t->report = text_stream_new_multi(&env, parts, n, t->head);
		if (!t->report)
			ret = -errno;
		else
			ret = stash_install(t, &t->rstash, &t->report);
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

/*
 * The size a loaded state gives (buffer, cpu), or the report when
 * @buffer is t->nbuffers: true and *@size set when one was loaded.
 */
static bool stash_size(struct tdatfs_text *t, size_t buffer, int cpu,
		       uint64_t *size)
{
	struct text_stash *sh;
	bool ret = false;

	pthread_mutex_lock(&t->lock);
	sh = text_eng_stash_get(t, buffer, cpu, false);
	if (sh && sh->loaded) {
		*size = sh->size;
		ret = true;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/*
 * The report made of buffer @a's merged text: the head, then that text.
 * The text is read first, so that an error of the engine's setup is the
 * report's whatever the offset.
 */
static ssize_t alias_read(struct tdatfs_text *t, size_t a, char *buf,
			  size_t len, uint64_t off)
{
	size_t hlen = strlen(t->head), n = 0;
	ssize_t r;

	if (off < hlen)
		n = hlen - off < len ? hlen - off : len;
	r = tdatfs_text_read(t, a, -1, buf + n, len - n, off < hlen ? 0 : off - hlen);
	if (r < 0)
		return r;
	if (n)
		memcpy(buf, t->head + off, n);
	return n + r;
}

/*
 * Whether a text is read ahead: with workers, once it is finished (they
 * produce its stretches from its checkpoints, each from the function
 * call stacks saved there).
 */
static bool ahead_ok(struct tdatfs_text *t, struct text_stream *st)
{
	uint64_t size;

	return t->ahead && text_stream_size(st, &size) == 0;
}

ssize_t tdatfs_text_report_read(struct tdatfs_text *t, char *buf, size_t len,
				uint64_t off)
{
	struct text_stream *st;
	int ret;

	if (!t || (!buf && len))
		return -EINVAL;
	if (t->alias >= 0)
		return alias_read(t, t->alias, buf, len, off);
	ret = get_report(t, true, &st);
	if (ret < 0)
		return ret;
	if (ahead_ok(t, st))
		return text_read_ahead_read(t->ahead, st, buf, len, off, false);
	return text_stream_read(st, buf, len, off);
}

int tdatfs_text_report_size(struct tdatfs_text *t, uint64_t *size)
{
	struct text_stream *st;
	int ret;

	if (!t || !size)
		return -EINVAL;
	if (t->alias >= 0) {
		ret = tdatfs_text_size(t, t->alias, -1, size);
		if (!ret)
			*size += strlen(t->head);
		return ret;
	}
	if (stash_size(t, t->nbuffers, -1, size))
		return 0;
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
	ret = get_stream(t, buffer, text_cpu(t, buffer, cpu), true, &st);
	if (ret < 0)
		return ret;
	if (ahead_ok(t, st))
		return text_read_ahead_read(t->ahead, st, buf, len, off, false);
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
	cpu = text_cpu(t, buffer, cpu);
	if (stash_size(t, buffer, cpu, size))
		return 0;
	ret = get_stream(t, buffer, cpu, false, &st);
	if (ret < 0)
		return ret;
	return text_stream_size(st, size);
}

/* ---- the index ------------------------------------------------------- */

/**
 * text_eng_key_buffer() - whether @k is a buffer's text of @t
 * @t: engine
 * @k: key
 *
 * Return: the text's buffer, or NULL for the report or a key of no text.
 */
const struct tdat_buffer *text_eng_key_buffer(const struct tdatfs_text *t,
					      const struct tdatfs_text_key *k)
{
	const struct tdat_buffer *buf;

	if (k->report)
		return NULL;
	buf = tdat_buffer_get(t->f, k->buffer);
	if (!buf || k->cpu < -1 || (k->cpu >= 0 && (unsigned int)k->cpu >= buf->ncpus))
		return NULL;
	return buf;
}

size_t tdatfs_text_keys(struct tdatfs_text *t, struct tdatfs_text_key *keys,
			size_t max)
{
	size_t b, n = 0;
	int c;

	if (!t)
		return 0;
	for (b = 0; b < t->nbuffers; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);

		if (!buf || buf->latency)
			continue;
		for (c = -1; c < (int)buf->ncpus; c++) {
			if (text_eng_cpu_aliased(t, b, c))
				continue;
			if (n < max)
				keys[n] = (struct tdatfs_text_key){ .buffer = b, .cpu = c };
			n++;
		}
	}
	if (t->alias < 0) {
		if (n < max)
			keys[n] = (struct tdatfs_text_key){ .report = true, .cpu = -1 };
		n++;
	}
	return n;
}

/* The pages of buffer @b's cpu index @c, or of all its CPUs (-1). */
static uint64_t buffer_pages(struct tdatfs_text *t, size_t b, int c)
{
	const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);
	uint64_t sum = 0;
	size_t i;

	if (!buf || buf->page_size < 64 || buf->page_size > (1u << 27))
		return 0;
	for (i = 0; i < buf->ncpus; i++) {
		uint64_t n;

		/* a progress count: without memory the read itself fails */
		if ((c < 0 || i == (size_t)c) && !text_stream_cpu_pages(t->f, b, i, &n))
			sum += n;
	}
	return sum;
}

/*
 * A one-CPU text counts its CPU's pages alone, even when its stream
 * reads every CPU (a function_graph entry, text_stream_new()): whether it does
 * is known only once the engine is set up, and the frontier of such a
 * stream counts that CPU alone too.
 */
uint64_t tdatfs_text_pages(struct tdatfs_text *t, const struct tdatfs_text_key *k)
{
	uint64_t sum = 0;
	size_t b;

	if (!t || !k)
		return 0;
	if (!k->report)
		return text_eng_key_buffer(t, k) ? buffer_pages(t, k->buffer, k->cpu) : 0;
	for (b = 0; b < t->nbuffers; b++)
		if (in_report(tdat_buffer_get(t->f, b)))
			sum += buffer_pages(t, b, -1);
	return sum;
}

/**
 * text_eng_key_stream() - the stream of a text (not the report of one buffer)
 * @t: engine
 * @k: key
 * @create: make it when there is none
 * @st: set to the stream (the engine's)
 *
 * Return: 0, -ENOENT when there is none and not @create, or the error of
 * making it.
 */
int text_eng_key_stream(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			bool create, struct text_stream **st)
{
	if (k->report)
		return get_report(t, create, st);
	return get_stream(t, k->buffer, k->cpu, create, st);
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

/**
 * text_engine_fmt() - the formatter and comms of a set-up engine
 * @t: engine
 * @fmt: set to the formatter
 * @cm: set to the comms
 *
 * Return: 0, or the error of setting the engine up.
 */
int text_engine_fmt(struct tdatfs_text *t, struct text_fmt **fmt,
		    const struct text_comms **cm)
{
	bool locked;
	int ret = lock_ready(t, true, &locked);

	*fmt = t->l.fmt;
	*cm = t->l.comms;
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/**
 * text_engine_ext() - the engine's slot for a layer above it
 * @t: engine
 * @make: makes the slot's content on first use (NULL with errno set
 *	when it cannot)
 * @destroy: frees it when the engine is freed
 *
 * One layer uses the slot (the views, text/views.c); the engine
 * frees what it holds without knowing what it is.
 *
 * Return: the content, or NULL with errno set.
 */
void *text_engine_ext(struct tdatfs_text *t, void *(*make)(void),
		      void (*destroy)(void *ext))
{
	void *ext;

	pthread_mutex_lock(&t->lock);
	if (!t->ext) {
		t->ext = make();
		if (t->ext)
			t->ext_free = destroy;
	}
	ext = t->ext;
	pthread_mutex_unlock(&t->lock);
	return ext;
}

/**
 * text_engine_ahead() - the engine's read-ahead workers
 * @t: engine
 *
 * Return: the pool (text_read_ahead_read()), or NULL when there are none.
 */
struct text_read_ahead *text_engine_ahead(struct tdatfs_text *t)
{
	return t->ahead;
}

/**
 * text_engine_file() - the trace of an engine
 * @t: engine
 *
 * Return: the trace it was made for.
 */
struct tdat_file *text_engine_file(struct tdatfs_text *t)
{
	return t->f;
}
