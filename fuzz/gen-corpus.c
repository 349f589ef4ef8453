/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-corpus.c - write the seed traces of tests/corpus/.
 *
 * Usage: gen-corpus SOURCE.dat OUTDIR
 *
 * SOURCE.dat is a real, uncompressed trace (tests/data/small-v6.dat).  Its
 * header_page, header_event, the event formats of a few systems, the head
 * of kallsyms and printk formats, the cmdlines and the first ring-buffer
 * pages of each CPU are taken with the parser, and re-written as tiny
 * traces in every layout the reader supports: v7 uncompressed, zstd and
 * zlib, v7 with an instance and a latency buffer, big-endian, 4-byte long,
 * and v6; then truncated copies of some of them.  And the hostile classes
 * (tests/damaged/): zstd and zlib metadata bombs, 1000 CPUs listed and
 * 65535 claimed, 16 instances sharing one buffer's data with duplicate,
 * odd and over-255-byte names, a system and events of over-255-byte names.
 *
 * Invariants:
 *  - Each output is well under 64 KiB; what is cut to fit is cut from the
 *    end of a blob, never from a page.
 *  - The big-endian and 4-byte-long variants keep the little-endian, 8-byte
 *    pages of the source: their headers are valid, their events decode to
 *    nonsense, which is what a fuzzer seed wants.
 *  - The output depends only on SOURCE.dat (compression levels are fixed).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "byte-builder.h"
#include "tdat.h"

#define MAX_PAGES	2	/* pages per CPU taken from the source */
#define MAX_CPUS	2
#define KALLSYMS_MAX	1500	/* bytes of kallsyms kept (whole lines) */
#define PRINTK_MAX	600

static const char *const systems[] = { "sched", "irq", "timer" };
static const char *const ftrace_keep[] = { "function", "print", "bprint" };

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* --- what is taken from the source ------------------------------------ */

struct blob {
	char *d;
	size_t len;
};

struct fmt {
	const char *system;
	struct blob text;
};

struct source {
	uint32_t page_size;
	struct blob header_page, header_event, kallsyms, printk, cmdlines;
	struct fmt *fmts;
	size_t nfmts;
	unsigned int ncpus;
	struct blob pages[MAX_CPUS];	/* MAX_PAGES pages per CPU */
};

static struct blob read_meta(struct tdat_file *f, enum tdat_meta m, size_t max)
{
	struct blob b = { 0 };
	uint64_t size;
	ssize_t r;

	if (tdat_meta_size(f, m, &size))
		return b;
	if (size > max)
		size = max;
	b.d = malloc(size + 1);
	if (!b.d)
		die("out of memory");
	r = tdat_meta_read(f, m, b.d, size, 0);
	if (r < 0)
		die("reading metadata %d: %s", (int)m, strerror((int)-r));
	b.len = (size_t)r;
	/* keep whole lines when cut */
	if ((uint64_t)b.len == max)
		while (b.len && b.d[b.len - 1] != '\n')
			b.len--;
	return b;
}

static bool wanted(const struct tdat_event_format *e)
{
	const char *const *list = systems;
	size_t n = sizeof(systems) / sizeof(systems[0]);

	if (!strcmp(e->system, "ftrace")) {
		for (size_t i = 0; i < sizeof(ftrace_keep) / sizeof(ftrace_keep[0]); i++)
			if (!strcmp(e->name, ftrace_keep[i]))
				return true;
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e->system, list[i]))
			return true;
	return false;
}

