/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-meta.c - metadata: header info, event formats, kallsyms, printk,
 * cmdlines, BTF and modules.  At open each metadata part is walked once
 * to check its layout and to index what the tree needs; later reads go
 * through the part's stream (and so through the chunk cache).
 *
 * The public functions defined here are documented in tdat.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-cursor.h"

/* Value of the "KEY" line (e.g. "name: ") in a format text, or NULL. */
static char *line_value(const char *text, size_t len, const char *key)
{
	size_t klen = strlen(key);
	size_t i = 0;

	while (i < len) {
		const char *line = text + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t llen = nl ? (size_t)(nl - line) : len - i;

		if (llen >= klen && !memcmp(line, key, klen))
			return strndup(line + klen, llen - klen);
		i += llen + 1;
	}
	return NULL;
}

static int add_format(struct tdat_file *f, const char *system, char *name,
		      int id, struct tdp_stream *s, uint64_t off, uint64_t size)
{
	struct tdp_fmt *e;
	void *n = tdp_grow(f->fmts, &f->fmts_cap, f->nfmts + 1, sizeof(*f->fmts), 64);

	if (!n)
		return -ENOMEM;
	f->fmts = n;
	e = &f->fmts[f->nfmts++];
	e->pub.system = system;
	e->pub.name = name;
	e->pub.id = id;
	e->pub.size = size;
	e->text.s = s;
	e->text.off = off;
	e->text.size = size;
	return 0;
}

/*
 * A format without a name: libtraceevent drops it (event_read_name()
 * fails) and trace-cmd prints its records as "[UNKNOWN EVENT]" and goes
 * on, so it is left out here too, and the errors list says so (a damaged
 * format costs its event, not the trace).
 */
static int unnamed_format(struct tdp_cur *c, const char *system, uint32_t i,
			  uint64_t at, uint64_t size)
{
	struct tdat_error e;
	char w[96];

	memset(&e, 0, sizeof(e));
	snprintf(e.what, sizeof(e.what),
		 "format %u of system \"%s\" at %s has no \"name:\" line: its events print as [UNKNOWN EVENT]",
		 i, system, tdp_where(c, at, w, sizeof(w)));
	e.offset = c->raw ? c->base + at : c->sec_off;
	e.stored_size = size;
	e.buffer = SIZE_MAX;
	e.cpu = UINT_MAX;
	return tdp_error_add(c->f, &e);
}

/**
 * tdp_meta_formats() - index a list of format files: u32 count, then per
 * format a u64 size and the text
 * @c: cursor at the count
 * @system: system name of these formats (borrowed, must outlive the file)
 *
 * Return: 0, -EINVAL (message set) or -ENOMEM.
 */
int tdp_meta_formats(struct tdp_cur *c, const char *system)
{
	char *scan = malloc(TDP_SCAN_MAX);
	uint32_t n;
	int r;

	if (!scan)
		return -ENOMEM;
	r = tdp_cur_u32(c, &n, "format count");
	for (uint32_t i = 0; !r && i < n; i++) {
		uint64_t size, at;
		char w[96];
		char *name, *idstr;
		int got, id = -1;

		r = tdp_cur_u64(c, &size, "format size");
		if (r)
			break;
		at = c->pos;
		if (size > c->end - c->pos) {
			r = tdp_fail(c->f, EINVAL,
				     "format %u of system \"%s\" at %s: size %llu runs past its section",
				     i, system, tdp_where(c, at - 8, w, sizeof(w)),
				     (unsigned long long)size);
			break;
		}
		got = tdp_cur_peek(c, scan, size < TDP_SCAN_MAX ? (size_t)size : TDP_SCAN_MAX);
		if (got < 0) {
			r = tdp_fail(c->f, -got, "cannot read format at %s",
				     tdp_where(c, at, w, sizeof(w)));
			break;
		}
		name = line_value(scan, (size_t)got, "name: ");
		if (!name || !name[0]) {
			free(name);
			r = unnamed_format(c, system, i, at, size);
			c->pos += size;
			continue;
		}
		idstr = line_value(scan, (size_t)got, "ID: ");
		if (idstr) {
			char *endp;
			long v = strtol(idstr, &endp, 10);

			if (endp != idstr && v >= 0 && v <= INT_MAX)
				id = (int)v;
			free(idstr);
		}
		r = add_format(c->f, system, name, id, c->s, at, size);
		if (r) {
			free(name);
			break;
		}
		c->pos += size;
	}
	free(scan);
	return r;
}

