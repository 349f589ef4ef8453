/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-input-v7.c - the v7 layout after the initial header: a run of
 * sections from there to the end of the file, the STRINGS data that names
 * them, and the chain of OPTIONS sections (each ends with a DONE option
 * holding the offset of the next one, 0 for the last); then the metadata
 * and buffer sections the options point to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-cursor.h"

#define OPTION_HDR	6	/* u16 id, u32 size */
#define DONE_SIZE	8	/* DONE: u64 offset of the next OPTIONS section */


static int walk_sections(struct tdat_file *f, uint64_t pos)
{
	size_t cap = 0;

	while (pos < f->file_size) {
		uint8_t h[TDP_SECTION_HDR];
		struct tdp_sec *s;
		uint64_t size;
		void *nw;
		int r;

		if (f->file_size - pos < TDP_SECTION_HDR)
			return tdp_fail(f, EINVAL,
					"truncated section header at offset %llu (%llu bytes left)",
					(unsigned long long)pos,
					(unsigned long long)(f->file_size - pos));
		r = tdp_pread_all(f, h, sizeof(h), pos, "section header");
		if (r)
			return r;
		size = tdat_get64(f, h + 8);
		if (size > f->file_size - pos - TDP_SECTION_HDR)
			return tdp_fail(f, EINVAL,
					"section %zu (id %u) at offset %llu: size %llu runs past the end of the file (%llu bytes)",
					f->nsecs, tdat_get16(f, h),
					(unsigned long long)pos,
					(unsigned long long)size,
					(unsigned long long)f->file_size);
		nw = tdp_grow(f->secs, &cap, f->nsecs + 1, sizeof(*f->secs), 16);
		if (!nw)
			return -ENOMEM;
		f->secs = nw;
		s = &f->secs[f->nsecs++];
		memset(s, 0, sizeof(*s));
		s->pub.id = tdat_get16(f, h);
		s->pub.flags = tdat_get16(f, h + 2);
		/* Keep the raw string id in data_size until strings are read. */
		s->pub.data_size = tdat_get32(f, h + 4);
		s->pub.offset = pos;
		s->pub.size = size;
		s->buffer = -1;
		pos += TDP_SECTION_HDR + size;
	}
	return 0;
}

static bool is_buffer_section(uint16_t id)
{
	return id == TDAT_OPT_BUFFER || id == TDAT_OPT_BUFFER_TEXT;
}

static bool is_known_section(uint16_t id)
{
	return id == TDAT_OPT_DONE || id == TDAT_OPT_STRINGS ||
	       (id >= TDAT_OPT_HEADER_INFO && id <= TDAT_OPT_CMDLINES) ||
	       id == TDAT_OPT_BTF_FILE || id == TDAT_OPT_MODULES_FILE;
}

/* Give every non-buffer section a payload stream and its decoded size. */
static int section_streams(struct tdat_file *f)
{
	for (size_t i = 0; i < f->nsecs; i++) {
		struct tdp_sec *s = &f->secs[i];
		bool comp = s->pub.flags & TDAT_SECTION_COMPRESSED;
		uint32_t desc = (uint32_t)s->pub.data_size;

		s->pub.description = NULL;
		if (desc != TDP_NO_STRING && desc < f->strings_len)
			s->pub.description = f->strings + desc;
		/* a compressed buffer's size waits for tdat_section_data_size() */
		s->pub.data_size = s->data_size = s->pub.size;
		if (is_buffer_section(s->pub.id)) {
			s->pub.data_size = 0;
			continue;
		}
		s->size_known = true;
		if (comp && !f->ops) {
			if (!is_known_section(s->pub.id))
				continue;
			return tdp_fail(f, EINVAL,
					"section %zu (id %u) at offset %llu: compressed, but the file has no compression",
					i, s->pub.id, (unsigned long long)s->pub.offset);
		}
		s->s = tdp_stream_own(f, comp ? TDAT_STREAM_BLOCK : TDAT_STREAM_RAW,
				      s->pub.offset + TDP_SECTION_HDR, s->pub.size);
		if (!s->s) {
			if (errno == ENOMEM)
				return -ENOMEM;
			if (is_known_section(s->pub.id))
				return -EINVAL;
			/* An unknown section may be anything: keep going. */
			if (f->err)
				f->err[0] = '\0';
			continue;
		}
		s->pub.data_size = s->data_size = tdp_stream_size(s->s);
	}
	return 0;
}

static int read_strings(struct tdat_file *f)
{
	size_t len = 0, cap = 0;

	for (size_t i = 0; i < f->nsecs; i++) {
		struct tdp_sec *s = &f->secs[i];
		bool comp = s->pub.flags & TDAT_SECTION_COMPRESSED;
		struct tdp_stream *st;
		uint64_t sz;
		ssize_t r;
		char *n;

		if (s->pub.id != TDAT_OPT_STRINGS)
			continue;
		if (comp && !f->ops)
			return tdp_fail(f, EINVAL,
					"section %zu (id 15) at offset %llu: compressed, but the file has no compression",
					i, (unsigned long long)s->pub.offset);
		st = tdp_stream_own(f, comp ? TDAT_STREAM_BLOCK : TDAT_STREAM_RAW,
				    s->pub.offset + TDP_SECTION_HDR, s->pub.size);
		if (!st)
			return -errno;
		s->s = st;
		sz = tdp_stream_size(st);
		if (sz > TDP_MAX_STRINGS || len + sz + 1 > TDP_MAX_STRINGS)
			return tdp_fail(f, EINVAL,
					"section %zu (id 15) at offset %llu: %llu bytes of strings, over the limit of %u MiB",
					i, (unsigned long long)s->pub.offset,
					(unsigned long long)(len + sz), TDP_MAX_STRINGS >> 20);
		n = tdp_grow(f->strings, &cap, len + (size_t)sz + 1, 1, 0);
		if (!n)
			return -ENOMEM;
		f->strings = n;
		r = tdp_stream_read(st, f->strings + len, (size_t)sz, 0);
		if (r != (ssize_t)sz)
			return tdp_fail(f, EINVAL,
					"section %zu (id 15) at offset %llu: cannot read the strings",
					i, (unsigned long long)s->pub.offset);
		len += (size_t)sz;
		f->strings[len] = '\0';
	}
	f->strings_len = len;
	return 0;
}

