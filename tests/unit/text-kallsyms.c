/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-kallsyms.c - the kallsyms table of fs/text/kallsyms.h against
 * libtraceevent itself: for each kallsyms text (inline fixtures, then
 * random ones), one handle resolves through the table as the engine does
 * and another was given the text by tep_parse_kallsyms(); both must name
 * the same symbol and start for every address tried, directly and through
 * a %pS/%ps/%pF/%pf event printed by each handle.  Also checks that the
 * kernel's own form is read by our parser and the rest falls back, and
 * that a share (struct text_kallsyms_share) parses a text once for all its
 * askers, on one thread or several, but never shares a fallback table.
 *
 * Usage: test-ksym
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "check.h"
#include "event-fmt.h"
#include "text/kallsyms.h"

static const char event_fmt[] =
	"name: ksym\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%pS %ps %pF %pf\", (void *)REC->ip, (void *)REC->ip,"
	" (void *)REC->ip, (void *)REC->ip\n";

/* The inline fixtures: name, text, whether our own parser must read it. */
static const struct fixture {
	const char *name;
	const char *text;
	bool own;
} fixtures[] = {
	{ "empty", "", true },
	{ "only newlines", "\n\n\n", true },
	{ "one symbol", "ffffffff81000000 T _text\n", true },
	{ "no final newline", "1000 T a\n2000 t b", true },
	{ "ties",
	  "1000 T first\n1000 t second\n1000 W third\n2000 T after\n"
	  "2000 t after2\n3000 T last\n3000 T last2\n", true },
	{ "modules",
	  "ffffffffc0001000 t mod_a\t[alpha]\n"
	  "ffffffffc0001000 t mod_b\t[beta]\n"
	  "ffffffffc0002000 T mod_c\t[x]\n"
	  "ffffffff81000000 T core\n", true },
	{ "unsorted",
	  "9000 T nine\n1000 T one\n5000 t five\n3000 T three\n"
	  "7000 d seven\n2000 b two\n8000 r eight\n4000 T four\n", true },
	{ "types and hacks",
	  "0000000000000000 A fixed_percpu_data\n"
	  "0000000000001000 a abs_lower\n"
	  "0000000000002000 T $a\n"
	  "0000000000002000 t $d\n"
	  "0000000000002000 t real\n"
	  "0000000000003000 b bss\n0000000000004000 d data\n"
	  "0000000000005000 R ro\n0000000000006000 U undef\n"
	  "0000000000007000 ? what\n", true },
	{ "duplicate lines",
	  "1000 T dup\n1000 T dup\n1000 T dup\n1100 T other\n1000 T dup\n",
	  true },
	{ "upper-case hex, short addresses", "ABC T x\nabd T y\n0 T z\n", true },
	{ "bad: letters for an address", "1000 T a\nzzzz T b\n3000 T c\n", false },
	{ "bad: no name", "1000 T a\n2000 T\n3000 T c\n", false },
	{ "bad: two spaces", "1000 T a\n2000  T b\n3000 T c\n", false },
	{ "bad: leading space", " 1000 T a\n2000 T b\n", false },
	{ "bad: 17 digits", "1000 T a\n10000000000000000 T b\n3000 T c\n", false },
	{ "bad: 0x prefix", "0x1000 T a\n2000 T b\n", false },
	{ "bad: tab without module", "1000 T a\t\n2000 T b\n", false },
	{ "bad: trailing space", "1000 T a \n2000 T b\n", false },
	{ "bad: CRLF", "1000 T a\r\n2000 T b\r\n", false },
	{ "bad: space in module", "1000 T a\t[ mod]\n2000 T b\n", false },
	{ "bad: text after module", "1000 T a\t[mod] x\n2000 T b\n", false },
	{ "bad: tab for a space", "1000\tT a\n2000 T b\n", false },
	{ "bad: sign", "-1 T a\n2000 T b\n", false },
	{ "bad: high byte in a name", "1000 T caf\xc3\xa9\n2000 T b\n", false },
	{ "bad: only a bad line", "hello\n", false },
};

static char *ksym_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	(void)modp;
	return (char *)text_kallsyms_find(priv, *addrp, addrp);
}

static struct tep_handle *handle_new(void)
{
	struct tep_handle *tep = tep_alloc();

	FATAL(tep);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	FATAL(tep_parse_event(tep, event_fmt, sizeof(event_fmt) - 1, "test") == 0);
	return tep;
}

/* The event's text on one handle for @addr, into @out. */
static void print_ip(struct tep_handle *tep, unsigned long long addr,
		     char *out, size_t len)
{
	unsigned char data[16] = { 7, 0 };
	struct tep_record rec = { 0 };
	struct trace_seq s;

	memcpy(data + 8, &addr, 8);
	rec.data = data;
	rec.size = sizeof(data);
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, len, "%s", s.buffer);
	trace_seq_destroy(&s);
}