/**
 * tdp_meta_systems() - index the event formats: u32 system count, then
 * per system its name string and a format list
 * @c: cursor at the count
 *
 * Return: 0, -EINVAL (message set) or -ENOMEM.
 */
int tdp_meta_systems(struct tdp_cur *c)
{
	struct tdat_file *f = c->f;
	uint32_t n;
	int r;

	r = tdp_cur_u32(c, &n, "event system count");
	for (uint32_t i = 0; !r && i < n; i++) {
		char *name;
		void *nw;

		r = tdp_cur_string(c, &name, "event system name");
		if (r)
			break;
		nw = tdp_grow(f->systems, &f->systems_cap, f->nsystems + 1,
			      sizeof(*f->systems), 32);
		if (!nw) {
			free(name);
			return -ENOMEM;
		}
		f->systems = nw;
		f->systems[f->nsystems++] = name;
		r = tdp_meta_formats(c, name);
	}
	return r;
}

/* The kernel long size: the "size:" of header_page's commit field. */
static int kernel_long(struct tdp_cur *c, uint64_t at, uint64_t size)
{
	char buf[TDP_SCAN_MAX + 1];
	uint64_t save = c->pos;
	char w[96];
	char *p, *sz;
	int got;

	if (!size)
		return 0;
	c->pos = at;
	got = tdp_cur_peek(c, buf, size < TDP_SCAN_MAX ? (size_t)size : TDP_SCAN_MAX);
	c->pos = save;
	if (got < 0)
		return tdp_fail(c->f, -got, "cannot read header_page at %s",
				tdp_where(c, at, w, sizeof(w)));
	buf[got] = '\0';
	p = strstr(buf, " commit;");
	if (!p)
		return 0;
	sz = strstr(p, "size:");
	if (!sz || (strchr(p, '\n') && sz > strchr(p, '\n')))
		return 0;
	sz += 5;
	if (sz[0] == '4' && !(sz[1] >= '0' && sz[1] <= '9'))
		c->f->kernel_long_size = 4;
	else if (sz[0] == '8' && !(sz[1] >= '0' && sz[1] <= '9'))
		c->f->kernel_long_size = 8;
	else
		return tdp_fail(c->f, EINVAL,
				"header_page at %s: commit size is neither 4 nor 8",
				tdp_where(c, at, w, sizeof(w)));
	return 0;
}

static int marker(struct tdp_cur *c, const char *m, size_t len)
{
	char buf[16];
	char w[96];
	uint64_t at = c->pos;
	int r = tdp_cur_read(c, buf, len, m);

	if (r)
		return r;
	if (memcmp(buf, m, len))
		return tdp_fail(c->f, EINVAL, "missing \"%s\" marker at %s", m,
				tdp_where(c, at, w, sizeof(w)));
	return 0;
}

/**
 * tdp_meta_header_info() - index header_page and header_event: each a
 * marker string, a u64 size and the text
 * @c: cursor at "header_page"
 * @markers: the marker strings are present (always, in v6 and v7)
 *
 * Also sets the kernel long size from header_page.
 *
 * Return: 0, -EINVAL (message set) or -ENOMEM.
 */
int tdp_meta_header_info(struct tdp_cur *c, bool markers)
{
	static const char *const names[2] = { "header_page", "header_event" };
	struct tdat_file *f = c->f;
	int r;

	for (int i = 0; i < 2; i++) {
		enum tdat_meta which = i ? TDAT_META_HEADER_EVENT : TDAT_META_HEADER_PAGE;
		uint64_t size;
		char w[96];

		if (markers) {
			r = marker(c, names[i], strlen(names[i]) + 1);
			if (r)
				return r;
		}
		r = tdp_cur_u64(c, &size, names[i]);
		if (r)
			return r;
		if (size > c->end - c->pos)
			return tdp_fail(f, EINVAL, "%s at %s: size %llu runs past its end",
					names[i], tdp_where(c, c->pos - 8, w, sizeof(w)),
					(unsigned long long)size);
		f->meta[which].s = c->s;
		f->meta[which].off = c->pos;
		f->meta[which].size = size;
		if (!i) {
			r = kernel_long(c, c->pos, size);
			if (r)
				return r;
		}
		c->pos += size;
	}
	return 0;
}

