/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser-input.c - the trace.dat reader (tdat.h) on byte fixtures built
 * here, field by field, and on the real traces in tests/data/.
 *
 * Usage: test-input DATA_DIR
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "tdat.h"
#include "byte-builder.h"
#include "check.h"


/* --- fixture texts ------------------------------------------------------ */

static char header_page8[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
static char header_page4[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:1;\n";
static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n";
static const char fmt_function[] =
	"name: function\nID: 1\nformat:\n\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n";
static const char fmt_switch[] =
	"name: sched_switch\nID: 316\nformat:\n\tfield:int prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n";
static const char fmt_wakeup[] =
	"name: sched_wakeup\nID: 317\nformat:\n\tfield:int pid;\toffset:8;\tsize:4;\tsigned:1;\n";
static const char kallsyms[] = "ffffffff81000000 T _stext\nffffffff81000010 T start\n";
static const char printk[] = "0xffffffff82000000 : \"hello %d\\n\"\n";
static const char cmdlines[] = "1 systemd\n42 bash\n";

#define PAGE 4096

/* Fixture variants. */
enum mut {
	MUT_NONE,
	MUT_ZSTD,	/* zstd file, kallsyms section compressed */
	MUT_SEC_EOF,	/* the last section's size runs past EOF */
	MUT_LOOP,	/* options #2 DONE points back to options #1 */
	MUT_OPT_BIG,	/* an option bigger than its section */
	MUT_CPU_EOF,	/* BUFFER cpu 1 offset past EOF */
	MUT_COMP_LZ4,	/* unknown compression name */
};

struct fixture {
	struct bb b;
	size_t sec_kallsyms;	/* offset of the kallsyms section header */
	size_t opt1, opt2;	/* OPTIONS section header offsets */
	size_t opt_unknown;	/* data offset of option 99 */
	size_t size_field_last;	/* offset of the last section's size field */
	size_t big_opt;		/* header offset of the oversize option */
	size_t cpu1_off_field;	/* file offset of cpu 1's offset in BUFFER */
	size_t cpu_data[2];
	size_t comp_name_at;
};

/* A description string id: the offset of @s in the STRINGS data we write. */
static const char *const descs[] = {
	"headers", "ftrace events", "events format", "kallsyms", "printk",
	"command lines", "options", "buffer flyrecord ", "strings",
};

static uint32_t desc_id(const char *s)
{
	uint32_t off = 0;

	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
		if (!strcmp(descs[i], s))
			return off;
		off += (uint32_t)strlen(descs[i]) + 1;
	}
	return 0xffffffffu;
}

static size_t sec_begin(struct bb *b, uint16_t id, uint16_t flags, const char *desc)
{
	size_t at = b->len;

	u16(b, id);				/* section id */
	u16(b, flags);				/* flags, bit 0 = compressed */
	u32(b, desc ? desc_id(desc) : 0xffffffffu); /* description string id */
	u64(b, 0);				/* size, patched by sec_end */
	return at;
}

static void sec_end(struct bb *b, size_t at)
{
	patch(b, at + 8, b->len - at - 16, 8);
}

static void option(struct bb *b, uint16_t id, uint32_t size, const void *data)
{
	u16(b, id);		/* option id */
	u32(b, size);		/* option size */
	put(b, data, size);	/* option data */
}

static void option64(struct bb *b, uint16_t id, uint64_t v)
{
	u16(b, id);		/* option id */
	u32(b, 8);		/* size: one u64 */
	u64(b, v);		/* section offset */
}

static void fill_page(uint8_t *p, int seed)
{
	for (int i = 0; i < PAGE; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

static void build_v7(struct fixture *fx, bool be, bool long4, enum mut mut)
{
	struct bb *b = &fx->b;
	size_t s[6], at, patch_opt;
	uint8_t page[PAGE];

	memset(fx, 0, sizeof(*fx));
	b->be = be;
	/* initial header */
	put(b, "\x17\x08\x44", 3);		/* magic */
	txt(b, "tracing");			/* "tracing", no NUL */
	str(b, "7");				/* version string */
	u8(b, be);				/* endianness */
	u8(b, long4 ? 4 : 8);			/* user-space long size */
	u32(b, PAGE);				/* page size */
	fx->comp_name_at = b->len;
	str(b, mut == MUT_ZSTD ? "zstd" : mut == MUT_COMP_LZ4 ? "lz4" : "none");
	str(b, mut == MUT_ZSTD ? "1.5.4" : "");	/* compression version */
	patch_opt = b->len;
	u64(b, 0);				/* first OPTIONS offset, patched */

	/* HEADER INFO */
	s[0] = sec_begin(b, 16, 0, "headers");
	str(b, "header_page");
	u64(b, strlen(long4 ? header_page4 : header_page8));
	txt(b, long4 ? header_page4 : header_page8);
	str(b, "header_event");
	u64(b, strlen(header_event));
	txt(b, header_event);
	sec_end(b, s[0]);
	/* FTRACE EVENT FORMATS: one format */
	s[1] = sec_begin(b, 17, 0, "ftrace events");
	u32(b, 1);				/* count */
	u64(b, strlen(fmt_function));		/* size */
	txt(b, fmt_function);
	sec_end(b, s[1]);
	/* EVENT FORMATS: one system with two events */
	s[2] = sec_begin(b, 18, 0, "events format");
	u32(b, 1);				/* systems */
	str(b, "sched");			/* system name */
	u32(b, 2);				/* events */
	u64(b, strlen(fmt_switch));
	txt(b, fmt_switch);
	u64(b, strlen(fmt_wakeup));
	txt(b, fmt_wakeup);
	sec_end(b, s[2]);
	/* KALLSYMS: u32 size + text, compressed as one block for MUT_ZSTD */
	fx->sec_kallsyms = s[3] = sec_begin(b, 19, mut == MUT_ZSTD, "kallsyms");
	if (mut == MUT_ZSTD) {
		uint8_t raw[256], z[512];
		size_t rl = 4 + strlen(kallsyms), zl;

		raw[0] = (uint8_t)strlen(kallsyms);	/* little-endian u32 size */
		raw[1] = raw[2] = raw[3] = 0;
		memcpy(raw + 4, kallsyms, strlen(kallsyms));
		zl = ZSTD_compress(z, sizeof(z), raw, rl, 3);
		FATAL(!ZSTD_isError(zl));
		u32(b, (uint32_t)zl);			/* compressed size */
		u32(b, (uint32_t)rl);			/* uncompressed size */
		put(b, z, zl);				/* zstd frame */
	} else {
		u32(b, (uint32_t)strlen(kallsyms));	/* size */
		txt(b, kallsyms);
	}
	sec_end(b, s[3]);
	/* PRINTK: u32 size + text */
	s[4] = sec_begin(b, 20, 0, "printk");
	u32(b, (uint32_t)strlen(printk));
	txt(b, printk);
	sec_end(b, s[4]);
	/* CMDLINES: u64 size + text */
	s[5] = sec_begin(b, 21, 0, "command lines");
	u64(b, strlen(cmdlines));
	txt(b, cmdlines);
	sec_end(b, s[5]);

	/* OPTIONS #1 */
	fx->opt1 = sec_begin(b, 0, 0, "options");
	patch(b, patch_opt, fx->opt1, 8);
	for (int i = 0; i < 6; i++)
		option64(b, (uint16_t)(16 + i), s[i]);	/* section offsets */
	{
		uint8_t cc[4];
		struct bb t = { .be = be };

		u32(&t, 2);
		memcpy(cc, t.d, 4);
		free(t.d);
		option(b, 8, 4, cc);			/* CPUCOUNT = 2 */
	}
	option(b, 5, 6, "Linux\0");			/* UNAME */
	fx->opt_unknown = b->len + 6;
	option(b, 99, 3, "xyz");			/* unknown id, kept */
	if (mut == MUT_OPT_BIG) {
		fx->big_opt = b->len;
		u16(b, 9);				/* VERSION ... */
		u32(b, 1000);				/* ... bigger than the section */
	}
	u16(b, 0);					/* DONE */
	u32(b, 8);
	at = b->len;
	u64(b, 0);					/* next OPTIONS, patched */
	sec_end(b, fx->opt1);

	/* BUFFER FLYRECORD: padding, then one page per CPU */
	s[0] = sec_begin(b, 3, 0, "buffer flyrecord ");
	for (int c = 0; c < 2; c++) {
		pad_to(b, PAGE);
		fx->cpu_data[c] = b->len;
		fill_page(page, c + 1);
		put(b, page, PAGE);
	}
	sec_end(b, s[0]);

	/* OPTIONS #2: the BUFFER option */
	fx->opt2 = sec_begin(b, 0, 0, "options");
	patch(b, at, fx->opt2, 8);
	{
		struct bb o = { .be = be };

		u64(&o, s[0]);				/* section offset */
		str(&o, "");				/* top instance */
		str(&o, "local");			/* clock */
		u32(&o, PAGE);				/* page size */
		u32(&o, 2);				/* CPUs */
		for (int c = 0; c < 2; c++) {
			u32(&o, (uint32_t)c);		/* cpu */
			if (c == 1)
				fx->cpu1_off_field = b->len + 6 + o.len;
			u64(&o, mut == MUT_CPU_EOF && c == 1 ? 10000000 : fx->cpu_data[c]);
			u64(&o, PAGE);			/* size */
		}
		option(b, 3, (uint32_t)o.len, o.d);
		free(o.d);
	}
	u16(b, 0);					/* DONE */
	u32(b, 8);
	u64(b, mut == MUT_LOOP ? fx->opt1 : 0);	/* last OPTIONS */
	sec_end(b, fx->opt2);

	/* STRINGS */
	at = sec_begin(b, 15, 0, "strings");
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		str(b, descs[i]);
	sec_end(b, at);
	fx->size_field_last = at + 8;
	if (mut == MUT_SEC_EOF)
		patch(b, at + 8, 999999, 8);
}

static char tmpdir[] = "/tmp/test-input-XXXXXX";

static const char *write_file(const struct bb *b, const char *name)
{
	static char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fp = fopen(path, "wb");
	FATAL(fp);
	FATAL(fwrite(b->d, 1, b->len, fp) == b->len);
	fclose(fp);
	return path;
}

static bool blob_is(struct tdat_file *f, enum tdat_meta m, const void *want, size_t len)
{
	char buf[512];
	uint64_t size = 0;
	ssize_t r;

	if (tdat_meta_size(f, m, &size) || size != len)
		return false;
	r = tdat_meta_read(f, m, buf, sizeof(buf), 0);
	return r == (ssize_t)len && !memcmp(buf, want, len);
}

static bool event_is(struct tdat_file *f, size_t i, const char *sys,
		     const char *name, int id, const char *text)
{
	const struct tdat_event_format *e = tdat_event_get(f, i);
	char buf[512];

	if (!e || strcmp(e->system, sys) || strcmp(e->name, name) || e->id != id ||
	    e->size != strlen(text))
		return false;
	/* a read in the middle, then to the end */
	if (tdat_event_read(f, i, buf, 5, 3) != 5 || memcmp(buf, text + 3, 5))
		return false;
	return tdat_event_read(f, i, buf, sizeof(buf), 0) == (ssize_t)strlen(text) &&
	       !memcmp(buf, text, strlen(text));
}

static void check_common(struct tdat_file *f, const struct fixture *fx, bool long4)
{
	static const uint16_t ids[] = { 16, 17, 18, 19, 20, 21, 8, 5, 99, 0, 3, 0 };
	const struct tdat_buffer *b;
	uint8_t page[PAGE], got[PAGE];
	char buf[256];
	uint64_t dsize;
	uint64_t size;

	CHECK(tdat_meta_size(f, TDAT_META_BTF, &size) == -ENOENT);
	CHECK(blob_is(f, TDAT_META_HEADER_PAGE, long4 ? header_page4 : header_page8,
		      strlen(long4 ? header_page4 : header_page8)));
	CHECK(blob_is(f, TDAT_META_HEADER_EVENT, header_event, strlen(header_event)));
	CHECK(blob_is(f, TDAT_META_KALLSYMS, kallsyms, strlen(kallsyms)));
	CHECK(blob_is(f, TDAT_META_PRINTK, printk, strlen(printk)));
	CHECK(blob_is(f, TDAT_META_CMDLINES, cmdlines, strlen(cmdlines)));
	CHECK(tdat_meta_read(f, TDAT_META_CMDLINES, buf, 10, 1000) == 0);
	CHECK(tdat_kernel_long_size(f) == (long4 ? 4u : 8u));
	CHECK(tdat_long_size(f) == (long4 ? 4u : 8u));
	CHECK(tdat_page_size(f) == PAGE);
	CHECK(tdat_cpu_count(f) == 2);

	CHECK(tdat_event_count(f) == 3);
	CHECK(event_is(f, 0, "ftrace", "function", 1, fmt_function));
	CHECK(event_is(f, 1, "sched", "sched_switch", 316, fmt_switch));
	CHECK(event_is(f, 2, "sched", "sched_wakeup", 317, fmt_wakeup));
	CHECK(tdat_event_get(f, 3) == NULL);

	if (tdat_version(f) == 7) {
		CHECK(tdat_option_count(f) == sizeof(ids) / sizeof(ids[0]));
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]) &&
		     i < tdat_option_count(f); i++)
			CHECK(tdat_option_get(f, i)->id == ids[i]);
		if (tdat_option_count(f) > 8) {
			const struct tdat_option *o = tdat_option_get(f, 8);

			CHECK(o->size == 3 && !memcmp(o->data, "xyz", 3));
			CHECK(o->offset == fx->opt_unknown);
			CHECK(!memcmp(fx->b.d + o->offset, "xyz", 3));
			CHECK(tdat_get32(f, tdat_option_get(f, 6)->data) == 2);
		}
		CHECK(tdat_option_name(99) == NULL);
		CHECK(!strcmp(tdat_option_name(5), "uname"));

		/* sections: 6 metadata, options, buffer, options, strings */
		CHECK(tdat_section_count(f) == 10);
		if (tdat_section_count(f) == 10) {
			static const uint16_t sids[] = { 16, 17, 18, 19, 20, 21, 0, 3, 0, 15 };

			for (size_t i = 0; i < 10; i++)
				CHECK(tdat_section_get(f, i)->id == sids[i]);
			CHECK(!strcmp(tdat_section_get(f, 3)->description, "kallsyms"));
			CHECK(!strcmp(tdat_section_get(f, 7)->description, "buffer flyrecord "));
			CHECK(!strcmp(tdat_section_get(f, 9)->description, "strings"));
			CHECK(tdat_section_get(f, 3)->offset == fx->sec_kallsyms);
			CHECK(tdat_section_get(f, 3)->data_size == 4 + strlen(kallsyms));
			/* a compressed buffer's size: only on asking (chunk tables) */
			CHECK(tdat_section_get(f, 7)->data_size ==
			      ((tdat_section_get(f, 7)->flags & TDAT_SECTION_COMPRESSED) ? 0 : 2 * PAGE));
			CHECK(tdat_section_data_size(f, 7, &dsize) == 0 && dsize == 2 * PAGE);
			CHECK(tdat_section_data_size(f, 3, &dsize) == 0 &&
			      dsize == 4 + strlen(kallsyms));
			CHECK(tdat_section_data_size(f, 10, &dsize) == -ENOENT);
			CHECK(tdat_section_read(f, 3, buf, sizeof(buf), 4) ==
			      (ssize_t)strlen(kallsyms));
			CHECK(!memcmp(buf, kallsyms, strlen(kallsyms)));
			CHECK(tdat_section_read(f, 7, buf, 1, 0) == -EISDIR);
		}
	}

	CHECK(tdat_buffer_count(f) == 1);
	b = tdat_buffer_get(f, 0);
	FATAL(b);
	CHECK(!strcmp(b->name, "") && !strcmp(b->clock, "local"));
	CHECK(b->ncpus == 2 && !b->latency && b->page_size == PAGE);
	for (unsigned int c = 0; c < b->ncpus && c < 2; c++) {
		CHECK(b->cpus[c].cpu == c);
		CHECK(b->cpus[c].offset == fx->cpu_data[c]);
		CHECK(tdat_cpu_size(f, 0, c, &size) == 0 && size == PAGE);
		fill_page(page, (int)c + 1);
		CHECK(tdat_cpu_read(f, 0, c, got, PAGE, 0) == PAGE);
		CHECK(!memcmp(page, got, PAGE));
		CHECK(tdat_cpu_read(f, 0, c, got, 100, PAGE - 10) == 10);
		CHECK(!memcmp(page + PAGE - 10, got, 10));
	}
	CHECK(tdat_cpu_size(f, 0, 2, &size) < 0);
}

