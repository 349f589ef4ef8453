/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-sections.c - make traces whose metadata is hostile although the
 * file's structure is sound (tdatfs(1), DAMAGED TRACES).
 *
 * usage: gen-sections deep TRACE OUTDIR SYS:EVENT [KIND:]N...
 *        gen-sections bomb TRACE OUTDIR MIB
 *        gen-sections wide TRACE OUTDIR MIB
 *        gen-sections measure TRACE...
 *
 * deep: the format of the event SYS:EVENT of TRACE gets a print fmt whose
 * first argument is wrapped N times in one of libtraceevent's recursions,
 * the rest of the format unchanged: KIND paren (the default) ((((x)))),
 * not !!!!x, plus 1+1+1+x, cast (int)(int)x, tern 1?2:1?2:x.  A v6 TRACE
 * is rewritten with the new format in place (everything after it moved,
 * the CPU data kept page-aligned); in a v7 TRACE the events-format section
 * is written again at the end of the file, compressed as the file is, and
 * the option that names it points there.  Written as
 * OUTDIR/<base>.file.<KIND><N>.dat, and <base>.file.control.dat with the
 * format as it was (the same layout: the control for the other events'
 * lines); a compressed v7 TRACE also gives <base>.plain.*.dat, the section
 * stored uncompressed.
 *
 * bomb (a compressed v7 TRACE): sections written at the end of the file,
 * each a block of MIB MiB of repeated bytes that compresses to a few KB,
 * and the option naming its kind pointing there: <base>.bomb-kallsyms.dat,
 * -printk, -cmdlines, and <base>.bomb-options.dat, an OPTIONS section
 * (the DONE of the last one points to it) of one MIB MiB unknown option.
 *
 * wide (a compressed v7 TRACE): the events-format section written again
 * at the end of the file with MIB MiB of 64 KiB formats of a system
 * "padding" after the trace's own, ids no record uses, as
 * <base>.wideMIB.dat: the same text, from a section larger than a cache
 * of less than MIB MiB.
 *
 * measure: the deepest nesting and the longest format over every event of
 * every TRACE, as the text engine counts them (tdatfs(1), DAMAGED TRACES).
 *
 * One line per file made goes to stdout.
 */
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "gen-out.h"
#include "tdat.h"
#include "text/format-limits.h"

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *p;
	long n;

	if (!fp || fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET))
		die(path);
	p = malloc((size_t)n + 1);
	if (!p || fread(p, 1, (size_t)n, fp) != (size_t)n)
		die(path);
	fclose(fp);
	*len = (size_t)n;
	return p;
}

static void write_out(const char *dir, const char *base, const char *what,
		      const struct out *o)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.%s.dat", dir, base, what);
	fp = fopen(path, "wb");
	if (!fp || fwrite(o->d, 1, o->len, fp) != o->len || fclose(fp))
		die(path);
	printf("%s.%s.dat %zu bytes\n", base, what, o->len);
}

static struct tdat_file *open_or_die(const char *path)
{
	char err[256];
	struct tdat_file *f = tdat_open(path, NULL, err, sizeof(err));

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, err);
		exit(2);
	}
	if (tdat_big_endian(f)) {
		fprintf(stderr, "%s: a little-endian trace, please\n", path);
		exit(2);
	}
	return f;
}

static char *read_format(struct tdat_file *f, size_t i, size_t *len)
{
	const struct tdat_event_format *e = tdat_event_get(f, i);
	char *p = malloc(e->size + 1);

	if (!p || tdat_event_read(f, i, p, e->size, 0) != (ssize_t)e->size)
		die("event format");
	p[e->size] = '\0';
	*len = e->size;
	return p;
}

static size_t find_event(struct tdat_file *f, const char *name)
{
	const char *colon = strchr(name, ':');

	for (size_t i = 0; colon && i < tdat_event_count(f); i++) {
		const struct tdat_event_format *e = tdat_event_get(f, i);

		if (strlen(e->system) == (size_t)(colon - name) &&
		    !strncmp(e->system, name, colon - name) &&
		    !strcmp(e->name, colon + 1))
			return i;
	}
	fprintf(stderr, "no event %s\n", name);
	exit(2);
}