/*
 * The size a blob the text engine reads whole may have (UINT64_MAX: not
 * read whole, served in pieces).
 */
static uint64_t meta_limit(enum tdat_meta which)
{
	switch (which) {
	case TDAT_META_KALLSYMS:
		return TDP_MAX_KALLSYMS;
	case TDAT_META_PRINTK:
		return TDP_MAX_PRINTK;
	case TDAT_META_CMDLINES:
		return TDP_MAX_CMDLINES;
	default:
		return UINT64_MAX;
	}
}

/* The payload a metadata section of @id may have, its size prefix included. */
static uint64_t section_limit(unsigned int id)
{
	switch (id) {
	case TDAT_OPT_KALLSYMS:
		return TDP_MAX_KALLSYMS + 4ull;
	case TDAT_OPT_PRINTK:
		return TDP_MAX_PRINTK + 4ull;
	case TDAT_OPT_CMDLINES:
		return TDP_MAX_CMDLINES + 8ull;
	case TDAT_OPT_FTRACE_EVENTS:
	case TDAT_OPT_EVENT_FORMATS:
		return TDP_MAX_FORMATS;
	default:
		return UINT64_MAX;
	}
}

/**
 * tdp_meta_sized() - index a text with a size prefix (or none)
 * @c: cursor at the prefix
 * @which: blob
 * @prefix: 4 or 8 for a u32/u64 size prefix, 0 for "the rest"
 *
 * Return: 0 or -EINVAL (message set).
 */
int tdp_meta_sized(struct tdp_cur *c, enum tdat_meta which, unsigned int prefix)
{
	static const char *const names[TDAT_META_COUNT] = {
		"header_page", "header_event", "kallsyms", "printk formats",
		"saved cmdlines", "BTF", "modules",
	};
	uint64_t size;
	char w[96];
	int r = 0;

	if (prefix == 4) {
		uint32_t v;

		r = tdp_cur_u32(c, &v, names[which]);
		size = v;
	} else if (prefix == 8) {
		r = tdp_cur_u64(c, &size, names[which]);
	} else {
		size = c->end - c->pos;
	}
	if (r)
		return r;
	if (size > c->end - c->pos)
		return tdp_fail(c->f, EINVAL, "%s at %s: size %llu runs past its end (%llu bytes left)",
				names[which], tdp_where(c, c->pos - prefix, w, sizeof(w)),
				(unsigned long long)size,
				(unsigned long long)(c->end - c->pos));
	if (size > meta_limit(which))
		return tdp_fail(c->f, EINVAL, "%s at %s: %llu bytes, over the limit of %u MiB",
				names[which], tdp_where(c, c->pos - prefix, w, sizeof(w)),
				(unsigned long long)size,
				(unsigned int)(meta_limit(which) >> 20));
	c->f->meta[which].s = c->s;
	c->f->meta[which].off = c->pos;
	c->f->meta[which].size = size;
	c->pos += size;
	return 0;
}

/*
 * A compressed kallsyms section this big may have its check left to
 * tdat_finish_checks() (tdat_open_opts.defer_checks): its parse needs
 * only the 4-byte size prefix, and on big.dat its 5.4 MB of decoding is
 * half of the open.
 */
#define DEFER_MIN	((uint64_t)1 << 20)

static int section_undecoded(struct tdat_file *f, unsigned int id, size_t i)
{
	return tdp_fail(f, EINVAL, "section %zu (id %u) at offset %llu does not decompress",
			i, id, (unsigned long long)f->secs[i].pub.offset);
}