static void test_v7(bool be, bool long4, enum mut mut)
{
	struct fixture fx;
	struct tdat_file *f;
	char err[256];

	build_v7(&fx, be, long4, mut);
	f = tdat_open(write_file(&fx.b, "v7.dat"), NULL, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "open v7 (be %d long4 %d mut %d): %s\n", be, long4, mut, err);
		failures++;
		free(fx.b.d);
		return;
	}
	CHECK(tdat_version(f) == 7);
	CHECK(tdat_big_endian(f) == be);
	CHECK(!strcmp(tdat_compression(f), mut == MUT_ZSTD ? "zstd" : "none"));
	CHECK(!strcmp(tdat_compression_version(f), mut == MUT_ZSTD ? "1.5.4" : ""));
	CHECK(tdat_file_size(f) == fx.b.len);
	check_common(f, &fx, long4);
	if (mut == MUT_ZSTD)
		CHECK(tdat_section_get(f, 3)->flags == TDAT_SECTION_COMPRESSED &&
		      tdat_section_get(f, 3)->size < tdat_section_get(f, 3)->data_size + 16);
	tdat_close(f);
	free(fx.b.d);
}

/* A v6 file with the same metadata, options and one flyrecord. */
static void test_v6(void)
{
	struct fixture fx;
	struct bb *b = &fx.b;
	struct tdat_file *f;
	size_t table;
	uint8_t page[PAGE];
	char err[256];

	memset(&fx, 0, sizeof(fx));
	put(b, "\x17\x08\x44", 3);		/* magic */
	txt(b, "tracing");
	str(b, "6");				/* version */
	u8(b, 0);				/* little endian */
	u8(b, 8);				/* long size */
	u32(b, PAGE);				/* page size */
	str(b, "header_page");			/* header_page marker */
	u64(b, strlen(header_page8));
	txt(b, header_page8);
	str(b, "header_event");
	u64(b, strlen(header_event));
	txt(b, header_event);
	u32(b, 1);				/* ftrace formats */
	u64(b, strlen(fmt_function));
	txt(b, fmt_function);
	u32(b, 1);				/* systems */
	str(b, "sched");
	u32(b, 2);
	u64(b, strlen(fmt_switch));
	txt(b, fmt_switch);
	u64(b, strlen(fmt_wakeup));
	txt(b, fmt_wakeup);
	u32(b, (uint32_t)strlen(kallsyms));	/* kallsyms, u32 size */
	txt(b, kallsyms);
	u32(b, (uint32_t)strlen(printk));	/* printk, u32 size */
	txt(b, printk);
	u64(b, strlen(cmdlines));		/* cmdlines, u64 size */
	txt(b, cmdlines);
	u32(b, 2);				/* CPUs */
	put(b, "options  ", 10);		/* marker incl. NUL */
	option(b, 4, 15, "[local] global");	/* TRACECLOCK */
	option(b, 5, 6, "Linux");		/* UNAME */
	u16(b, 0);				/* bare DONE */
	put(b, "flyrecord", 10);
	table = b->len;
	for (int c = 0; c < 4; c++)
		u64(b, 0);			/* offset/size pairs, patched */
	u64(b, 14);				/* clock length */
	txt(b, "[local] global");
	for (int c = 0; c < 2; c++) {
		pad_to(b, PAGE);
		fx.cpu_data[c] = b->len;
		patch(b, table + 16 * c, b->len, 8);
		patch(b, table + 16 * c + 8, PAGE, 8);
		fill_page(page, c + 1);
		put(b, page, PAGE);
	}
	f = tdat_open(write_file(b, "v6.dat"), NULL, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "open v6: %s\n", err);
		failures++;
	} else {
		CHECK(tdat_version(f) == 6);
		CHECK(tdat_section_count(f) == 0);
		CHECK(!strcmp(tdat_compression(f), "none"));
		CHECK(tdat_option_count(f) == 3);
		CHECK(tdat_option_count(f) == 3 && tdat_option_get(f, 2)->id == 0 &&
		      tdat_option_get(f, 2)->size == 0);
		CHECK(!strcmp(tdat_option_get(f, 1)->data, "Linux"));
		check_common(f, &fx, false);
		tdat_close(f);
	}
	free(b->d);
}

