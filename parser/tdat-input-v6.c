/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-input-v6.c - the fixed v6 layout (trace-cmd.dat.v6(5)): after the
 * initial header, metadata in a fixed order (header_page and header_event,
 * ftrace formats, event systems, kallsyms, printk formats, saved cmdlines),
 * the CPU count, then options ended by a bare u16 0, then latency text or
 * the flyrecord CPU table; v6 BUFFER options point to further flyrecord
 * blocks.  Everything is read through one RAW stream over the whole file,
 * so a payload offset is a file offset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-cursor.h"

#define MARKER_LEN	10	/* "options  ", "latency  ", "flyrecord", NUL */
#define CPU_ENTRY	16	/* flyrecord CPU table: u64 offset, u64 size */
#define BUFFER_NAME_AT	8	/* BUFFER option: u64 offset, then the name */

/*
 * The selected clock of a trace_clock text such as "[local] global
 * counter" (@len bytes, not NUL-terminated): a new string with the
 * bracketed name, "" when there is none, NULL on ENOMEM.
 */
static char *clock_from_text(const char *text, size_t len)
{
	const char *open = memchr(text, '[', len);
	const char *close;

	if (!open)
		return strdup("");
	close = memchr(open, ']', len - (size_t)(open - text));
	if (!close)
		return strdup("");
	return strndup(open + 1, (size_t)(close - open - 1));
}

static int read_marker(struct tdp_cur *c, char m[MARKER_LEN])
{
	return tdp_cur_read(c, m, MARKER_LEN, "data marker");
}

/* Options until the bare u16 0; notes TRACECLOCK and the CPUCOUNTs. */
static int read_options(struct tdp_cur *c, unsigned int **bufcpus,
			size_t *bufcap)
{
	struct tdat_file *f = c->f;
	bool after_buffer = false;
	int r;

	for (;;) {
		uint8_t h[4];
		uint16_t id;
		uint32_t size;
		uint64_t at;
		void *data;

		r = tdp_cur_read(c, h, 2, "option id");
		if (r)
			return r;
		id = tdat_get16(f, h);
		if (id == TDAT_OPT_DONE)
			return tdp_option_add(f, 0, 0, c->pos, "");
		r = tdp_cur_u32(c, &size, "option size");
		if (r)
			return r;
		at = c->pos;
		if (size > c->end - c->pos)
			return tdp_fail(f, EINVAL,
					"option %u at offset %llu: size %u runs past the end of the file (%llu bytes)",
					id, (unsigned long long)(at - 6), size,
					(unsigned long long)f->file_size);
		data = malloc(size ? size : 1);
		if (!data)
			return -ENOMEM;
		r = tdp_cur_read(c, data, size, "option data");
		if (!r)
			r = tdp_option_add(f, id, size, at, data);
		free(data);
		if (r)
			return r;
		if (id == TDAT_OPT_TRACECLOCK) {
			const struct tdat_option *o = &f->opts[f->nopts - 1];

			f->have_traceclock = true;
			free(f->traceclock);
			f->traceclock = clock_from_text(o->data, o->size);
			if (!f->traceclock)
				return -ENOMEM;
		}
		if (id == TDAT_OPT_CPUCOUNT && size >= 4) {
			uint32_t n = tdat_get32(f, f->opts[f->nopts - 1].data);

			/* Right after a BUFFER it counts that instance's CPUs. */
			if (after_buffer)
				(*bufcpus)[f->nopts - 2] = n;
			else if (!f->cpu_count)
				f->cpu_count = n;
		}
		after_buffer = id == TDAT_OPT_BUFFER;
		if (after_buffer) {
			unsigned int *nb = tdp_grow(*bufcpus, bufcap, f->nopts,
						    sizeof(**bufcpus), 0);

			if (!nb)
				return -ENOMEM;
			*bufcpus = nb;
			nb[f->nopts - 1] = 0;
		}
	}
}

/*
 * A flyrecord block after its marker: @ncpus { u64 offset, u64 size },
 * then the clock text when the file has a TRACECLOCK option.
 */