static void load(struct source *s, const char *path)
{
	struct tdat_file *f;
	const struct tdat_buffer *b;
	char err[256];

	memset(s, 0, sizeof(*s));
	f = tdat_open(path, NULL, err, sizeof(err));
	if (!f)
		die("%s: %s", path, err);
	s->page_size = tdat_page_size(f);
	s->header_page = read_meta(f, TDAT_META_HEADER_PAGE, 4096);
	s->header_event = read_meta(f, TDAT_META_HEADER_EVENT, 4096);
	s->kallsyms = read_meta(f, TDAT_META_KALLSYMS, KALLSYMS_MAX);
	s->printk = read_meta(f, TDAT_META_PRINTK, PRINTK_MAX);
	s->cmdlines = read_meta(f, TDAT_META_CMDLINES, 2048);

	s->fmts = calloc(tdat_event_count(f), sizeof(*s->fmts));
	if (!s->fmts)
		die("out of memory");
	for (size_t i = 0; i < tdat_event_count(f); i++) {
		const struct tdat_event_format *e = tdat_event_get(f, i);
		struct fmt *x = &s->fmts[s->nfmts];
		ssize_t r;

		if (!wanted(e))
			continue;
		x->system = strdup(e->system);
		x->text.d = malloc(e->size);
		if (!x->system || !x->text.d)
			die("out of memory");
		r = tdat_event_read(f, i, x->text.d, e->size, 0);
		if (r != (ssize_t)e->size)
			die("reading format %zu", i);
		x->text.len = e->size;
		s->nfmts++;
	}

	b = tdat_buffer_get(f, 0);
	if (!b)
		die("%s: no buffer", path);
	s->ncpus = b->ncpus < MAX_CPUS ? b->ncpus : MAX_CPUS;
	for (unsigned int c = 0; c < s->ncpus; c++) {
		size_t want = (size_t)MAX_PAGES * s->page_size;
		struct blob *p = &s->pages[c];
		ssize_t r;

		p->d = calloc(1, want);
		if (!p->d)
			die("out of memory");
		r = tdat_cpu_read(f, 0, c, p->d, want, 0);
		if (r < (ssize_t)s->page_size)
			die("%s: cpu %u has less than a page", path, c);
		p->len = (size_t)r / s->page_size * s->page_size;
	}
	tdat_close(f);
}

/* --- compression ---------------------------------------------------------- */

enum comp { COMP_NONE, COMP_ZSTD, COMP_ZLIB };

static void compress_block(enum comp c, struct bb *out, const uint8_t *p, size_t n)
{
	size_t cap = (c == COMP_ZSTD ? ZSTD_compressBound(n) : compressBound(n));
	uint8_t *z = malloc(cap);
	size_t zl;

	if (!z)
		die("out of memory");
	if (c == COMP_ZSTD) {
		zl = ZSTD_compress(z, cap, p, n, 3);
		if (ZSTD_isError(zl))
			die("zstd: %s", ZSTD_getErrorName(zl));
	} else {
		uLongf l = cap;

		if (compress2(z, &l, p, n, Z_BEST_COMPRESSION) != Z_OK)
			die("zlib failed");
		zl = l;
	}
	u32(out, (uint32_t)zl);		/* compressed size */
	u32(out, (uint32_t)n);		/* uncompressed size */
	put(out, z, zl);
	free(z);
}

/* --- v7 ------------------------------------------------------------------- */

static const char *const descs[] = {
	"headers", "ftrace events", "events format", "kallsyms", "printk",
	"command lines", "options", "buffer flyrecord ", "strings",
	"buffer latency",
};

static uint32_t desc_id(const char *s)
{
	uint32_t off = 0;

	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
		if (!strcmp(descs[i], s))
			return off;
		off += (uint32_t)strlen(descs[i]) + 1;
	}
	die("no description %s", s);
	return 0;
}

/* A metadata section: @body is written raw or as one compressed block. */
static size_t section(struct bb *b, uint16_t id, const char *desc, enum comp c,
		      const struct bb *body)
{
	size_t at = b->len;

	u16(b, id);
	u16(b, c != COMP_NONE);
	u32(b, desc_id(desc));
	u64(b, 0);			/* size, patched below */
	if (c != COMP_NONE)
		compress_block(c, b, body->d, body->len);
	else
		put(b, body->d, body->len);
	patch(b, at + 8, b->len - at - 16, 8);
	return at;
}

static void sized(struct bb *b, const struct blob *x, int width)
{
	putn(b, x->len, width);
	put(b, x->d, x->len);
}

/* @n copies of @c, as a string (the caller frees it). */
static char *repeat(char c, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		die("out of memory");
	memset(p, c, n);
	p[n] = '\0';
	return p;
}

