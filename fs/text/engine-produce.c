/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/engine-produce.c - texts produced to their end for the index: one
 * text (a CPU's tried alone first on an engine no one else uses), and a
 * buffer's merged text with its per-CPU texts, each record formatted
 * once (text/stream-follow.c makes the CPU texts beside the merged one).
 * The invariants are in text/engine-internal.h; the public functions are
 * documented in tdatfs-text.h.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "engine-internal.h"
#include "stream.h"

/* The text @k is made of: the report of one buffer is that buffer's text. */
static struct tdatfs_text_key key_text(const struct tdatfs_text *t,
				       const struct tdatfs_text_key *k)
{
	struct tdatfs_text_key m = *k;

	if (k->report && t->alias >= 0) {
		m.report = false;
		m.buffer = t->alias;
		m.cpu = -1;
	} else if (!k->report) {
		m.cpu = text_eng_cpu_aliased(t, k->buffer, k->cpu) ? -1 : k->cpu;
	}
	return m;
}

/*
 * A one-CPU stream that tried its CPU alone and met a record that looks
 * ahead (-EXDEV): made again, reading every CPU.  Only its producer had
 * it (tdatfs_text_produce_sole()), so nothing else holds it.
 */
static int remake_among_all(struct tdatfs_text *t, size_t buffer, int cpu,
			    struct text_stream **out)
{
	text_eng_stream_forget(t, buffer, cpu);
	return text_eng_stream_as(t, buffer, cpu, true, TEXT_CPU_AMONG_ALL, out);
}

static int key_size(struct tdatfs_text *t, const struct tdatfs_text_key *k,
		    uint64_t *size)
{
	if (k->report)
		return tdatfs_text_report_size(t, size);
	return tdatfs_text_size(t, k->buffer, k->cpu, size);
}

/* tdatfs_text_produce(); @sole: no other thread uses @t meanwhile. */
static int produce(struct tdatfs_text *t, const struct tdatfs_text_key *k,
		   const _Atomic bool *cancel, _Atomic uint64_t *done, bool sole)
{
	struct tdatfs_text_key m;
	struct text_stream *st;
	uint64_t size;
	int ret;

	if (!t || !k)
		return -EINVAL;
	m = key_text(t, k);
	if (!m.report && !text_eng_key_buffer(t, &m))
		return -ENOENT;
	if (key_size(t, &m, &size) == 0) {
		/* produced or loaded already: its checkpoints cover it */
		if (done)
			atomic_store_explicit(done, tdatfs_text_pages(t, k),
					      memory_order_relaxed);
		return 0;
	}
	/*
	 * @m is a stream's own text (key_text()): produced there, not copied.
	 * On an engine of its own (@sole) a CPU's text tries that CPU alone
	 * and is made again, reading every CPU, at the first record that
	 * looks ahead: its CPU is read once, not first looked at and then
	 * read (text_stream_new()).
	 */
	ret = m.report || !sole ? text_eng_key_stream(t, &m, true, &st) :
	      text_eng_stream_as(t, m.buffer, m.cpu, true, TEXT_CPU_TRY_ALONE, &st);
	if (!ret)
		ret = text_eng_produce_to_end(st, cancel, done, 1);
	if (ret == -EXDEV && sole && !m.report && m.cpu >= 0) {
		ret = remake_among_all(t, m.buffer, m.cpu, &st);
		if (!ret)
			ret = text_eng_produce_to_end(st, cancel, done, 1);
	}
	return ret;
}

int tdatfs_text_produce(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			const _Atomic bool *cancel, _Atomic uint64_t *done)
{
	return produce(t, k, cancel, done, false);
}

int tdatfs_text_produce_sole(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			     const _Atomic bool *cancel, _Atomic uint64_t *done)
{
	return produce(t, k, cancel, done, true);
}

bool tdatfs_text_can_lead(struct tdatfs_text *t, size_t buffer)
{
	const struct tdat_buffer *buf;

	if (!t || buffer >= t->nbuffers)
		return false;
	buf = tdat_buffer_get(t->f, buffer);
	return buf && buf->ncpus > 1;
}

/**
 * text_eng_produce_to_end() - a stream produced to its end
 * @m: the stream, produced from its start (a leader's frontier cursor
 *	is the one its texts follow)
 * @cancel: polled between pieces
 * @done: set as it goes; may be NULL
 * @times: @done counts its pages this many times (twice while a merged
 *	text leads: its CPU texts are as far as it is)
 *
 * Return: 0, -EINTR when cancelled, or the stream's negative errno
 * (-EXDEV: a CPU's stream that tried it alone met a record that looks
 * ahead).
 */
int text_eng_produce_to_end(struct text_stream *m, const _Atomic bool *cancel,
			    _Atomic uint64_t *done, uint64_t times)
{
	uint64_t off = 0;
	ssize_t n;

	do {
		if (cancel && atomic_load_explicit(cancel, memory_order_relaxed))
			return -EINTR;
		n = text_stream_produce(m, TEXT_ENG_PIECE, off);
		if (n > 0)
			off += n;
		if (n >= 0 && done)
			atomic_store_explicit(done, times * text_stream_frontier_pages(m),
					      memory_order_relaxed);
	} while (n > 0);
	return n < 0 ? (int)n : 0;
}

/**
 * text_eng_cpu_streams() - the streams of a buffer's CPUs to be led
 * @t: engine
 * @buffer: buffer index
 * @n: its CPUs
 * @cpus: set to the streams of the CPUs whose texts are not known yet,
 *	NULL for the others
 *
 * Return: 0 or a negative errno.
 */
int text_eng_cpu_streams(struct tdatfs_text *t, size_t buffer, unsigned int n,
			 struct text_stream **cpus)
{
	uint64_t size;
	int ret = 0;

	for (unsigned int c = 0; !ret && c < n; c++)
		if (tdatfs_text_size(t, buffer, (int)c, &size) == -EAGAIN)
			ret = text_eng_stream_as(t, buffer, (int)c, true,
						 TEXT_CPU_ALONE, &cpus[c]);
	return ret;
}

/**
 * text_eng_produce_rest() - the CPU texts not made beside the merged one
 *	produced apart, each on a stream made again
 * @t: engine no other thread uses
 * @buffer: buffer index
 * @n: its CPUs
 * @made: per CPU, true for a text made already
 * @cancel: polled between pieces
 * @done: set as it goes, after the merged text's pages; may be NULL
 *
 * Return: 0 or a negative errno.
 */
int text_eng_produce_rest(struct tdatfs_text *t, size_t buffer, unsigned int n,
			  const bool *made, const _Atomic bool *cancel,
			  _Atomic uint64_t *done)
{
	struct tdatfs_text_key k = { .buffer = buffer, .cpu = -1 };
	uint64_t base = tdatfs_text_pages(t, &k);
	int ret = 0;

	for (unsigned int c = 0; c < n; c++) {
		k.cpu = (int)c;
		base += made[c] ? tdatfs_text_pages(t, &k) : 0;
	}
	for (unsigned int c = 0; !ret && c < n; c++) {
		if (made[c])
			continue;
		k.cpu = (int)c;
		if (tdatfs_text_size(t, buffer, k.cpu, &(uint64_t){ 0 }) == -EAGAIN)
			text_eng_stream_forget(t, buffer, k.cpu);
		ret = tdatfs_text_produce_sole(t, &k, cancel, NULL);
		base += tdatfs_text_pages(t, &k);
		if (!ret && done)
			atomic_store_explicit(done, base, memory_order_relaxed);
	}
	return ret;
}

int tdatfs_text_produce_led(struct tdatfs_text *t, size_t buffer,
			    const _Atomic bool *cancel, _Atomic uint64_t *done)
{
	const struct tdat_buffer *buf;
	struct text_stream *m, **cpus;
	bool *made;
	int ret, lead, led = 0;

	if (!tdatfs_text_can_lead(t, buffer))
		return -EINVAL;
	buf = tdat_buffer_get(t->f, buffer);
	ret = text_eng_stream_as(t, buffer, -1, true, TEXT_CPU_LOOK, &m);
	if (ret < 0)
		return ret;
	cpus = calloc(buf->ncpus + 1, sizeof(*cpus));
	made = calloc(buf->ncpus + 1, sizeof(*made));
	if (!cpus || !made)
		ret = -ENOMEM;
	if (!ret)
		ret = text_eng_cpu_streams(t, buffer, buf->ncpus, cpus);
	/* a merged text produced already cannot lead: all made apart */
	lead = ret ? ret : text_stream_lead(m, cpus);
	if (!ret)
		ret = text_eng_produce_to_end(m, cancel, done, lead ? 1 : 2);
	if (!lead)
		text_stream_lead_end(m, made);
	if (!ret)
		ret = text_eng_produce_rest(t, buffer, buf->ncpus, made, cancel, done);
	for (unsigned int c = 0; !ret && c < buf->ncpus; c++)
		led += made[c];
	free(cpus);
	free(made);
	return ret ? ret : led;
}
