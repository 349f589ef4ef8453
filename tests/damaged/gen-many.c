/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-many.c - make v7 traces whose counts, not their bytes, are large
 * (issue 34 item 8): a mount must take time linear in the file, and
 * memory within cache_size plus a bounded working set.
 *
 * usage: gen-many TRACE OUTDIR [SCALE]
 *
 * TRACE (a little-endian v6 file, tests/data/small-v6.dat) gives the
 * header_page and header_event texts, all its event formats (2323 of a
 * real kernel) and its CPU data, so the records still decode.  Written:
 *  - OUTDIR/many.instances.dat: the top buffer (the first pages of two
 *    CPUs) and 1500 instances, each a BUFFER option with its own buffer
 *    section: every other one holds one page of CPU data, the others no
 *    CPU at all;
 *  - OUTDIR/many.names.dat: the same formats plus 12000 formats all named
 *    "x" in one system "dup" (ids from 30000), and the top buffer.
 * SCALE (a percentage, 100 when left out) scales the 1500 and the 12000.
 * One line per file goes to stdout: its name and what it holds.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-out.h"
#include "tdat.h"

/* Pages of each CPU the top buffer takes from TRACE. */
#define TOP_PAGES	4

static void putstr(struct out *o, const char *s)
{
	put(o, s, strlen(s) + 1);
}

static void sized(struct out *o, const void *p, size_t n, int width)
{
	putn(o, n, width);
	put(o, p, n);
}

static void set64(struct out *o, size_t at, uint64_t v)
{
	le_set(o->d + at, v, 8);
}

/* What the files take from TRACE. */
struct source {
	struct tdat_file *f;
	size_t nfmts;
	char **fmt;		/* format texts, file order */
	size_t *fmt_len;
	char *page, *event;	/* header_page, header_event */
	size_t page_len, event_len;
	char *cpu[2];		/* the data of its first two CPUs */
	size_t cpu_len[2];
	unsigned int ncpus;
	uint32_t psize;		/* page size */
};

static char *read_meta(struct tdat_file *f, enum tdat_meta m, size_t *len)
{
	uint64_t size;
	char *p;

	if (tdat_meta_size(f, m, &size))
		die("metadata missing");
	p = malloc(size + 1);
	if (!p || tdat_meta_read(f, m, p, size, 0) != (ssize_t)size)
		die("metadata");
	*len = size;
	return p;
}

static void load(struct source *s, const char *path)
{
	const struct tdat_buffer *b;

	s->f = tdat_open(path, NULL, NULL, 0);
	if (!s->f || tdat_version(s->f) != 6 || tdat_big_endian(s->f))
		die("a little-endian v6 trace");
	s->psize = tdat_page_size(s->f);
	s->page = read_meta(s->f, TDAT_META_HEADER_PAGE, &s->page_len);
	s->event = read_meta(s->f, TDAT_META_HEADER_EVENT, &s->event_len);
	s->nfmts = tdat_event_count(s->f);
	s->fmt = calloc(s->nfmts + 1, sizeof(*s->fmt));
	s->fmt_len = calloc(s->nfmts + 1, sizeof(*s->fmt_len));
	if (!s->fmt || !s->fmt_len)
		die("calloc");
	for (size_t i = 0; i < s->nfmts; i++) {
		const struct tdat_event_format *e = tdat_event_get(s->f, i);

		s->fmt[i] = malloc(e->size + 1);
		if (!s->fmt[i] || tdat_event_read(s->f, i, s->fmt[i], e->size,
						  0) != (ssize_t)e->size)
			die("event format");
		s->fmt_len[i] = e->size;
	}
	b = tdat_buffer_get(s->f, 0);
	s->ncpus = b->ncpus < 2 ? b->ncpus : 2;
	for (unsigned int c = 0; c < s->ncpus; c++) {
		uint64_t size;

		if (tdat_cpu_size(s->f, 0, c, &size))
			die("cpu data");
		if (size < TOP_PAGES * (uint64_t)s->psize)
			die("a CPU with fewer pages than the top buffer takes");
		s->cpu[c] = malloc(size + 1);
		if (!s->cpu[c] || tdat_cpu_read(s->f, 0, c, s->cpu[c], size, 0) !=
		    (ssize_t)size)
			die("cpu data");
		s->cpu_len[c] = size;
	}
}