/*
 * Leave section @i's check for later and peek its prefix into @mem (8
 * bytes), when asked and it is kallsyms, compressed and big.  Return: 1
 * when left (@c->mem set), 0 to check it now, or the peek's error, which
 * the caller tells as a failed check.
 */
static int section_defer(struct tdat_file *f, unsigned int id, size_t i,
			 struct tdp_cur *c, uint8_t *mem)
{
	size_t n = c->end < 8 ? (size_t)c->end : 8;
	int r;

	if (!f->defer.wanted || f->defer.pending || id != TDAT_OPT_KALLSYMS ||
	    c->end < DEFER_MIN)
		return 0;
	r = tdp_stream_peek(f->secs[i].s, mem, n);
	if (r)
		return r;
	f->defer.pending = true;
	f->defer.sec = i;
	f->defer.id = id;
	c->mem = mem;
	return 1;
}

/**
 * tdp_meta_finish() - run a check that the open left for later
 * @f: file
 * @r: the result so far (of the open, or 0)
 *
 * A failed check wins over @r, with the message the check at open gives
 * (the message buffer is cleared first): the open would have stopped
 * there before reaching whatever @r is.
 *
 * Return: @r, or the check's error when it failed.
 */
int tdp_meta_finish(struct tdat_file *f, int r)
{
	int c;

	if (!f->defer.pending)
		return r;
	c = tdp_stream_check(f->secs[f->defer.sec].s);
	if (c == -ENOMEM)
		return r ? r : c;
	f->defer.pending = false;
	if (!c)
		return r;
	if (f->err && f->errlen)
		f->err[0] = '\0';
	return section_undecoded(f, f->defer.id, f->defer.sec);
}

static int parse_section(struct tdat_file *f, unsigned int id, size_t i)
{
	uint8_t mem[8];
	struct tdp_sec *s = &f->secs[i];
	struct tdp_cur c = { .f = f, .s = s->s };
	int r;

	if (!s->s)
		return tdp_fail(f, EINVAL, "section %zu (id %u) at offset %llu cannot be read",
				i, id, (unsigned long long)s->pub.offset);
	c.end = tdp_stream_size(s->s);
	/* before decompressing what a block header claims */
	if (c.end > section_limit(id))
		return tdp_fail(f, EINVAL,
				"section %zu (id %u, %s) at offset %llu: %llu bytes, over the limit of %u MiB",
				i, id, tdat_option_name(id), (unsigned long long)s->pub.offset,
				(unsigned long long)c.end,
				(unsigned int)(section_limit(id) >> 20));
	if (s->pub.flags & TDAT_SECTION_COMPRESSED) {
		c.sec_off = s->pub.offset;
		/* Decompress once (in pieces) for the check; parse through the stream. */
		r = section_defer(f, id, i, &c, mem);
		if (!r)
			r = tdp_stream_check(s->s);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return section_undecoded(f, id, i);
	} else {
		c.raw = true;
		c.base = s->pub.offset + TDP_SECTION_HDR;
	}
	switch (id) {
	case TDAT_OPT_HEADER_INFO:
		r = tdp_meta_header_info(&c, true);
		break;
	case TDAT_OPT_FTRACE_EVENTS:
		r = tdp_meta_formats(&c, "ftrace");
		break;
	case TDAT_OPT_EVENT_FORMATS:
		r = tdp_meta_systems(&c);
		break;
	case TDAT_OPT_KALLSYMS:
		r = tdp_meta_sized(&c, TDAT_META_KALLSYMS, 4);
		break;
	case TDAT_OPT_PRINTK:
		r = tdp_meta_sized(&c, TDAT_META_PRINTK, 4);
		break;
	case TDAT_OPT_CMDLINES:
		r = tdp_meta_sized(&c, TDAT_META_CMDLINES, 8);
		break;
	case TDAT_OPT_BTF_FILE:
		r = tdp_meta_sized(&c, TDAT_META_BTF, 0);
		break;
	default:
		r = tdp_meta_sized(&c, TDAT_META_MODULES, 0);
		break;
	}
	return r;
}

