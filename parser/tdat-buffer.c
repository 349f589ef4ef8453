/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-buffer.c - buffers of trace data (flyrecord instances and latency
 * text): their descriptors from the v7 BUFFER/BUFFER_TEXT options, the
 * checks at open, and the per-CPU streams built lazily on first use.
 *
 * The public functions defined here are documented in tdat.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tdat-cursor.h"

#define CPU_ENTRY	20	/* BUFFER option: u32 cpu, u64 offset, u64 size */
#define CHUNK_COUNT	4	/* u32 chunk count before a chunk stream */
#define CPU_NUMBER_MAX	0x7fffffffu /* above: not a CPU, not counted */

/**
 * tdp_buffer_new() - append a buffer with room for @ncpus CPUs
 * @f: file
 * @name: instance name (copied)
 * @clock: clock name (copied)
 * @page_size: page size of its data
 * @latency: a latency (text) buffer
 * @section: v7 section index or -1
 * @ncpus: capacity of the CPU array; the caller fills it, counting in
 *	@pub.ncpus
 *
 * The returned pointer is valid until the next tdp_buffer_new().
 *
 * Return: the buffer, or NULL on ENOMEM.
 */
struct tdp_buf *tdp_buffer_new(struct tdat_file *f, const char *name,
			       const char *clock, uint32_t page_size,
			       bool latency, long section, unsigned int ncpus)
{
	struct tdp_buf *b;
	void *n = tdp_grow(f->bufs, &f->bufs_cap, f->nbufs + 1, sizeof(*f->bufs), 4);

	if (!n)
		return NULL;
	f->bufs = n;
	b = &f->bufs[f->nbufs];
	memset(b, 0, sizeof(*b));
	b->pub.name = strdup(name);
	b->pub.clock = strdup(clock);
	b->cpus = calloc(ncpus ? ncpus : 1, sizeof(*b->cpus));
	b->streams = calloc(ncpus ? ncpus : 1, sizeof(*b->streams));
	b->failed = calloc(ncpus ? ncpus : 1, sizeof(*b->failed));
	b->extra = calloc(ncpus ? ncpus : 1, sizeof(*b->extra));
	if (!b->pub.name || !b->pub.clock || !b->cpus || !b->streams || !b->failed ||
	    !b->extra) {
		free(b->extra);
		free((char *)b->pub.name);
		free((char *)b->pub.clock);
		free(b->cpus);
		free(b->streams);
		free(b->failed);
		return NULL;
	}
	b->pub.page_size = page_size;
	b->pub.latency = latency;
	b->pub.section = section;
	b->pub.cpus = b->cpus;
	b->kind = TDAT_STREAM_RAW;
	b->order = f->nbufs;
	f->nbufs++;
	return b;
}

/* A string inside option data at *pos; NULL if it has no NUL. */
static const char *opt_string(const struct tdat_option *o, uint32_t *pos)
{
	const char *s = (const char *)o->data + *pos;
	const char *nul;

	if (*pos >= o->size)
		return NULL;
	nul = memchr(s, '\0', o->size - *pos);
	if (!nul)
		return NULL;
	*pos += (uint32_t)(nul - s) + 1;
	return s;
}

static int check_section(struct tdat_file *f, const struct tdat_option *o,
			 uint64_t off, uint16_t id, long *idx)
{
	long k = tdp_find_section(f, off);

	if (k < 0 || f->secs[k].pub.id != id)
		return tdp_fail(f, EINVAL,
				"option %s at offset %llu: offset %llu is not a section with id %u",
				tdat_option_name(o->id), (unsigned long long)o->offset,
				(unsigned long long)off, id);
	if ((f->secs[k].pub.flags & TDAT_SECTION_COMPRESSED) && !f->ops)
		return tdp_fail(f, EINVAL,
				"section %ld (id %u) at offset %llu: compressed, but the file has no compression",
				k, id, (unsigned long long)off);
	*idx = k;
	return 0;
}

