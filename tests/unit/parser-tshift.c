/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser-tshift.c - the TIME_SHIFT decoder (tdat_time_shift_decode() in
 * tdat.h) on option bytes built here: both byte orders, with and without
 * the fraction block, and every way the bytes can be too short.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tdat.h"
#include "byte-builder.h"
#include "check.h"


#define OPT_AT	4096	/* file offset the fixtures pretend to live at */

/* Two CPUs: CPU 0 with samples (30,-5,1) and (10,7,3), CPU 1 with none. */
static void build(struct bb *b, bool be, bool fraction)
{
	memset(b, 0, sizeof(*b));
	b->be = be;
	u64(b, 0x1122334455667788ull);
	u32(b, 1);		/* flags: interpolate */
	u32(b, 2);		/* CPUs */
	u32(b, 2);
	u64(b, 30);
	u64(b, 10);
	u64(b, (uint64_t)-5);
	u64(b, 7);
	u64(b, 1);
	u64(b, 3);
	u32(b, 0);
	if (fraction) {
		u64(b, 0);
		u64(b, 2);
	}
}

static struct tdat_time_shift *decode(const struct bb *b, uint32_t size,
				      char *err, size_t errlen)
{
	struct tdat_option o = { .id = TDAT_OPT_TIME_SHIFT, .size = size,
				 .offset = OPT_AT, .data = b->d };

	err[0] = '\0';
	errno = 0;
	return tdat_time_shift_decode(&o, b->be, err, errlen);
}

static void test_good(bool be, bool fraction)
{
	struct tdat_time_shift *ts;
	uint32_t size;
	char err[256];
	struct bb b;

	build(&b, be, fraction);
	size = (uint32_t)b.len;
	u32(&b, 0xdeadbeef);	/* trailing bytes */
	if (fraction) {
		size = (uint32_t)b.len;		/* after the fractions: ignored */
	} else {
		/* after the triplets they start a (too short) fraction block */
		ts = decode(&b, (uint32_t)b.len, err, sizeof(err));
		CHECK(!ts && errno == EINVAL);
		CHECK(strstr(err, "fraction block at offset 4168 needs 16 bytes, 4 left"));
	}
	ts = decode(&b, size, err, sizeof(err));
	CHECK(ts != NULL);
	if (!ts) {
		fprintf(stderr, "decode: %s\n", err);
		free(b.d);
		return;
	}
	CHECK(ts->peer_trace_id == 0x1122334455667788ull);
	CHECK(ts->flags == TDAT_TSYNC_INTERPOLATE);
	CHECK(ts->ncpus == 2);
	CHECK(ts->has_fraction == fraction);
	CHECK(ts->count[0] == 2 && ts->count[1] == 0);
	CHECK(ts->samples[0][0].time == 30 && ts->samples[0][1].time == 10);
	CHECK(ts->samples[0][0].offset == -5 && ts->samples[0][1].offset == 7);
	CHECK(ts->samples[0][0].scaling == 1 && ts->samples[0][1].scaling == 3);
	CHECK(ts->samples[0][0].fraction == 0);
	CHECK(ts->samples[0][1].fraction == (fraction ? 2 : 0));
	tdat_time_shift_free(ts);
	free(b.d);
}

static void test_short(void)
{
	struct tdat_time_shift *ts;
	char err[256];
	struct bb b;

	build(&b, false, true);
	/* under 16 bytes: trace-cmd ignores the option */
	ts = decode(&b, 15, err, sizeof(err));
	CHECK(!ts && errno == ENODATA);
	CHECK(strstr(err, "offset 4096"));
	/* CPU 0's samples cut: 2 need 48 bytes at 4096+20 */
	ts = decode(&b, 60, err, sizeof(err));
	CHECK(!ts && errno == EINVAL);
	CHECK(strstr(err, "cpu 0: 2 samples need 48 bytes at offset 4116, 40 left"));
	/* CPU 1's count missing */
	ts = decode(&b, 70, err, sizeof(err));
	CHECK(!ts && errno == EINVAL);
	CHECK(strstr(err, "cpu 1 of 2: no sample count at offset 4164"));
	/* a fraction block cut in the middle */
	ts = decode(&b, 80, err, sizeof(err));
	CHECK(!ts && errno == EINVAL);
	CHECK(strstr(err, "fraction block at offset 4168 needs 16 bytes, 8 left"));
	/* a CPU count no option size can hold */
	patch(&b, 12, 0xffffffffu, 4);
	ts = decode(&b, (uint32_t)b.len, err, sizeof(err));
	CHECK(!ts && errno == EINVAL);
	free(b.d);
}

/* No CPUs at all decodes (and then means no correction to the caller). */
static void test_empty(void)
{
	struct tdat_time_shift *ts;
	char err[256];
	struct bb b;

	memset(&b, 0, sizeof(b));
	u64(&b, 1);
	u32(&b, 0);
	u32(&b, 0);
	ts = decode(&b, (uint32_t)b.len, err, sizeof(err));
	CHECK(ts && ts->ncpus == 0 && !ts->has_fraction);
	tdat_time_shift_free(ts);
	tdat_time_shift_free(NULL);
	free(b.d);
}

int main(void)
{
	test_good(false, false);
	test_good(false, true);
	test_good(true, false);
	test_good(true, true);
	test_short();
	test_empty();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