/* Open must fail with @errnum and a message holding @needle. */
static void refuse(const struct bb *b, int errnum, const char *needle)
{
	char err[256] = "";
	struct tdat_file *f;

	errno = 0;
	f = tdat_open(write_file(b, "bad.dat"), NULL, err, sizeof(err));
	if (f || errno != errnum || !strstr(err, needle)) {
		fprintf(stderr, "refusal: want errno %d and \"%s\", got %s errno %d \"%s\"\n",
			errnum, needle, f ? "a handle" : "NULL", errno, err);
		failures++;
	}
	tdat_close(f);
}

static void test_refusals(void)
{
	struct fixture fx;
	char want[128];

	build_v7(&fx, false, false, MUT_NONE);
	fx.b.d[1] = 'X';
	refuse(&fx.b, EINVAL, "bad magic at offset 0");
	fx.b.d[1] = 0x08;
	fx.b.d[10] = '8';
	refuse(&fx.b, EPROTONOSUPPORT, "at offset 10");
	fx.b.d[10] = '7';
	{
		size_t save = fx.b.len;

		fx.b.len = 14;
		refuse(&fx.b, EINVAL, "truncated header at offset 14");
		fx.b.len = save;
	}
	free(fx.b.d);

	build_v7(&fx, false, false, MUT_COMP_LZ4);
	snprintf(want, sizeof(want), "unknown compression \"lz4\" at offset %zu", fx.comp_name_at);
	refuse(&fx.b, EPROTONOSUPPORT, want);
	free(fx.b.d);

	build_v7(&fx, false, false, MUT_SEC_EOF);
	snprintf(want, sizeof(want), "at offset %zu: size 999999 runs past the end of the file",
		 fx.size_field_last - 8);
	refuse(&fx.b, EINVAL, want);
	free(fx.b.d);

	build_v7(&fx, false, false, MUT_LOOP);
	snprintf(want, sizeof(want), "loops back to offset %zu", fx.opt1);
	refuse(&fx.b, EINVAL, want);
	free(fx.b.d);

	build_v7(&fx, false, false, MUT_OPT_BIG);
	snprintf(want, sizeof(want), "option 9 at offset %zu: size 1000 runs past its section",
		 fx.big_opt);
	refuse(&fx.b, EINVAL, want);
	free(fx.b.d);

	build_v7(&fx, true, false, MUT_CPU_EOF);
	refuse(&fx.b, EINVAL, "cpu 1: data at offset 10000000, size 4096 runs past the end");
	free(fx.b.d);

	/* every truncation of a valid file is refused, never crashes */
	build_v7(&fx, false, false, MUT_NONE);
	for (size_t n = 0; n < fx.b.len; n += (n < 400 ? 1 : 97)) {
		struct bb t = fx.b;
		char err[256];
		struct tdat_file *f;

		t.len = n;
		f = tdat_open(write_file(&t, "trunc.dat"), NULL, err, sizeof(err));
		CHECK(!f && errno == EINVAL && err[0]);
		tdat_close(f);
	}
	free(fx.b.d);
}

