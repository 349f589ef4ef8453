/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-cursor.c - what every part of the reader shares while a file is
 * opened: the open error message, checked reads of the file, the file's
 * option and stream tables, and the cursor over metadata payloads.  It
 * sits on the streams and under every format reader; it calls none of
 * them.
 *
 * The public functions defined here are documented in tdat.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-cursor.h"

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

/* --- errors and checked reads ------------------------------------------ */

/**
 * tdp_fail() - record the open error message (the first one wins)
 * @f: file being opened
 * @errnum: positive errno to return negated
 * @fmt: printf format of the one-line message
 *
 * Return: -@errnum.
 */
int tdp_fail(struct tdat_file *f, int errnum, const char *fmt, ...)
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
 * tdp_pread_all() - read exactly @len bytes at @off of the file
 * @f: file
 * @buf: destination
 * @len: bytes
 * @off: file offset
 * @what: what is read, for the message
 *
 * Return: 0, -EINVAL when the range passes the end of the file, or the
 * negative errno of a failed read.
 */
int tdp_pread_all(struct tdat_file *f, void *buf, size_t len, uint64_t off,
		  const char *what)
{
	size_t done;
	int r;

	if (off > f->file_size || len > f->file_size - off)
		return tdp_fail(f, EINVAL, "truncated %s at offset %llu", what,
				(unsigned long long)off);
	r = tdp_pread_full(f->fd, buf, len, off, &done);
	if (r == -EIO)
		return tdp_fail(f, EINVAL, "truncated %s at offset %llu",
				what, (unsigned long long)off);
	if (r)
		return tdp_fail(f, -r, "read error at offset %llu: %s",
				(unsigned long long)(off + done), strerror(-r));
	return 0;
}

/**
 * tdp_parse_page_size() - check a page size read from the file
 * @f: file
 * @v: the value
 * @where: its file offset
 * @what: for the message
 *
 * Return: 0, or -EINVAL unless @v is a power of two in sane bounds.
 */
int tdp_parse_page_size(struct tdat_file *f, uint32_t v, uint64_t where,
			const char *what)
{
	if (v < TDP_MIN_PAGE || v > TDP_MAX_PAGE || (v & (v - 1)))
		return tdp_fail(f, EINVAL, "bad %s %u at offset %llu", what, v,
				(unsigned long long)where);
	return 0;
}

/* --- the file's tables -------------------------------------------------- */

/**
 * tdp_stream_own() - create a stream that the file owns
 * @f: file
 * @kind: layout
 * @off: file offset of the stream
 * @size: stored size
 *
 * Return: the stream (freed by tdat_close()), or NULL with the open error
 * message set and errno set.
 */
struct tdp_stream *tdp_stream_own(struct tdat_file *f, enum tdp_stream_kind kind,
				  uint64_t off, uint64_t size)
{
	char msg[256] = "";
	struct tdp_stream *s;
	void *n;

	n = tdp_grow(f->streams, &f->streams_cap, f->nstreams + 1,
		     sizeof(*f->streams), 16);
	if (!n)
		return NULL;
	f->streams = n;
	s = tdp_stream_new(&f->src, kind, off, size, msg, sizeof(msg));
	if (!s) {
		int e = errno ? errno : EINVAL;

		if (msg[0])
			tdp_fail(f, e, "%s", msg);
		else
			tdp_fail(f, e, "bad data stream at offset %llu",
				 (unsigned long long)off);
		errno = e;
		return NULL;
	}
	f->streams[f->nstreams++] = s;
	return s;
}

/**
 * tdp_option_add() - append a copy of an option
 * @f: file
 * @id: option id
 * @size: data size
 * @offset: file offset of the data (for a compressed OPTIONS section: of
 *	the section header)
 * @data: the bytes, copied
 *
 * Return: 0 or -ENOMEM.
 */