/*
 * A system whose name is over 255 bytes, with three events: two of one
 * 300-byte name, one whose name is a 256-byte prefix of theirs, a field of
 * a 300-byte name (names cut and disambiguated by the tree).
 */
static void long_system(struct bb *b)
{
	char *sys = repeat('s', 300), *ev = repeat('e', 300);
	char *field = repeat('f', 300);
	char text[2048];
	struct blob x = { .d = text };

	str(b, sys);
	u32(b, 3);
	for (int i = 0; i < 3; i++) {
		x.len = (size_t)snprintf(text, sizeof(text),
			"name: %.*s\nID: %d\nformat:\n"
			"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			"\tfield:int %s;\toffset:8;\tsize:4;\tsigned:1;\n\n"
			"print fmt: \"%%d\", REC->%s\n",
			i == 2 ? 256 : 300, ev, 60000 + i, field, field);
		sized(b, &x, 8);
	}
	free(sys);
	free(ev);
	free(field);
}

/*
 * The system formats, grouped in source order (systems are contiguous);
 * with @long_names, long_system() after them.
 */
static void event_systems(struct bb *b, const struct source *s, bool long_names)
{
	size_t nsys = long_names;

	for (size_t i = 0; i < s->nfmts; i++)
		if (strcmp(s->fmts[i].system, "ftrace") &&
		    (i == 0 || strcmp(s->fmts[i].system, s->fmts[i - 1].system)))
			nsys++;
	u32(b, (uint32_t)nsys);
	for (size_t i = 0; i < s->nfmts; ) {
		size_t j = i, n;

		if (!strcmp(s->fmts[i].system, "ftrace")) {
			i++;
			continue;
		}
		while (j < s->nfmts && !strcmp(s->fmts[j].system, s->fmts[i].system))
			j++;
		n = j - i;
		str(b, s->fmts[i].system);
		u32(b, (uint32_t)n);
		for (; i < j; i++)
			sized(b, &s->fmts[i].text, 8);
	}
	if (long_names)
		long_system(b);
}

static void ftrace_formats(struct bb *b, const struct source *s)
{
	uint32_t n = 0;

	for (size_t i = 0; i < s->nfmts; i++)
		n += !strcmp(s->fmts[i].system, "ftrace");
	u32(b, n);
	for (size_t i = 0; i < s->nfmts; i++)
		if (!strcmp(s->fmts[i].system, "ftrace"))
			sized(b, &s->fmts[i].text, 8);
}

struct v7_opts {
	bool be;
	int long_size;
	enum comp comp;
	bool instance;		/* a second flyrecord buffer, "inst" */
	bool latency;		/* a latency text buffer instead of flyrecord */
	bool bomb;		/* kallsyms, printk, cmdlines: bombs (bomb_mib) */
	bool long_names;	/* long_system() among the event formats */
	unsigned int ncpus;	/* CPUs claimed and listed (0: the source's) */
	unsigned int ninst;	/* instances sharing the top buffer's data */
};

/*
 * The sizes (MiB) of the bomb sections, each a line repeated: per
 * compression, kallsyms, printk, cmdlines; some over the parser's limits
 * (TDP_MAX_*) refuse the file at open, so the seeds stay under them, the
 * sizes of a few inputs a second; zlib compresses 1000:1 at best, so its
 * bombs stay smaller to keep the seed under 64 KiB.
 */
static const unsigned int bomb_mib[3][3] = {
	[COMP_ZSTD] = { 4, 2, 3 },
	[COMP_ZLIB] = { 3, 1, 2 },
};

/* One CPU's data at b->len: raw pages, or a chunk stream. Returns stored size. */
static uint64_t cpu_data(struct bb *b, const struct source *s, unsigned int c,
			 enum comp comp)
{
	size_t at = b->len;