static int buffer_option(struct tdat_file *f, const struct tdat_option *o)
{
	uint32_t pos = TDP_SECTION_REF, page, n;
	const char *name, *clock;
	struct tdp_sec *sec;
	struct tdp_buf *b;
	uint64_t start, end, total = 0;
	long k;
	int r;

	if (o->size < TDP_SECTION_REF)
		goto bad;
	r = check_section(f, o, tdat_get64(f, o->data), TDAT_OPT_BUFFER, &k);
	if (r)
		return r;
	name = opt_string(o, &pos);
	clock = name ? opt_string(o, &pos) : NULL;
	if (!clock || o->size - pos < 8)	/* u32 page size, u32 CPU count */
		goto bad;
	/*
	 * trace-cmd 3.1 reads the top buffer's pages in the header's page
	 * size and an instance's in its option's: the top one's is not used.
	 */
	page = *name ? tdat_get32(f, (const char *)o->data + pos) : f->page_size;
	n = tdat_get32(f, (const char *)o->data + pos + 4);
	r = tdp_parse_page_size(f, page, o->offset + pos, "buffer page size");
	if (r)
		return r;
	pos += 8;
	if (n > (o->size - pos) / CPU_ENTRY)
		return tdp_fail(f, EINVAL,
				"option buffer at offset %llu: %u CPUs do not fit in its %u bytes",
				(unsigned long long)o->offset, n, o->size);
	b = tdp_buffer_new(f, name, clock, page, false, k, n);
	if (!b)
		return -ENOMEM;
	sec = &f->secs[k];
	start = sec->pub.offset + TDP_SECTION_HDR;
	end = start + sec->pub.size;
	if (sec->pub.flags & TDAT_SECTION_COMPRESSED)
		b->kind = TDAT_STREAM_CHUNKS;
	for (uint32_t i = 0; i < n; i++, pos += CPU_ENTRY) {
		const char *p = (const char *)o->data + pos;
		struct tdat_cpu_data *c = &b->cpus[b->pub.ncpus];

		c->cpu = tdat_get32(f, p);
		c->offset = tdat_get64(f, p + 4);
		c->stored_size = tdat_get64(f, p + 12);
		if (c->offset > f->file_size || c->stored_size > f->file_size - c->offset)
			return tdp_fail(f, EINVAL,
					"buffer \"%s\" cpu %u: data at offset %llu, size %llu runs past the end of the file (%llu bytes)",
					name, c->cpu, (unsigned long long)c->offset,
					(unsigned long long)c->stored_size,
					(unsigned long long)f->file_size);
		if (c->offset < start || c->stored_size > end - c->offset)
			return tdp_fail(f, EINVAL,
					"buffer \"%s\" cpu %u: data at offset %llu, size %llu is outside its section at offset %llu",
					name, c->cpu, (unsigned long long)c->offset,
					(unsigned long long)c->stored_size,
					(unsigned long long)sec->pub.offset);
		/*
		 * trace-cmd 3.1 records a chunk stream's size without its
		 * u32 chunk count; take the count in when it fits.
		 */
		b->extra[b->pub.ncpus] = b->kind == TDAT_STREAM_CHUNKS &&
			end - c->offset - c->stored_size >= CHUNK_COUNT ?
			CHUNK_COUNT : 0;
		total += c->stored_size;
		/* A CPU without data is dropped, as in v6: what a buffer
		 * costs follows the data the file holds, not its count. */
		if (c->stored_size)
			b->pub.ncpus++;
	}
	if (b->kind == TDAT_STREAM_RAW) {
		sec->pub.data_size = sec->data_size = total;
		sec->size_known = true;
	}
	return 0;
bad:
	return tdp_fail(f, EINVAL, "option buffer at offset %llu: truncated (%u bytes)",
			(unsigned long long)o->offset, o->size);
}

