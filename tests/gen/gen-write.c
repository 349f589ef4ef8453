// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-write.c - the writing side of the generator: ring-buffer pages from
 * records, and the v6 or v7 file around them (uncompressed, little
 * endian), laid out as trace-cmd record lays out its files; see
 * trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-trace.h"

#define TS_SHIFT	27
#define TYPE_EXTEND	30
#define MAX_SMALL	(28 * 4)	/* payload bytes a type_len can say */
#define MISSED_EVENTS	(1ULL << 31)
#define MISSED_STORED	(1ULL << 30)

#define CLOCKS		"[local] global counter uptime perf mono mono_raw boot\n"

static void grow(struct gen_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;

	while (cap < b->len + n)
		cap *= 2;
	b->p = realloc(b->p, cap);
	if (!b->p) {
		perror("gen-trace");
		exit(2);	/* a test helper: no memory is not worth unwinding */
	}
	b->cap = cap;
}

void gen_put(struct gen_buf *b, const void *p, size_t n)
{
	grow(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* little-endian store of the low @n bytes of @v */
static void store(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_n(struct gen_buf *b, uint64_t v, unsigned int n)
{
	grow(b, n);
	store(b->p + b->len, v, n);
	b->len += n;
}

void gen_put8(struct gen_buf *b, uint8_t v) { put_n(b, v, 1); }
void gen_put16(struct gen_buf *b, uint16_t v) { put_n(b, v, 2); }
void gen_put32(struct gen_buf *b, uint32_t v) { put_n(b, v, 4); }
void gen_put64(struct gen_buf *b, uint64_t v) { put_n(b, v, 8); }

void gen_putstr(struct gen_buf *b, const char *s)
{
	gen_put(b, s, strlen(s) + 1);
}

void gen_pad(struct gen_buf *b, size_t align)
{
	size_t n = (align - b->len % align) % align;

	grow(b, n);
	memset(b->p + b->len, 0, n);
	b->len += n;
}

void gen_patch32(struct gen_buf *b, size_t off, uint32_t v)
{
	store(b->p + off, v, 4);
}

void gen_patch64(struct gen_buf *b, size_t off, uint64_t v)
{
	store(b->p + off, v, 8);
}

void gen_buf_free(struct gen_buf *b)
{
	if (!b)
		return;
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* The page being filled: where it starts in the CPU stream and its state. */
struct page {
	size_t start;		/* offset of the page in the stream; SIZE_MAX: none */
	uint32_t used;		/* event bytes on it */
	uint64_t last;		/* time of the last event */
	uint32_t missed;	/* events lost before it, 0 for none */
};

/*
 * close_page() - write the commit word (and the lost-events count) and
 * zero the rest of the page
 */
static void close_page(const struct gen_template *t, struct gen_buf *b, struct page *pg)
{
	uint64_t commit = pg->used;

	if (pg->start == SIZE_MAX)
		return;
	if (pg->missed) {
		commit |= MISSED_EVENTS | MISSED_STORED;
		put_n(b, pg->missed, t->klong);
	}
	store(b->p + pg->start + 8, commit, t->klong);
	gen_pad(b, t->page_size);
	pg->start = SIZE_MAX;
}

static void open_page(const struct gen_template *t, struct gen_buf *b, struct page *pg,
		      uint64_t ts, uint32_t missed)
{
	pg->start = b->len;
	pg->used = 0;
	pg->last = ts;
	pg->missed = missed;
	gen_put64(b, ts);
	put_n(b, 0, t->data_off - 8);
}

/* bytes a record takes on a page: header word, length word, payload */
static uint32_t event_bytes(const struct gen_rec *r)
{
	uint32_t len = (r->len + 3) & ~3u;

	return len && len <= MAX_SMALL ? 4 + len : 8 + len;
}

static void put_event(struct gen_buf *b, const struct gen_rec *r, uint64_t delta)
{
	uint32_t len = (r->len + 3) & ~3u;

	if (len && len <= MAX_SMALL) {
		gen_put32(b, (uint32_t)(len / 4) | (uint32_t)(delta << 5));
	} else {
		gen_put32(b, (uint32_t)(delta << 5));
		gen_put32(b, len + 4);
	}
	gen_put(b, r->data, r->len);
	put_n(b, 0, len - r->len);
}

/*
 * cpu_stream() - the pages of one CPU, as the kernel ring buffer holds them
 *
 * A record goes on the current page when it fits (with a TIME_EXTEND
 * before it when its delta needs more than 27 bits), else on a new page
 * whose timestamp is the record's own time.  The end of a page is left
 * zero, outside the commit length, as the kernel leaves it.
 */
static void cpu_stream(const struct gen_trace *tr, unsigned int cpu, struct gen_buf *b)
{
	const struct gen_template *t = tr->t;
	uint32_t room = t->page_size - t->data_off;
	struct page pg = { .start = SIZE_MAX };

	for (size_t i = 0; i < tr->nrecs; i++) {
		const struct gen_rec *r = &tr->recs[i];
		uint64_t delta;
		uint32_t need;

		if (r->cpu != cpu)
			continue;
		delta = pg.start == SIZE_MAX ? 0 : r->ts - pg.last;
		need = event_bytes(r) + (delta >> TS_SHIFT ? 8 : 0) +
		       (pg.missed ? t->klong : 0);
		if (pg.start == SIZE_MAX || r->new_page || pg.used + need > room) {
			close_page(t, b, &pg);
			open_page(t, b, &pg, r->ts, r->new_page ? r->missed : 0);
			delta = 0;
		}
		size_t before = b->len;

		if (delta >> TS_SHIFT) {
			gen_put32(b, TYPE_EXTEND |
				  (uint32_t)((delta & ((1u << TS_SHIFT) - 1)) << 5));
			gen_put32(b, (uint32_t)(delta >> TS_SHIFT));
			delta = 0;
		}
		put_event(b, r, delta);
		pg.used += (uint32_t)(b->len - before);
		pg.last = r->ts;
	}
	close_page(t, b, &pg);
}

/* The systems the records use, so their formats go into the file. */
static bool system_used(const struct gen_trace *tr, const char *system)
{
	for (size_t i = 0; i < tr->nrecs; i++)
		if (!strcmp(tr->recs[i].fmt->system, system))
			return true;
	return false;
}

/* u32 count, then each ftrace format as u64 size and text */
static void put_ftrace_formats(const struct gen_template *t, struct gen_buf *b)
{
	uint32_t n = 0;
	size_t at = b->len;

	gen_put32(b, 0);
	for (size_t i = 0; i < t->nformats; i++) {
		if (strcmp(t->formats[i].system, "ftrace"))
			continue;
		gen_put64(b, t->formats[i].size);
		gen_put(b, t->formats[i].text, t->formats[i].size);
		n++;
	}
	gen_patch32(b, at, n);
}

/*
 * put_event_formats() - u32 system count, then per system used its name,
 * u32 event count and each format (every event of the system, in the
 * template's order: a system's formats are contiguous there)
 */
static void put_event_formats(const struct gen_trace *tr, struct gen_buf *b)
{
	const struct gen_template *t = tr->t;
	size_t at = b->len, cnt_at = 0;
	uint32_t nsys = 0, nev = 0;
	const char *cur = NULL;

	gen_put32(b, 0);
	for (size_t i = 0; i < t->nformats; i++) {
		const struct gen_format *f = &t->formats[i];

		if (!strcmp(f->system, "ftrace") || !system_used(tr, f->system))
			continue;
		if (!cur || strcmp(cur, f->system)) {
			if (cur)
				gen_patch32(b, cnt_at, nev);
			cur = f->system;
			gen_putstr(b, cur);
			cnt_at = b->len;
			gen_put32(b, 0);
			nev = 0;
			nsys++;
		}
		gen_put64(b, f->size);
		gen_put(b, f->text, f->size);
		nev++;
	}
	if (cur)
		gen_patch32(b, cnt_at, nev);
	gen_patch32(b, at, nsys);
}

static void put_headers(const struct gen_template *t, struct gen_buf *b)
{
	gen_putstr(b, "header_page");
	gen_put64(b, t->header_page_size);
	gen_put(b, t->header_page, t->header_page_size);
	gen_putstr(b, "header_event");
	gen_put64(b, t->header_event_size);
	gen_put(b, t->header_event, t->header_event_size);
}

static void put_blob32(struct gen_buf *b, const char *p, size_t n)
{
	gen_put32(b, (uint32_t)n);
	gen_put(b, p, n);
}

static void put_initial(const struct gen_trace *tr, struct gen_buf *b,
			unsigned int version)
{
	const struct gen_template *t = tr->t;
	static const uint8_t magic[] = { 0x17, 0x08, 0x44 };

	gen_put(b, magic, sizeof(magic));
	gen_put(b, "tracing", 7);
	gen_putstr(b, tr->version_str ? tr->version_str : version == 6 ? "6" : "7");
	gen_put8(b, 0);
	gen_put8(b, (uint8_t)t->long_size);
	gen_put32(b, t->page_size);
}

static void put_option(struct gen_buf *b, uint16_t id, const void *p, uint32_t n)
{
	gen_put16(b, id);
	gen_put32(b, n);
	gen_put(b, p, n);
}

/* the scenario's TIME_SHIFT option (id 12), if it has one */
static void put_time_shift(const struct gen_trace *tr, struct gen_buf *b)
{
	if (tr->time_shift)
		put_option(b, 12, tr->time_shift, tr->time_shift_len);
}

/* the per-CPU streams, page aligned in @b; offsets and sizes into @off/@size */
static void put_cpu_data(const struct gen_trace *tr, struct gen_buf *b,
			 uint64_t *off, uint64_t *size)
{
	for (unsigned int c = 0; c < tr->ncpus; c++) {
		gen_pad(b, tr->t->page_size);
		off[c] = b->len;
		cpu_stream(tr, c, b);
		size[c] = b->len - off[c];
	}
}

static void write_v6(const struct gen_trace *tr, struct gen_buf *b)
{
	const struct gen_template *t = tr->t;
	uint64_t off[64], size[64];
	size_t pairs;

	put_initial(tr, b, 6);
	put_headers(t, b);
	put_ftrace_formats(t, b);
	put_event_formats(tr, b);
	put_blob32(b, t->kallsyms, t->kallsyms_size);
	put_blob32(b, t->printk, t->printk_size);
	gen_put64(b, t->cmdlines_size);
	gen_put(b, t->cmdlines, t->cmdlines_size);
	gen_put32(b, tr->ncpus);
	gen_put(b, "options  ", 10);
	put_option(b, 4, CLOCKS, sizeof(CLOCKS));
	put_time_shift(tr, b);
	gen_put16(b, 0);
	gen_put(b, "flyrecord", 10);
	pairs = b->len;
	for (unsigned int c = 0; c < tr->ncpus; c++) {
		gen_put64(b, 0);
		gen_put64(b, 0);
	}
	/* with a TRACECLOCK option, the reader expects the clock here */
	gen_put64(b, strlen("[local]"));
	gen_put(b, "[local]", strlen("[local]"));
	put_cpu_data(tr, b, off, size);
	for (unsigned int c = 0; c < tr->ncpus; c++) {
		gen_patch64(b, pairs + 16 * c, off[c]);
		gen_patch64(b, pairs + 16 * c + 8, size[c]);
	}
}

/* v7 section descriptions, in the order of the STRINGS section */
enum { S_OPTIONS, S_HEADERS, S_FTRACE, S_EVENTS, S_KALLSYMS, S_PRINTK,
       S_CMDLINES, S_BUFFER, S_STRINGS, S_COUNT };
static const char *const strings[S_COUNT] = {
	"options", "headers", "ftrace events", "events format", "kallsyms",
	"printk", "command lines", "buffer flyrecord ", "strings",
};

static uint32_t string_id(int which)
{
	uint32_t off = 0;

	for (int i = 0; i < which; i++)
		off += (uint32_t)strlen(strings[i]) + 1;
	return off;
}

/* a section header with its size left to section_end() */
static size_t section_begin(struct gen_buf *b, uint16_t id, int desc)
{
	size_t at = b->len;

	gen_put16(b, id);
	gen_put16(b, 0);
	gen_put32(b, string_id(desc));
	gen_put64(b, 0);
	return at;
}

static void section_end(struct gen_buf *b, size_t at)
{
	gen_patch64(b, at + 8, b->len - at - 16);
}

static void put_offset_option(struct gen_buf *b, uint16_t id, uint64_t off)
{
	gen_put16(b, id);
	gen_put32(b, 8);
	gen_put64(b, off);
}

/* the metadata sections 16-21; their header offsets into @sec */
static void put_meta_sections(const struct gen_trace *tr, struct gen_buf *b,
			      size_t sec[6])
{
	const struct gen_template *t = tr->t;

	sec[0] = section_begin(b, 16, S_HEADERS);
	put_headers(t, b);
	section_end(b, sec[0]);
	sec[1] = section_begin(b, 17, S_FTRACE);
	put_ftrace_formats(t, b);
	section_end(b, sec[1]);
	sec[2] = section_begin(b, 18, S_EVENTS);
	put_event_formats(tr, b);
	section_end(b, sec[2]);
	sec[3] = section_begin(b, 19, S_KALLSYMS);
	put_blob32(b, t->kallsyms, t->kallsyms_size);
	section_end(b, sec[3]);
	sec[4] = section_begin(b, 20, S_PRINTK);
	put_blob32(b, t->printk, t->printk_size);
	section_end(b, sec[4]);
	sec[5] = section_begin(b, 21, S_CMDLINES);
	gen_put64(b, t->cmdlines_size);
	gen_put(b, t->cmdlines, t->cmdlines_size);
	section_end(b, sec[5]);
}

static void write_v7(const struct gen_trace *tr, struct gen_buf *b)
{
	const struct gen_template *t = tr->t;
	uint64_t off[64], size[64];
	size_t first_at, sec[6], opt1, done1, buf_sec, opt2;

	put_initial(tr, b, 7);
	gen_putstr(b, "none");
	gen_putstr(b, "");
	first_at = b->len;
	gen_put64(b, 0);
	put_meta_sections(tr, b, sec);

	opt1 = section_begin(b, 0, S_OPTIONS);
	for (int i = 0; i < 6; i++)
		put_offset_option(b, (uint16_t)(16 + i), sec[i]);
	put_option(b, 8, &(uint32_t){ tr->ncpus }, 4);
	put_option(b, 4, CLOCKS, sizeof(CLOCKS));
	put_time_shift(tr, b);
	gen_put16(b, 0);
	gen_put32(b, 8);
	done1 = b->len;
	gen_put64(b, 0);
	section_end(b, opt1);
	gen_patch64(b, first_at, opt1);

	buf_sec = section_begin(b, 3, S_BUFFER);
	put_cpu_data(tr, b, off, size);
	section_end(b, buf_sec);

	opt2 = section_begin(b, 0, S_OPTIONS);
	gen_patch64(b, done1, opt2);
	gen_put16(b, 3);
	size_t len_at = b->len;

	gen_put32(b, 0);
	gen_put64(b, buf_sec);
	gen_putstr(b, "");
	gen_putstr(b, "local");
	gen_put32(b, t->page_size);
	gen_put32(b, tr->ncpus);
	for (unsigned int c = 0; c < tr->ncpus; c++) {
		gen_put32(b, c);
		gen_put64(b, off[c]);
		gen_put64(b, size[c]);
	}
	gen_patch32(b, len_at, (uint32_t)(b->len - len_at - 4));
	put_offset_option(b, 0, 0);
	section_end(b, opt2);

	size_t str = section_begin(b, 15, S_STRINGS);

	for (int i = 0; i < S_COUNT; i++)
		gen_putstr(b, strings[i]);
	section_end(b, str);
}

int gen_write(const struct gen_trace *tr, unsigned int version, const char *path)
{
	struct gen_buf b = { 0 };
	FILE *fp;
	int ret = 0;

	if (tr->ncpus == 0 || tr->ncpus > 64)
		return -EINVAL;
	if (version == 6)
		write_v6(tr, &b);
	else
		write_v7(tr, &b);
	fp = fopen(path, "wb");
	if (!fp || fwrite(b.p, 1, b.len, fp) != b.len)
		ret = -errno;
	if (fp && fclose(fp) != 0 && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "gen-trace: %s: %s\n", path, strerror(-ret));
	gen_buf_free(&b);
	return ret;
}