/**
 * tdp_meta_v7() - find, check and index the metadata sections named by
 * the options (the last option of each id wins)
 * @f: file, with sections and options read
 *
 * Return: 0, -EINVAL (message set) or -ENOMEM.
 */
int tdp_meta_v7(struct tdat_file *f)
{
	static const unsigned int ids[] = {
		TDAT_OPT_HEADER_INFO, TDAT_OPT_FTRACE_EVENTS, TDAT_OPT_EVENT_FORMATS,
		TDAT_OPT_KALLSYMS, TDAT_OPT_PRINTK, TDAT_OPT_CMDLINES,
		TDAT_OPT_BTF_FILE, TDAT_OPT_MODULES_FILE,
	};
	long sec[TDAT_OPT_MAX];
	int r;

	for (unsigned int i = 0; i < TDAT_OPT_MAX; i++)
		sec[i] = -1;
	for (size_t i = 0; i < f->nopts; i++) {
		const struct tdat_option *o = &f->opts[i];
		uint64_t off;
		long k;
		bool want = false;

		for (size_t j = 0; j < sizeof(ids) / sizeof(ids[0]); j++)
			want |= o->id == ids[j];
		if (!want)
			continue;
		if (o->size < TDP_SECTION_REF)
			return tdp_fail(f, EINVAL, "option %s at offset %llu: size %u, not 8",
					tdat_option_name(o->id),
					(unsigned long long)o->offset, o->size);
		off = tdat_get64(f, o->data);
		k = tdp_find_section(f, off);
		if (k < 0 || f->secs[k].pub.id != o->id)
			return tdp_fail(f, EINVAL,
					"option %s at offset %llu: offset %llu is not a section with id %u",
					tdat_option_name(o->id), (unsigned long long)o->offset,
					(unsigned long long)off, o->id);
		sec[o->id] = k;
	}
	for (size_t j = 0; j < sizeof(ids) / sizeof(ids[0]); j++) {
		if (sec[ids[j]] < 0)
			continue;
		r = parse_section(f, ids[j], (size_t)sec[ids[j]]);
		if (r)
			return r;
	}
	return 0;
}

int tdat_meta_size(const struct tdat_file *f, enum tdat_meta which, uint64_t *size)
{
	if ((unsigned int)which >= TDAT_META_COUNT || !f->meta[which].s)
		return -ENOENT;
	*size = f->meta[which].size;
	return 0;
}

static ssize_t blob_read(const struct tdp_blob *b, void *buf, size_t len,
			 uint64_t off)
{
	if (off >= b->size)
		return 0;
	if (len > b->size - off)
		len = (size_t)(b->size - off);
	if (!len)
		return 0;
	return tdp_stream_read(b->s, buf, len, b->off + off);
}

ssize_t tdat_meta_read(struct tdat_file *f, enum tdat_meta which, void *buf,
		       size_t len, uint64_t off)
{
	if ((unsigned int)which >= TDAT_META_COUNT || !f->meta[which].s)
		return -ENOENT;
	return blob_read(&f->meta[which], buf, len, off);
}

size_t tdat_event_count(const struct tdat_file *f)
{
	return f->nfmts;
}

const struct tdat_event_format *tdat_event_get(const struct tdat_file *f, size_t i)
{
	return i < f->nfmts ? &f->fmts[i].pub : NULL;
}

ssize_t tdat_event_read(struct tdat_file *f, size_t i, void *buf, size_t len,
			uint64_t off)
{
	if (i >= f->nfmts)
		return -ENOENT;
	return blob_read(&f->fmts[i].text, buf, len, off);
}

ssize_t tdat_section_read(struct tdat_file *f, size_t i, void *buf, size_t len,
			  uint64_t off)
{
	struct tdp_blob b;

	if (i >= f->nsecs)
		return -ENOENT;
	if (f->secs[i].pub.id == TDAT_OPT_BUFFER ||
	    f->secs[i].pub.id == TDAT_OPT_BUFFER_TEXT)
		return -EISDIR;
	if (!f->secs[i].s)
		return -EIO;
	b.s = f->secs[i].s;
	b.off = 0;
	b.size = tdp_stream_size(b.s);
	return blob_read(&b, buf, len, off);
}