static int buffer_text_option(struct tdat_file *f, const struct tdat_option *o)
{
	uint32_t pos = TDP_SECTION_REF;
	const char *name, *clock;
	struct tdp_sec *sec;
	struct tdp_buf *b;
	long k;
	int r;

	if (o->size < TDP_SECTION_REF)
		goto bad;
	r = check_section(f, o, tdat_get64(f, o->data), TDAT_OPT_BUFFER_TEXT, &k);
	if (r)
		return r;
	name = opt_string(o, &pos);
	clock = name ? opt_string(o, &pos) : NULL;
	if (!clock)
		goto bad;
	b = tdp_buffer_new(f, name, clock, f->page_size, true, k, 1);
	if (!b)
		return -ENOMEM;
	sec = &f->secs[k];
	b->cpus[0].cpu = 0;
	b->cpus[0].offset = sec->pub.offset + TDP_SECTION_HDR;
	b->cpus[0].stored_size = sec->pub.size;
	b->pub.ncpus = 1;
	if (sec->pub.flags & TDAT_SECTION_COMPRESSED) {
		b->kind = TDAT_STREAM_CHUNKS;
	} else {
		sec->pub.data_size = sec->data_size = sec->pub.size;
		sec->size_known = true;
	}
	return 0;
bad:
	return tdp_fail(f, EINVAL, "option buffer_text at offset %llu: truncated (%u bytes)",
			(unsigned long long)o->offset, o->size);
}

/**
 * tdp_buffers_v7() - build the buffers from the BUFFER and BUFFER_TEXT
 * options, checking each CPU's data range against the file and its section
 * @f: file with sections and options read
 *
 * Return: 0, -EINVAL (message set) or -ENOMEM.
 */
int tdp_buffers_v7(struct tdat_file *f)
{
	for (size_t i = 0; i < f->nopts; i++) {
		const struct tdat_option *o = &f->opts[i];
		int r = 0;

		if (o->id == TDAT_OPT_BUFFER)
			r = buffer_option(f, o);
		else if (o->id == TDAT_OPT_BUFFER_TEXT)
			r = buffer_text_option(f, o);
		else if (o->id == TDAT_OPT_CPUCOUNT && o->size >= 4 && !f->cpu_count)
			f->cpu_count = tdat_get32(f, o->data);
		if (r)
			return r;
	}
	return 0;
}

/**
 * tdp_buffers_finish() - put the top buffer first, link sections to
 * their buffers and settle the CPU count
 * @f: file with its buffers read
 *
 * Return: 0.
 */
int tdp_buffers_finish(struct tdat_file *f)
{
	for (size_t i = 0; i < f->nbufs; i++) {
		if (!f->bufs[i].pub.name[0]) {
			struct tdp_buf top = f->bufs[i];

			memmove(&f->bufs[1], &f->bufs[0], i * sizeof(*f->bufs));
			f->bufs[0] = top;
			break;
		}
	}
	for (size_t i = 0; i < f->nbufs; i++) {
		struct tdp_buf *b = &f->bufs[i];

		if (b->pub.section >= 0)
			f->secs[b->pub.section].buffer = (long)i;
		if (!f->cpu_count && f->version < 7)
			f->cpu_count = f->header_cpus;
	}
	if (!f->cpu_count) {
		for (size_t i = 0; i < f->nbufs; i++)
			for (unsigned int c = 0; c < f->bufs[i].pub.ncpus; c++)
				if (f->bufs[i].cpus[c].cpu >= f->cpu_count &&
				    f->bufs[i].cpus[c].cpu < CPU_NUMBER_MAX)
					f->cpu_count = f->bufs[i].cpus[c].cpu + 1;
	}
	return 0;
}

/**
 * tdp_buffers_free() - free the buffers and their streams
 * @f: file
 */
void tdp_buffers_free(struct tdat_file *f)
{
	for (size_t i = 0; i < f->nbufs; i++) {
		struct tdp_buf *b = &f->bufs[i];

		for (unsigned int c = 0; c < b->pub.ncpus; c++)
			tdp_stream_free(b->streams[c]);
		free(b->streams);
		free(b->failed);
		free(b->extra);
		free(b->cpus);
		free((char *)b->pub.name);
		free((char *)b->pub.clock);
	}
	free(f->bufs);
	f->bufs = NULL;
	f->nbufs = 0;
}

size_t tdat_buffer_count(const struct tdat_file *f)
{
	return f->nbufs;
}

const struct tdat_buffer *tdat_buffer_get(const struct tdat_file *f, size_t i)
{
	return i < f->nbufs ? &f->bufs[i].pub : NULL;
}

