/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-compiled.c - whitebox tests of the compiled info formats
 * (fs/text/compiled.h) on formats written here: flags, symbols,
 * operators, casts, '?' ':', pointers, widths, arrays and strings, in the
 * forms the kernel writes them (kmem, ext4, block, filemap).  The oracle
 * is libtraceevent: for thousands of records of random and edge values
 * each, the program's text must be tep_print_event()'s INFO text of the
 * same bytes.  Formats with a construct that is not compiled must be
 * refused (left to libtraceevent).  The sched plugin's handlers are
 * compared the same way on handles with libtraceevent's plugins loaded,
 * in both byte orders, for the field layouts kernels wrote and those the
 * handlers print an error for (refused).
 *
 * Usage: test-fast
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tdatfs-common.h"
#include "check.h"
#include "event-fmt.h"
#include "text/compiled.h"

#define COMMON EVENT_FMT_COMMON

#define F(decl, off, size, sgn) \
	"\tfield:" decl ";\toffset:" #off ";\tsize:" #size ";\tsigned:" #sgn ";\n"

/* kmem's gfp flags: values as constant expressions, a ternary around */
static const char flags_fmt[] =
	"name: flags\nID: 10\n" COMMON
	F("unsigned long gfp", 8, 8, 0) F("int node", 16, 4, 1) F("bool acc", 20, 1, 0)
	"\nprint fmt: \"gfp=%s node=%d acc=%s\", (REC->gfp) ? "
	"__print_flags(REC->gfp, \"|\", {( unsigned long)(((((1UL))) << (10))|((((1UL))) << (11))), \"BOTH\"}, "
	"{( unsigned long)((( gfp_t)((((1UL))) << (10)))), \"A\"}, {0x800, \"B\"}, "
	"{( unsigned long)(((( gfp_t)((((1UL))) << (3))) | (( gfp_t)0))), \"C\"}, "
	"{( unsigned long)(( gfp_t)((((1UL))) << (20)) & ~(( gfp_t)0)), \"D\"}) : \"none\", "
	"REC->node, REC->acc ? \"true\" : \"false\"\n";

/* __print_symbolic(): a negative entry, no match, a padded name */
static const char sym_fmt[] =
	"name: sym\nID: 11\n" COMMON
	F("int member", 8, 4, 1) F("long size", 16, 8, 1)
	"\nprint fmt: \"type=%s size=%ldB v=%-6s|%4s|\", __print_symbolic(REC->member, "
	"{ 0, \"ZERO\" }, { 1, \"ONE\" }, { -1, \"NEG\" }, { TIMER_SOFTIRQ, \"T\" }), REC->size, "
	"__print_symbolic(REC->member, { 2, \"TWO\" }), "
	"__print_symbolic(REC->member, { 3, \"THREE\" }, { 4, \"FOUR\" })\n";

/* ext4: "" and ", " delimiters, a ternary as the flags' value */
static const char ext4_fmt[] =
	"name: ext4\nID: 12\n" COMMON
	F("dev_t dev", 8, 4, 0) F("char status", 12, 1, 0) F("int found", 16, 4, 1)
	"\nprint fmt: \"dev %d,%d %s|%s|%s\", ((unsigned int) ((REC->dev) >> 20)), "
	"((unsigned int) ((REC->dev) & ((1U << 20) - 1))), "
	"__print_flags(REC->found ? REC->status : 0, \"\", { (1 << 0), \"W\" }, "
	"{ (1 << 1), \"U\" }, { (1 << 4), \"R\" }), "
	"__print_flags(REC->status, \", \", { 0, \"ZERO\" }, { 1, \"X\" }, { 6, \"SIX\" }), "
	"__print_flags(REC->found, \"+\", { -1, \"NONE\" }, { 2, \"Y\" })\n";

/*
 * mm_page_alloc: %p of a name atom (a kernel symbol's address, which
 * libtraceevent looks up) plus a field: refused without the engine's
 * handle, which alone can say that no kallsyms entry has the name
 * (text_tep_atom_value(); the text-vs-report test of field-heavy.dat
 * covers that case against trace-cmd), see refused_fmt
 */
