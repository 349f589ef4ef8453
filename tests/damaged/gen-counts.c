/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-counts.c - make traces with hostile names and counts (tdatfs(1),
 * THE TREE and DAMAGED TRACES): sound files whose size alone must not make
 * a mount slow.
 *
 * usage: gen-counts TRACE OUTDIR [SCALE]
 *
 * TRACE (a little-endian v6 file, tests/data/small-v6.dat) gives the
 * header_page and header_event texts, its own event formats and its CPU
 * data, so the events still decode.  Each variant adds event formats of
 * its own, written as OUTDIR/counts.<what>.dat:
 *  - dup:     3000 events all named "dup" in one system;
 *  - systems: 5000 systems all named "hostile", each with an event "ev";
 *  - long:    3000 events whose names share a 256-byte prefix, in a system
 *             with a 300-byte name, and 300-byte names with a '/';
 *  - dots:    systems ".." and "." with events named ".", "..", "_", "/",
 *             "../../../../etc", "a/../../b", "./." and "...";
 *  - many:    60000 events of distinct names;
 *  - cpus:    a header claiming 65535 CPUs of which two hold data;
 *  - cpus-v7: a v7 BUFFER option listing 65535 CPUs, two with data;
 *  - names:   systems and events named with control bytes ("a\nb\tc\rd",
 *             ESC and C1 sequences, DEL), invalid UTF-8, a '%', the names
 *             of events/'s own files (summary.tsv, header_page), "ftrace"
 *             (with an event ftrace has not), and instances (BUFFER
 *             options sharing the top buffer's CPU data) named with
 *             control bytes and "top".
 * SCALE (a percentage, 100 when left out) scales the counts of the first
 * four.  One line per variant goes to stdout: the file name and what it
 * holds.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-out.h"
#include "tdat.h"

static void putstr(struct out *o, const char *s)
{
	put(o, s, strlen(s) + 1);
}

static void sized(struct out *o, const void *p, size_t n, int width)
{
	putn(o, n, width);
	put(o, p, n);
}

/* What the variants take from TRACE. */
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
		if (!s->fmt[i] || tdat_event_read(s->f, i, s->fmt[i], e->size, 0) !=
		    (ssize_t)e->size)
			die("event format");
		s->fmt_len[i] = e->size;
	}
	b = tdat_buffer_get(s->f, 0);
	s->ncpus = b->ncpus < 2 ? b->ncpus : 2;
	for (unsigned int c = 0; c < s->ncpus; c++) {
		uint64_t size;

		if (tdat_cpu_size(s->f, 0, c, &size))
			die("cpu data");
		s->cpu[c] = malloc(size + 1);
		if (!s->cpu[c] || tdat_cpu_read(s->f, 0, c, s->cpu[c], size, 0) !=
		    (ssize_t)size)
			die("cpu data");
		s->cpu_len[c] = size;
	}
}

/* The extra systems a variant adds: @nsys blocks of @nev events each. */
struct extra {
	unsigned int nsys, nev;
	const char *(*sys_name)(unsigned int s, char *buf, size_t len);
	const char *(*ev_name)(unsigned int s, unsigned int e, char *buf,
			       size_t len);
	unsigned int cpus;	/* CPUs the header claims; 0: TRACE's */
	const char *const *instances;	/* NULL-terminated; NULL: none */
};

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