/* Parse one OPTIONS section; *next gets the DONE offset (0 = last). */
static int read_options_section(struct tdat_file *f, size_t i, uint64_t *next)
{
	struct tdp_sec *s = &f->secs[i];
	bool comp = s->pub.flags & TDAT_SECTION_COMPRESSED;
	uint64_t base = s->pub.offset + TDP_SECTION_HDR;
	uint64_t len, pos = 0;
	uint8_t *buf;
	int r = 0;

	*next = 0;
	if (!s->s)
		return tdp_fail(f, EINVAL, "options section at offset %llu cannot be read",
				(unsigned long long)s->pub.offset);
	len = tdp_stream_size(s->s);
	/* the options are kept in memory: refuse before allocating a lie */
	if (len > TDP_MAX_OPTIONS)
		return tdp_fail(f, EINVAL,
				"options section at offset %llu: %llu bytes, over the limit of %u MiB",
				(unsigned long long)s->pub.offset,
				(unsigned long long)len, TDP_MAX_OPTIONS >> 20);
	buf = malloc(len ? (size_t)len : 1);
	if (!buf)
		return -ENOMEM;
	if (tdp_stream_read(s->s, buf, (size_t)len, 0) != (ssize_t)len) {
		r = tdp_fail(f, EINVAL, "options section at offset %llu cannot be read",
			     (unsigned long long)s->pub.offset);
		goto out;
	}
	while (pos < len) {
		uint16_t id;
		uint32_t size;
		uint64_t at;

		if (len - pos < OPTION_HDR) {
			r = comp ? tdp_fail(f, EINVAL,
					    "truncated option header at offset %llu of the options section at offset %llu",
					    (unsigned long long)pos,
					    (unsigned long long)s->pub.offset) :
				   tdp_fail(f, EINVAL, "truncated option header at offset %llu",
					    (unsigned long long)(base + pos));
			goto out;
		}
		id = tdat_get16(f, buf + pos);
		size = tdat_get32(f, buf + pos + 2);
		at = comp ? s->pub.offset : base + pos + OPTION_HDR;
		if (size > len - pos - OPTION_HDR) {
			r = tdp_fail(f, EINVAL,
				     "option %u at offset %llu: size %u runs past its section (at offset %llu, %llu bytes)",
				     id, (unsigned long long)(comp ? s->pub.offset : base + pos),
				     size, (unsigned long long)s->pub.offset,
				     (unsigned long long)len);
			goto out;
		}
		r = tdp_option_add(f, id, size, at, buf + pos + OPTION_HDR);
		if (r)
			goto out;
		pos += OPTION_HDR + (uint64_t)size;
		if (id == TDAT_OPT_DONE) {
			if (size != DONE_SIZE) {
				r = tdp_fail(f, EINVAL, "DONE option at offset %llu: size %u, not 8",
					     (unsigned long long)at, size);
				goto out;
			}
			*next = tdat_get64(f, buf + pos - DONE_SIZE);
			break;
		}
	}
out:
	free(buf);
	return r;
}

static int read_options(struct tdat_file *f, uint64_t first)
{
	bool *seen = calloc(f->nsecs ? f->nsecs : 1, sizeof(*seen));
	uint64_t off = first;
	unsigned int chain = 0;
	int r = 0;

	if (!seen)
		return -ENOMEM;
	do {
		long i = tdp_find_section(f, off);

		if (i < 0 || f->secs[i].pub.id != TDAT_OPT_DONE) {
			r = tdp_fail(f, EINVAL,
				     chain ? "option chain: offset %llu is not an OPTIONS section header" :
				     "first options offset %llu is not an OPTIONS section header",
				     (unsigned long long)off);
			break;
		}
		if (seen[i] || ++chain > TDP_MAX_OPTION_CHAIN) {
			r = tdp_fail(f, EINVAL, "option chain loops back to offset %llu",
				     (unsigned long long)off);
			break;
		}
		seen[i] = true;
		r = read_options_section(f, (size_t)i, &off);
	} while (!r && off);
	free(seen);
	return r;
}

/**
 * tdp_open_v7() - read a v7 file after its initial header
 * @f: file, initial header read
 * @first_options: file offset of the first OPTIONS section header
 * @after: file offset just after the initial header (the first section)
 *
 * Return: 0, -EINVAL or -EPROTONOSUPPORT (message set), or -ENOMEM.
 */
int tdp_open_v7(struct tdat_file *f, uint64_t first_options, uint64_t after)
{
	int r;

	/* Sections are contiguous from the end of the header to EOF. */
	r = walk_sections(f, after);
	if (r)
		return r;
	r = read_strings(f);
	if (r)
		return r;
	r = section_streams(f);
	if (r)
		return r;
	r = read_options(f, first_options);
	if (r)
		return r;
	r = tdp_meta_v7(f);
	if (r)
		return r;
	return tdp_buffers_v7(f);
}
