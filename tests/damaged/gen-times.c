/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-times.c - make variants of a sound trace whose time options push
 * trace-cmd's timestamp arithmetic to its edges, or whose options
 * contradict the data (issue 34 item 7).
 *
 * usage: gen-times TRACE OUTDIR
 *
 * TRACE is a little-endian trace (v7: tests/data/small.dat, or v6:
 * tests/data/small-v6.dat) with a UNAME option of 16 bytes or more.  Each variant is a copy of it with one change, written as
 * OUTDIR/<base>.<what>.dat (the TSC2NSEC ones but the wrap only from a v7
 * TRACE, whose options are read the same way):
 *  - tsc-shift64:      the UNAME option made a TSC2NSEC of mult 1, shift 64;
 *  - tsc-shift64-wrap: that, and every page timestamp moved so that the
 *                      first page sits 50 ms below 2^64 and later ones wrap
 *                      (only when the top buffer's pages are not compressed);
 *  - tsc-mult-max:     TSC2NSEC mult 0xffffffff, shift 31, offset 2^63;
 *  - tsc-mult-neg:     TSC2NSEC mult 0x80000001, shift 0;
 *  - tsc-shift40:      TSC2NSEC mult 3, shift 40 (a shift past 32);
 *  - tshift-empty:     a TIME_SHIFT option of 65535 CPUs, none with a
 *                      sample (v7: in an options section appended at the
 *                      end; v6: inserted before the options' end, the CPU
 *                      data moved by a whole number of pages);
 *  - buffer-page:      (v7) the top BUFFER option's page size set to 8192
 *                      over the header's 4096-byte pages.
 * One line per variant goes to stdout: the file name and what it holds.
 */
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-out.h"
#include "tdat.h"

#define OPT_HDR		6	/* u16 id, u32 size */
#define SEC_HDR		16	/* u16 id, u16 flags, u32 string id, u64 size */
#define TS_NCPUS	65535u

static struct tdat_file *f;
static unsigned char *orig;
static size_t orig_size;
static const char *outdir;
static char base[256];

static void write_out(const char *what, const unsigned char *p, size_t len,
		      const char *desc)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.%s.dat", outdir, base, what);
	fp = fopen(path, "wb");
	if (!fp || fwrite(p, 1, len, fp) != len || fclose(fp))
		die(path);
	printf("%s.%s.dat: %s\n", base, what, desc);
}

static unsigned char *copy(void)
{
	unsigned char *p = malloc(orig_size);

	if (!p)
		die("malloc");
	memcpy(p, orig, orig_size);
	return p;
}

/* The first option with @id, or NULL. */
static const struct tdat_option *find_option(unsigned int id, uint32_t min_size)
{
	for (size_t i = 0; i < tdat_option_count(f); i++) {
		const struct tdat_option *o = tdat_option_get(f, i);

		if (o && o->id == id && o->size >= min_size)
			return o;
	}
	return NULL;
}

/* The UNAME option's id and first 16 bytes made a TSC2NSEC option. */
static void tsc2nsec(unsigned char *p, uint32_t mult, uint32_t shift,
		     uint64_t offset)
{
	const struct tdat_option *o = find_option(TDAT_OPT_UNAME, 16);

	if (!o)
		die("a UNAME option of 16 bytes or more");
	p[o->offset - OPT_HDR] = TDAT_OPT_TSC2NSEC;
	p[o->offset - OPT_HDR + 1] = 0;
	le_set(p + o->offset, mult, 4);
	le_set(p + o->offset + 4, shift, 4);
	le_set(p + o->offset + 8, offset, 8);
}

static void tsc_variant(const char *what, uint32_t mult, uint32_t shift,
			uint64_t offset)
{
	unsigned char *p = copy();
	char desc[128];

	tsc2nsec(p, mult, shift, offset);
	snprintf(desc, sizeof(desc), "TSC2NSEC mult %#x shift %u offset %#llx",
		 mult, shift, (unsigned long long)offset);
	write_out(what, p, orig_size, desc);
	free(p);
}