	if (comp == COMP_NONE) {
		put(b, s->pages[c].d, s->pages[c].len);
		return s->pages[c].len;
	}
	/* one chunk per page, so the cache sees several chunks */
	u32(b, (uint32_t)(s->pages[c].len / s->page_size));
	for (size_t off = 0; off < s->pages[c].len; off += s->page_size)
		compress_block(comp, b, (const uint8_t *)s->pages[c].d + off,
			       s->page_size);
	return b->len - at;
}

static size_t flyrecord(struct bb *b, const struct source *s, enum comp comp,
			uint64_t *offs, uint64_t *sizes)
{
	size_t at = b->len;

	u16(b, TDAT_OPT_BUFFER);
	u16(b, comp != COMP_NONE);
	u32(b, desc_id("buffer flyrecord "));
	u64(b, 0);
	for (unsigned int c = 0; c < s->ncpus; c++) {
		pad_to(b, s->page_size);
		offs[c] = b->len;
		sizes[c] = cpu_data(b, s, c, comp);
	}
	patch(b, at + 8, b->len - at - 16, 8);
	return at;
}

/*
 * A BUFFER option listing @ncpus CPUs: the source's with their data, the
 * others (numbered with gaps) empty.
 */
static void buffer_option(struct bb *b, const struct source *s, size_t sec,
			  const char *name, const uint64_t *offs,
			  const uint64_t *sizes, unsigned int ncpus)
{
	struct bb o = { .be = b->be };

	u64(&o, sec);
	str(&o, name);
	str(&o, "local");
	u32(&o, s->page_size);
	u32(&o, ncpus);
	for (unsigned int c = 0; c < ncpus; c++) {
		bool real = c < s->ncpus;

		u32(&o, real ? c : c * 3);
		u64(&o, offs[real ? c : 0]);	/* empty, inside the section */
		u64(&o, real ? sizes[c] : 0);
	}
	u16(b, TDAT_OPT_BUFFER);
	u32(b, (uint32_t)o.len);
	put(b, o.d, o.len);
	free(o.d);
}

static void option_str(struct bb *b, uint16_t id, const char *s)
{
	u16(b, id);
	u32(b, (uint32_t)strlen(s) + 1);
	str(b, s);
}

static const char latency_text[] =
	"# tracer: wakeup\n#\n# wakeup latency trace v1.1.5\n"
	"#    latency: 42 us, #3/3, CPU#1\n"
	"  <idle>-0       1d..2    0us : 0:120:R   + [001]  1234:  49:R bash\n"
	"  <idle>-0       1d..3   11us : sched_switch <-- __schedule\n";

/* The fixed header of a v7 file; returns where the first options offset goes. */
static size_t v7_header(struct bb *b, const struct source *s,
			const struct v7_opts *o)
{
	size_t first_opt;

	put(b, "\x17\x08\x44" "tracing", 10);
	str(b, "7");
	u8(b, o->be);
	u8(b, (uint8_t)o->long_size);
	u32(b, s->page_size);
	str(b, o->comp == COMP_ZSTD ? "zstd" : o->comp == COMP_ZLIB ? "zlib" : "none");
	str(b, o->comp == COMP_ZSTD ? "1.5.4" : o->comp == COMP_ZLIB ? "1.2.13" : "");
	first_opt = b->len;
	u64(b, 0);
	return first_opt;
}

/* A section body of @line repeated to about @mib MiB, after its @width-byte size. */
static void bomb_body(struct bb *body, const char *line, unsigned int mib,
		      int width)
{
	size_t n = strlen(line), count = ((size_t)mib << 20) / n;

	putn(body, count * n, width);
	for (size_t i = 0; i < count; i++)
		put(body, line, n);
}