/* What wraps the first argument, N times: each a level of recursion. */
static const struct kind {
	const char *name, *before, *after;
} kinds[] = {
	{ "paren", "(", ")" },		/* ((((x)))) */
	{ "not", "!", "" },		/* !!!!x */
	{ "plus", "1+", "" },		/* 1+1+1+x */
	{ "cast", "(int)", "" },	/* (int)(int)x */
	{ "tern", "1?2:", "" },		/* 1?2:1?2:x */
};

/* "[KIND:]N" (KIND paren when left out); exits on anything else. */
static const struct kind *parse_kind(const char *arg, unsigned long *n)
{
	const char *colon = strchr(arg, ':');

	*n = strtoul(colon ? colon + 1 : arg, NULL, 10);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!colon || (strlen(kinds[k].name) == (size_t)(colon - arg) &&
			       !strncmp(kinds[k].name, arg, colon - arg)))
			return &kinds[k];
	fprintf(stderr, "unknown kind in %s\n", arg);
	exit(2);
}

/*
 * @fmt with its first print fmt argument (what follows the format string)
 * wrapped @n times in @k.
 */
static struct out deepen(const char *fmt, size_t len, const struct kind *k,
			 unsigned long n)
{
	const char *p = strstr(fmt, "print fmt: \""), *q;
	struct out o = { 0 };

	if (!p)
		die("a print fmt");
	for (q = p + 12; *q && (*q != '"' || q[-1] == '\\'); q++)
		;
	if (strncmp(q, "\", ", 3))
		die("a print fmt with arguments");
	q += 3;
	put(&o, fmt, q - fmt);
	for (unsigned long i = 0; i < n; i++)
		put(&o, k->before, strlen(k->before));
	/* the first argument ends at the first ',' or newline at depth 0 */
	p = q;
	for (int d = 0; *p && *p != '\n' && (d || *p != ','); p++)
		d += (*p == '(') - (*p == ')');
	put(&o, q, p - q);
	for (unsigned long i = 0; i < n; i++)
		put(&o, k->after, strlen(k->after));
	put(&o, p, fmt + len - p);
	return o;
}

/* --- v6: the format rewritten in place ---------------------------------- */

static void deep_v6(struct tdat_file *f, const unsigned char *file, size_t flen,
		    size_t ev, const struct out *text, const char *dir,
		    const char *base, const char *what)
{
	const struct tdat_buffer *b = tdat_buffer_get(f, 0);
	size_t olen, at, data = flen, table;
	char *old = read_format(f, ev, &olen);
	uint32_t page = tdat_page_size(f);
	const unsigned char *hit;
	struct out o = { 0 };
	int64_t delta;

	hit = memmem(file, flen, old, olen);
	if (!hit || hit - file < 8 || le_get(hit - 8, 8) != olen)
		die("the format in the file");
	at = hit - file;
	for (unsigned int c = 0; c < b->ncpus; c++)
		if (b->cpus[c].stored_size && b->cpus[c].offset < data)
			data = b->cpus[c].offset;
	hit = memmem(file + at, data - at, "flyrecord", 10);
	if (!hit || tdat_buffer_count(f) != 1)
		die("one flyrecord buffer");
	table = hit - file + 10 + (size_t)(text->len - olen);
	put(&o, file, at - 8);
	putn(&o, text->len, 8);
	put(&o, text->d, text->len);
	put(&o, file + at + olen, data - at - olen);
	while (o.len % page)
		put(&o, "", 1);
	delta = (int64_t)o.len - (int64_t)data;
	put(&o, file + data, flen - data);
	/* the CPU offsets (u64 offset, u64 size per CPU) move with the data */
	for (unsigned int c = 0; c < tdat_cpu_count(f); c++) {
		uint64_t off = le_get(o.d + table + 16 * c, 8);

		if (off)
			le_set(o.d + table + 16 * c, off + delta, 8);
	}
	write_out(dir, base, what, &o);
	free(o.d);
	free(old);
}

/* --- v7: a section appended, the option pointing at it ------------------ */

