/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-event-table.c - whitebox tests of the record check (text_fit_check()):
 * which records the text engine takes for damage.  A record trace-cmd
 * prints must fit: a kernel_stack record holds as many frames as the
 * kernel took, fewer or more than the caller[8] of its format.  A record
 * cut inside its fixed fields, or with a __data_loc string past its end,
 * must not.
 *
 * Usage: test-fit
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "check.h"
#include "event-fmt.h"
#include "text/event-table.h"


#define COMMON EVENT_FMT_COMMON

/* As ftrace writes it on an 8-byte kernel (DJSeb-kernel-shark traces). */
static const char kstack_fmt[] =
	"name: kernel_stack\nID: 4\n" COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n";

/* The last field is a number: the record must hold it whole. */
static const char wakeup_fmt[] =
	"name: wakeup\nID: 5\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";

/* A __data_loc string before a last array. */
static const char dyn_fmt[] =
	"name: dyn\nID: 6\n" COMMON
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int vals[4];\toffset:12;\tsize:16;\tsigned:0;\n\n"
	"print fmt: \"name=%s\", __get_str(name)\n";

/* A last array too long for the zeroed room after a record copy. */
static const char huge_fmt[] =
	"name: huge\nID: 7\n" COMMON
	"\tfield:char buf[70000];\toffset:8;\tsize:70000;\tsigned:1;\n\n"
	"print fmt: \"%s\", REC->buf\n";

static struct tep_event *parse(struct tep_handle *tep, const char *fmt,
			       const char *name)
{
	struct tep_event *ev;

	if (tep_parse_event(tep, fmt, strlen(fmt), "ftrace") != 0) {
		fprintf(stderr, "cannot parse the format of %s\n", name);
		exit(1);
	}
	ev = tep_find_event_by_name(tep, "ftrace", name);
	if (!ev) {
		fprintf(stderr, "no event %s after parsing\n", name);
		exit(1);
	}
	return ev;
}

/* Whether a record of @n bytes (zeroes but for @data) fits @ev. */
static bool fits(const struct tep_event *ev, const unsigned char *data, size_t n)
{
	struct text_fit fit;
	bool ok;

	if (text_fit_init(&fit, ev) < 0) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	ok = text_fit_check(&fit, false, data, n);
	text_fit_release(&fit);
	return ok;
}

int main(void)
{
	static unsigned char rec[1024];
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ks, *wk, *dy, *hg;

	if (!tep)
		return 1;
	ks = parse(tep, kstack_fmt, "kernel_stack");
	wk = parse(tep, wakeup_fmt, "wakeup");
	dy = parse(tep, dyn_fmt, "dyn");
	hg = parse(tep, huge_fmt, "huge");

	/* 0, 1, 5, 8 and 26 frames: all printed by trace-cmd */
	CHECK(fits(ks, rec, 16));
	CHECK(fits(ks, rec, 16 + 8));
	CHECK(fits(ks, rec, 16 + 5 * 8));
	CHECK(fits(ks, rec, 16 + 8 * 8));
	CHECK(fits(ks, rec, 16 + 26 * 8));
	/* cut before the frames: its fixed fields do not fit */
	CHECK(!fits(ks, rec, 15));
	CHECK(!fits(ks, rec, 8));

	CHECK(fits(wk, rec, 28));
	CHECK(!fits(wk, rec, 27));
	CHECK(!fits(wk, rec, 24));

	/* name at offset 28, 4 bytes: inside a 32-byte record, not a 31 */
	rec[8] = 28;
	rec[10] = 4;
	CHECK(fits(dy, rec, 32));
	CHECK(!fits(dy, rec, 31));
	/* a short last array is fine where the string still fits ... */
	rec[8] = 12;
	CHECK(fits(dy, rec, 16));
	/* ... but not the __data_loc field itself cut */
	CHECK(!fits(dy, rec, 11));
	memset(rec, 0, sizeof(rec));

	/* whole, it fits (no __data_loc: @data is not read past rec[]) */
	CHECK(fits(hg, rec, 8 + 70000));
	CHECK(!fits(hg, rec, 8 + 100));

	tep_free(tep);
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