/* Real traces: facts checked against trace-cmd dump --summary/--options. */
static void test_real(const char *dir)
{
	char path[512], err[256];
	struct tdat_file *f;
	uint64_t size;
	size_t ftrace = 0, systems = 0;
	const char *last = NULL;

	/* small.dat: v7 zstd, 2 CPUs, "Kallsyms, 5414658 bytes",
	 * "Ftrace format, 18 events", "Events format, 101 systems",
	 * cpu 0 at 1155072 size 16006, cpu 1 at 1171456 size 48423. */
	snprintf(path, sizeof(path), "%s/small.dat", dir);
	f = tdat_open(path, NULL, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, err);
		failures++;
		return;
	}
	CHECK(tdat_version(f) == 7 && !strcmp(tdat_compression(f), "zstd"));
	CHECK(!strcmp(tdat_compression_version(f), "1.5.4"));
	CHECK(tdat_cpu_count(f) == 2 && tdat_page_size(f) == 4096);
	CHECK(tdat_meta_size(f, TDAT_META_KALLSYMS, &size) == 0 && size == 5414658);
	CHECK(tdat_meta_size(f, TDAT_META_HEADER_PAGE, &size) == 0 && size == 205);
	CHECK(tdat_meta_size(f, TDAT_META_PRINTK, &size) == 0 && size == 4316);
	for (size_t i = 0; i < tdat_event_count(f); i++) {
		const struct tdat_event_format *e = tdat_event_get(f, i);

		if (!strcmp(e->system, "ftrace"))
			ftrace++;
		else if (!last || strcmp(last, e->system))
			systems++;
		if (strcmp(e->system, "ftrace"))
			last = e->system;
	}
	CHECK(ftrace == 18 && systems == 101);
	CHECK(tdat_buffer_count(f) == 1);
	CHECK(tdat_buffer_get(f, 0)->ncpus == 2);
	CHECK(tdat_buffer_get(f, 0)->cpus[0].offset == 1155072);
	CHECK(tdat_buffer_get(f, 0)->cpus[0].stored_size == 16006);
	CHECK(tdat_buffer_get(f, 0)->cpus[1].offset == 1171456);
	CHECK(tdat_buffer_get(f, 0)->cpus[1].stored_size == 48423);
	/* same trace as small-v6.dat, whose raw CPU sizes dump shows */
	CHECK(tdat_cpu_size(f, 0, 0, &size) == 0 && size == 69632);
	CHECK(tdat_cpu_size(f, 0, 1, &size) == 0 && size == 364544);
	tdat_close(f);

	/* small-v6.dat: "7 options", cpu 0 7499776/69632, cpu 1 7569408/364544,
	 * clock [local], "Saved command lines, 52714 bytes" */
	snprintf(path, sizeof(path), "%s/small-v6.dat", dir);
	f = tdat_open(path, NULL, err, sizeof(err));
	CHECK(f);
	if (f) {
		CHECK(tdat_version(f) == 6 && tdat_cpu_count(f) == 2);
		CHECK(tdat_option_count(f) == 8);	/* 7 + the bare DONE */
		CHECK(tdat_meta_size(f, TDAT_META_CMDLINES, &size) == 0 && size == 52714);
		CHECK(tdat_buffer_count(f) == 1 && !strcmp(tdat_buffer_get(f, 0)->clock, "local"));
		CHECK(tdat_buffer_get(f, 0)->cpus[0].offset == 7499776);
		CHECK(tdat_buffer_get(f, 0)->cpus[1].stored_size == 364544);
		tdat_close(f);
	}

	/* small-zlib.dat: the same events, zlib */
	snprintf(path, sizeof(path), "%s/small-zlib.dat", dir);
	f = tdat_open(path, NULL, err, sizeof(err));
	CHECK(f);
	if (f) {
		CHECK(!strcmp(tdat_compression(f), "zlib"));
		CHECK(tdat_cpu_size(f, 0, 1, &size) == 0 && size == 364544);
		CHECK(tdat_meta_size(f, TDAT_META_KALLSYMS, &size) == 0 && size == 5414658);
		tdat_close(f);
	}

	/* instances.dat: buffers "", "tdat_inst", "tsc"; 26 options; 14 sections */
	snprintf(path, sizeof(path), "%s/instances.dat", dir);
	f = tdat_open(path, NULL, err, sizeof(err));
	CHECK(f);
	if (f) {
		CHECK(tdat_buffer_count(f) == 3);
		CHECK(tdat_option_count(f) == 26);
		CHECK(tdat_section_count(f) == 14);
		if (tdat_buffer_count(f) == 3) {
			CHECK(!strcmp(tdat_buffer_get(f, 0)->name, ""));
			CHECK(!strcmp(tdat_buffer_get(f, 1)->name, "tdat_inst"));
			CHECK(!strcmp(tdat_buffer_get(f, 2)->name, "tsc"));
		}
		tdat_close(f);
	}

	/* date.dat: has a DATE option */
	snprintf(path, sizeof(path), "%s/date.dat", dir);
	f = tdat_open(path, NULL, err, sizeof(err));
	CHECK(f);
	if (f) {
		bool date = false;

		for (size_t i = 0; i < tdat_option_count(f); i++)
			date |= tdat_option_get(f, i)->id == TDAT_OPT_DATE;
		CHECK(date);
		tdat_close(f);
	}
}

int main(int argc, char **argv)
{
	char path[300];

	FATAL(mkdtemp(tmpdir));
	test_v7(false, false, MUT_NONE);
	test_v7(true, false, MUT_NONE);
	test_v7(false, true, MUT_NONE);
	test_v7(false, false, MUT_ZSTD);
	test_v6();
	test_refusals();
	if (argc > 1)
		test_real(argv[1]);
	else
		fprintf(stderr, "no data dir given: real traces skipped\n");

	static const char *const names[] = { "v7.dat", "v6.dat", "bad.dat", "trunc.dat" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