static const char page_fmt[] =
	"name: page\nID: 13\n" COMMON
	F("unsigned long pfn", 8, 8, 0) F("unsigned int order", 16, 4, 0)
	"\nprint fmt: \"page=%p pfn=0x%lx order=%d p2=%p\", REC->pfn != -1UL ? "
	"(((struct page *)vmemmap_base) + (REC->pfn)) : ((void *)0), "
	"REC->pfn != -1UL ? REC->pfn : 0, REC->order, "
	"(((struct page *)vmemmap_base) + (REC->pfn))\n";

/* operators, casts and printf's conversions with widths and signs */
static const char ops_fmt[] =
	"name: ops\nID: 14\n" COMMON
	F("unsigned long idx", 8, 8, 0) F("unsigned long last", 16, 8, 0)
	F("dev_t s_dev", 24, 4, 0) F("s8 sc", 28, 1, 1) F("short sh", 30, 2, 1)
	"\nprint fmt: \"ofs=%lld-%lld %hx %hhu %#x %08x %-5d| %5u %X %zu %zd %Lu %i "
	"!%d ~%lx %d %d %llu %lu %u %d %o %#o %#08o %-6o|\", ((loff_t)REC->idx) << 12, "
	"((((loff_t)REC->last + 1) << 12) - 1), REC->sh, REC->sc, REC->s_dev, "
	"REC->s_dev, REC->sc, REC->sh, REC->idx, REC->idx, REC->last, REC->last, "
	"(u8)REC->sc, !REC->sc, ~REC->idx, REC->idx == REC->last && REC->sc || REC->sh > 3, "
	"REC->sh >= 2 || REC->sh <= -2, (REC->idx * 3) / 7, REC->idx % 10, "
	"(unsigned short)(REC->idx >> 3) - (s32)REC->last, REC->sc < REC->sh, "
	"REC->s_dev, REC->s_dev, REC->sh, REC->sc\n";

/* fixed arrays, char arrays and __data_loc strings, padded */
static const char arr_fmt[] =
	"name: arr\nID: 15\n" COMMON
	F("unsigned int vals[4]", 8, 16, 0) F("char comm[16]", 24, 16, 1)
	F("__data_loc char[] name", 40, 4, 1)
	"\nprint fmt: \"v1=%u v3=%x comm=%s name=%s %-8s|%8s|%s\", REC->vals[1], "
	"REC->vals[3], REC->comm, __get_str(name), REC->comm, __get_str(name), "
	"REC->vals[0] ? __get_str(name) : REC->comm\n";

/* hex and decimal of every width, zero-padded or not, of fields read in
 * place as one 8-byte load (all but the last) */
static const char hexw_fmt[] =
	"name: hexw\nID: 16\n" COMMON
	F("unsigned long a", 8, 8, 0) F("unsigned int b", 16, 4, 0)
	F("unsigned short c", 20, 2, 0) F("long d", 24, 8, 1)
	"\nprint fmt: \"%lx %012lx %020lx %016lX %09x %05u %07lu %x %hx %X "
	"%lu|%lx %ld %d %08lx %017lx %x\", REC->a, REC->a, REC->a, REC->a, "
	"REC->b, REC->b, REC->a, REC->b, REC->c, REC->b, REC->a, REC->c, "
	"REC->d, REC->d, REC->d, REC->d, REC->c\n";

#define REFUSED(n, fields, fmt) \
	"name: r" #n "\nID: " #n "\n" COMMON fields "\nprint fmt: " fmt "\n"