/* Every way of asking about @addr gives the same answer on both handles. */
static int compare_addr(struct tep_handle *ours, struct text_kallsyms *ks,
			struct tep_handle *ref, unsigned long long addr,
			const char *what)
{
	const char *n1 = tep_find_function(ours, addr);
	const char *n2 = tep_find_function(ref, addr);
	unsigned long long a1 = tep_find_function_address(ours, addr);
	unsigned long long a2 = tep_find_function_address(ref, addr);
	unsigned long long s3 = 0;
	const char *n3 = text_kallsyms_find(ks, addr, &s3);
	char p1[512], p2[512];
	int bad = 0;

	if ((n1 == NULL) != (n2 == NULL) || (n1 && strcmp(n1, n2)) || a1 != a2)
		bad = 1;
	if ((n3 == NULL) != (n2 == NULL) || (n3 && (strcmp(n3, n2) || s3 != a2)))
		bad = 1;
	print_ip(ours, addr, p1, sizeof(p1));
	print_ip(ref, addr, p2, sizeof(p2));
	if (strcmp(p1, p2))
		bad = 1;
	if (bad) {
		fprintf(stderr, "%s: 0x%llx: ours %s@0x%llx \"%s\", libtraceevent %s@0x%llx \"%s\"\n",
			what, addr, n1 ? n1 : "(none)", a1, p1,
			n2 ? n2 : "(none)", a2, p2);
		failures++;
	}
	return bad;
}

