/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-chunks.c - the chunk tables of a compressed file's CPU streams as
 * bytes, kept beside the trace (in its index) so that a later open makes
 * the streams without reading every chunk header across the file.
 *
 * The bytes, in host order (the index that keeps them is tied to the
 * machine): u32 tables, u32 0, then per table u32 buffer, u32 cpu index,
 * u32 chunks, u32 0 and chunks x { u32 compressed, u32 uncompressed }.
 *
 * The public functions defined here are documented in tdat.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-private.h"

#define TABLES_HEAD	8u	/* u32 tables, u32 0 */
#define TABLE_HEAD	16u	/* u32 buffer, u32 cpu, u32 chunks, u32 0 */
#define PAIR		8u

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One stream's table of @n pairs appended at *@at (room checked by the caller). */
static void put_table(unsigned char *p, size_t *at, size_t b, size_t c,
		      const struct tdp_stream *s, uint32_t n)
{
	put32(p + *at, (uint32_t)b);
	put32(p + *at + 4, (uint32_t)c);
	put32(p + *at + 8, n);
	put32(p + *at + 12, 0);
	*at += TABLE_HEAD;
	tdp_stream_chunk_sizes(s, p + *at);
	*at += (size_t)n * PAIR;
}

/* Bytes the tables of the streams made so far take; f->lock held. */
static size_t tables_size(struct tdat_file *f)
{
	size_t total = TABLES_HEAD;

	for (size_t b = 0; b < f->nbufs; b++) {
		const struct tdp_buf *buf = &f->bufs[b];

		for (size_t c = 0; buf->kind == TDAT_STREAM_CHUNKS && c < buf->pub.ncpus; c++) {
			uint32_t n;

			if (buf->streams[c] &&
			    !tdp_stream_chunk_count(buf->streams[c], &n))
				total += TABLE_HEAD + (size_t)n * PAIR;
		}
	}
	return total;
}

int tdat_chunk_tables_save(struct tdat_file *f, void **buf, size_t *len)
{
	unsigned char *p;
	size_t total, at = TABLES_HEAD;
	uint32_t kept = 0;

	pthread_mutex_lock(&f->lock);
	total = tables_size(f);
	p = malloc(total);
	if (!p) {
		pthread_mutex_unlock(&f->lock);
		return -ENOMEM;
	}
	for (size_t b = 0; b < f->nbufs; b++) {
		const struct tdp_buf *tb = &f->bufs[b];

		for (size_t c = 0; tb->kind == TDAT_STREAM_CHUNKS && c < tb->pub.ncpus; c++) {
			uint32_t n;

			/* a table found damaged since it was sized is left out */
			if (!tb->streams[c] ||
			    tdp_stream_chunk_count(tb->streams[c], &n) ||
			    at + TABLE_HEAD + (size_t)n * PAIR > total)
				continue;
			put_table(p, &at, b, c, tb->streams[c], n);
			kept++;
		}
	}
	pthread_mutex_unlock(&f->lock);
	put32(p, kept);
	put32(p + 4, 0);
	*buf = p;
	*len = at;
	return 0;
}

/* Give buffer @b's cpu index @c the table of @n pairs at @pairs; f->lock held. */
static int set_table(struct tdat_file *f, uint32_t b, uint32_t c,
		     const unsigned char *pairs, uint32_t n, char *err,
		     size_t errlen)
{
	struct tdp_buf *tb;
	uint32_t *sizes;
	char msg[256];

	if (b >= f->nbufs || c >= f->bufs[b].pub.ncpus ||
	    f->bufs[b].kind != TDAT_STREAM_CHUNKS) {
		snprintf(err, errlen, "a kept chunk table names no chunked stream (buffer %" PRIu32
			 ", cpu index %" PRIu32 ")", b, c);
		return -EINVAL;
	}
	tb = &f->bufs[b];
	/* made already: it was read from the file, which is as good */
	if (tb->streams[c] || tb->failed[c])
		return 0;
	sizes = malloc((size_t)n * PAIR + 1);
	if (!sizes)
		return -ENOMEM;
	memcpy(sizes, pairs, (size_t)n * PAIR);
	tb->streams[c] = tdp_stream_new_kept(&f->src, tb->cpus[c].offset,
					     tb->cpus[c].stored_size + tb->extra[c],
					     sizes, n, msg, sizeof(msg));
	free(sizes);
	if (tb->streams[c])
		return 0;
	if (errno == ENOMEM)
		return -ENOMEM;
	snprintf(err, errlen, "the kept chunk table of buffer %s cpu%u does not fit: %s",
		 tdp_buffer_label(f, b), tb->cpus[c].cpu, msg);
	return -EINVAL;
}

int tdat_chunk_tables_load(struct tdat_file *f, const void *buf, size_t len,
			   char *err, size_t errlen)
{
	const unsigned char *p = buf;
	size_t at = TABLES_HEAD;
	uint32_t count;
	int r = 0;

	if (len < TABLES_HEAD || get32(p + 4)) {
		snprintf(err, errlen, "malformed chunk tables (%zu bytes)", len);
		return -EINVAL;
	}
	count = get32(p);
	pthread_mutex_lock(&f->lock);
	for (uint32_t i = 0; !r && i < count; i++) {
		uint32_t n;

		if (len - at < TABLE_HEAD || get32(p + at + 12)) {
			snprintf(err, errlen, "malformed chunk tables (table %" PRIu32 ")", i);
			r = -EINVAL;
			break;
		}
		n = get32(p + at + 8);
		if ((len - at - TABLE_HEAD) / PAIR < n) {
			snprintf(err, errlen, "malformed chunk tables (table %" PRIu32
				 " runs past the end)", i);
			r = -EINVAL;
			break;
		}
		r = set_table(f, get32(p + at), get32(p + at + 4), p + at + TABLE_HEAD,
			      n, err, errlen);
		at += TABLE_HEAD + (size_t)n * PAIR;
	}
	pthread_mutex_unlock(&f->lock);
	if (!r && at != len) {
		snprintf(err, errlen, "malformed chunk tables (%zu bytes after them)", len - at);
		r = -EINVAL;
	}
	return r;
}