static void compress_block(struct tdat_file *f, struct out *o,
			   const void *p, size_t n)
{
	const char *alg = tdat_compression(f);
	size_t cap = ZSTD_compressBound(n) + compressBound(n) + 64;
	unsigned char *z = malloc(cap);
	size_t zn;

	if (!z)
		die("malloc");
	if (!strcmp(alg, "zstd")) {
		zn = ZSTD_compress(z, cap, p, n, 3);
		if (ZSTD_isError(zn))
			die("zstd");
	} else if (!strcmp(alg, "zlib")) {
		uLongf dn = cap;

		if (compress2(z, &dn, p, n, Z_BEST_COMPRESSION) != Z_OK)
			die("zlib");
		zn = dn;
	} else {
		die("a compressed trace");
	}
	putn(o, zn, 4);
	putn(o, n, 4);
	put(o, z, zn);
	free(z);
}

/* The option of @id (the last one), in a copy of the file. */
static size_t option_at(struct tdat_file *f, unsigned int id)
{
	size_t at = 0;

	for (size_t i = 0; i < tdat_option_count(f); i++) {
		const struct tdat_option *op = tdat_option_get(f, i);

		if (op->id == id)
			at = op->offset;
	}
	if (!at)
		die("the option naming the section");
	return at;
}

/*
 * A copy of the file with a section of @id holding @p appended
 * (compressed or not) and the option at @opt pointing to it.
 */
static struct out append_section(struct tdat_file *f, const unsigned char *file,
				 size_t flen, unsigned int id, size_t opt,
				 const void *p, size_t n, bool compress)
{
	struct out o = { 0 }, body = { 0 };

	put(&o, file, flen);
	if (compress)
		compress_block(f, &body, p, n);
	else
		put(&body, p, n);
	le_set(o.d + opt, o.len, 8);
	putn(&o, id, 2);
	putn(&o, compress, 2);
	putn(&o, 0xffffffffu, 4);
	putn(&o, body.len, 8);
	put(&o, body.d, body.len);
	free(body.d);
	return o;
}

/*
 * The events-format section (id 18) of @f with format @ev replaced (none
 * when @ev is past the last) and @extra more systems, which the caller
 * appends.
 */
static struct out systems_with(struct tdat_file *f, size_t ev,
			       const struct out *text, size_t extra)
{
	struct out o = { 0 };
	size_t i, j, n = tdat_event_count(f), first = 0, nsys = 0;

	while (first < n && !strcmp(tdat_event_get(f, first)->system, "ftrace"))
		first++;
	for (i = first; i < n; i++)
		nsys += i == first || strcmp(tdat_event_get(f, i)->system,
					     tdat_event_get(f, i - 1)->system);
	putn(&o, nsys + extra, 4);
	for (i = first; i < n; i = j) {
		const char *sys = tdat_event_get(f, i)->system;

		for (j = i; j < n && !strcmp(tdat_event_get(f, j)->system, sys); j++)
			;
		put(&o, sys, strlen(sys) + 1);
		putn(&o, j - i, 4);
		for (size_t k = i; k < j; k++) {
			size_t len;
			char *t = read_format(f, k, &len);

			if (k == ev) {
				putn(&o, text->len, 8);
				put(&o, text->d, text->len);
			} else {
				putn(&o, len, 8);
				put(&o, t, len);
			}
			free(t);
		}
	}
	return o;
}

static void deep_v7(struct tdat_file *f, const unsigned char *file, size_t flen,
		    size_t ev, const struct out *text, const char *dir,
		    const char *base, const char *what, bool compress)
{
	struct out sec = systems_with(f, ev, text, 0), o;

	if (!strcmp(tdat_event_get(f, ev)->system, "ftrace"))
		die("an event outside ftrace");
	o = append_section(f, file, flen, TDAT_OPT_EVENT_FORMATS,
			   option_at(f, TDAT_OPT_EVENT_FORMATS), sec.d, sec.len,
			   compress);
	write_out(dir, base, what, &o);
	free(o.d);
	free(sec.d);
}