/* The six metadata sections; their offsets go to @sec. */
static void v7_metadata(struct bb *b, const struct source *s,
			const struct v7_opts *o, size_t sec[6])
{
	struct bb body = { .be = o->be };
	struct blob hp = s->header_page;
	char *hp4 = NULL;

	if (o->long_size == 4) {
		/* the header_page of a 32-bit kernel: a 4-byte commit field */
		static const char t[] =
			"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
			"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
			"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:1;\n";

		hp4 = strdup(t);
		hp.d = hp4;
		hp.len = strlen(t);
	}
	body.len = 0;
	str(&body, "header_page");
	sized(&body, &hp, 8);
	str(&body, "header_event");
	sized(&body, &s->header_event, 8);
	sec[0] = section(b, TDAT_OPT_HEADER_INFO, "headers", o->comp, &body);
	body.len = 0;
	ftrace_formats(&body, s);
	sec[1] = section(b, TDAT_OPT_FTRACE_EVENTS, "ftrace events", o->comp, &body);
	body.len = 0;
	event_systems(&body, s, o->long_names);
	sec[2] = section(b, TDAT_OPT_EVENT_FORMATS, "events format", o->comp, &body);
	body.len = 0;
	if (o->bomb)
		bomb_body(&body, "ffffffff81000000 T bomb\n", bomb_mib[o->comp][0], 4);
	else
		sized(&body, &s->kallsyms, 4);
	sec[3] = section(b, TDAT_OPT_KALLSYMS, "kallsyms", o->comp, &body);
	body.len = 0;
	if (o->bomb)
		bomb_body(&body, "0xffffffff82000000 : \"bomb\"\n", bomb_mib[o->comp][1], 4);
	else
		sized(&body, &s->printk, 4);
	sec[4] = section(b, TDAT_OPT_PRINTK, "printk", o->comp, &body);
	body.len = 0;
	if (o->bomb)
		bomb_body(&body, "4242 bomb\n", bomb_mib[o->comp][2], 8);
	else
		sized(&body, &s->cmdlines, 8);
	sec[5] = section(b, TDAT_OPT_CMDLINES, "command lines", o->comp, &body);
	free(body.d);
	free(hp4);
}

/* OPTIONS #1: section offsets and a few plain options; returns where the
 * next options section's offset goes. */
static size_t v7_options(struct bb *b, const struct source *s,
			 const struct v7_opts *o, size_t first_opt,
			 const size_t sec[6])
{
	size_t opt1 = b->len, next1;

	patch(b, first_opt, opt1, 8);
	u16(b, 0);
	u16(b, 0);
	u32(b, desc_id("options"));
	u64(b, 0);
	for (int i = 0; i < 6; i++) {
		u16(b, (uint16_t)(TDAT_OPT_HEADER_INFO + i));
		u32(b, 8);
		u64(b, sec[i]);
	}
	u16(b, TDAT_OPT_CPUCOUNT);
	u32(b, 4);
	u32(b, o->ncpus ? 65535 : s->ncpus);
	option_str(b, TDAT_OPT_TRACECLOCK, "[local] global counter");
	option_str(b, TDAT_OPT_UNAME, "Linux fuzz 6.1.0 x86_64");
	option_str(b, TDAT_OPT_VERSION, "3.1.6");
	option_str(b, TDAT_OPT_DATE, "0x1000");
	option_str(b, TDAT_OPT_CPUSTAT, "entries: 3\noverrun: 0\n");
	u16(b, TDAT_OPT_DONE);
	u32(b, 8);
	next1 = b->len;
	u64(b, 0);
	patch(b, opt1 + 8, b->len - opt1 - 16, 8);
	return next1;
}

/* A latency (text) buffer section and the options section naming it. */
static void v7_latency(struct bb *b, const struct v7_opts *o, size_t next1)
{
	struct bb t = { .be = o->be };
	size_t lat = b->len, at;

	u16(b, TDAT_OPT_BUFFER_TEXT);
	u16(b, o->comp != COMP_NONE);
	u32(b, desc_id("buffer latency"));
	u64(b, 0);
	if (o->comp != COMP_NONE) {
		u32(b, 1);
		compress_block(o->comp, b, (const uint8_t *)latency_text,
			       strlen(latency_text));
	} else {
		put(b, latency_text, strlen(latency_text));
	}
	patch(b, lat + 8, b->len - lat - 16, 8);
	at = b->len;
	patch(b, next1, at, 8);
	u16(b, 0);
	u16(b, 0);
	u32(b, desc_id("options"));
	u64(b, 0);
	u64(&t, lat);
	str(&t, "");
	str(&t, "local");
	u16(b, TDAT_OPT_BUFFER_TEXT);
	u32(b, (uint32_t)t.len);
	put(b, t.d, t.len);
	free(t.d);
	u16(b, TDAT_OPT_DONE);
	u32(b, 8);
	u64(b, 0);
	patch(b, at + 8, b->len - at - 16, 8);
}

