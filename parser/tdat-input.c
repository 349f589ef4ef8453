/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-input.c - open a trace.dat file: the initial header, the v7 section
 * table, the STRINGS data and the option chain; plus the small accessors
 * and parsing helpers the other reader files share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-private.h"

#define TDAT_DEFAULT_CACHE	(64ull << 20)

static const char *const option_names[TDAT_OPT_MAX] = {
	[TDAT_OPT_DONE] = "done",
	[TDAT_OPT_DATE] = "date",
	[TDAT_OPT_CPUSTAT] = "cpustat",
	[TDAT_OPT_BUFFER] = "buffer",
	[TDAT_OPT_TRACECLOCK] = "traceclock",
	[TDAT_OPT_UNAME] = "uname",
	[TDAT_OPT_HOOK] = "hook",
	[TDAT_OPT_OFFSET] = "offset",
	[TDAT_OPT_CPUCOUNT] = "cpucount",
	[TDAT_OPT_VERSION] = "version",
	[TDAT_OPT_PROCMAPS] = "procmaps",
	[TDAT_OPT_TRACEID] = "traceid",
	[TDAT_OPT_TIME_SHIFT] = "time_shift",
	[TDAT_OPT_GUEST] = "guest",
	[TDAT_OPT_TSC2NSEC] = "tsc2nsec",
	[TDAT_OPT_STRINGS] = "strings",
	[TDAT_OPT_HEADER_INFO] = "header_info",
	[TDAT_OPT_FTRACE_EVENTS] = "ftrace_events",
	[TDAT_OPT_EVENT_FORMATS] = "event_formats",
	[TDAT_OPT_KALLSYMS] = "kallsyms",
	[TDAT_OPT_PRINTK] = "printk",
	[TDAT_OPT_CMDLINES] = "cmdlines",
	[TDAT_OPT_BUFFER_TEXT] = "buffer_text",
	[TDAT_OPT_BTF_FILE] = "btf_file",
	[TDAT_OPT_LAST_BOOT_INFO] = "last_boot_info",
	[TDAT_OPT_MODULES_FILE] = "modules_file",
};

/**
 * tdat_fail() - record the open error message (the first one wins)
 * @f: file being opened
 * @errnum: positive errno to return negated
 * @fmt: printf format of the one-line message
 *
 * Return: -@errnum.
 */
