/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser-cursor.c - the helpers every format reader shares
 * (parser/tdat-cursor.h): the first open error wins, a cursor never reads
 * past its payload and names file offsets in its messages, page sizes,
 * the section lookup and the public byte-order and option-name helpers.
 * Fixtures are bytes built here; no file is opened.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-cursor.h"
#include "byte-builder.h"
#include "check.h"


static char msg[256];

/* A file being opened, as far as the cursor needs one. */
static struct tdat_file *new_file(bool be)
{
	struct tdat_file *f = calloc(1, sizeof(*f));

	FATAL(f);
	f->big_endian = be;
	f->err = msg;
	f->errlen = sizeof(msg);
	msg[0] = '\0';
	return f;
}

static void test_fail(void)
{
	struct tdat_file *f = new_file(false);

	CHECK(tdp_fail(f, EINVAL, "first at offset %d", 7) == -EINVAL);
	CHECK(!strcmp(msg, "first at offset 7"));
	/* Callers passing the error up cannot overwrite the precise message. */
	CHECK(tdp_fail(f, EPROTONOSUPPORT, "second") == -EPROTONOSUPPORT);
	CHECK(!strcmp(msg, "first at offset 7"));
	/* No message buffer (after open): only the errno. */
	f->err = NULL;
	f->errlen = 0;
	CHECK(tdp_fail(f, EIO, "dropped") == -EIO);
	free(f);
}

static void test_cursor(bool be)
{
	struct tdat_file *f = new_file(be);
	struct bb b = { .be = be };
	struct tdp_cur c = { .f = f, .raw = true, .base = 1000 };
	uint32_t v32;
	uint64_t v64;
	uint8_t raw[4];
	char *s;

	u32(&b, 0xdeadbeefu);
	u64(&b, 0x1122334455667788ull);
	str(&b, "sched");
	txt(&b, "tail");			/* no NUL: unterminated */
	c.mem = b.d;
	c.end = b.len;

	CHECK(tdp_cur_u32(&c, &v32, "count") == 0 && v32 == 0xdeadbeefu);
	CHECK(tdp_cur_u64(&c, &v64, "size") == 0 && v64 == 0x1122334455667788ull);
	CHECK(c.pos == 12);
	CHECK(tdp_cur_string(&c, &s, "system name") == 0);
	CHECK(s && !strcmp(s, "sched") && c.pos == 18);
	free(s);
	/* peek stops at the end and does not move */
	CHECK(tdp_cur_peek(&c, raw, sizeof(raw) + 10) == 4 && c.pos == 18);
	CHECK(!memcmp(raw, "tail", 4));
	/* an unterminated string fails, naming the file offset */
	CHECK(tdp_cur_string(&c, &s, "event name") == -EINVAL);
	CHECK(!strcmp(msg, "unterminated event name at offset 1018"));
	CHECK(c.pos == 18);
	/* a read past the end fails without moving, saying what is missing */
	msg[0] = '\0';
	CHECK(tdp_cur_u64(&c, &v64, "format size") == -EINVAL);
	CHECK(!strcmp(msg, "truncated format size at offset 1018 (needs 8 bytes, 4 left)"));
	CHECK(c.pos == 18);
	CHECK(tdp_cur_read(&c, NULL, 4, "rest") == 0 && c.pos == c.end);
	msg[0] = '\0';
	CHECK(tdp_cur_read(&c, NULL, 1, "one more") == -EINVAL && c.pos == c.end);
	CHECK(tdp_cur_peek(&c, raw, sizeof(raw)) == 0);

	/* In a compressed section, positions are told inside the section. */
	c.raw = false;
	c.sec_off = 500;
	c.pos = 2;
	msg[0] = '\0';
	CHECK(tdp_cur_read(&c, raw, 100, "kallsyms") == -EINVAL);
	CHECK(!strcmp(msg, "truncated kallsyms at offset 2 of the section at offset 500 (needs 100 bytes, 20 left)"));
	free(b.d);
	free(f);
}