static int flyrecord(struct tdp_cur *c, const char *name, unsigned int ncpus)
{
	struct tdat_file *f = c->f;
	struct tdp_buf *b;
	char *clock = NULL;
	uint64_t table = c->pos;
	int r;

	if ((uint64_t)ncpus * CPU_ENTRY > c->end - c->pos)
		return tdp_fail(f, EINVAL,
				"flyrecord of buffer \"%s\" at offset %llu: %u CPUs run past the end of the file",
				name, (unsigned long long)table, ncpus);
	c->pos += (uint64_t)ncpus * CPU_ENTRY;
	if (f->have_traceclock) {
		uint64_t len;
		char buf[TDP_MAX_STRING];
		int got;

		r = tdp_cur_u64(c, &len, "trace clock size");
		if (r)
			return r;
		if (len > c->end - c->pos)
			return tdp_fail(f, EINVAL,
					"trace clock at offset %llu: size %llu runs past the end of the file",
					(unsigned long long)(c->pos - 8),
					(unsigned long long)len);
		got = tdp_cur_peek(c, buf, len < sizeof(buf) ? (size_t)len : sizeof(buf));
		if (got < 0)
			return got;
		clock = clock_from_text(buf, (size_t)got);
		if (!clock)
			return -ENOMEM;
		c->pos += len;
	}
	if ((!clock || !clock[0]) && f->traceclock) {
		free(clock);
		clock = strdup(f->traceclock);
		if (!clock)
			return -ENOMEM;
	}
	b = tdp_buffer_new(f, name, clock ? clock : "", f->page_size, false, -1, ncpus);
	free(clock);
	if (!b)
		return -ENOMEM;
	for (unsigned int i = 0; i < ncpus; i++) {
		uint8_t e[CPU_ENTRY];
		uint64_t off, size;

		r = tdp_pread_all(f, e, CPU_ENTRY, table + (uint64_t)CPU_ENTRY * i,
				  "flyrecord CPU table");
		if (r)
			return r;
		off = tdat_get64(f, e);
		size = tdat_get64(f, e + 8);
		/* Empty CPUs are padding for old readers (v7 lists none). */
		if (!size)
			continue;
		if (off > f->file_size || size > f->file_size - off)
			return tdp_fail(f, EINVAL,
					"buffer \"%s\" cpu %u: data at offset %llu, size %llu runs past the end of the file (%llu bytes)",
					name, i, (unsigned long long)off,
					(unsigned long long)size,
					(unsigned long long)f->file_size);
		b->cpus[b->pub.ncpus].cpu = i;
		b->cpus[b->pub.ncpus].offset = off;
		b->cpus[b->pub.ncpus].stored_size = size;
		b->pub.ncpus++;
	}
	return 0;
}

static int instances(struct tdp_cur *c, const unsigned int *bufcpus)
{
	struct tdat_file *f = c->f;

	for (size_t i = 0; i < f->nopts; i++) {
		const struct tdat_option *o = &f->opts[i];
		const char *name;
		const char *nul;
		char m[MARKER_LEN];
		unsigned int n;
		int r;

		if (o->id != TDAT_OPT_BUFFER)
			continue;
		name = (const char *)o->data + BUFFER_NAME_AT;
		nul = o->size > BUFFER_NAME_AT ?
		      memchr(name, '\0', o->size - BUFFER_NAME_AT) : NULL;
		if (!nul)
			return tdp_fail(f, EINVAL, "option buffer at offset %llu: truncated (%u bytes)",
					(unsigned long long)o->offset, o->size);
		c->pos = tdat_get64(f, o->data);
		if (c->pos > c->end)
			return tdp_fail(f, EINVAL,
					"option buffer at offset %llu: offset %llu is past the end of the file",
					(unsigned long long)o->offset,
					(unsigned long long)c->pos);
		r = read_marker(c, m);
		if (r)
			return r;
		if (memcmp(m, "flyrecord", MARKER_LEN))
			return tdp_fail(f, EINVAL,
					"option buffer at offset %llu: no \"flyrecord\" marker at offset %llu",
					(unsigned long long)o->offset,
					(unsigned long long)(c->pos - MARKER_LEN));
		n = bufcpus && bufcpus[i] ? bufcpus[i] : f->header_cpus;
		r = flyrecord(c, name, n);
		if (r)
			return r;
	}
	return 0;
}

/**
 * tdp_open_v6() - read a v6 file after its initial header
 * @f: file, initial header read
 * @pos: file offset just after the page size
 *
 * Return: 0, -EINVAL (message set) or -ENOMEM.
 */
int tdp_open_v6(struct tdat_file *f, uint64_t pos)
{
	struct tdp_cur c = { .f = f, .pos = pos, .end = f->file_size, .raw = true };
	unsigned int *bufcpus = NULL;
	size_t bufcap = 0;
	char m[MARKER_LEN];
	int r;

	c.s = tdp_stream_own(f, TDAT_STREAM_RAW, 0, f->file_size);
	if (!c.s)
		return -errno;
	r = tdp_meta_header_info(&c, true);
	if (!r)
		r = tdp_meta_formats(&c, "ftrace");
	if (!r)
		r = tdp_meta_systems(&c);
	if (!r)
		r = tdp_meta_sized(&c, TDAT_META_KALLSYMS, 4);
	if (!r)
		r = tdp_meta_sized(&c, TDAT_META_PRINTK, 4);
	if (!r)
		r = tdp_meta_sized(&c, TDAT_META_CMDLINES, 8);
	if (!r)
		r = tdp_cur_u32(&c, &f->header_cpus, "CPU count");
	if (!r)
		r = read_marker(&c, m);
	if (!r && !memcmp(m, "options  ", MARKER_LEN)) {
		r = read_options(&c, &bufcpus, &bufcap);
		if (!r)
			r = read_marker(&c, m);
	}
	if (r)
		goto out;
	if (!memcmp(m, "latency  ", MARKER_LEN)) {
		struct tdp_buf *b = tdp_buffer_new(f, "", f->traceclock ? f->traceclock : "",
						   f->page_size, true, -1, 1);

		if (!b) {
			r = -ENOMEM;
			goto out;
		}
		b->cpus[0].offset = c.pos;
		b->cpus[0].stored_size = c.end - c.pos;
		b->pub.ncpus = 1;
	} else if (!memcmp(m, "flyrecord", MARKER_LEN)) {
		r = flyrecord(&c, "", f->header_cpus);
	} else {
		r = tdp_fail(f, EINVAL, "unknown data marker at offset %llu",
			     (unsigned long long)(c.pos - MARKER_LEN));
	}
	if (!r)
		r = instances(&c, bufcpus);
out:
	free(bufcpus);
	return r;
}