/* The ftrace formats, then TRACE's systems, then the variant's. */
static void formats(struct out *o, const struct source *s, const struct extra *x)
{
	size_t i, j, nftrace = 0, nsys = 0;
	unsigned int id = 30000;
	char sbuf[512], ebuf[512];

	for (i = 0; i < s->nfmts; i++)
		nftrace += !strcmp(tdat_event_get(s->f, i)->system, "ftrace");
	putn(o, nftrace, 4);
	for (i = 0; i < nftrace; i++)
		sized(o, s->fmt[i], s->fmt_len[i], 8);
	for (i = nftrace; i < s->nfmts; i++)
		nsys += i == nftrace || strcmp(tdat_event_get(s->f, i)->system,
					       tdat_event_get(s->f, i - 1)->system);
	putn(o, nsys + x->nsys, 4);
	for (i = nftrace; i < s->nfmts; i = j) {
		const char *sys = tdat_event_get(s->f, i)->system;

		for (j = i; j < s->nfmts && !strcmp(tdat_event_get(s->f, j)->system, sys); j++)
			;
		putstr(o, sys);
		putn(o, j - i, 4);
		for (size_t k = i; k < j; k++)
			sized(o, s->fmt[k], s->fmt_len[k], 8);
	}
	for (unsigned int k = 0; k < x->nsys; k++) {
		putstr(o, x->sys_name(k, sbuf, sizeof(sbuf)));
		putn(o, x->nev, 4);
		for (unsigned int e = 0; e < x->nev; e++)
			one_format(o, x->ev_name(k, e, ebuf, sizeof(ebuf)), id++);
	}
}

static void set64(struct out *o, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		o->d[at + i] = (unsigned char)(v >> (8 * i));
}

static struct out build(const struct source *s, const struct extra *x)
{
	struct out o = { 0 };
	unsigned int ncpus = x->cpus ? x->cpus : s->ncpus;
	uint32_t page = tdat_page_size(s->f);
	size_t table, inst_at[8];
	unsigned int ni;

	put(&o, "\x17\x08\x44" "tracing", 10);
	putstr(&o, "6");
	putn(&o, 0, 1);		/* little endian */
	putn(&o, 8, 1);		/* long size */
	putn(&o, page, 4);
	putstr(&o, "header_page");
	sized(&o, s->page, s->page_len, 8);
	putstr(&o, "header_event");
	sized(&o, s->event, s->event_len, 8);
	formats(&o, s, x);
	sized(&o, "", 0, 4);	/* kallsyms */
	sized(&o, "", 0, 4);	/* printk formats */
	sized(&o, "", 0, 8);	/* saved cmdlines */
	putn(&o, ncpus, 4);
	put(&o, "options  ", 10);
	for (ni = 0; x->instances && x->instances[ni]; ni++) {
		putn(&o, 3, 2);	/* BUFFER: u64 offset (set below), name */
		putn(&o, 8 + strlen(x->instances[ni]) + 1, 4);
		inst_at[ni] = o.len;
		putn(&o, 0, 8);
		putstr(&o, x->instances[ni]);
	}
	putn(&o, 0, 2);		/* DONE */
	put(&o, "flyrecord", 10);
	table = o.len;
	for (unsigned int c = 0; c < 2 * ncpus; c++)
		putn(&o, 0, 8);
	for (unsigned int k = 0; k < s->ncpus; k++) {
		/* the first CPU and, when the header claims many, the last */
		unsigned int c = k && x->cpus ? ncpus - 1 : k;

		while (o.len % page)
			putn(&o, 0, 1);
		for (int i = 0; i < 8; i++) {
			o.d[table + 16 * c + i] = (unsigned char)(o.len >> (8 * i));
			o.d[table + 16 * c + 8 + i] =
				(unsigned char)((uint64_t)s->cpu_len[k] >> (8 * i));
		}
		put(&o, s->cpu[k], s->cpu_len[k]);
	}
	/* each instance: a flyrecord block naming the top buffer's pages */
	for (unsigned int i = 0; i < ni; i++) {
		set64(&o, inst_at[i], o.len);
		put(&o, "flyrecord", 10);
		for (unsigned int c = 0; c < 16 * ncpus; c++)
			putn(&o, o.d[table + c], 1);
	}
	return o;
}

static const char *fixed_sys(unsigned int s, char *buf, size_t len)
{
	(void)s;
	(void)buf;
	(void)len;
	return "hostile";
}

static const char *long_sys(unsigned int s, char *buf, size_t len)
{
	snprintf(buf, len, "%0300u", s);
	return buf;
}

static const char *dup_ev(unsigned int s, unsigned int e, char *buf, size_t len)
{
	(void)s;
	(void)e;
	(void)buf;
	(void)len;
	return "dup";
}