/* what is not compiled: left to libtraceevent */
static const char *const refused_fmt[] = {
	REFUSED(20, F("int a", 8, 4, 1) F("int b", 12, 4, 1), "\"%d\", REC->a / REC->b"),
	REFUSED(21, F("int a", 8, 4, 1) F("int b", 12, 4, 1), "\"%d\", REC->a << REC->b"),
	REFUSED(22, F("int a", 8, 4, 1), "\"%d\", REC->a << 64"),
	REFUSED(23, F("unsigned long a", 8, 8, 0), "\"%pS\", (void *)REC->a"),
	REFUSED(24, F("u8 b[4]", 8, 4, 0), "\"%s\", __print_hex(REC->b, 4)"),
	REFUSED(25, F("u8 b[4]", 8, 4, 0), "\"%pI4\", REC->b"),
	REFUSED(26, F("int a", 8, 4, 1), "\"%.*d\", 3, REC->a"),
	REFUSED(27, F("int a", 8, 4, 1), "\"%d\", REC->a ^ 3"),
	REFUSED(28, F("unsigned long a", 8, 8, 0), "\"%16p\", REC->a"),
	page_fmt,
};

/*
 * The sched plugin's handlers (plugin_sched_switch.so), loaded into the
 * handle: fields of the sizes kernels wrote, comms without their NUL,
 * prev_state bits past the letters, optional fields left out; then the
 * layouts the handlers print an error text for, or a dynamic comm:
 * refused.  A layout lists the fields after the common ones, in order:
 * "name[N]" a char array, "name/N" an integer of N bytes (aligned),
 * "@name" a __data_loc string (sched_layout()).
 */
static const struct sched_case {
	const char *name;
	const char *layout;
	bool refused;
} sched_cases[] = {
	/* 6.x: a long prev_state */
	{ "sched_switch", "prev_comm[16] prev_pid/4 prev_prio/4 prev_state/8 "
	  "next_comm[16] next_pid/4 next_prio/4", false },
	/* odd sizes: 8-byte pids and prios, short comms, 2- and 1-byte fields */
	{ "sched_switch", "prev_comm[5] prev_pid/8 prev_prio/8 prev_state/1 "
	  "next_comm[3] next_pid/2 next_prio/8", false },
	/* no comm fields: the pids alone */
	{ "sched_switch", "prev_pid/4 prev_prio/4 prev_state/2 next_pid/4 next_prio/4", false },
	/* before 4.x: success and target_cpu; 6.x: target_cpu only */
	{ "sched_wakeup", "comm[16] pid/4 prio/4 success/4 target_cpu/4", false },
	{ "sched_wakeup", "comm[16] pid/4 prio/4 target_cpu/4", false },
	/* success only, 8-byte pid and prio, an unreadable target_cpu */
	{ "sched_wakeup_new", "comm[7] pid/8 prio/8 success/1 target_cpu[3]", false },
	/* no comm, no success, no target_cpu */
	{ "sched_wakeup", "pid/4 prio/4", false },
	/* no prev_prio; no prev_state; a prev_state of 3 bytes */
	{ "sched_switch", "prev_pid/4 prev_state/8 next_pid/4 next_prio/4", true },
	{ "sched_switch", "prev_pid/4 prev_prio/4 next_pid/4 next_prio/4", true },
	{ "sched_switch", "prev_pid/4 prev_prio/4 prev_state[3] next_pid/4 next_prio/4", true },
	/* a dynamic comm; no next_pid */
	{ "sched_switch", "@prev_comm prev_pid/4 prev_prio/4 prev_state/8 next_pid/4 "
	  "next_prio/4", true },
	{ "sched_switch", "prev_pid/4 prev_prio/4 prev_state/8 next_prio/4", true },
	/* no prio; a pid of 3 bytes */
	{ "sched_wakeup", "comm[16] pid/4", true },
	{ "sched_wakeup_new", "pid[3] prio/4", true },
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return test_xorshift(&rng);
}

/* a value for @size bytes: edges, small numbers, flag bits, anything */
static uint64_t value(unsigned int size)
{
	static const uint64_t edge[] = {
		0, 1, 2, 3, 4, 6, 0x400, 0x800, 0xc00, 0xc08, 0x100c08, 0x80000000,
		~0ull, ~0ull - 1, 0x7fffffffffffffffull, 0x8000000000000000ull,
	};
	uint64_t v;

	switch (rnd() % 4) {
	case 0:
		v = edge[rnd() % (sizeof(edge) / sizeof(edge[0]))];
		break;
	case 1:
		v = rnd() % 40;
		break;
	case 2:
		v = rnd() & rnd() & 0x1f0fff;
		break;
	default:
		v = rnd() >> (rnd() % 64);
		break;
	}
	return size < 8 ? v & ((1ull << (8 * size)) - 1) : v;
}