/* The addresses a text names, each -1, +0, +1; then the extremes. */
static size_t addrs_of(const char *text, unsigned long long *out, size_t max)
{
	const char *p = text;
	size_t n = 0;

	out[n++] = 0;
	out[n++] = 1;
	out[n++] = ~0ULL;
	out[n++] = ~0ULL - 1;
	while (*p && n + 3 <= max) {
		char *end;
		unsigned long long a = strtoull(p, &end, 16);

		if (end != p) {
			out[n++] = a - 1;
			out[n++] = a;
			out[n++] = a + 1;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

static void check_text(const char *what, const char *text, int own)
{
	static unsigned long long addrs[40000];
	struct tep_handle *ours = handle_new(), *ref = handle_new();
	struct text_kallsyms *ks = text_kallsyms_new(text);
	size_t n, i;
	int bad = 0;

	FATAL(ks);
	if (own >= 0 && text_kallsyms_own(ks) != own) {
		fprintf(stderr, "%s: read by %s, expected %s\n", what,
			text_kallsyms_own(ks) ? "our parser" : "libtraceevent",
			own ? "our parser" : "libtraceevent");
		failures++;
	}
	FATAL(tep_set_function_resolver(ours, ksym_resolve, ks) == 0);
	tep_parse_kallsyms(ref, text);
	n = addrs_of(text, addrs, sizeof(addrs) / sizeof(addrs[0]));
	for (i = 0; i < n && bad < 5; i++)
		bad += compare_addr(ours, ks, ref, addrs[i], what);
	tep_free(ours);
	tep_free(ref);
	text_kallsyms_free(ks);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	return test_xorshift(&rng);
}

/*
 * A random kernel-form kallsyms: @lines lines in random order, addresses
 * from a few clusters of @spread values each (many equal), all types,
 * some '$' names and modules.
 */
static char *random_text(size_t lines, unsigned int spread)
{
	static const char types[] = "TtWwDdBbRrVvAaUuNn?";
	static const unsigned long long base[] = {
		0xffffffff81000000ULL, 0xffffffffc0a00000ULL, 0x1000ULL,
		0xc0008000ULL, 0xffffffffffffff00ULL,
	};
	size_t cap = lines * 64 + 1, len = 0, i;
	char *t = malloc(cap);

	FATAL(t);
	for (i = 0; i < lines; i++) {
		unsigned long long a = base[next_rand() % 5] +
				       (next_rand() % spread) * 16;
		char type = types[next_rand() % (sizeof(types) - 1)];
		unsigned int k = next_rand() % 10;
		int w = next_rand() % 2 ? 16 : 1;

		len += snprintf(t + len, cap - len, "%0*llx %c %ssym%zu", w, a,
				type, k == 0 ? "$" : "", i);
		if (k == 1 || k == 2)
			len += snprintf(t + len, cap - len, "\t[mod%u]", k);
		t[len++] = '\n';
	}
	t[len] = '\0';
	return t;
}

/* A random text with one line made odd, so that it falls back. */
static void spoil(char *t)
{
	static const char *const odd[] = { " ", "\t", "x", "\r", "-" };
	size_t len = strlen(t), at = next_rand() % len;
	char *nl = strchr(t + at, '\n');

	if (!nl)
		return;
	*nl = odd[next_rand() % 5][0];
}

/* ---- shares ------------------------------------------------------------- */

/* A kallsyms source for a share: counts its reads, can fail them. */
struct source {
	const char *text;		/* NULL: the trace has none */
	_Atomic int reads;
	int fail;			/* this many reads fail with -ENOMEM */
};

static int source_read(void *arg, char **text)
{
	struct source *src = arg;

	atomic_fetch_add(&src->reads, 1);
	*text = NULL;
	if (src->fail > 0) {
		src->fail--;
		return -ENOMEM;
	}
	if (src->text) {
		*text = strdup(src->text);
		FATAL(*text);
	}
	return 0;
}

static void check_share_serial(void)
{
	struct source own = { .text = "1000 T a\n2000 t b\n" };
	struct source odd = { .text = "1000 T a\n2000 x b c d\n" };
	struct source none = { 0 };
	struct text_kallsyms_share *sh = text_kallsyms_share_new();
	struct text_kallsyms *k1, *k2;
	unsigned long long start;
	bool c1, c2;

	FATAL(sh);
	/* a table of our own: read once, the same table for every asker */
	own.fail = 1;
	CHECK(text_kallsyms_share_get(sh, source_read, &own, &k1,
				      &c1) == -ENOMEM);
	CHECK(!k1);
	CHECK(text_kallsyms_share_get(sh, source_read, &own, &k1, &c1) == 0);
	CHECK(text_kallsyms_share_ref(sh) == sh);
	CHECK(text_kallsyms_share_get(sh, source_read, &own, &k2, &c2) == 0);
	CHECK(k1 && k1 == k2 && !c1 && !c2);
	CHECK(atomic_load(&own.reads) == 2);
	text_kallsyms_share_free(sh);
	/* one reference is left: the table still answers */
	CHECK(k1 && text_kallsyms_find(k1, 0x1004, &start) &&
	      !strcmp(text_kallsyms_find(k1, 0x1004, &start), "a") &&
	      start == 0x1000);
	text_kallsyms_share_free(sh);

	/* the fallback: each asker reads and gets a table of its own */
	sh = text_kallsyms_share_new();
	FATAL(sh);
	CHECK(text_kallsyms_share_get(sh, source_read, &odd, &k1, &c1) == 0);
	CHECK(text_kallsyms_share_get(sh, source_read, &odd, &k2, &c2) == 0);
	CHECK(k1 && k2 && k1 != k2 && c1 && c2);
	CHECK(k1 && !text_kallsyms_own(k1));
	CHECK(atomic_load(&odd.reads) == 2);
	text_kallsyms_free(k1);
	text_kallsyms_free(k2);
	text_kallsyms_share_free(sh);

	/* no kallsyms: no table, read once */
	sh = text_kallsyms_share_new();
	FATAL(sh);
	CHECK(text_kallsyms_share_get(sh, source_read, &none, &k1, &c1) == 0);
	CHECK(text_kallsyms_share_get(sh, source_read, &none, &k2, &c2) == 0);
	CHECK(!k1 && !k2 && !c1 && !c2);
	CHECK(atomic_load(&none.reads) == 1);
	text_kallsyms_share_free(sh);
	text_kallsyms_share_free(NULL);
}

#define ASKERS 8

struct asker {
	struct text_kallsyms_share *sh;
	struct source *src;
	struct text_kallsyms *ks;
	int ret;
};

/* Each asker holds a reference of its own and drops it when done. */
static void *ask(void *arg)
{
	struct asker *a = arg;
	bool copy;

	a->ret = text_kallsyms_share_get(a->sh, source_read, a->src, &a->ks,
					 &copy);
	if (!a->ret && (copy || !a->ks || !text_kallsyms_own(a->ks)))
		a->ret = -EINVAL;
	text_kallsyms_share_free(a->sh);
	return NULL;
}

static void check_share_threads(void)
{
	char *text = random_text(20000, 50);
	struct source src = { .text = text };
	struct text_kallsyms_share *sh = text_kallsyms_share_new();
	struct asker a[ASKERS];
	pthread_t tid[ASKERS];
	struct text_kallsyms *ks;
	bool copy;
	int i;

	FATAL(sh && text);
	for (i = 0; i < ASKERS; i++) {
		a[i] = (struct asker){ .sh = text_kallsyms_share_ref(sh),
				       .src = &src };
		FATAL(!pthread_create(&tid[i], NULL, ask, &a[i]));
	}
	for (i = 0; i < ASKERS; i++) {
		pthread_join(tid[i], NULL);
		CHECK(a[i].ret == 0);
		CHECK(a[i].ks == a[0].ks);
	}
	CHECK(atomic_load(&src.reads) == 1);
	CHECK(text_kallsyms_share_get(sh, source_read, &src, &ks, &copy) == 0);
	CHECK(ks == a[0].ks && !copy);
	text_kallsyms_share_free(sh);
	free(text);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		check_text(fixtures[i].name, fixtures[i].text, fixtures[i].own);
	for (i = 0; i < 40; i++) {
		char *t = random_text(50 + next_rand() % 3000,
				      1 + next_rand() % 400);
		char what[64];

		snprintf(what, sizeof(what), "random text %zu", i);
		check_text(what, t, 1);
		spoil(t);
		snprintf(what, sizeof(what), "spoilt random text %zu", i);
		check_text(what, t, -1);
		free(t);
	}
	check_share_serial();
	check_share_threads();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("ksym: %zu fixtures and 80 random texts agree with libtraceevent; shares parse once\n",
		       sizeof(fixtures) / sizeof(fixtures[0]));
	return failures != 0;
}