/* The name of instance @i of many: duplicates, long names, odd bytes. */
static char *inst_name(unsigned int i)
{
	static const char *const odd[] = { "dup", "dup", "..", "a/b", "." };
	char *p;

	if (i % 3 == 1) {
		p = repeat('i', 300);
		snprintf(p + 290, 11, "%u", i);	/* 255-byte prefix shared */
		return p;
	}
	p = malloc(32);
	if (!p)
		die("out of memory");
	snprintf(p, 32, "%s%s", odd[i % 5], i % 2 ? "" : "-x");
	return p;
}

/*
 * Flyrecord buffers (the top one, and an instance when asked), each with
 * the options section naming it; with @o->ninst, that many instances more
 * share the top buffer's data, all in one options section.
 */
static void v7_buffers(struct bb *b, const struct source *s,
		       const struct v7_opts *o, size_t next1)
{
	uint64_t offs[MAX_CPUS], sizes[MAX_CPUS];
	/* with instances or many CPUs, one page per CPU each, to stay small */
	struct source one = *s;
	unsigned int ncpus = o->ncpus ? o->ncpus : s->ncpus;
	bool small = o->instance || o->ninst || o->ncpus;
	size_t at, fly = 0;

	for (unsigned int c = 0; small && c < one.ncpus; c++)
		one.pages[c].len = one.page_size;
	for (int n = 0; n < (o->instance ? 2 : 1); n++) {
		fly = flyrecord(b, &one, o->comp, offs, sizes);
		at = b->len;
		patch(b, next1, at, 8);
		u16(b, 0);
		u16(b, 0);
		u32(b, desc_id("options"));
		u64(b, 0);
		buffer_option(b, &one, fly, n ? "inst" : "", offs, sizes, ncpus);
		for (unsigned int i = 0; !n && i < o->ninst; i++) {
			char *name = inst_name(i);

			buffer_option(b, &one, fly, name, offs, sizes, ncpus);
			free(name);
		}
		u16(b, TDAT_OPT_DONE);
		u32(b, 8);
		next1 = b->len;
		u64(b, 0);
		patch(b, at + 8, b->len - at - 16, 8);
	}
}

static struct bb build_v7(const struct source *s, const struct v7_opts *o)
{
	struct bb b = { .be = o->be };
	size_t sec[6], first_opt, next1, at;

	first_opt = v7_header(&b, s, o);
	v7_metadata(&b, s, o, sec);
	next1 = v7_options(&b, s, o, first_opt, sec);
	if (o->latency)
		v7_latency(&b, o, next1);
	else
		v7_buffers(&b, s, o, next1);

	at = b.len;
	u16(&b, TDAT_OPT_STRINGS);
	u16(&b, 0);
	u32(&b, desc_id("strings"));
	u64(&b, 0);
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		str(&b, descs[i]);
	patch(&b, at + 8, b.len - at - 16, 8);
	return b;
}

/* --- v6 ------------------------------------------------------------------- */

static struct bb build_v6(const struct source *s, bool latency)
{
	struct bb b = { 0 };
	size_t table;