int tdp_option_add(struct tdat_file *f, uint16_t id, uint32_t size,
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

/**
 * tdp_find_section() - find the section whose header is at @off
 * @f: file
 * @off: file offset
 *
 * Return: the section index, or -1.
 */
long tdp_find_section(const struct tdat_file *f, uint64_t off)
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

/* --- cursor over metadata ---------------------------------------------- */

/**
 * tdp_where() - describe a payload position for a message
 * @c: cursor
 * @pos: payload offset
 * @buf: output
 * @len: size of @buf
 *
 * Return: @buf, "offset N" (a file offset) or "offset N of the section at
 * offset M" for a compressed section.
 */
const char *tdp_where(const struct tdp_cur *c, uint64_t pos, char *buf,
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

static int cur_get(struct tdp_cur *c, void *buf, size_t len, uint64_t pos)
{
	ssize_t r;

	if (c->mem) {
		memcpy(buf, c->mem + pos, len);
		return 0;
	}
	r = tdp_stream_read(c->s, buf, len, pos);
	if (r < 0)
		return (int)r;
	return (size_t)r == len ? 0 : -EIO;
}

/**
 * tdp_cur_read() - read @len bytes and advance
 * @c: cursor
 * @buf: destination, or NULL to only check and skip
 * @len: bytes
 * @what: what is read, for the message
 *
 * Return: 0, or -EINVAL (message set) when the payload is too short.
 */
int tdp_cur_read(struct tdp_cur *c, void *buf, uint64_t len, const char *what)
{
	char w[96];
	int r;

	if (len > c->end - c->pos)
		return tdp_fail(c->f, EINVAL, "truncated %s at %s (needs %llu bytes, %llu left)",
				what, tdp_where(c, c->pos, w, sizeof(w)),
				(unsigned long long)len,
				(unsigned long long)(c->end - c->pos));
	if (buf) {
		r = cur_get(c, buf, (size_t)len, c->pos);
		if (r)
			return tdp_fail(c->f, -r, "cannot read %s at %s", what,
					tdp_where(c, c->pos, w, sizeof(w)));
	}
	c->pos += len;
	return 0;
}

/**
 * tdp_cur_peek() - copy up to @len bytes at the position, not advancing
 * @c: cursor
 * @buf: destination
 * @len: maximum bytes
 *
 * Return: bytes copied (>= 0), or a negative errno.
 */
int tdp_cur_peek(struct tdp_cur *c, void *buf, size_t len)
{
	int r;

	if (len > c->end - c->pos)
		len = (size_t)(c->end - c->pos);
	r = cur_get(c, buf, len, c->pos);
	return r ? r : (int)len;
}

/**
 * tdp_cur_u32() - read a u32 in file endianness
 * @c: cursor
 * @v: result
 * @what: for the message
 *
 * Return: 0 or a negative errno.
 */
int tdp_cur_u32(struct tdp_cur *c, uint32_t *v, const char *what)
{
	uint8_t b[4];
	int r = tdp_cur_read(c, b, 4, what);

	if (!r)
		*v = tdat_get32(c->f, b);
	return r;
}

/**
 * tdp_cur_u64() - read a u64 in file endianness
 * @c: cursor
 * @v: result
 * @what: for the message
 *
 * Return: 0 or a negative errno.
 */
int tdp_cur_u64(struct tdp_cur *c, uint64_t *v, const char *what)
{
	uint8_t b[8];
	int r = tdp_cur_read(c, b, 8, what);

	if (!r)
		*v = tdat_get64(c->f, b);
	return r;
}

/**
 * tdp_cur_string() - read a NUL-terminated string of at most
 * TDP_MAX_STRING bytes
 * @c: cursor
 * @out: set to a new string (the caller frees it)
 * @what: for the message
 *
 * Return: 0, -EINVAL (no NUL in reach), or -ENOMEM.
 */
int tdp_cur_string(struct tdp_cur *c, char **out, const char *what)
{
	char buf[TDP_MAX_STRING];
	char w[96];
	char *nul;
	int n = tdp_cur_peek(c, buf, sizeof(buf));

	if (n < 0)
		return tdp_fail(c->f, -n, "cannot read %s at %s", what,
				tdp_where(c, c->pos, w, sizeof(w)));
	nul = memchr(buf, '\0', (size_t)n);
	if (!nul)
		return tdp_fail(c->f, EINVAL, "unterminated %s at %s", what,
				tdp_where(c, c->pos, w, sizeof(w)));
	*out = strdup(buf);
	if (!*out)
		return -ENOMEM;
	c->pos += (uint64_t)(nul - buf) + 1;
	return 0;
}

/* --- public helpers for decoding option bytes --------------------------- */

const char *tdat_option_name(unsigned int id)
{
	return id < TDAT_OPT_MAX ? option_names[id] : NULL;
}

uint16_t tdat_get16(const struct tdat_file *f, const void *p)
{
	return tdp_get16(f->big_endian, p);
}

uint32_t tdat_get32(const struct tdat_file *f, const void *p)
{
	return tdp_get32(f->big_endian, p);
}

uint64_t tdat_get64(const struct tdat_file *f, const void *p)
{
	return tdp_get64(f->big_endian, p);
}