/*
 * A stream that could not be made for want of memory is tried again at
 * the next read: only a stream the file does not allow is failed for good
 * (reads of it are -EIO, which the text engine takes for damage).
 */
static bool no_memory(int err)
{
	return err == ENOMEM || err == EAGAIN;
}

/* Caller holds f->lock; NULL: b->failed[c] says for good or not. */
static struct tdp_stream *cpu_stream_locked(struct tdat_file *f,
					    struct tdp_buf *b, size_t c)
{
	struct tdp_stream_damage d;
	struct tdat_error e;
	char msg[256];

	if (b->streams[c] || b->failed[c])
		return b->streams[c];
	if (b->kind != TDAT_STREAM_CHUNKS) {
		b->streams[c] = tdp_stream_new(&f->src, b->kind, b->cpus[c].offset,
					       b->cpus[c].stored_size + b->extra[c],
					       msg, sizeof(msg));
		b->failed[c] = !b->streams[c] && !no_memory(errno);
		return b->streams[c];
	}
	/*
	 * A damaged chunk table costs only the chunks from the damage on:
	 * the ones before it are served, one page after them reads as EIO.
	 */
	b->streams[c] = tdp_stream_new_tolerant(&f->src, b->cpus[c].offset,
						b->cpus[c].stored_size + b->extra[c],
						b->pub.page_size, &d, msg,
						sizeof(msg));
	b->failed[c] = !b->streams[c] && !no_memory(errno);
	if (b->streams[c] && d.table) {
		memset(&e, 0, sizeof(e));
		snprintf(e.what, sizeof(e.what),
			 "chunk table of buffer %s cpu%u is damaged at chunk %u",
			 tdp_buffer_label(f, (size_t)(b - f->bufs)),
			 b->cpus[c].cpu, d.chunk);
		e.offset = d.hdr;
		e.stored_size = d.stored;
		e.buffer = (size_t)(b - f->bufs);
		e.cpu = (unsigned int)c;
		e.start = d.start;
		e.length = d.length;
		tdp_error_add(f, &e);
	}
	return b->streams[c];
}

static int cpu_stream(struct tdat_file *f, size_t b, size_t c,
		      struct tdp_stream **out)
{
	struct tdp_buf *buf;
	int r;

	if (b >= f->nbufs || c >= f->bufs[b].pub.ncpus)
		return -ENOENT;
	buf = &f->bufs[b];
	pthread_mutex_lock(&f->lock);
	*out = cpu_stream_locked(f, buf, c);
	r = *out ? 0 : buf->failed[c] ? -EIO : -ENOMEM;
	pthread_mutex_unlock(&f->lock);
	return r;
}

int tdat_cpu_size(struct tdat_file *f, size_t b, size_t c, uint64_t *size)
{
	struct tdp_stream *s;
	int r = cpu_stream(f, b, c, &s);

	if (!r)
		*size = tdp_stream_size(s);
	return r;
}

/*
 * A read of CPU @c of buffer @b that failed at @d (@hit) or with -EIO
 * before any damage was found (a chunk or raw range the file no longer
 * holds): when the file is shorter now than at open, record that it
 * shrank, where, and return true.
 */
static bool cpu_shrank(struct tdat_file *f, size_t b, size_t c,
		       struct tdp_stream *s, struct tdp_stream_damage *d,
		       bool hit, uint64_t off)
{
	struct tdat_error e;
	struct stat st;

	if (fstat(f->fd, &st) || (uint64_t)st.st_size >= f->file_size)
		return false;
	if (!hit && tdp_stream_locate(s, off, d))
		return true;
	memset(&e, 0, sizeof(e));
	if (f->bufs[b].kind == TDAT_STREAM_CHUNKS)
		snprintf(e.what, sizeof(e.what), "chunk %u of ", d->chunk);
	snprintf(e.what + strlen(e.what), sizeof(e.what) - strlen(e.what),
		 "buffer %s cpu%u cannot be read: the file shrank from %llu to %llu bytes",
		 tdp_buffer_label(f, b), f->bufs[b].cpus[c].cpu,
		 (unsigned long long)f->file_size, (unsigned long long)st.st_size);
	e.offset = d->hdr;
	e.stored_size = d->stored;
	e.buffer = b;
	e.cpu = (unsigned int)c;
	e.start = d->start;
	e.length = d->length;
	tdp_error_add(f, &e);
	return true;
}