	put(&b, "\x17\x08\x44" "tracing", 10);
	str(&b, "6");
	u8(&b, 0);
	u8(&b, 8);
	u32(&b, s->page_size);
	str(&b, "header_page");
	sized(&b, &s->header_page, 8);
	str(&b, "header_event");
	sized(&b, &s->header_event, 8);
	ftrace_formats(&b, s);
	event_systems(&b, s, false);
	sized(&b, &s->kallsyms, 4);
	sized(&b, &s->printk, 4);
	sized(&b, &s->cmdlines, 8);
	u32(&b, s->ncpus);
	put(&b, "options  ", 10);
	option_str(&b, TDAT_OPT_TRACECLOCK, "[local] global counter");
	option_str(&b, TDAT_OPT_UNAME, "Linux fuzz 6.1.0 x86_64");
	u16(&b, TDAT_OPT_DONE);		/* bare DONE in v6 */
	if (latency) {
		put(&b, "latency  ", 10);
		put(&b, latency_text, strlen(latency_text));
		return b;
	}
	put(&b, "flyrecord", 10);
	table = b.len;
	for (unsigned int c = 0; c < s->ncpus; c++) {
		u64(&b, 0);
		u64(&b, 0);
	}
	u64(&b, 7);
	put(&b, "[local]", 7);
	for (unsigned int c = 0; c < s->ncpus; c++) {
		pad_to(&b, s->page_size);
		patch(&b, table + 16 * c, b.len, 8);
		patch(&b, table + 16 * c + 8, s->pages[c].len, 8);
		put(&b, s->pages[c].d, s->pages[c].len);
	}
	return b;
}

/* --- output --------------------------------------------------------------- */

static void write_out(const char *dir, const char *name, const struct bb *b,
		      size_t len)
{
	char path[4096];
	FILE *fp;

	if (len > 64 * 1024)
		die("%s: %zu bytes, over the 64 KiB seed limit", name, len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(b->d, 1, len, fp) != len || fclose(fp))
		die("%s: %s", path, strerror(errno));
	printf("%s %zu\n", name, len);
}

/* The whole file, then cuts: inside the header, the metadata, the data. */
static void emit(const char *dir, const char *name, struct bb *b, bool cuts)
{
	static const unsigned int permille[] = { 30, 250, 500, 900, 999 };
	char cut[256];

	write_out(dir, name, b, b->len);
	for (size_t i = 0; cuts && i < sizeof(permille) / sizeof(permille[0]); i++) {
		snprintf(cut, sizeof(cut), "trunc-%u-%s", permille[i], name);
		write_out(dir, cut, b, b->len * permille[i] / 1000);
	}
	free(b->d);
}

int main(int argc, char **argv)
{
	struct source s;
	struct bb b;

	if (argc != 3)
		die("usage: %s SOURCE.dat OUTDIR", argv[0]);
	load(&s, argv[1]);

	b = build_v7(&s, &(struct v7_opts){ .long_size = 8 });
	emit(argv[2], "seed-v7-none.dat", &b, true);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .comp = COMP_ZSTD });
	emit(argv[2], "seed-v7-zstd.dat", &b, true);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .comp = COMP_ZLIB });
	emit(argv[2], "seed-v7-zlib.dat", &b, true);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .instance = true });
	emit(argv[2], "seed-v7-instance.dat", &b, false);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .latency = true });
	emit(argv[2], "seed-v7-latency.dat", &b, false);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .latency = true,
					     .comp = COMP_ZSTD });
	emit(argv[2], "seed-v7-latency-zstd.dat", &b, false);
	b = build_v7(&s, &(struct v7_opts){ .be = true, .long_size = 8 });
	emit(argv[2], "seed-v7-be.dat", &b, false);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 4 });
	emit(argv[2], "seed-v7-long4.dat", &b, false);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .comp = COMP_ZSTD,
					     .bomb = true });
	emit(argv[2], "seed-v7-zstd-bombs.dat", &b, false);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .comp = COMP_ZLIB,
					     .bomb = true });
	emit(argv[2], "seed-v7-zlib-bombs.dat", &b, false);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .comp = COMP_ZSTD,
					     .ncpus = 1000 });
	emit(argv[2], "seed-v7-zstd-cpus1000.dat", &b, false);
	b = build_v7(&s, &(struct v7_opts){ .long_size = 8, .comp = COMP_ZSTD,
					     .ninst = 16, .long_names = true });
	emit(argv[2], "seed-v7-zstd-inst16-long-names.dat", &b, false);
	b = build_v6(&s, false);
	emit(argv[2], "seed-v6.dat", &b, true);
	b = build_v6(&s, true);
	emit(argv[2], "seed-v6-latency.dat", &b, false);
	return 0;
}