static const char *ev_ev(unsigned int s, unsigned int e, char *buf, size_t len)
{
	(void)s;
	(void)e;
	(void)buf;
	(void)len;
	return "ev";
}

/* 256 bytes in common, then a number; every tenth is 300 bytes with a '/'. */
static const char *long_ev(unsigned int s, unsigned int e, char *buf, size_t len)
{
	(void)s;
	if (e % 10)
		snprintf(buf, len, "%0256u_%u", 0, e);
	else
		snprintf(buf, len, "%0150u/%0149u", e, e);
	return buf;
}

/* Systems ".." and "." (a tree that took them as they are would escape). */
static const char *dots_sys(unsigned int s, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return s ? "." : "..";
}

static const char *dots_ev(unsigned int s, unsigned int e, char *buf, size_t len)
{
	static const char *const names[] = {
		".", "..", "_", "/", "../../../../etc", "a/../../b", "./.", "..."
	};

	(void)s;
	(void)buf;
	(void)len;
	return names[e % (sizeof(names) / sizeof(names[0]))];
}

/* Names that break tools when they reach a file name as they are. */
static const char *const hostile_sys[] = {
	"a\nb\tc\rd", "\x1b[31mred\x1b[0m", "bad\xff\xfe-\xc3(-\xed\xa0\x80-\xe2\x82",
	("c1\xc2\x9b" "2J"), "summary.tsv", "header_page", "ftrace", "pct%0A",
	"caf\xc3\xa9", "\x7f",
};

static const char *const hostile_instances[] = {
	"i\x1b]0;pwn\x07x", "in\nst", "top", NULL
};

static const char *names_sys(unsigned int s, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return hostile_sys[s];
}

/* Each system's event: one ftrace has not for "ftrace", "e<DEL>v" else. */
static const char *names_ev(unsigned int s, unsigned int e, char *buf,
			    size_t len)
{
	(void)e;
	(void)buf;
	(void)len;
	return strcmp(hostile_sys[s], "ftrace") ? "e\x7fv" : "hostile_ftrace";
}

static const char *many_ev(unsigned int s, unsigned int e, char *buf, size_t len)
{
	(void)s;
	snprintf(buf, len, "ev%05u", e);
	return buf;
}


/* --- v7: a BUFFER option claiming 65535 CPUs, two of them with data ---- */

static const char *const descs[] = {
	"headers", "events format", "options", "buffer flyrecord ", "strings",
};

/* A description's id: its offset in the STRINGS section written last. */
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
	putn(o, desc_id(desc), 4);
	putn(o, 0, 8);		/* size, set by sec_end() */
	return at;
}


static void sec_end(struct out *o, size_t at)
{
	set64(o, at + 8, o->len - at - 16);
}

/* The header, the headers and event formats sections, the first options. */
static size_t v7_head(struct out *o, const struct source *s, size_t *next)
{
	size_t sec[2], first, at;

	put(o, "\x17\x08\x44" "tracing", 10);
	putstr(o, "7");
	putn(o, 0, 1);
	putn(o, 8, 1);
	putn(o, tdat_page_size(s->f), 4);
	putstr(o, "none");
	putstr(o, "");
	first = o->len;
	putn(o, 0, 8);
	sec[0] = sec_begin(o, 16, "headers");
	putstr(o, "header_page");
	sized(o, s->page, s->page_len, 8);
	putstr(o, "header_event");
	sized(o, s->event, s->event_len, 8);
	sec_end(o, sec[0]);
	sec[1] = sec_begin(o, 18, "events format");
	putn(o, 1, 4);
	putstr(o, "hostile");
	putn(o, 1, 4);
	one_format(o, "ev", 30000);
	sec_end(o, sec[1]);
	at = sec_begin(o, 0, "options");
	set64(o, first, at);
	putn(o, 16, 2), putn(o, 8, 4), putn(o, sec[0], 8);
	putn(o, 18, 2), putn(o, 8, 4), putn(o, sec[1], 8);
	putn(o, 0, 2), putn(o, 8, 4);
	*next = o->len;
	putn(o, 0, 8);
	sec_end(o, at);
	return at;
}