static int deep(int argc, char **argv)
{
	struct tdat_file *f = open_or_die(argv[2]);
	size_t flen, ev = find_event(f, argv[4]), len;
	unsigned char *file = slurp(argv[2], &flen);
	char *fmt = read_format(f, ev, &len), base[256], what[64];

	snprintf(base, sizeof(base), "%s", basename(argv[2]));
	if (strlen(base) > 4 && !strcmp(base + strlen(base) - 4, ".dat"))
		base[strlen(base) - 4] = '\0';
	/* argv[4] stands for the control: the format as it was */
	for (int a = 4; a < argc; a++) {
		unsigned long n = 0;
		const struct kind *k = a == 4 ? NULL : parse_kind(argv[a], &n);
		struct out text = deepen(fmt, len, k ? k : kinds, n);
		bool comp = strcmp(tdat_compression(f), "none");
		char kind[48];

		if (k)
			snprintf(kind, sizeof(kind), "%s%lu", k->name, n);
		else
			snprintf(kind, sizeof(kind), "control");
		snprintf(what, sizeof(what), "file.%s", kind);
		if (tdat_version(f) == 6) {
			deep_v6(f, file, flen, ev, &text, argv[3], base, what);
		} else {
			deep_v7(f, file, flen, ev, &text, argv[3], base, what, comp);
			snprintf(what, sizeof(what), "plain.%s", kind);
			if (comp)
				deep_v7(f, file, flen, ev, &text, argv[3], base,
					what, false);
		}
		free(text.d);
	}
	free(fmt);
	free(file);
	tdat_close(f);
	return 0;
}

/* --- bombs: huge blocks of repeated bytes -------------------------------- */

static void bomb_one(struct tdat_file *f, const unsigned char *file, size_t flen,
		     const char *dir, const char *base, const char *what,
		     unsigned int id, size_t mib)
{
	size_t n = mib << 20, prefix = id == TDAT_OPT_CMDLINES ? 8 : 4;
	unsigned char *p = malloc(n);
	struct out o;
	char name[64];

	if (!p)
		die("malloc");
	/* lines of a plausible kind, their size prefix claiming them all */
	for (size_t i = 0; i < n; i++)
		p[i] = "1 T x\n"[i % 6];
	for (size_t i = 0; i < prefix; i++)
		p[i] = (unsigned char)((n - prefix) >> (8 * i));
	o = append_section(f, file, flen, id, option_at(f, id), p, n, true);
	snprintf(name, sizeof(name), "bomb-%s", what);
	write_out(dir, base, name, &o);
	free(o.d);
	free(p);
}

/* An OPTIONS section of one huge unknown option, chained after the last. */
static void bomb_options(struct tdat_file *f, const unsigned char *file,
			 size_t flen, const char *dir, const char *base,
			 size_t mib)
{
	size_t n = mib << 20;
	unsigned char *p = calloc(1, n);
	struct out o;

	if (!p)
		die("malloc");
	/* option 999 holding everything up to a final DONE of 0 */
	p[0] = 999 & 0xff;
	p[1] = 999 >> 8;
	for (int i = 0; i < 4; i++)
		p[2 + i] = (unsigned char)((n - 6 - 14) >> (8 * i));
	p[n - 14] = 0;
	p[n - 12] = 8;
	o = append_section(f, file, flen, TDAT_OPT_DONE,
			   option_at(f, TDAT_OPT_DONE), p, n, true);
	write_out(dir, base, "bomb-options", &o);
	free(o.d);
	free(p);
}

static int bomb(char **argv)
{
	struct tdat_file *f = open_or_die(argv[2]);
	size_t flen, mib = strtoul(argv[4], NULL, 10);
	unsigned char *file = slurp(argv[2], &flen);
	char base[256];

	if (tdat_version(f) != 7 || !strcmp(tdat_compression(f), "none"))
		die("a compressed v7 trace");
	snprintf(base, sizeof(base), "%s", basename(argv[2]));
	if (strlen(base) > 4 && !strcmp(base + strlen(base) - 4, ".dat"))
		base[strlen(base) - 4] = '\0';
	bomb_one(f, file, flen, argv[3], base, "kallsyms", TDAT_OPT_KALLSYMS, mib);
	bomb_one(f, file, flen, argv[3], base, "printk", TDAT_OPT_PRINTK, mib);
	bomb_one(f, file, flen, argv[3], base, "cmdlines", TDAT_OPT_CMDLINES, mib);
	bomb_options(f, file, flen, argv[3], base, mib);
	free(file);
	tdat_close(f);
	return 0;
}