/*
 * Add @delta to the timestamp of every page of the top buffer, whose
 * data must be stored raw: the first 8 bytes of each header-size page.
 */
static void move_pages(unsigned char *p, uint64_t delta)
{
	const struct tdat_buffer *b = tdat_buffer_get(f, 0);
	uint32_t ps = tdat_page_size(f);

	for (unsigned int c = 0; c < b->ncpus; c++) {
		uint64_t at = b->cpus[c].offset, end = at + b->cpus[c].stored_size;

		for (; at + ps <= end; at += ps)
			le_set(p + at, le_get(p + at, 8) + delta, 8);
	}
}

static uint64_t first_page_ts(void)
{
	const struct tdat_buffer *b = tdat_buffer_get(f, 0);
	uint64_t min = UINT64_MAX;

	for (unsigned int c = 0; c < b->ncpus; c++) {
		if (b->cpus[c].stored_size && le_get(orig + b->cpus[c].offset, 8) < min)
			min = le_get(orig + b->cpus[c].offset, 8);
	}
	return min;
}

/* Whether the top buffer's pages are stored as they are (not compressed). */
static bool raw_top(void)
{
	const struct tdat_buffer *b = tdat_buffer_get(f, 0);
	const struct tdat_section *s = b->section >= 0 ?
		tdat_section_get(f, (size_t)b->section) : NULL;

	return !s || !(s->flags & TDAT_SECTION_COMPRESSED);
}

static void wrap_variant(void)
{
	unsigned char *p = copy();

	tsc2nsec(p, 1, 64, 0);
	move_pages(p, 0 - first_page_ts() - 50000000);
	write_out("tsc-shift64-wrap", p, orig_size,
		  "TSC2NSEC mult 1 shift 64, first page 50 ms below 2^64");
	free(p);
}

/* A TIME_SHIFT option of @size bytes: 65535 CPUs without samples. */
static void time_shift(struct out *o, uint32_t size)
{
	unsigned char z[OPT_HDR + 16];

	z[0] = TDAT_OPT_TIME_SHIFT;
	z[1] = 0;
	le_set(z + 2, size, 4);
	le_set(z + 6, 0x1234, 8);	/* peer trace id */
	le_set(z + 14, 0, 4);	/* flags */
	le_set(z + 18, TS_NCPUS, 4);
	put(o, z, sizeof(z));
	for (uint32_t i = 16; i < size; i++)
		putn(o, 0, 1);
}

/* v7: an options section at the end, chained from the last DONE. */
static void tshift_v7(void)
{
	const struct tdat_option *done = NULL;
	const struct tdat_section *sec = NULL;
	struct out o = { 0 };

	for (size_t i = 0; i < tdat_option_count(f); i++) {
		const struct tdat_option *x = tdat_option_get(f, i);

		if (x && x->id == TDAT_OPT_DONE && x->size == 8 &&
		    !le_get(orig + x->offset, 8))
			done = x;
	}
	for (size_t i = 0; !sec && i < tdat_section_count(f); i++) {
		if (tdat_section_get(f, i)->id == TDAT_OPT_DONE)
			sec = tdat_section_get(f, i);
	}
	if (!done || !sec)
		die("a chain of options sections");
	put(&o, orig, orig_size);
	le_set(o.d + done->offset, orig_size, 8);
	put(&o, orig + sec->offset, SEC_HDR);	/* id, flags, description */
	time_shift(&o, 16 + 4 * TS_NCPUS);
	putn(&o, TDAT_OPT_DONE, 2);
	putn(&o, 8, 4);
	putn(&o, 0, 8);
	le_set(o.d + orig_size + 8, o.len - orig_size - SEC_HDR, 8);
	write_out("tshift-empty", o.d, o.len,
		  "TIME_SHIFT of 65535 CPUs without samples, appended");
	free(o.d);
}