/* A string longer than TDP_MAX_STRING has no NUL in reach. */
static void test_long_string(void)
{
	struct tdat_file *f = new_file(false);
	size_t len = TDP_MAX_STRING + 10;
	uint8_t *p = malloc(len + 1);
	struct tdp_cur c = { .f = f, .raw = true };
	char *s = NULL;

	FATAL(p);
	memset(p, 'x', len);
	p[len] = '\0';
	c.mem = p;
	c.end = len + 1;
	CHECK(tdp_cur_string(&c, &s, "clock") == -EINVAL && !s);
	CHECK(!strcmp(msg, "unterminated clock at offset 0"));
	/* just in reach: TDP_MAX_STRING bytes with the NUL */
	p[TDP_MAX_STRING - 1] = '\0';
	CHECK(tdp_cur_string(&c, &s, "clock") == 0);
	CHECK(s && strlen(s) == TDP_MAX_STRING - 1 && c.pos == TDP_MAX_STRING);
	free(s);
	free(p);
	free(f);
}

static void test_page_size(void)
{
	struct tdat_file *f = new_file(false);

	CHECK(tdp_parse_page_size(f, 4096, 14, "page size") == 0);
	CHECK(tdp_parse_page_size(f, TDP_MIN_PAGE, 14, "page size") == 0);
	CHECK(tdp_parse_page_size(f, TDP_MAX_PAGE, 14, "page size") == 0);
	CHECK(!msg[0]);
	CHECK(tdp_parse_page_size(f, 4095, 14, "page size") == -EINVAL);
	CHECK(!strcmp(msg, "bad page size 4095 at offset 14"));
	msg[0] = '\0';
	CHECK(tdp_parse_page_size(f, TDP_MIN_PAGE / 2, 9, "buffer page size") == -EINVAL);
	CHECK(!strcmp(msg, "bad buffer page size 128 at offset 9"));
	CHECK(tdp_parse_page_size(f, TDP_MAX_PAGE * 2, 9, "page size") == -EINVAL);
	CHECK(tdp_parse_page_size(f, 0, 9, "page size") == -EINVAL);
	free(f);
}

static void test_find_section(void)
{
	static const uint64_t offs[] = { 100, 140, 4096, 9000, 9016 };
	struct tdat_file *f = new_file(false);
	struct tdp_sec secs[5];

	memset(secs, 0, sizeof(secs));
	for (size_t i = 0; i < 5; i++)
		secs[i].pub.offset = offs[i];
	f->secs = secs;
	f->nsecs = 5;
	for (size_t i = 0; i < 5; i++)
		CHECK(tdp_find_section(f, offs[i]) == (long)i);
	CHECK(tdp_find_section(f, 0) == -1);
	CHECK(tdp_find_section(f, 141) == -1);
	CHECK(tdp_find_section(f, 9017) == -1);
	f->nsecs = 0;
	CHECK(tdp_find_section(f, 100) == -1);
	free(f);
}

static void test_public_helpers(void)
{
	static const uint8_t p[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct tdat_file *le = new_file(false), *be = new_file(true);

	CHECK(tdat_get16(le, p) == 0x0201 && tdat_get16(be, p) == 0x0102);
	CHECK(tdat_get32(le, p) == 0x04030201u && tdat_get32(be, p) == 0x01020304u);
	CHECK(tdat_get64(le, p) == 0x0807060504030201ull);
	CHECK(tdat_get64(be, p) == 0x0102030405060708ull);
	CHECK(!strcmp(tdat_option_name(TDAT_OPT_DONE), "done"));
	CHECK(!strcmp(tdat_option_name(TDAT_OPT_MODULES_FILE), "modules_file"));
	CHECK(!tdat_option_name(TDAT_OPT_MAX));
	CHECK(!tdat_option_name(999));
	free(le);
	free(be);
}

int main(void)
{
	test_fail();
	test_cursor(false);
	test_cursor(true);
	test_long_string();
	test_page_size();
	test_find_section();
	test_public_helpers();
	if (failures) {
		fprintf(stderr, "test-cursor: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test-cursor: all checks passed\n");
	return 0;
}
