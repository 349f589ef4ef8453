/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text.c - decoded event text: the public entry points.  The
 * libtraceevent handle is built on the first read (tdatfs-text-tep.c);
 * each (buffer, CPU selection) gets a stream on first use
 * (tdatfs-text-stream.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-text-int.h"

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
	pthread_mutex_init(&t->tep_lock, NULL);
	return t;
}

/**
 * tdatfs_text_free() - free an engine; NULL is fine
 * @t: engine
 */
void tdatfs_text_free(struct tdatfs_text *t)
{
	size_t b;

	if (!t)
		return;
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
	}
	text_tep_teardown(t);
	pthread_mutex_destroy(&t->lock);
	pthread_mutex_destroy(&t->tep_lock);
	free(t);
}

/* Build the handle once; later calls return the first result. */
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
	ret = text_tep_setup(t);
	if (ret < 0) {
		text_tep_teardown(t);
		t->init_err = ret;
		return ret;
	}
	t->ready = true;
	return 0;
}

/* The stream of (buffer, cpu), made on first use when @create. */
static int get_stream(struct tdatfs_text *t, size_t buffer, int cpu, bool create,
		      struct text_stream **out)
{
	const struct tdat_buffer *buf;
	struct text_stream **slot;
	int ret;

	*out = NULL;
	pthread_mutex_lock(&t->lock);
	if (!t->ready && !create) {
		pthread_mutex_unlock(&t->lock);
		return -EAGAIN;
	}
	ret = ensure_ready(t);
	if (ret < 0)
		goto out;
	buf = tdat_buffer_get(t->f, buffer);
	if (buffer >= t->nbuffers || !buf || cpu < -1 ||
	    (cpu >= 0 && (unsigned int)cpu >= buf->ncpus)) {
		ret = -ENOENT;
		goto out;
	}
	/* a latency buffer has one text whichever way it is asked for */
	if (buf->latency)
		cpu = -1;
	slot = &t->streams[buffer][cpu + 1];
	if (!*slot && create) {
		*slot = text_stream_new(t, buffer, cpu);
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

/**
 * tdatfs_text_read() - read decoded text
 * @t: engine
 * @buffer: buffer index (tdat_buffer_get())
 * @cpu: index into the buffer's cpus, or -1 for all CPUs merged
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the text
 *
 * The first call builds the libtraceevent handle.  A read continues from
 * the cursor or checkpoint nearest before @off.
 *
 * Return: bytes read (0 at the end), or a negative errno.
 * Context: thread-safe; takes the engine, stream and tep locks.
 */
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

/**
 * tdatfs_text_size() - exact size of a text, once known
 * @t: engine
 * @buffer: buffer index
 * @cpu: index into the buffer's cpus, or -1
 * @size: set to the size when known
 *
 * Return: 0, or -EAGAIN while the text has not been produced to its end,
 * or -ENOENT for a buffer or CPU that does not exist.
 * Context: thread-safe.
 */
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
	/* stored text: its size needs no decoding */
	if (buf->latency)
		return tdat_cpu_size(t->f, buffer, 0, size);
	ret = get_stream(t, buffer, cpu, false, &st);
	if (ret < 0)
		return ret;
	return text_stream_size(st, size);
}