/* A record of @ev: random fields, a string after them for __data_loc
 * (little-endian traces only). */
static size_t make_record(struct tep_event *ev, bool big_endian,
			  unsigned char *rec, size_t cap)
{
	struct tep_format_field *f;
	size_t end = 0, slen;
	unsigned int i;

	memset(rec, 0, cap);
	for (f = ev->format.fields; f; f = f->next)
		if ((size_t)(f->offset + f->size) > end)
			end = f->offset + f->size;
	for (f = ev->format.fields; f; f = f->next) {
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			slen = rnd() % 12;
			for (i = 0; i + 1 < slen; i++)
				rec[end + i] = 'a' + rnd() % 26;
			/* a length of 0 prints nothing; else the string */
			rec[f->offset] = end & 0xff;
			rec[f->offset + 1] = end >> 8;
			rec[f->offset + 2] = slen & 0xff;
			end += slen;
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			for (i = 0; i < (unsigned int)f->size; i++)
				rec[f->offset + i] = rnd() % 3 ? 'a' + rnd() % 26 : value(1);
		} else {
			uint64_t v = value(f->size);

			for (i = 0; i < (unsigned int)f->size; i++)
				rec[f->offset + i] = v >> (8 * i);
		}
	}
	rec[big_endian] = ev->id & 0xff;
	rec[!big_endian] = ev->id >> 8;
	return end;
}

static struct tep_event *parse(struct tep_handle *tep, const char *fmt,
			       const char *sys)
{
	struct tep_event *ev;
	const char *nl = strchr(fmt, '\n');
	char name[32];

	FATAL(tep_parse_event(tep, fmt, strlen(fmt), sys) == 0);
	/* a format libtraceevent failed to parse would test nothing */
	FATAL(nl && nl - fmt - 6 < (long)sizeof(name));
	memcpy(name, fmt + 6, nl - fmt - 6);
	name[nl - fmt - 6] = 0;
	ev = tep_find_event_by_name(tep, sys, name);
	FATAL(ev && !(ev->flags & TEP_EVENT_FL_FAILED));
	return ev;
}