/*
 * v6: the option inserted where the options end (the bare DONE), sized
 * so that everything after it moves by whole pages, and the CPU offsets
 * after the "flyrecord" marker moved with it.
 */
static void tshift_v6(void)
{
	uint64_t end = 0, ps = tdat_page_size(f), at;
	struct out o = { 0 };
	uint32_t size;
	size_t add;

	for (size_t i = 0; i < tdat_option_count(f); i++) {
		const struct tdat_option *x = tdat_option_get(f, i);

		if (x && x->id != TDAT_OPT_DONE && x->offset + x->size > end)
			end = x->offset + x->size;
	}
	add = (OPT_HDR + 16 + 4 * TS_NCPUS + ps - 1) / ps * ps;
	size = (uint32_t)(add - OPT_HDR);
	at = end + 2;
	if (tdat_buffer_count(f) != 1 || memcmp(orig + at, "flyrecord", 10))
		die("a v6 trace of one buffer, its options ending in flyrecord");
	put(&o, orig, end);
	time_shift(&o, size);
	put(&o, orig + end, orig_size - end);
	for (unsigned int c = 0; c < tdat_cpu_count(f); c++) {
		unsigned char *e = o.d + add + at + 10 + 16 * (size_t)c;

		if (le_get(e + 8, 8))
			le_set(e, le_get(e, 8) + add, 8);
	}
	write_out("tshift-empty", o.d, o.len,
		  "TIME_SHIFT of 65535 CPUs without samples, inserted");
	free(o.d);
}

/* v7: the top BUFFER option's page size doubled. */
static void buffer_page(void)
{
	const struct tdat_option *o = find_option(TDAT_OPT_BUFFER, 8);
	unsigned char *p = copy();
	const unsigned char *d;
	size_t pos = 8;

	if (!o || ((const unsigned char *)o->data)[8])
		die("a BUFFER option of the top instance");
	d = o->data;
	pos += 1;					/* "" */
	pos += strnlen((const char *)d + pos, o->size - pos) + 1;	/* clock */
	le_set(p + o->offset + pos, 2 * tdat_page_size(f), 4);
	write_out("buffer-page", p, orig_size,
		  "the top BUFFER option's page size twice the header's");
	free(p);
}

int main(int argc, char **argv)
{
	char *dot;
	FILE *fp;

	if (argc != 3) {
		fprintf(stderr, "usage: gen-times TRACE OUTDIR\n");
		return 2;
	}
	outdir = argv[2];
	snprintf(base, sizeof(base), "%s", basename(argv[1]));
	dot = strrchr(base, '.');
	if (dot)
		*dot = '\0';
	fp = fopen(argv[1], "rb");
	if (!fp || fseek(fp, 0, SEEK_END) || (long)(orig_size = ftell(fp)) < 0)
		die(argv[1]);
	rewind(fp);
	orig = malloc(orig_size);
	if (!orig || fread(orig, 1, orig_size, fp) != orig_size)
		die(argv[1]);
	fclose(fp);
	f = tdat_open(argv[1], NULL, NULL, 0);
	if (!f || tdat_big_endian(f) || !tdat_buffer_count(f))
		die("a little-endian trace with a buffer");

	/* the arithmetic is the same for both versions: v7 alone */
	if (tdat_version(f) >= 7) {
		tsc_variant("tsc-shift64", 1, 64, 0);
		tsc_variant("tsc-mult-max", 0xffffffffu, 31, 1ull << 63);
		tsc_variant("tsc-mult-neg", 0x80000001u, 0, 0);
		tsc_variant("tsc-shift40", 3, 40, 0);
		if (raw_top())
			wrap_variant();
		tshift_v7();
		buffer_page();
	} else {
		wrap_variant();
		tshift_v6();
	}
	tdat_close(f);
	free(orig);
	return 0;
}
