/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-error.c - the registry of damaged trace data found after open.
 *
 * Entries are appended under their own lock and never change, so a reader
 * listing them while readers of the trace add more sees a prefix of the
 * final list.  Only the first TDAT_ERROR_MAX are kept: the registry is
 * bounded whatever the file holds.
 *
 * The public functions defined here are documented in tdat.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-private.h"

/**
 * tdp_errlog_init() - set up the damage registry of a new handle
 * @f: handle being opened
 *
 * Return: 0 or a negative errno from the mutex creation.
 */
int tdp_errlog_init(struct tdat_file *f)
{
	int r = pthread_mutex_init(&f->errlog.lock, NULL);

	if (r)
		return -r;
	f->errlog.ready = true;
	return 0;
}

/**
 * tdp_errlog_free() - release the damage registry
 * @f: handle being closed
 */
void tdp_errlog_free(struct tdat_file *f)
{
	if (!f->errlog.ready)
		return;
	free(f->errlog.v);
	f->errlog.v = NULL;
	f->errlog.n = f->errlog.cap = 0;
	pthread_mutex_destroy(&f->errlog.lock);
	f->errlog.ready = false;
}

/* Already known: same CPU and a range (or, for empty ones, a start) covered. */
static bool errlog_known(const struct tdp_errlog *l, const struct tdat_error *e)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct tdat_error *o = &l->v[i];

		if (o->buffer != e->buffer || o->cpu != e->cpu)
			continue;
		if (!e->length) {
			if (o->start == e->start && o->offset == e->offset)
				return true;
			continue;
		}
		if (o->start <= e->start && e->length <= o->length &&
		    e->start - o->start <= o->length - e->length)
			return true;
	}
	return false;
}

/**
 * tdp_error_add() - append an entry to the damage registry
 * @f: handle
 * @e: entry (copied)
 *
 * A range already covered by an entry of the same CPU is dropped; past
 * TDAT_ERROR_MAX entries the report is only counted.
 *
 * Return: 0 or -ENOMEM.
 * Context: takes the registry lock; safe with the file's lock held.
 */
int tdp_error_add(struct tdat_file *f, const struct tdat_error *e)
{
	struct tdp_errlog *l = &f->errlog;
	void *v;
	int r = 0;

	pthread_mutex_lock(&l->lock);
	if (errlog_known(l, e))
		goto out;
	if (l->n >= TDAT_ERROR_MAX) {
		l->dropped++;
		goto out;
	}
	v = tdp_grow(l->v, &l->cap, l->n + 1, sizeof(*l->v), 16);
	if (!v) {
		r = -ENOMEM;
		goto out;
	}
	l->v = v;
	l->v[l->n] = *e;
	l->v[l->n].what[TDAT_ERROR_WHAT - 1] = '\0';
	l->n++;
out:
	pthread_mutex_unlock(&l->lock);
	return r;
}

size_t tdat_error_count(struct tdat_file *f)
{
	size_t n;

	pthread_mutex_lock(&f->errlog.lock);
	n = f->errlog.n;
	pthread_mutex_unlock(&f->errlog.lock);
	return n;
}

uint64_t tdat_error_total(struct tdat_file *f)
{
	uint64_t n;

	pthread_mutex_lock(&f->errlog.lock);
	n = f->errlog.n + f->errlog.dropped;
	pthread_mutex_unlock(&f->errlog.lock);
	return n;
}

int tdat_error_get(struct tdat_file *f, size_t i, struct tdat_error *out)
{
	int r = -ENOENT;

	pthread_mutex_lock(&f->errlog.lock);
	if (i < f->errlog.n) {
		*out = f->errlog.v[i];
		r = 0;
	}
	pthread_mutex_unlock(&f->errlog.lock);
	return r;
}

int tdat_error_format(const struct tdat_error *e, char *buf, size_t len)
{
	if (!e->length)
		return snprintf(buf, len,
				"%s: file offset %" PRIu64 ", %" PRIu64 " bytes stored\n",
				e->what, e->offset, e->stored_size);
	return snprintf(buf, len,
			"%s: file offset %" PRIu64 ", %" PRIu64
			" bytes stored; trace_pipe_raw bytes %" PRIu64 "-%" PRIu64 "\n",
			e->what, e->offset, e->stored_size, e->start,
			e->start + e->length - 1);
}

int tdat_option_mark_damaged(struct tdat_file *f, const struct tdat_option *o,
			     size_t b, size_t c, const char *why)
{
	struct tdat_error e = { .offset = o->offset, .stored_size = o->size,
				.buffer = b, .cpu = (unsigned int)c };
	const char *name = tdat_option_name(o->id);

	if (name)
		snprintf(e.what, sizeof(e.what), "option %s at offset %" PRIu64 " %s",
			 name, o->offset, why);
	else
		snprintf(e.what, sizeof(e.what), "option %u at offset %" PRIu64 " %s",
			 o->id, o->offset, why);
	return tdp_error_add(f, &e);
}

/**
 * tdp_buffer_label() - how entries name a buffer: "top" or its name
 * @f: handle
 * @b: buffer index, valid
 *
 * Return: a string valid until tdat_close().
 */
const char *tdp_buffer_label(const struct tdat_file *f, size_t b)
{
	const char *name = f->bufs[b].pub.name;

	return name && *name ? name : "top";
}

/*
 * @s into @out (size @len, at least 8) as an entry names it: printable
 * ASCII but '\' as it is, every other byte as \xNN, cut with "..." after
 * about @len bytes.  A name is the trace's: bytes of any value, of any
 * length, which must not make the errors file binary or one entry long.
 */
static void put_name(char *out, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int n = c > 0x20 && c < 0x7f && c != '\\' ? 1 : 4;

		if (o + n + 4 > len) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (n == 1)
			out[o] = (char)c;
		else
			snprintf(out + o, 5, "\\x%02x", c);
		o += n;
	}
	out[o] = '\0';
}

int tdat_event_mark_damaged(struct tdat_file *f, size_t i, const char *why)
{
	struct tdp_stream_damage w;
	const struct tdp_fmt *fm;
	struct tdat_error e;
	char sys[32], name[48];

	if (i >= f->nfmts)
		return -ENOENT;
	fm = &f->fmts[i];
	memset(&e, 0, sizeof(e));
	if (!fm->text.s || tdp_stream_locate(fm->text.s, fm->text.off, &w))
		memset(&w, 0, sizeof(w));
	put_name(sys, sizeof(sys), fm->pub.system);
	put_name(name, sizeof(name), fm->pub.name);
	if (w.stored)	/* in a compressed section: the block's place */
		snprintf(e.what, sizeof(e.what),
			 "event format %s/%s (id %d, section offset %" PRIu64
			 ") %s", sys, name,
			 fm->pub.id, fm->text.off, why);
	else
		snprintf(e.what, sizeof(e.what),
			 "event format %s/%s (id %d) %s", sys, name,
			 fm->pub.id, why);
	e.offset = w.hdr;
	e.stored_size = w.stored ? w.stored : fm->pub.size;
	e.buffer = SIZE_MAX;
	e.cpu = UINT_MAX;
	/* two formats of one compressed section differ here */
	e.start = fm->text.off;
	return tdp_error_add(f, &e);
}