/* --- wide: an events-format section of many MiB ------------------------ */

#define WIDE_FMT	((size_t)64 << 10)	/* bytes of one padding format */

/*
 * One format of system "padding" that no record uses: its name and id
 * line, one field, an empty print fmt and comment lines up to WIDE_FMT.
 */
static void wide_format(struct out *o, unsigned int k)
{
	char head[256];
	int n = snprintf(head, sizeof(head),
			 "name: pad%u\nID: %u\nformat:\n"
			 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			 "\nprint fmt: \"\"\n", k, 50000 + k);

	putn(o, WIDE_FMT, 8);
	put(o, head, (size_t)n);
	for (size_t i = (size_t)n; i < WIDE_FMT; i++)
		put(o, i % 64 == 63 ? "\n" : "#", 1);
}

/*
 * A copy of the (compressed v7) TRACE whose events-format section holds
 * its own formats and then MIB MiB of formats in a system "padding" that
 * no record uses: the trace's text is the same, but the section is larger
 * than a cache of less than MIB MiB.
 */
static int wide(char **argv)
{
	struct tdat_file *f = open_or_die(argv[2]);
	size_t flen, mib = strtoul(argv[4], NULL, 10);
	size_t count = (mib << 20) / WIDE_FMT;
	unsigned char *file = slurp(argv[2], &flen);
	struct out own, sec = { 0 }, o;
	char base[256], what[64];

	if (tdat_version(f) != 7 || !strcmp(tdat_compression(f), "none"))
		die("a compressed v7 trace");
	snprintf(base, sizeof(base), "%s", basename(argv[2]));
	if (strlen(base) > 4 && !strcmp(base + strlen(base) - 4, ".dat"))
		base[strlen(base) - 4] = '\0';
	own = systems_with(f, tdat_event_count(f), NULL, 1);
	put(&sec, own.d, 4);
	put(&sec, "padding", 8);
	putn(&sec, count, 4);
	for (unsigned int k = 0; k < count; k++)
		wide_format(&sec, k);
	put(&sec, own.d + 4, own.len - 4);
	free(own.d);
	o = append_section(f, file, flen, TDAT_OPT_EVENT_FORMATS,
			   option_at(f, TDAT_OPT_EVENT_FORMATS), sec.d, sec.len,
			   true);
	snprintf(what, sizeof(what), "wide%zu", mib);
	write_out(argv[3], base, what, &o);
	free(o.d);
	free(sec.d);
	free(file);
	tdat_close(f);
	return 0;
}

static int measure(int argc, char **argv)
{
	size_t depth = 0, longest = 0;

	for (int a = 2; a < argc; a++) {
		struct tdat_file *f = tdat_open(argv[a], NULL, NULL, 0);

		if (!f) {
			fprintf(stderr, "%s: does not open, left out\n", argv[a]);
			continue;
		}
		for (size_t i = 0; i < tdat_event_count(f); i++) {
			size_t len, d;
			char *t = read_format(f, i, &len);

			d = text_format_depth(t, len);
			if (d > depth || len > longest)
				printf("%s %s:%s depth %zu length %zu\n", argv[a],
				       tdat_event_get(f, i)->system,
				       tdat_event_get(f, i)->name, d, len);
			depth = d > depth ? d : depth;
			longest = len > longest ? len : longest;
			free(t);
		}
		tdat_close(f);
	}
	printf("deepest %zu, longest %zu\n", depth, longest);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && !strcmp(argv[1], "deep"))
		return deep(argc, argv);
	if (argc == 5 && !strcmp(argv[1], "bomb"))
		return bomb(argv);
	if (argc == 5 && !strcmp(argv[1], "wide"))
		return wide(argv);
	if (argc >= 3 && !strcmp(argv[1], "measure"))
		return measure(argc, argv);
	fprintf(stderr, "usage: gen-sections deep TRACE OUTDIR SYS:EVENT [KIND:]N...\n"
		"       gen-sections bomb TRACE OUTDIR MIB\n"
		"       gen-sections wide TRACE OUTDIR MIB\n"
		"       gen-sections measure TRACE...\n");
	return 2;
}