static void unload(struct source *s)
{
	for (size_t i = 0; s->fmt && i < s->nfmts; i++)
		free(s->fmt[i]);
	free(s->fmt);
	free(s->fmt_len);
	free(s->page);
	free(s->event);
	for (unsigned int c = 0; c < 2; c++)
		free(s->cpu[c]);
	tdat_close(s->f);
}

/* Section descriptions: the STRINGS section written last holds these. */
static const char *const descs[] = {
	"headers", "ftrace events", "events format", "options",
	"buffer flyrecord ", "buffer flyrecord instance",
};

static uint32_t desc_id(const char *d)
{
	uint32_t off = 0;

	for (size_t i = 0; strcmp(descs[i], d); i++)
		off += (uint32_t)strlen(descs[i]) + 1;
	return off;
}

static size_t sec_begin(struct out *o, uint16_t id, const char *desc)
{
	size_t at = o->len;

	putn(o, id, 2);
	putn(o, 0, 2);		/* not compressed */
	putn(o, desc ? desc_id(desc) : 0xffffffffu, 4);
	putn(o, 0, 8);		/* size, set by sec_end() */
	return at;
}

static void sec_end(struct out *o, size_t at)
{
	set64(o, at + 8, o->len - at - 16);
}

/* The ftrace formats of TRACE (they come first in a v6 file). */
static size_t count_ftrace(const struct source *s)
{
	size_t n = 0;

	while (n < s->nfmts && !strcmp(tdat_event_get(s->f, n)->system, "ftrace"))
		n++;
	return n;
}

static void one_format(struct out *o, const char *name, unsigned int id)
{
	char *text;
	int n;

	n = asprintf(&text,
		     "name: %s\nID: %u\nformat:\n"
		     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		     "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		     "print fmt: \"value=%%d\", REC->value\n", name, id);
	if (n < 0)
		die("asprintf");
	sized(o, text, n, 8);
	free(text);
}

/* Sections 16, 17, 18; their offsets in @sec.  @ndup formats "dup:x". */
static void metadata(struct out *o, const struct source *s, unsigned int ndup,
		     size_t sec[3])
{
	size_t i, j, nftrace = count_ftrace(s), nsys = 0;

	sec[0] = sec_begin(o, 16, "headers");
	putstr(o, "header_page");
	sized(o, s->page, s->page_len, 8);
	putstr(o, "header_event");
	sized(o, s->event, s->event_len, 8);
	sec_end(o, sec[0]);
	sec[1] = sec_begin(o, 17, "ftrace events");
	putn(o, nftrace, 4);
	for (i = 0; i < nftrace; i++)
		sized(o, s->fmt[i], s->fmt_len[i], 8);
	sec_end(o, sec[1]);
	sec[2] = sec_begin(o, 18, "events format");
	for (i = nftrace; i < s->nfmts; i++)
		nsys += i == nftrace || strcmp(tdat_event_get(s->f, i)->system,
					       tdat_event_get(s->f, i - 1)->system);
	putn(o, nsys + (ndup > 0), 4);
	for (i = nftrace; i < s->nfmts; i = j) {
		const char *sys = tdat_event_get(s->f, i)->system;

		for (j = i; j < s->nfmts &&
		     !strcmp(tdat_event_get(s->f, j)->system, sys); j++)
			;
		putstr(o, sys);
		putn(o, j - i, 4);
		for (size_t k = i; k < j; k++)
			sized(o, s->fmt[k], s->fmt_len[k], 8);
	}
	if (ndup) {
		putstr(o, "dup");
		putn(o, ndup, 4);
		for (unsigned int k = 0; k < ndup; k++)
			one_format(o, "x", 30000 + k);
	}
	sec_end(o, sec[2]);
}

/* One CPU block of a buffer section: padding, then @len bytes of @p. */
static size_t cpu_block(struct out *o, const void *p, size_t len, uint32_t page)
{
	while (o->len % page)
		putn(o, 0, 1);
	put(o, p, len);
	return o->len - len;
}

/* A BUFFER option: section @sec, @ncpus CPUs at @off, each @len bytes. */
static void buffer_opt(struct out *o, size_t sec, const char *name,
		       uint32_t page, unsigned int ncpus, const size_t *off,
		       const size_t *len)
{
	putn(o, 3, 2);
	putn(o, 8 + strlen(name) + 1 + 6 + 8 + 20ull * ncpus, 4);
	putn(o, sec, 8);
	putstr(o, name);
	putstr(o, "local");
	putn(o, page, 4);
	putn(o, ncpus, 4);
	for (unsigned int c = 0; c < ncpus; c++) {
		putn(o, c, 4);
		putn(o, off[c], 8);
		putn(o, len[c], 8);
	}
}