/* Every record's compiled text against libtraceevent's; 0 or -1. */
static int compare_event(struct tep_handle *tep, struct tep_event *ev,
			 unsigned int n)
{
	static unsigned char rec[512];
	bool big_endian = tep_is_file_bigendian(tep);
	struct text_compiled *fp = text_compiled_compile(ev, NULL);
	struct tdatfs_buf out = { 0 };
	unsigned int i, bad = 0;

	CHECK(fp);
	if (!fp) {
		fprintf(stderr, "not compiled: %s\n", ev->name);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct tep_record r = { .data = rec, .cpu = 0 };
		struct trace_seq s;

		r.size = make_record(ev, big_endian, rec, sizeof(rec));
		trace_seq_init(&s);
		tep_print_event(tep, &s, &r, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		out.len = 0;
		FATAL(text_compiled_info(fp, big_endian, rec, r.size,
					 &out) == 0);
		if (out.len != s.len || memcmp(out.p, s.buffer, s.len)) {
			if (bad++ < 5)
				fprintf(stderr, "%s:\n tep:  %.*s\n fast: %.*s\n", ev->name,
					(int)s.len, s.buffer, (int)out.len, out.p);
		}
		trace_seq_destroy(&s);
	}
	CHECK(bad == 0);
	tdatfs_buf_release(&out);
	text_compiled_free(fp);
	return bad ? -1 : 0;
}

static int compare(struct tep_handle *tep, const char *fmt, unsigned int n)
{
	return compare_event(tep, parse(tep, fmt, "test"), n);
}

/* A handle of one byte order with libtraceevent's plugins loaded. */
static struct tep_handle *plugin_handle(bool big_endian,
					struct tep_plugin_list **plugins)
{
	struct tep_handle *tep = tep_alloc();

	FATAL(tep);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	*plugins = tep_load_plugins(tep);
	return tep;
}

/* One field of a layout at *@off: its "field:" line appended to @o. */
static char *sched_field(char *o, const char *tok, size_t n, unsigned int *off)
{
	const char *br = memchr(tok, '[', n), *sl = memchr(tok, '/', n);
	unsigned int size;
	int len;

	if (tok[0] == '@') {
		size = 4;
		*off = (*off + 3) & ~3u;
		len = sprintf(o, "\tfield:__data_loc char[] %.*s;\toffset:%u;\tsize:4;"
			      "\tsigned:1;\n", (int)n - 1, tok + 1, *off);
	} else if (br) {
		size = (unsigned int)atoi(br + 1);
		len = sprintf(o, "\tfield:char %.*s;\toffset:%u;\tsize:%u;\tsigned:0;\n",
			      (int)n, tok, *off, size);
	} else {
		FATAL(sl);
		size = (unsigned int)atoi(sl + 1);
		*off = (*off + size - 1) & ~(size - 1);
		len = sprintf(o, "\tfield:s%u %.*s;\toffset:%u;\tsize:%u;\tsigned:1;\n",
			      8 * size, (int)(sl - tok), tok, *off, size);
	}
	*off += size;
	return o + len;
}

/* The format text of a sched case, in @buf (2 KiB). */
static const char *sched_layout(char *buf, const struct sched_case *c)
{
	const char *p = c->layout;
	unsigned int off = 8;
	char *o = buf;

	o += sprintf(o, "name: %s\nID: 30\n%s", c->name, COMMON);
	while (*p) {
		size_t n = strcspn(p, " ");

		o = sched_field(o, p, n, &off);
		p += n;
		p += strspn(p, " ");
	}
	strcpy(o, "\nprint fmt: \"x\"\n");
	return buf;
}

/*
 * A sched format on a handle of its own (the plugin's handler attaches by
 * name): compared in both byte orders, or checked to be refused.
 */
static void sched_case(const struct sched_case *c)
{
	char buf[2048];
	const char *fmt = sched_layout(buf, c);
	bool refused = c->refused;
	int be;

	for (be = 0; be < 2; be++) {
		struct tep_plugin_list *plugins;
		struct tep_handle *tep = plugin_handle(be, &plugins);
		struct tep_event *ev = parse(tep, fmt, "sched");
		struct text_compiled *fp;

		/* without the plugin's handler this would test the format */
		FATAL(ev->handler);
		if (refused) {
			fp = text_compiled_compile(ev, NULL);
			if (fp)
				fprintf(stderr, "compiled, should not be: %s\n", fmt);
			CHECK(!fp);
			text_compiled_free(fp);
		} else {
			compare_event(tep, ev, 20000);
		}
		tep_unload_plugins(plugins, tep);
		tep_free(tep);
	}
}

int main(void)
{
	static const char *const fmts[] = {
		flags_fmt, sym_fmt, ext4_fmt, ops_fmt, arr_fmt, hexw_fmt,
	};
	struct tep_handle *tep = tep_alloc();
	unsigned int i;

	FATAL(tep);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		compare(tep, fmts[i], 20000);
	for (i = 0; i < sizeof(refused_fmt) / sizeof(refused_fmt[0]); i++) {
		struct tep_event *ev = parse(tep, refused_fmt[i], "test");
		struct text_compiled *fp = text_compiled_compile(ev, NULL);

		if (fp)
			fprintf(stderr, "compiled, should not be: %s\n", ev->name);
		CHECK(!fp);
		text_compiled_free(fp);
	}
	tep_free(tep);
	for (i = 0; i < sizeof(sched_cases) / sizeof(sched_cases[0]); i++)
		sched_case(&sched_cases[i]);
	return failures ? 1 : 0;
}
