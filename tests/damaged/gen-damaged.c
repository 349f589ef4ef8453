/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-damaged.c - make damaged variants of a sound trace.dat file.
 *
 * usage: gen-damaged TRACE OUTDIR [CLASS]
 *
 * The structure of TRACE (sections, options, buffers, chunk tables) is
 * learnt through the parser; each variant is a copy of TRACE with one
 * change, written as OUTDIR/<base>.<class>.<what>.dat, where class is
 *  - trunc: cut inside the header, a section header, a section's payload,
 *    an option, a chunk header, a chunk or a page, or at the last byte;
 *  - flip:  one byte inverted in the header, a section header, an option
 *    header, a chunk header, compressed chunk data, a page header or page
 *    data;
 *  - lie:   a size or offset set to a lie: a chunk claiming 4 GiB, a chunk
 *    count or compressed size past the end, an option longer than its
 *    section, a section running past the end, CPU data past the end, a
 *    loop in the chain of options sections;
 *  - step:  one event of a page (uncompressed data) whose length steps
 *    back or nowhere: padding (type_len 29) with a length word of
 *    0xfffffffc or 0xfffffff0, the latter also with a time delta of 0
 *    ("null" padding), and a type_len 0 event whose length word is 0 or
 *    0xfffffff8.  kbuffer's walk stops only at next >= size: it loops on
 *    these, where the page is to be one that does not parse.
 * With CLASS, only the variants of that class are written.
 * One line per variant goes to stdout: file name, class, what was done and
 * at which offset.  A handful of variants per structure keeps the suite
 * short; the offsets are chosen from the structure, not at random, so the
 * set is the same on every run.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"

static const unsigned char *orig;
static size_t orig_size;
static bool big_endian;
static const char *outdir;
static const char *only;	/* the one class written, or NULL */
static char base[256];
static int made;

static int write_file(const char *name, const unsigned char *p, size_t len)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(p, 1, len, fp) != len || fclose(fp)) {
		perror(path);
		exit(2);
	}
	made++;
	return 0;
}

static void trunc_at(const char *what, uint64_t off)
{
	char name[512];

	if (off == 0 || off >= orig_size || (only && strcmp(only, "trunc")))
		return;
	snprintf(name, sizeof(name), "%s.trunc.%s-%" PRIu64 ".dat", base, what, off);
	printf("%s trunc %s: cut at offset %" PRIu64 "\n", name, what, off);
	write_file(name, orig, off);
}

/* Copy of the file with @len bytes at @off replaced by @bytes. */
static void patch(const char *cls, const char *what, uint64_t off,
		  const void *bytes, size_t len)
{
	unsigned char *p;
	char name[512];

	if (off >= orig_size || len > orig_size - off ||
	    (only && strcmp(only, cls)))
		return;
	p = malloc(orig_size);
	if (!p)
		exit(2);
	memcpy(p, orig, orig_size);
	memcpy(p + off, bytes, len);
	snprintf(name, sizeof(name), "%s.%s.%s-%" PRIu64 ".dat", base, cls, what, off);
	printf("%s %s %s: %zu bytes changed at offset %" PRIu64 "\n", name, cls,
	       what, len, off);
	write_file(name, p, orig_size);
	free(p);
}

static void flip(const char *what, uint64_t off)
{
	unsigned char b;

	if (off >= orig_size)
		return;
	b = orig[off] ^ 0xff;
	patch("flip", what, off, &b, 1);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[big_endian ? i : 3 - i] = (unsigned char)(v >> (8 * (3 - i)));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[big_endian ? i : 7 - i] = (unsigned char)(v >> (8 * (7 - i)));
}

static uint32_t get32(uint64_t off)
{
	const unsigned char *p = orig + off;

	if (big_endian)
		return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

static void lie32(const char *what, uint64_t off, uint32_t v)
{
	unsigned char b[4];

	put32(b, v);
	patch("lie", what, off, b, 4);
}

static void lie64(const char *what, uint64_t off, uint64_t v)
{
	unsigned char b[8];

	put64(b, v);
	patch("lie", what, off, b, 8);
}

static void header_variants(void)
{
	static const uint64_t cuts[] = { 5, 12, 30 };
	/* magic, "tracing", version, endianness, long size, page size */
	static const uint64_t flips[] = { 0, 4, 10, 13, 14, 15 };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		trunc_at("header", cuts[i]);
	for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); i++)
		flip("header", flips[i]);
}