ssize_t tdat_cpu_read(struct tdat_file *f, size_t b, size_t c, void *buf,
		      size_t len, uint64_t off)
{
	struct tdp_stream_damage d;
	struct tdp_stream *s;
	struct tdat_error e;
	bool hit;
	ssize_t n;
	int r = cpu_stream(f, b, c, &s);

	if (r)
		return r;
	d.first = false;
	n = tdp_stream_read_partial(s, buf, len, off, &d, &hit);
	/* Not damage but a file cut under us: say so, and no text around it. */
	if ((hit || n == -EIO || n == -ESTALE) && cpu_shrank(f, b, c, s, &d, hit, off))
		return -ESTALE;
	/* One read per damaged chunk sees it first: that one records it. */
	if (hit && d.first && !d.table) {
		memset(&e, 0, sizeof(e));
		snprintf(e.what, sizeof(e.what),
			 "chunk %u of buffer %s cpu%u does not decompress",
			 d.chunk, tdp_buffer_label(f, b), f->bufs[b].cpus[c].cpu);
		e.offset = d.hdr;
		e.stored_size = d.stored;
		e.buffer = b;
		e.cpu = (unsigned int)c;
		e.start = d.start;
		e.length = d.length;
		tdp_error_add(f, &e);
	}
	return n;
}

int tdat_cpu_mark_damaged(struct tdat_file *f, size_t b, size_t c, uint64_t off,
			  uint64_t len, const char *why)
{
	struct tdp_stream_damage w;
	struct tdp_stream *s;
	struct tdat_error e;
	int r = cpu_stream(f, b, c, &s);

	if (r)
		return r;
	if (tdp_stream_locate(s, off, &w))
		return -ENOENT;
	memset(&e, 0, sizeof(e));
	if (f->bufs[b].kind == TDAT_STREAM_CHUNKS) {
		snprintf(e.what, sizeof(e.what),
			 "page at offset %llu of buffer %s cpu%u %s (in chunk %u)",
			 (unsigned long long)off, tdp_buffer_label(f, b),
			 f->bufs[b].cpus[c].cpu, why ? why : "is damaged", w.chunk);
		e.offset = w.hdr;
		e.stored_size = w.stored;
	} else {
		snprintf(e.what, sizeof(e.what), "page at offset %llu of buffer %s cpu%u %s",
			 (unsigned long long)off, tdp_buffer_label(f, b),
			 f->bufs[b].cpus[c].cpu, why ? why : "is damaged");
		e.offset = w.hdr;
		e.stored_size = len;
	}
	e.buffer = b;
	e.cpu = (unsigned int)c;
	e.start = off;
	e.length = len;
	return tdp_error_add(f, &e);
}

const struct tdat_section *tdat_section_get(const struct tdat_file *f, size_t i)
{
	return i < f->nsecs ? &f->secs[i].pub : NULL;
}

int tdat_section_data_size(struct tdat_file *f, size_t i, uint64_t *size)
{
	struct tdp_sec *s;

	if (i >= f->nsecs)
		return -ENOENT;
	s = &f->secs[i];
	pthread_mutex_lock(&f->lock);
	if (!s->size_known) {
		uint64_t total = 0;
		struct tdp_buf *b = s->buffer >= 0 ? &f->bufs[s->buffer] : NULL;

		for (unsigned int c = 0; b && c < b->pub.ncpus; c++) {
			struct tdp_stream *st = cpu_stream_locked(f, b, c);

			if (!st) {
				total = 0;
				break;
			}
			total += tdp_stream_size(st);
		}
		s->data_size = b ? total : s->pub.size;
		s->size_known = true;
	}
	*size = s->data_size;
	pthread_mutex_unlock(&f->lock);
	return 0;
}