int tdat_fail(struct tdat_file *f, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (f->err && f->errlen && !f->err[0]) {
		va_start(ap, fmt);
		vsnprintf(f->err, f->errlen, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

/**
 * tdat_pread_all() - read exactly @len bytes at @off of the file
 * @f: file
 * @buf: destination
 * @len: bytes
 * @off: file offset
 * @what: what is read, for the message
 *
 * Return: 0, -EINVAL when the range passes the end of the file, or the
 * negative errno of a failed read.
 */
int tdat_pread_all(struct tdat_file *f, void *buf, size_t len, uint64_t off,
		   const char *what)
{
	size_t done;
	int r;

	if (off > f->file_size || len > f->file_size - off)
		return tdat_fail(f, EINVAL, "truncated %s at offset %llu", what,
				 (unsigned long long)off);
	r = tdp_pread_full(f->fd, buf, len, off, &done);
	if (r == -EIO)
		return tdat_fail(f, EINVAL, "truncated %s at offset %llu",
				 what, (unsigned long long)off);
	if (r)
		return tdat_fail(f, -r, "read error at offset %llu: %s",
				 (unsigned long long)(off + done), strerror(-r));
	return 0;
}

/**
 * tdat_stream_own() - create a stream that the file owns
 * @f: file
 * @kind: layout
 * @off: file offset of the stream
 * @size: stored size
 *
 * Return: the stream (freed by tdat_close()), or NULL with the open error
 * message set and errno set.
 */
struct tdat_stream *tdat_stream_own(struct tdat_file *f, enum tdat_stream_kind kind,
				    uint64_t off, uint64_t size)
{
	char msg[256] = "";
	struct tdat_stream *s;
	void *n;

	n = tdp_grow(f->streams, &f->streams_cap, f->nstreams + 1,
		     sizeof(*f->streams), 16);
	if (!n)
		return NULL;
	f->streams = n;
	s = tdat_stream_new(&f->src, kind, off, size, msg, sizeof(msg));
	if (!s) {
		int e = errno ? errno : EINVAL;

		if (msg[0])
			tdat_fail(f, e, "%s", msg);
		else
			tdat_fail(f, e, "bad data stream at offset %llu",
				  (unsigned long long)off);
		errno = e;
		return NULL;
	}
	f->streams[f->nstreams++] = s;
	return s;
}

/**
 * tdat_option_add() - append a copy of an option
 * @f: file
 * @id: option id
 * @size: data size
 * @offset: file offset of the data (for a compressed OPTIONS section: of
 *	the section header)
 * @data: the bytes, copied
 *
 * Return: 0 or -ENOMEM.
 */
int tdat_option_add(struct tdat_file *f, uint16_t id, uint32_t size,
		    uint64_t offset, const void *data)
{
	struct tdat_option *o;
	void *copy, *n;

	n = tdp_grow(f->opts, &f->opts_cap, f->nopts + 1, sizeof(*f->opts), 32);
	if (!n)
		return -ENOMEM;
	f->opts = n;
	/* One spare byte keeps string options NUL-terminated for us. */
	copy = malloc((size_t)size + 1);
	if (!copy)
		return -ENOMEM;
	if (size)
		memcpy(copy, data, size);
	((char *)copy)[size] = '\0';
	o = &f->opts[f->nopts++];
	o->id = id;
	o->size = size;
	o->offset = offset;
	o->data = copy;
	return 0;
}

/* --- cursor over metadata ---------------------------------------------- */

/**
 * tdat_where() - describe a payload position for a message
 * @c: cursor
 * @pos: payload offset
 * @buf: output
 * @len: size of @buf
 *
 * Return: @buf, "offset N" (a file offset) or "offset N of the section at
 * offset M" for a compressed section.
 */
const char *tdat_where(const struct tdat_cur *c, uint64_t pos, char *buf,
		       size_t len)
{
	if (c->raw)
		snprintf(buf, len, "offset %llu",
			 (unsigned long long)(c->base + pos));
	else
		snprintf(buf, len, "offset %llu of the section at offset %llu",
			 (unsigned long long)pos, (unsigned long long)c->sec_off);
	return buf;
}

static int cur_get(struct tdat_cur *c, void *buf, size_t len, uint64_t pos)
{
	ssize_t r;

	if (c->mem) {
		memcpy(buf, c->mem + pos, len);
		return 0;
	}
	r = tdat_stream_read(c->s, buf, len, pos);
	if (r < 0)
		return (int)r;
	return (size_t)r == len ? 0 : -EIO;
}

/**
 * tdat_cur_read() - read @len bytes and advance
 * @c: cursor
 * @buf: destination, or NULL to only check and skip
 * @len: bytes
 * @what: what is read, for the message
 *
 * Return: 0, or -EINVAL (message set) when the payload is too short.
 */
int tdat_cur_read(struct tdat_cur *c, void *buf, uint64_t len, const char *what)
{
	char w[96];
	int r;

	if (len > c->end - c->pos)
		return tdat_fail(c->f, EINVAL, "truncated %s at %s (needs %llu bytes, %llu left)",
				 what, tdat_where(c, c->pos, w, sizeof(w)),
				 (unsigned long long)len,
				 (unsigned long long)(c->end - c->pos));
	if (buf) {
		r = cur_get(c, buf, (size_t)len, c->pos);
		if (r)
			return tdat_fail(c->f, -r, "cannot read %s at %s", what,
					 tdat_where(c, c->pos, w, sizeof(w)));
	}
	c->pos += len;
	return 0;
}

/**
 * tdat_cur_skip() - advance @len bytes after checking they exist
 * @c: cursor
 * @len: bytes
 * @what: for the message
 *
 * Return: 0 or -EINVAL.
 */
int tdat_cur_skip(struct tdat_cur *c, uint64_t len, const char *what)
{
	return tdat_cur_read(c, NULL, len, what);
}

/**
 * tdat_cur_peek() - copy up to @len bytes at the position, not advancing
 * @c: cursor
 * @buf: destination
 * @len: maximum bytes
 *
 * Return: bytes copied (>= 0), or a negative errno.
 */
int tdat_cur_peek(struct tdat_cur *c, void *buf, size_t len)
{
	int r;

	if (len > c->end - c->pos)
		len = (size_t)(c->end - c->pos);
	r = cur_get(c, buf, len, c->pos);
	return r ? r : (int)len;
}

/**
 * tdat_cur_u32() - read a u32 in file endianness
 * @c: cursor
 * @v: result
 * @what: for the message
 *
 * Return: 0 or a negative errno.
 */
int tdat_cur_u32(struct tdat_cur *c, uint32_t *v, const char *what)
{
	uint8_t b[4];
	int r = tdat_cur_read(c, b, 4, what);

	if (!r)
		*v = tdat_get32(c->f, b);
	return r;
}

/**
 * tdat_cur_u64() - read a u64 in file endianness
 * @c: cursor
 * @v: result
 * @what: for the message
 *
 * Return: 0 or a negative errno.
 */
int tdat_cur_u64(struct tdat_cur *c, uint64_t *v, const char *what)
{
	uint8_t b[8];
	int r = tdat_cur_read(c, b, 8, what);

	if (!r)
		*v = tdat_get64(c->f, b);
	return r;
}

/**
 * tdat_cur_string() - read a NUL-terminated string of at most
 * TDAT_MAX_STRING bytes
 * @c: cursor
 * @out: set to a new string (the caller frees it)
 * @what: for the message
 *
 * Return: 0, -EINVAL (no NUL in reach), or -ENOMEM.
 */
int tdat_cur_string(struct tdat_cur *c, char **out, const char *what)
{
	char buf[TDAT_MAX_STRING];
	char w[96];
	char *nul;
	int n = tdat_cur_peek(c, buf, sizeof(buf));

	if (n < 0)
		return tdat_fail(c->f, -n, "cannot read %s at %s", what,
				 tdat_where(c, c->pos, w, sizeof(w)));
	nul = memchr(buf, '\0', (size_t)n);
	if (!nul)
		return tdat_fail(c->f, EINVAL, "unterminated %s at %s", what,
				 tdat_where(c, c->pos, w, sizeof(w)));
	*out = strdup(buf);
	if (!*out)
		return -ENOMEM;
	c->pos += (uint64_t)(nul - buf) + 1;
	return 0;
}

/**
 * tdat_parse_page_size() - check a page size read from the file
 * @f: file
 * @v: the value
 * @where: its file offset
 * @what: for the message
 *
 * Return: 0, or -EINVAL unless @v is a power of two in sane bounds.
 */
int tdat_parse_page_size(struct tdat_file *f, uint32_t v, uint64_t where,
			 const char *what)
{
	if (v < TDAT_MIN_PAGE || v > TDAT_MAX_PAGE || (v & (v - 1)))
		return tdat_fail(f, EINVAL, "bad %s %u at offset %llu", what, v,
				 (unsigned long long)where);
	return 0;
}

/* --- the initial header ------------------------------------------------ */

static int read_initial_header(struct tdat_file *f, uint64_t *next, uint64_t *after)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					   'c', 'i', 'n', 'g' };
	uint8_t h[160];
	size_t n = f->file_size < sizeof(h) ? (size_t)f->file_size : sizeof(h);
	size_t p, len;
	char *nul;
	int r;

	r = tdat_pread_all(f, h, n, 0, "header");
	if (r)
		return r;
	if (memcmp(h, magic, n < 3 ? n : 3))
		return tdat_fail(f, EINVAL, "not a trace.dat file: bad magic at offset 0");
	if (memcmp(h + 3, magic + 3, n < 10 ? (n > 3 ? n - 3 : 0) : 7))
		return tdat_fail(f, EINVAL, "not a trace.dat file: bad magic at offset 3");
	if (n < 10)
		return tdat_fail(f, EINVAL, "truncated header at offset %zu", n < 3 ? (size_t)0 : (size_t)3);
	nul = memchr(h + 10, '\0', n - 10 < 16 ? n - 10 : 16);
	if (!nul)
		return tdat_fail(f, n < 26 ? EINVAL : EPROTONOSUPPORT,
				 n < 26 ? "truncated header at offset 10" :
				 "unsupported version (not a short string) at offset 10");
	len = (size_t)(nul - (char *)(h + 10));
	if (len != 1 || (h[10] != '6' && h[10] != '7'))
		return tdat_fail(f, EPROTONOSUPPORT,
				 "unsupported version \"%.*s\" at offset 10 (only 6 and 7 are read)",
				 (int)len, (char *)h + 10);
	f->version = (unsigned int)(h[10] - '0');
	p = 12;
	if (n < p + 6)
		return tdat_fail(f, EINVAL, "truncated header at offset %zu",
				 n <= p ? p : (n < p + 2 ? n : p + 2));
	if (h[p] > 1)
		return tdat_fail(f, EINVAL, "bad endianness byte %u at offset %zu",
				 h[p], p);
	f->big_endian = h[p] == 1;
	if (h[p + 1] != 4 && h[p + 1] != 8)
		return tdat_fail(f, EINVAL, "bad long size %u at offset %zu",
				 h[p + 1], p + 1);
	f->long_size = h[p + 1];
	f->page_size = tdat_get32(f, h + p + 2);
	r = tdat_parse_page_size(f, f->page_size, p + 2, "page size");
	if (r)
		return r;
	p += 6;
	if (f->version == 6) {
		strcpy(f->comp_name, "none");
		*next = p;
		*after = p;
		return 0;
	}

	nul = memchr(h + p, '\0', n - p < sizeof(f->comp_name) ? n - p : sizeof(f->comp_name));
	if (!nul)
		return tdat_fail(f, EINVAL, "truncated header at offset %zu (compression name)", p);
	memcpy(f->comp_name, h + p, (size_t)(nul - (char *)h) - p + 1);
	len = (size_t)(nul - (char *)h) + 1;
	nul = memchr(h + len, '\0', n - len < sizeof(f->comp_version) ? n - len : sizeof(f->comp_version));
	if (!nul)
		return tdat_fail(f, EINVAL, "truncated header at offset %zu (compression version)", len);
	memcpy(f->comp_version, h + len, (size_t)(nul - (char *)h) - len + 1);
	if (strcmp(f->comp_name, "none")) {
		f->ops = tdat_compress_find(f->comp_name);
		if (!f->ops)
			return tdat_fail(f, EPROTONOSUPPORT,
					 "unknown compression \"%s\" at offset %zu",
					 f->comp_name, p);
		if (f->ops->supported && f->ops->supported(f->comp_version) < 0)
			return tdat_fail(f, EPROTONOSUPPORT,
					 "unsupported %s version \"%s\" at offset %zu",
					 f->comp_name, f->comp_version, len);
	}
	p = (size_t)(nul - (char *)h) + 1;
	if (n < p + 8)
		return tdat_fail(f, EINVAL, "truncated header at offset %zu", p);
	f->src.ops = f->ops;
	*next = tdat_get64(f, h + p);
	*after = p + 8;
	return 0;
}

/* --- v7 sections, strings, options -------------------------------------- */

static int walk_sections(struct tdat_file *f, uint64_t pos)
{
	size_t cap = 0;

	while (pos < f->file_size) {
		uint8_t h[16];
		struct tdat_sec *s;
		uint64_t size;
		void *nw;
		int r;

		if (f->file_size - pos < 16)
			return tdat_fail(f, EINVAL,
					 "truncated section header at offset %llu (%llu bytes left)",
					 (unsigned long long)pos,
					 (unsigned long long)(f->file_size - pos));
		r = tdat_pread_all(f, h, 16, pos, "section header");
		if (r)
			return r;
		size = tdat_get64(f, h + 8);
		if (size > f->file_size - pos - 16)
			return tdat_fail(f, EINVAL,
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
		pos += 16 + size;
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
		struct tdat_sec *s = &f->secs[i];
		bool comp = s->pub.flags & 1;
		uint32_t desc = (uint32_t)s->pub.data_size;

		s->pub.description = NULL;
		if (desc != 0xffffffffu && desc < f->strings_len)
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
			return tdat_fail(f, EINVAL,
					 "section %zu (id %u) at offset %llu: compressed, but the file has no compression",
					 i, s->pub.id, (unsigned long long)s->pub.offset);
		}
		s->s = tdat_stream_own(f, comp ? TDAT_STREAM_BLOCK : TDAT_STREAM_RAW,
				       s->pub.offset + 16, s->pub.size);
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
		s->pub.data_size = s->data_size = tdat_stream_size(s->s);
	}
	return 0;
}

static int read_strings(struct tdat_file *f)
{
	size_t len = 0, cap = 0;

	for (size_t i = 0; i < f->nsecs; i++) {
		struct tdat_sec *s = &f->secs[i];
		bool comp = s->pub.flags & 1;
		struct tdat_stream *st;
		uint64_t sz;
		ssize_t r;
		char *n;

		if (s->pub.id != TDAT_OPT_STRINGS)
			continue;
		if (comp && !f->ops)
			return tdat_fail(f, EINVAL,
					 "section %zu (id 15) at offset %llu: compressed, but the file has no compression",
					 i, (unsigned long long)s->pub.offset);
		st = tdat_stream_own(f, comp ? TDAT_STREAM_BLOCK : TDAT_STREAM_RAW,
				     s->pub.offset + 16, s->pub.size);
		if (!st)
			return -errno;
		s->s = st;
		sz = tdat_stream_size(st);
		if (sz > TDAT_STREAM_MAX_BLOCK || len + sz + 1 > TDAT_STREAM_MAX_BLOCK)
			return tdat_fail(f, EINVAL, "section %zu (id 15) at offset %llu: strings too big",
					 i, (unsigned long long)s->pub.offset);
		n = tdp_grow(f->strings, &cap, len + (size_t)sz + 1, 1, 0);
		if (!n)
			return -ENOMEM;
		f->strings = n;
		r = tdat_stream_read(st, f->strings + len, (size_t)sz, 0);
		if (r != (ssize_t)sz)
			return tdat_fail(f, EINVAL,
					 "section %zu (id 15) at offset %llu: cannot read the strings",
					 i, (unsigned long long)s->pub.offset);
		len += (size_t)sz;
		f->strings[len] = '\0';
	}
	f->strings_len = len;
	return 0;
}

/**
 * tdat_find_section() - find the section whose header is at @off
 * @f: file
 * @off: file offset
 *
 * Return: the section index, or -1.
 */
long tdat_find_section(const struct tdat_file *f, uint64_t off)
{
	size_t lo = 0, hi = f->nsecs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->secs[mid].pub.offset == off)
			return (long)mid;
		if (f->secs[mid].pub.offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Parse one OPTIONS section; *next gets the DONE offset (0 = last). */
static int read_options_section(struct tdat_file *f, size_t i, uint64_t *next)
{
	struct tdat_sec *s = &f->secs[i];
	bool comp = s->pub.flags & 1;
	uint64_t base = s->pub.offset + 16;
	uint64_t len, pos = 0;
	uint8_t *buf;
	int r = 0;

	*next = 0;
	if (!s->s)
		return tdat_fail(f, EINVAL, "options section at offset %llu cannot be read",
				 (unsigned long long)s->pub.offset);
	len = tdat_stream_size(s->s);
	buf = malloc(len ? (size_t)len : 1);
	if (!buf)
		return -ENOMEM;
	if (tdat_stream_read(s->s, buf, (size_t)len, 0) != (ssize_t)len) {
		r = tdat_fail(f, EINVAL, "options section at offset %llu cannot be read",
			      (unsigned long long)s->pub.offset);
		goto out;
	}
	while (pos < len) {
		uint16_t id;
		uint32_t size;
		uint64_t at;

		if (len - pos < 6) {
			r = comp ? tdat_fail(f, EINVAL,
					     "truncated option header at offset %llu of the options section at offset %llu",
					     (unsigned long long)pos,
					     (unsigned long long)s->pub.offset) :
				   tdat_fail(f, EINVAL, "truncated option header at offset %llu",
					     (unsigned long long)(base + pos));
			goto out;
		}
		id = tdat_get16(f, buf + pos);
		size = tdat_get32(f, buf + pos + 2);
		at = comp ? s->pub.offset : base + pos + 6;
		if (size > len - pos - 6) {
			r = tdat_fail(f, EINVAL,
				      "option %u at offset %llu: size %u runs past its section (at offset %llu, %llu bytes)",
				      id, (unsigned long long)(comp ? s->pub.offset : base + pos),
				      size, (unsigned long long)s->pub.offset,
				      (unsigned long long)len);
			goto out;
		}
		r = tdat_option_add(f, id, size, at, buf + pos + 6);
		if (r)
			goto out;
		pos += 6 + (uint64_t)size;
		if (id == TDAT_OPT_DONE) {
			if (size != 8) {
				r = tdat_fail(f, EINVAL, "DONE option at offset %llu: size %u, not 8",
					      (unsigned long long)at, size);
				goto out;
			}
			*next = tdat_get64(f, buf + pos - 8);
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
		long i = tdat_find_section(f, off);

		if (i < 0 || f->secs[i].pub.id != TDAT_OPT_DONE) {
			r = tdat_fail(f, EINVAL,
				      chain ? "option chain: offset %llu is not an OPTIONS section header" :
				      "first options offset %llu is not an OPTIONS section header",
				      (unsigned long long)off);
			break;
		}
		if (seen[i] || ++chain > TDAT_MAX_OPTION_CHAIN) {
			r = tdat_fail(f, EINVAL, "option chain loops back to offset %llu",
				      (unsigned long long)off);
			break;
		}
		seen[i] = true;
		r = read_options_section(f, (size_t)i, &off);
	} while (!r && off);
	free(seen);
	return r;
}

static int open_v7(struct tdat_file *f, uint64_t first_options, uint64_t after)
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
	r = tdat_meta_v7(f);
	if (r)
		return r;
	return tdat_buffers_v7(f);
}

/**
 * tdat_open() - open and validate a trace.dat file
 * @path: file to open (read-only)
 * @opts: options, or NULL for defaults
 * @err: buffer for a one-line message on failure; may be NULL
 * @errlen: size of @err
 *
 * Return: a new handle (free with tdat_close()), or NULL with errno set.
 */
struct tdat_file *tdat_open(const char *path, const struct tdat_open_opts *opts,
			    char *err, size_t errlen)
{
	struct tdat_file *f;
	uint64_t next = 0, after = 0;
	struct stat st;
	int r;

	if (err && errlen)
		err[0] = '\0';
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = -1;
	f->err = err;
	f->errlen = errlen;
	pthread_mutex_init(&f->lock, NULL);
	r = tdat_errlog_init(f);
	if (r)
		goto fail;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		r = -errno;
		tdat_fail(f, -r, "cannot open: %s", strerror(-r));
		goto fail;
	}
	if (fstat(f->fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		r = tdat_fail(f, EINVAL, "not a regular file");
		goto fail;
	}
	f->file_size = (uint64_t)st.st_size;
	f->cache = tdat_cache_new(opts && opts->cache_size ? (size_t)opts->cache_size :
				  (size_t)TDAT_DEFAULT_CACHE);
	if (!f->cache) {
		r = -errno;
		goto fail;
	}
	f->src.fd = f->fd;
	f->src.file_size = f->file_size;
	f->src.cache = f->cache;

	r = read_initial_header(f, &next, &after);
	if (r)
		goto fail;
	f->src.big_endian = f->big_endian;
	f->src.ops = f->ops;
	f->kernel_long_size = f->long_size;
	if (f->version == 6)
		r = tdat_open_v6(f, next);
	else
		r = open_v7(f, next, after);
	if (r)
		goto fail;
	r = tdat_buffers_finish(f);
	if (r)
		goto fail;
	f->err = NULL;
	f->errlen = 0;
	return f;
fail:
	if (r == -ENOMEM)
		tdat_fail(f, ENOMEM, "out of memory");
	else if (f->err && f->errlen && !f->err[0])
		tdat_fail(f, -r, "%s", strerror(-r));
	f->err = NULL;
	tdat_close(f);
	errno = -r;
	return NULL;
}

/**
 * tdat_close() - release a handle and everything it owns
 * @f: handle, or NULL
 */
void tdat_close(struct tdat_file *f)
{
	if (!f)
		return;
	tdat_buffers_free(f);
	for (size_t i = 0; i < f->nfmts; i++)
		free((char *)f->fmts[i].pub.name);
	free(f->fmts);
	for (size_t i = 0; i < f->nsystems; i++)
		free(f->systems[i]);
	free(f->systems);
	for (size_t i = 0; i < f->nopts; i++)
		free((void *)f->opts[i].data);
	free(f->opts);
	for (size_t i = 0; i < f->nstreams; i++)
		tdat_stream_free(f->streams[i]);
	free(f->streams);
	free(f->secs);
	free(f->strings);
	free(f->traceclock);
	tdat_cache_free(f->cache);
	if (f->fd >= 0)
		close(f->fd);
	pthread_mutex_destroy(&f->lock);
	tdat_errlog_free(f);
	free(f);
}

/* --- accessors ------------------------------------------------------------ */

/** tdat_version() - Return: the file format version, 6 or 7 */
unsigned int tdat_version(const struct tdat_file *f)
{
	return f->version;
}

/** tdat_big_endian() - Return: true for a big-endian file */
bool tdat_big_endian(const struct tdat_file *f)
{
	return f->big_endian;
}

/** tdat_long_size() - Return: the user-space long size of the header */
unsigned int tdat_long_size(const struct tdat_file *f)
{
	return f->long_size;
}

/** tdat_kernel_long_size() - Return: the kernel long size (header_page commit) */
unsigned int tdat_kernel_long_size(const struct tdat_file *f)
{
	return f->kernel_long_size;
}

/** tdat_page_size() - Return: the page size of the file header */
uint32_t tdat_page_size(const struct tdat_file *f)
{
	return f->page_size;
}

/** tdat_compression() - Return: "none", "zlib" or "zstd" */
const char *tdat_compression(const struct tdat_file *f)
{
	return f->comp_name;
}

/** tdat_compression_version() - Return: the compression version, "" for none */
const char *tdat_compression_version(const struct tdat_file *f)
{
	return f->comp_version;
}

/** tdat_file_size() - Return: the size of the trace file */
uint64_t tdat_file_size(const struct tdat_file *f)
{
	return f->file_size;
}

/**
 * tdat_cpu_count() - the number of CPUs of the traced system
 * @f: handle
 *
 * Return: the CPUCOUNT option if present, else the v6 header count, else
 * the largest CPU count of the buffers.
 */
unsigned int tdat_cpu_count(const struct tdat_file *f)
{
	return f->cpu_count;
}

/** tdat_section_count() - Return: the number of v7 sections (0 for v6) */
size_t tdat_section_count(const struct tdat_file *f)
{
	return f->nsecs;
}

/** tdat_option_count() - Return: the number of options, DONE included */
size_t tdat_option_count(const struct tdat_file *f)
{
	return f->nopts;
}

/**
 * tdat_option_get() - one option in file order
 * @f: handle
 * @i: index
 *
 * Return: the option, or NULL when @i is out of range.
 */
const struct tdat_option *tdat_option_get(const struct tdat_file *f, size_t i)
{
	return i < f->nopts ? &f->opts[i] : NULL;
}

/**
 * tdat_option_name() - lower-case name of an option id
 * @id: option id
 *
 * Return: the name, or NULL for an unknown id.
 */
const char *tdat_option_name(unsigned int id)
{
	return id < TDAT_OPT_MAX ? option_names[id] : NULL;
}

/** tdat_get16() - Return: the u16 at @p in file endianness */
uint16_t tdat_get16(const struct tdat_file *f, const void *p)
{
	return tdp_get16(f->big_endian, p);
}

/** tdat_get32() - Return: the u32 at @p in file endianness */
uint32_t tdat_get32(const struct tdat_file *f, const void *p)
{
	return tdp_get32(f->big_endian, p);
}

/** tdat_get64() - Return: the u64 at @p in file endianness */
uint64_t tdat_get64(const struct tdat_file *f, const void *p)
{
	return tdp_get64(f->big_endian, p);
}