/*
 * The whole file: metadata (@ndup "dup:x" formats), the top buffer and
 * @ninst instances, then the options and the strings.
 */
static struct out build(const struct source *s, unsigned int ndup,
			unsigned int ninst)
{
	struct out o = { 0 };
	size_t sec[3], first, top, at, next, off[2], len[2];
	size_t *isec = calloc(ninst + 1, sizeof(*isec));
	size_t *ioff = calloc(ninst + 1, sizeof(*ioff));
	size_t npages = s->cpu_len[0] / s->psize;
	char name[32];

	if (!isec || !ioff)
		die("calloc");
	put(&o, "\x17\x08\x44" "tracing", 10);
	putstr(&o, "7");
	putn(&o, 0, 1);
	putn(&o, 8, 1);
	putn(&o, s->psize, 4);
	putstr(&o, "none");
	putstr(&o, "");
	first = o.len;
	putn(&o, 0, 8);
	metadata(&o, s, ndup, sec);
	at = sec_begin(&o, 0, "options");
	set64(&o, first, at);
	for (int k = 0; k < 3; k++) {
		putn(&o, 16 + k, 2);
		putn(&o, 8, 4);
		putn(&o, sec[k], 8);
	}
	putn(&o, 0, 2), putn(&o, 8, 4);
	next = o.len;
	putn(&o, 0, 8);
	sec_end(&o, at);
	top = sec_begin(&o, 3, "buffer flyrecord ");
	for (unsigned int c = 0; c < s->ncpus; c++) {
		len[c] = TOP_PAGES * (size_t)s->psize;
		off[c] = cpu_block(&o, s->cpu[c], len[c], s->psize);
	}
	sec_end(&o, top);
	/* every other instance: one page, a different one each time */
	for (unsigned int i = 0; i < ninst; i++) {
		isec[i] = sec_begin(&o, 3, "buffer flyrecord instance");
		if (i % 2 == 0)
			ioff[i] = cpu_block(&o, s->cpu[0] + (i / 2 % npages) *
					    (size_t)s->psize, s->psize, s->psize);
		sec_end(&o, isec[i]);
	}
	at = sec_begin(&o, 0, "options");
	set64(&o, next, at);
	buffer_opt(&o, top, "", s->psize, s->ncpus, off, len);
	for (unsigned int i = 0; i < ninst; i++) {
		size_t ilen = s->psize;

		snprintf(name, sizeof(name), "inst%04u", i);
		buffer_opt(&o, isec[i], name, s->psize, i % 2 == 0, &ioff[i],
			   &ilen);
	}
	putn(&o, 0, 2), putn(&o, 8, 4), putn(&o, 0, 8);
	sec_end(&o, at);
	at = sec_begin(&o, 15, NULL);
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		putstr(&o, descs[i]);
	sec_end(&o, at);
	free(isec);
	free(ioff);
	return o;
}

static void emit(const struct source *s, const char *dir, const char *what,
		 unsigned int ndup, unsigned int ninst)
{
	struct out o = build(s, ndup, ninst);
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/many.%s.dat", dir, what);
	fp = fopen(path, "wb");
	if (!fp || fwrite(o.d, 1, o.len, fp) != o.len || fclose(fp))
		die(path);
	printf("many.%s.dat %zu formats, %u instances, %zu bytes\n", what,
	       s->nfmts + ndup, ninst, o.len);
	free(o.d);
}

static unsigned int scaled(unsigned int n, unsigned int pct)
{
	unsigned long v = (unsigned long)n * pct / 100;

	return v ? (unsigned int)v : 1;
}

int main(int argc, char **argv)
{
	struct source s = { 0 };
	unsigned int pct = argc > 3 ? (unsigned int)atoi(argv[3]) : 100;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gen-many TRACE OUTDIR [SCALE]\n");
		return 2;
	}
	load(&s, argv[1]);
	emit(&s, argv[2], "instances", 0, scaled(1500, pct));
	emit(&s, argv[2], "names", scaled(12000, pct), 0);
	unload(&s);
	return 0;
}