static struct out build_v7(const struct source *s, uint32_t ncpus)
{
	struct out o = { 0 };
	size_t next, at, data, off[2];
	uint32_t page = tdat_page_size(s->f);

	v7_head(&o, s, &next);
	data = sec_begin(&o, 3, "buffer flyrecord ");
	for (unsigned int k = 0; k < s->ncpus; k++) {
		while (o.len % page)
			putn(&o, 0, 1);
		off[k] = o.len;
		put(&o, s->cpu[k], s->cpu_len[k]);
	}
	sec_end(&o, data);
	at = sec_begin(&o, 0, "options");
	set64(&o, next, at);
	putn(&o, 3, 2);			/* BUFFER */
	putn(&o, 8 + 1 + 6 + 8 + 20ull * ncpus, 4);
	putn(&o, data, 8);
	putstr(&o, "");
	putstr(&o, "local");
	putn(&o, page, 4);
	putn(&o, ncpus, 4);
	for (uint32_t c = 0; c < ncpus; c++) {
		/* the first and the last CPU hold data, the others none */
		unsigned int k = c == ncpus - 1 && s->ncpus > 1 ? 1 : 0;
		bool full = !c || k;

		putn(&o, c, 4);
		putn(&o, full ? off[k] : off[0], 8);
		putn(&o, full ? s->cpu_len[k] : 0, 8);
	}
	putn(&o, 0, 2), putn(&o, 8, 4), putn(&o, 0, 8);
	sec_end(&o, at);
	at = sec_begin(&o, 15, "strings");
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		putstr(&o, descs[i]);
	sec_end(&o, at);
	return o;
}

static void write_out(const char *dir, const char *what, const struct out *o)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/counts.%s.dat", dir, what);
	fp = fopen(path, "wb");
	if (!fp || fwrite(o->d, 1, o->len, fp) != o->len || fclose(fp))
		die(path);
}

static void emit(const struct source *s, const char *dir, const char *what,
		 const struct extra *x)
{
	struct out o = build(s, x);

	write_out(dir, what, &o);
	printf("counts.%s.dat %u systems of %u events, %u CPUs\n", what,
	       x->nsys, x->nev, x->cpus ? x->cpus : s->ncpus);
	free(o.d);
}

/* Free what load() took, so a sanitizer build finds no leak. */
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

static unsigned int scaled(unsigned int n, unsigned int pct)
{
	unsigned long v = (unsigned long)n * pct / 100;

	return v ? (unsigned int)v : 1;
}

int main(int argc, char **argv)
{
	struct source s = { 0 };
	struct out v7;
	unsigned int pct = argc > 3 ? (unsigned int)atoi(argv[3]) : 100;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gen-counts TRACE OUTDIR [SCALE]\n");
		return 2;
	}
	load(&s, argv[1]);
	emit(&s, argv[2], "dup", &(struct extra){ 1, scaled(3000, pct),
		fixed_sys, dup_ev, 0, NULL });
	emit(&s, argv[2], "systems", &(struct extra){ scaled(5000, pct), 1,
		fixed_sys, ev_ev, 0, NULL });
	emit(&s, argv[2], "long", &(struct extra){ 2, scaled(1500, pct),
		long_sys, long_ev, 0, NULL });
	emit(&s, argv[2], "dots", &(struct extra){ 2, 8, dots_sys, dots_ev, 0, NULL });
	emit(&s, argv[2], "many", &(struct extra){ 1, scaled(60000, pct),
		fixed_sys, many_ev, 0, NULL });
	emit(&s, argv[2], "cpus", &(struct extra){ 0, 0, fixed_sys, ev_ev,
		65535, NULL });
	emit(&s, argv[2], "names", &(struct extra){
		sizeof(hostile_sys) / sizeof(hostile_sys[0]), 1, names_sys,
		names_ev, 0, hostile_instances });
	v7 = build_v7(&s, 65535);
	write_out(argv[2], "cpus-v7", &v7);
	printf("counts.cpus-v7.dat a v7 buffer of 65535 CPUs, 2 with data\n");
	free(v7.d);
	unload(&s);
	return 0;
}