static void section_variants(struct tdat_file *f)
{
	size_t n = tdat_section_count(f);
	uint64_t first_opts = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tdat_section *s = tdat_section_get(f, i);

		if (!s)
			continue;
		if (s->id == TDAT_OPT_DONE && !first_opts)
			first_opts = s->offset;
		/* the first three, every options section, every buffer */
		if (i >= 3 && s->id != TDAT_OPT_DONE && s->id != TDAT_OPT_BUFFER)
			continue;
		trunc_at("section-header", s->offset + 7);
		trunc_at("section-payload", s->offset + 16 + s->size / 2);
		flip("section-id", s->offset);
		flip("section-flags", s->offset + 2);
		flip("section-size", s->offset + 8 + (big_endian ? 6 : 1));
		if (i == 0 || s->id == TDAT_OPT_BUFFER)
			lie64("section-size-past-end", s->offset + 8,
			      orig_size * 2);
	}
	(void)first_opts;
}

static void option_variants(struct tdat_file *f)
{
	size_t n = tdat_option_count(f), done = 0, shown = 0;
	uint64_t first_sec = 0;

	for (size_t i = 0; i < tdat_section_count(f); i++) {
		const struct tdat_section *s = tdat_section_get(f, i);

		if (s && s->id == TDAT_OPT_DONE) {
			first_sec = s->offset;
			break;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct tdat_option *o = tdat_option_get(f, i);
		uint64_t hdr;

		if (!o || o->offset < 6)
			continue;
		hdr = o->offset - 6;	/* u16 id, u32 size */
		if (o->id == TDAT_OPT_DONE) {
			/* v7: DONE holds the offset of the next options section */
			if (tdat_version(f) >= 7 && o->size == 8 && first_sec) {
				lie64(done ? "options-loop-first" : "options-loop-self",
				      o->offset, first_sec);
				lie64("options-next-past-end", o->offset,
				      orig_size + 4096);
			}
			done++;
			continue;
		}
		if (shown < 4) {
			trunc_at("option", o->offset + o->size / 2);
			flip("option-id", hdr + (big_endian ? 1 : 0));
			flip("option-size", hdr + 2 + (big_endian ? 3 : 0));
			lie32("option-longer-than-section", hdr + 2,
			      o->size + 100000);
			shown++;
		}
		if (o->id == TDAT_OPT_BUFFER && tdat_version(f) >= 7) {
			uint64_t pos = 8;
			const char *d = o->data;

			/* name, clock, u32 page size, u32 cpus, {u32, u64, u64} */
			while (pos < o->size && d[pos])
				pos++;
			pos++;
			while (pos < o->size && d[pos])
				pos++;
			pos += 1 + 8;
			if (pos + 20 <= o->size) {
				lie64("cpu-offset-past-end", o->offset + pos + 4,
				      orig_size + 4096);
				lie64("cpu-size-past-end", o->offset + pos + 12,
				      orig_size);
			}
		}
	}
}

/* Chunks of a compressed CPU stream: headers, data, lying sizes. */
static void chunk_variants(const struct tdat_cpu_data *c, bool first)
{
	uint64_t pos = c->offset + 4, h[3] = { 0 };
	uint32_t count, cs[3] = { 0 };
	unsigned int k;

	if (c->offset + 4 > orig_size)
		return;
	count = get32(c->offset);
	for (k = 0; k < 3 && k < count && pos + 8 <= orig_size; k++) {
		h[k] = pos;
		cs[k] = get32(pos);
		pos += 8 + cs[k];
	}
	if (k < 2)
		return;
	flip("chunk-count", c->offset + (big_endian ? 3 : 0));
	flip("chunk-csize", h[1] + (big_endian ? 3 : 0));
	flip("chunk-usize", h[1] + 4 + (big_endian ? 2 : 1));
	flip("chunk-data", h[1] + 8 + cs[1] / 2);
	flip("chunk-data-start", h[0] + 8 + 4);
	trunc_at("chunk-header", h[1] + 3);
	trunc_at("chunk-data", h[1] + 8 + cs[1] / 2);
	lie32("chunk-4GiB", h[1] + 4, 0xffffffffu);
	if (first) {
		lie32("chunk-csize-past-end", h[1], 0x7fffffffu);
		lie32("chunk-count-huge", c->offset, 0x7fffffffu);
		lie32("chunk-usize-small", h[0] + 4, 4096);
	}
}

/* An event header of @type and @delta, and a word after it, at @b. */
static void put_event(unsigned char *b, unsigned int type, uint32_t delta,
		      uint32_t word)
{
	put32(b, big_endian ? type << 27 | delta : delta << 5 | type);
	put32(b + 4, word);
}

/*
 * The step variants of the page at @p, on a data event in the middle of
 * the page (so the page has events before and after it) of at least 20
 * bytes.  Its first 8 bytes become padding of length 0xfffffffc (the
 * walk's next event is itself), or a type_len 0 event of length word 0 or
 * 0xfffffff8.  For the steps of 16 bytes back, the event becomes one of
 * 12 bytes (its header a type_len 2, its first 8 bytes of payload kept)
 * followed by the padding: the walk goes back to that event and reads it
 * again, the lines printed forever of the issue.
 */
static void step_variants(uint64_t p, uint32_t page, unsigned int klong)
{
	uint64_t data = p + (klong == 8 ? 16 : 12), size, pos = 0, e = 0;
	unsigned int n = 0, type, len;
	unsigned char b[20];
	uint32_t h;

	size = (klong == 8 && big_endian ? get32(p + 12) : get32(p + 8)) &
	       ((1u << 27) - 1);
	if (size > page - (data - p))
		return;
	/* the first event of 20 bytes or more past the page's middle */
	while (pos + 8 <= size && !e) {
		h = get32(data + pos);
		type = big_endian ? h >> 27 : h & 31;
		if (type == 0)
			len = 8 + ((get32(data + pos + 4) - 4 + 3) & ~3u);
		else if (type == 29)
			len = 4 + get32(data + pos + 4);
		else if (type >= 30)
			len = 8;
		else
			len = 4 + 4 * type;
		if (type && type < 29 && len >= 20 && pos >= size / 2 &&
		    pos + len < size && n >= 2)
			e = data + pos;
		if (type < 29)
			n++;
		if (len < 8 || pos + len > size)
			return;
		pos += len;
	}
	if (!e)
		return;
	put_event(b, 29, 1, 0xfffffffcu);
	patch("step", "padding-back4", e, b, 8);
	put_event(b, 0, 1, 0);
	patch("step", "length-word-zero", e, b, 8);
	put_event(b, 0, 1, 0xfffffff8u);
	patch("step", "length-word-back", e, b, 8);
	put_event(b, 2, 1, 0);
	memcpy(b + 4, orig + e + 4, 8);
	put_event(b + 12, 29, 1, 0xfffffff0u);
	patch("step", "padding-back16", e, b, 20);
	put_event(b + 12, 29, 0, 0xfffffff0u);
	patch("step", "padding-null-back16", e, b, 20);
}

/* Pages of an uncompressed CPU stream. */
static void page_variants(const struct tdat_cpu_data *c, uint32_t page,
			  unsigned int klong, bool first)
{
	uint64_t p1 = c->offset + page;	/* second page */

	if (c->stored_size < 3 * (uint64_t)page)
		return;
	if (first)
		step_variants(p1, page, klong);
	trunc_at("page", p1 + page / 2);
	flip("page-timestamp", p1 + (big_endian ? 0 : 7));
	flip("page-commit", p1 + 8 + (big_endian ? 4 : 3));
	flip("page-data", p1 + 16 + 5);
	if (first) {
		flip("page-event-header", p1 + 16);
		lie64("page-commit-huge", p1 + 8, 0x00ffffffu);
	}
}

static void buffer_variants(struct tdat_file *f)
{
	size_t n = tdat_buffer_count(f);
	bool compressed = strcmp(tdat_compression(f), "none") != 0;

	for (size_t b = 0; b < n; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(f, b);

		if (!buf || buf->latency)
			continue;
		/* every CPU of the top buffer; the first of the others */
		for (unsigned int c = 0; c < buf->ncpus && (b == 0 || c < 1); c++) {
			if (compressed)
				chunk_variants(&buf->cpus[c], b == 0 && c == 0);
			else
				page_variants(&buf->cpus[c], buf->page_size,
					      tdat_kernel_long_size(f),
					      b == 0 && c == 0);
		}
	}
}

int main(int argc, char **argv)
{
	struct tdat_file *f;
	char err[512], *tmp;
	FILE *fp;
	long sz;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s TRACE OUTDIR [CLASS]\n", argv[0]);
		return 2;
	}
	outdir = argv[2];
	only = argc == 4 ? argv[3] : NULL;
	f = tdat_open(argv[1], NULL, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 2;
	}
	fp = fopen(argv[1], "rb");
	if (!fp || fseek(fp, 0, SEEK_END) || (sz = ftell(fp)) <= 0 ||
	    fseek(fp, 0, SEEK_SET)) {
		perror(argv[1]);
		return 2;
	}
	orig_size = (size_t)sz;
	orig = malloc(orig_size);
	if (!orig || fread((void *)orig, 1, orig_size, fp) != orig_size) {
		perror(argv[1]);
		return 2;
	}
	fclose(fp);
	big_endian = tdat_big_endian(f);
	tmp = strdup(argv[1]);
	snprintf(base, sizeof(base), "%s", basename(tmp));
	free(tmp);
	if (strlen(base) > 4 && !strcmp(base + strlen(base) - 4, ".dat"))
		base[strlen(base) - 4] = '\0';

	header_variants();
	section_variants(f);
	option_variants(f);
	buffer_variants(f);
	trunc_at("last-byte", orig_size - 1);

	fprintf(stderr, "%s: %d variants\n", argv[1], made);
	tdat_close(f);
	free((void *)orig);
	return 0;
}
