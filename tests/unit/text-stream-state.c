/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-stream-state.c - the text engine's side of the index: an engine that
 * produced every text saves their states, a fresh engine of the same
 * trace loads them, and then knows every size without a read and reads
 * every byte as the first one did, at any offset in any order.  Damaged
 * states (every truncation, flipped bytes) are refused or harmless,
 * never a crash, and a refused one leaves the text as it was.
 *
 * Usage: test-text-state TRACE...
 *   each trace is tested with the default checkpoints and with at most
 *   four (so that thinning happened before the save).
 *        test-text-state --spacing BYTES TRACE...
 *   the same with a checkpoint every BYTES of text (tiny traces).
 *        test-text-state --measure TRACE
 *   the figures only: each text's produce time and state size.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-text.h"
#include "check.h"
#include "open-trace.h"
#include "text/engine.h"
#include "text/stream.h"

/* Text between checkpoints, or 0 for the engine's default. */
static uint64_t spacing;

/* Flips and truncations tried per state, at most (all on small ones). */
#define SAMPLE		300
/* Damaged states accepted whose text is then read through, per text. */
#define READ_ACCEPTED	2

/* One text of engine A: what it produced and saved. */
struct ref {
	struct tdatfs_text_key k;
	char *text;
	size_t len;
	void *blob;
	size_t blen;
	uint64_t *ckpt;
	size_t nckpt;
};

static ssize_t key_read(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			char *buf, size_t len, uint64_t off)
{
	if (k->report)
		return tdatfs_text_report_read(t, buf, len, off);
	return tdatfs_text_read(t, k->buffer, k->cpu, buf, len, off);
}

static int key_size(struct tdatfs_text *t, const struct tdatfs_text_key *k,
		    uint64_t *size)
{
	if (k->report)
		return tdatfs_text_report_size(t, size);
	return tdatfs_text_size(t, k->buffer, k->cpu, size);
}

static const char *key_name(const struct tdatfs_text_key *k)
{
	static char name[64];

	if (k->report)
		return "report";
	snprintf(name, sizeof(name), "buffer %zu cpu %d", k->buffer, k->cpu);
	return name;
}

/* The whole text, read from 0 in pieces; NULL on an error. */
static char *read_all(struct tdatfs_text *t, const struct tdatfs_text_key *k,
		      size_t *len)
{
	struct tdatfs_buf b = { 0 };
	static char tmp[65536];
	ssize_t n;

	while ((n = key_read(t, k, tmp, sizeof(tmp), b.len)) > 0)
		FATAL(tdatfs_buf_put(&b, tmp, n) == 0);
	*len = b.len;
	if (n < 0) {
		tdatfs_buf_release(&b);
		return NULL;
	}
	if (!b.p)
		b.p = calloc(1, 1);
	return b.p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Engine A's work on one text: produce, save, read it all, list checkpoints. */
static void make_ref(struct tdatfs_text *a, struct ref *r)
{
	uint64_t pages = tdatfs_text_pages(a, &r->k), size = 0;
	_Atomic uint64_t done = 0;
	struct text_stream *st;
	double t0 = now();

	CHECK(tdatfs_text_state_save(a, &r->k, &r->blob, &r->blen) == -EAGAIN);
	if (spacing) {
		st = r->k.report ? text_engine_report(a) :
		     text_engine_stream(a, r->k.buffer, r->k.cpu);
		FATAL(st);
		text_stream_set_spacing(st, spacing);
	}
	CHECK(tdatfs_text_produce(a, &r->k, NULL, &done) == 0);
	CHECK(atomic_load(&done) == pages);
	CHECK(key_size(a, &r->k, &size) == 0);
	FATAL(tdatfs_text_state_save(a, &r->k, &r->blob, &r->blen) == 0);
	printf("  %-20s %10llu bytes of text, %6llu pages, state %8zu bytes, produced in %.3f s\n",
	       key_name(&r->k), (unsigned long long)size, (unsigned long long)pages,
	       r->blen, now() - t0);
	r->text = read_all(a, &r->k, &r->len);
	FATAL(r->text);
	CHECK(r->len == size);
	st = r->k.report ? text_engine_report(a) :
	     text_engine_stream(a, r->k.buffer, r->k.cpu);
	FATAL(st);
	r->nckpt = text_stream_checkpoints(st, NULL, 0);
	r->ckpt = calloc(r->nckpt + 1, sizeof(*r->ckpt));
	FATAL(r->ckpt);
	text_stream_checkpoints(st, r->ckpt, r->nckpt);
}

/* A read of up to 4097 bytes at @off gives the reference's bytes. */
static void check_at(struct tdatfs_text *t, const struct ref *r, uint64_t off)
{
	static char buf[4097];
	size_t want = off >= r->len ? 0 : r->len - off;
	ssize_t n = key_read(t, &r->k, buf, sizeof(buf), off);

	if (want > sizeof(buf))
		want = sizeof(buf);
	if (n != (ssize_t)want || memcmp(buf, r->text + off, want)) {
		fprintf(stderr, "%s: read at %llu: %zd bytes, want %zu%s\n",
			key_name(&r->k), (unsigned long long)off, n, want,
			n == (ssize_t)want ? " (other bytes)" : "");
		failures++;
	}
}

/* Reads at every checkpoint, next to it, the end and elsewhere, shuffled. */
static void check_reads(struct tdatfs_text *t, const struct ref *r)
{
	size_t n = 0, cap = 3 * r->nckpt + 64, i;
	uint64_t *off = calloc(cap, sizeof(*off));

	FATAL(off);
	for (i = 0; i < r->nckpt; i++) {
		off[n++] = r->ckpt[i];
		off[n++] = r->ckpt[i] ? r->ckpt[i] - 1 : 0;
		off[n++] = r->ckpt[i] + 1;
	}
	off[n++] = r->len;
	off[n++] = r->len ? r->len - 1 : 0;
	off[n++] = r->len + 10;
	while (n < cap)
		off[n++] = r->len ? (uint64_t)rand() * 7919 % r->len : 0;
	for (i = n - 1; i > 0; i--) {
		size_t j = rand() % (i + 1);
		uint64_t x = off[i];

		off[i] = off[j];
		off[j] = x;
	}
	for (i = 0; i < n; i++)
		check_at(t, r, off[i]);
	free(off);
}

/*
 * Load a damaged copy of @r's state into a fresh engine: refused (then
 * the text has no size and, while @refused lasts, reads right) or taken
 * (then, while @taken lasts, reading it through must only not crash).
 * Return: the load's result.
 */
static int try_damaged(struct tdat_file *f, const struct tdatfs_text_opts *o,
		       const struct ref *r, const void *blob, size_t len,
		       int *refused, int *taken)
{
	struct tdatfs_text *c = tdatfs_text_new(f, o);
	int ret, *budget;
	uint64_t size;
	size_t got;
	char *text;

	FATAL(c);
	ret = tdatfs_text_state_load(c, &r->k, blob, len);
	CHECK(ret == 0 || ret == -EINVAL);
	if (ret == -EINVAL)
		CHECK(key_size(c, &r->k, &size) == -EAGAIN);
	budget = ret ? refused : taken;
	if (*budget > 0) {
		(*budget)--;
		text = read_all(c, &r->k, &got);
		if (ret == -EINVAL)
			CHECK(text && got == r->len && !memcmp(text, r->text, got));
		free(text);
	}
	tdatfs_text_free(c);
	return ret;
}

/* Every truncation (or a sample) refused; flipped bytes harmless. */
static void check_damage(struct tdat_file *f, const struct tdatfs_text_opts *o,
			 const struct ref *r)
{
	unsigned char *copy = malloc(r->blen + 1);
	int refused = 1, taken = READ_ACCEPTED, none = 0;
	size_t i, n, len, pos;

	FATAL(copy);
	n = r->blen <= SAMPLE ? r->blen : SAMPLE;
	for (i = 0; i < n; i++) {
		if (r->blen <= SAMPLE || i < 32)
			len = i;
		else if (i < SAMPLE / 2)
			len = r->blen - 1 - (i - 32);
		else
			len = (size_t)rand() % r->blen;
		CHECK(try_damaged(f, o, r, r->blob, len, &refused, &none) == -EINVAL);
	}
	refused = 0;
	for (i = 0; i < n; i++) {
		pos = r->blen <= SAMPLE || i < 64 ? i : (size_t)rand() % r->blen;
		memcpy(copy, r->blob, r->blen);
		copy[pos] ^= i & 1 ? 0xff : 1u << (rand() % 8);
		try_damaged(f, o, r, copy, r->blen, &refused, &taken);
	}
	free(copy);
}

/*
 * A state that contradicts itself: a one-CPU text's state of one slot
 * marked as printing that CPU of every CPU's slots.  Refused at load; the
 * engine is as it was (the text reads as without a state).  A stream made
 * for a state reads as the state says (alone, or every CPU), so the
 * merged text's slots marked as one CPU's are a state of that text's
 * shape: like any state's offsets, theirs are vouched for by the index's
 * checksum and the trace's identity, not by the engine.
 */
static void check_mismatch(struct tdat_file *f, const struct tdatfs_text_opts *o,
			   const struct ref *merged, const struct ref *one)
{
	struct tdatfs_text *c = tdatfs_text_new(f, o);
	unsigned char *copy = malloc(one->blen);
	int32_t only = one->k.cpu;
	uint32_t ncpu1;
	char buf[64];

	(void)merged;
	FATAL(c && copy);
	/* the layout's fields: magic, version, slot count, the CPU printed */
	memcpy(&ncpu1, (const char *)one->blob + 8, 4);
	memcpy(copy, one->blob, one->blen);
	memcpy(copy + 12, &only, 4);
	if (ncpu1 == 1) {
		CHECK(tdatfs_text_state_load(c, &one->k, copy, one->blen) == -EINVAL);
		CHECK(key_read(c, &one->k, buf, sizeof(buf), 0) ==
		      (ssize_t)(one->len < sizeof(buf) ? one->len : sizeof(buf)));
		CHECK(!memcmp(buf, one->text, one->len < sizeof(buf) ? one->len : sizeof(buf)));
	}
	free(copy);
	tdatfs_text_free(c);
}

/* Engine B loads what A saved, and answers and reads as A did. */
static void check_loaded(struct tdat_file *f, const struct tdatfs_text_opts *o,
			 struct ref *refs, size_t n, uint64_t rsize)
{
	struct tdatfs_text *b = tdatfs_text_new(f, o);
	uint64_t size;
	size_t i, len;
	void *blob;

	FATAL(b);
	for (i = 0; i < n; i++)
		CHECK(tdatfs_text_state_load(b, &refs[i].k, refs[i].blob,
					     refs[i].blen) == 0);
	for (i = 0; n && i < n; i++)
		CHECK(tdatfs_text_state_load(b, &refs[i].k, refs[i].blob,
					     refs[i].blen) == -EBUSY);
	/* sizes before any read: nothing was set up */
	for (i = 0; i < n; i++)
		CHECK(key_size(b, &refs[i].k, &size) == 0 && size == refs[i].len);
	CHECK(tdatfs_text_report_size(b, &size) == 0 && size == rsize);
	for (i = 0; i < n; i++) {
		CHECK(tdatfs_text_state_save(b, &refs[i].k, &blob, &len) == 0 &&
		      len == refs[i].blen && !memcmp(blob, refs[i].blob, len));
		free(blob);
	}
	for (i = 0; i < n; i++)
		check_reads(b, &refs[i]);
	/* once read, a loaded text saves what was loaded: the replayed
	 * comm model is the saved one */
	for (i = 0; i < n; i++) {
		CHECK(tdatfs_text_state_save(b, &refs[i].k, &blob, &len) == 0 &&
		      len == refs[i].blen && !memcmp(blob, refs[i].blob, len));
		free(blob);
	}
	tdatfs_text_free(b);
}

/*
 * All states in one buffer, each at an odd offset as in an index file,
 * adopted: the same sizes, reads and saved states as check_loaded()'s.
 * Engine B reads half the texts (their pages go back, the buffer stays
 * for the rest), and frees the rest unread; engine C is refused (a state
 * given twice) and leaves the buffer to its caller.
 */
static void check_adopted(struct tdat_file *f, const struct tdatfs_text_opts *o,
			  struct ref *refs, size_t n)
{
	struct tdatfs_text_state *st = calloc(n + 1, sizeof(*st));
	struct tdatfs_text *b = tdatfs_text_new(f, o), *c;
	size_t i, at = 1, total = 1, len, bad = n;
	unsigned char *bytes;
	uint64_t size;
	void *blob;

	FATAL(st && b);
	for (i = 0; i < n; i++)
		total += refs[i].blen + 3;
	bytes = malloc(total);
	FATAL(bytes);
	for (i = 0; i < n; i++) {
		memcpy(bytes + at, refs[i].blob, refs[i].blen);
		st[i] = (struct tdatfs_text_state){ refs[i].k, bytes + at, refs[i].blen };
		at += refs[i].blen + 3;
	}
	CHECK(tdatfs_text_states_adopt(b, st, n, &bad, NULL) == -EINVAL);
	CHECK(tdatfs_text_states_adopt(b, st, n, &bad, bytes) == 0);
	for (i = 0; i < n; i++) {
		CHECK(key_size(b, &refs[i].k, &size) == 0 && size == refs[i].len);
		CHECK(tdatfs_text_state_save(b, &refs[i].k, &blob, &len) == 0 &&
		      len == refs[i].blen && !memcmp(blob, refs[i].blob, len));
		free(blob);
	}
	for (i = 0; i < n; i += 2)
		check_reads(b, &refs[i]);
	/* the texts not read still have their states, in place */
	for (i = 1; i < n; i += 2) {
		CHECK(tdatfs_text_state_save(b, &refs[i].k, &blob, &len) == 0 &&
		      len == refs[i].blen && !memcmp(blob, refs[i].blob, len));
		free(blob);
	}
	tdatfs_text_free(b);

	c = tdatfs_text_new(f, o);
	FATAL(c);
	bytes = malloc(total);
	FATAL(bytes);
	for (i = 0, at = 1; i < n; i++) {
		memcpy(bytes + at, refs[i].blob, refs[i].blen);
		st[i].blob = bytes + at;
		at += refs[i].blen + 3;
	}
	if (n > 1) {
		st[1] = st[0];
		CHECK(tdatfs_text_states_adopt(c, st, n, &bad, bytes) == -EBUSY &&
		      bad == 1);
		/* nothing was taken: a text's state loads after it */
		CHECK(tdatfs_text_state_load(c, &refs[0].k, refs[0].blob,
					     refs[0].blen) == 0);
	}
	free(bytes);
	tdatfs_text_free(c);
	free(st);
}

/* The report of one buffer is its head and that buffer's text. */
static void check_alias(struct tdat_file *f, struct tdatfs_text *a,
			const struct ref *refs, size_t n, uint64_t *rsize)
{
	struct tdatfs_text_key rk = { .report = true, .cpu = -1 };
	char head[32];
	bool report_key = false;
	size_t i, len;
	char *rep;

	for (i = 0; i < n; i++)
		report_key |= refs[i].k.report;
	CHECK(tdatfs_text_report_size(a, rsize) == 0);
	if (report_key)
		return;
	snprintf(head, sizeof(head), "cpus=%u\n", tdat_cpu_count(f));
	rep = read_all(a, &rk, &len);
	CHECK(rep && n && refs[0].k.cpu == -1 && len == strlen(head) + refs[0].len &&
	      len == *rsize && !memcmp(rep, head, strlen(head)) &&
	      !memcmp(rep + strlen(head), refs[0].text, refs[0].len));
	free(rep);
	CHECK(tdatfs_text_state_load(a, &rk, refs[0].blob, refs[0].blen) == -ENOENT);
}

static void check_trace(const char *path, unsigned int max_ckpt)
{
	struct tdatfs_text_opts o = { .max_checkpoints = max_ckpt };
	struct tdat_file *f = open_trace(path);
	struct tdatfs_text *a = tdatfs_text_new(f, &o);
	_Atomic bool cancel = true;
	struct ref *refs;
	uint64_t rsize = 0, size;
	size_t n, i;

	FATAL(a);
	printf("%s, max_checkpoints %u:\n", path, max_ckpt);
	n = tdatfs_text_keys(a, NULL, 0);
	refs = calloc(n + 1, sizeof(*refs));
	FATAL(refs);
	{
		struct tdatfs_text_key *keys = calloc(n + 1, sizeof(*keys));

		FATAL(keys && tdatfs_text_keys(a, keys, n) == n);
		for (i = 0; i < n; i++)
			refs[i].k = keys[i];
		free(keys);
	}
	/* cancelled at once: no size, no error but -EINTR */
	if (n) {
		CHECK(tdatfs_text_produce(a, &refs[0].k, &cancel, NULL) == -EINTR);
		CHECK(key_size(a, &refs[0].k, &size) == -EAGAIN);
	}
	for (i = 0; i < n; i++) {
		make_ref(a, &refs[i]);
		CHECK(!max_ckpt || refs[i].nckpt <= max_ckpt);
	}
	check_alias(f, a, refs, n, &rsize);
	check_loaded(f, &o, refs, n, rsize);
	check_adopted(f, &o, refs, n);
	for (i = 0; i < n; i++)
		check_damage(f, &o, &refs[i]);
	for (i = 0; i + 1 < n; i++)
		if (!refs[i].k.report && refs[i].k.cpu == -1 &&
		    !refs[i + 1].k.report && refs[i + 1].k.cpu == 0 &&
		    refs[i + 1].k.buffer == refs[i].k.buffer &&
		    tdat_buffer_get(f, refs[i].k.buffer)->ncpus > 1)
			check_mismatch(f, &o, &refs[i], &refs[i + 1]);
	for (i = 0; i < n; i++) {
		free(refs[i].text);
		free(refs[i].blob);
		free(refs[i].ckpt);
	}
	free(refs);
	tdatfs_text_free(a);
	tdat_close(f);
}

/* Seconds to read a stream through from 0. */
static double time_stream(struct text_stream *st)
{
	static char buf[256 * 1024];
	double t0 = now();
	uint64_t off = 0;
	ssize_t n;

	while ((n = text_stream_read(st, buf, sizeof(buf), off)) > 0)
		off += n;
	CHECK(n == 0);
	return now() - t0;
}

/*
 * The figures of the index's build on one trace: per text, its produce
 * time and state size; the load of every state into a fresh engine; and,
 * for a report made of one buffer's text, what producing it apart (as
 * before) would add.
 */
static void measure(const char *path)
{
	struct tdat_file *f = open_trace(path);
	struct tdatfs_text *a = tdatfs_text_new(f, NULL), *b = tdatfs_text_new(f, NULL);
	size_t n = tdatfs_text_keys(a, NULL, 0), i, blen, total = 0;
	struct tdatfs_text_key *keys = calloc(n + 1, sizeof(*keys));
	double t0, build = 0, load = 0;
	uint64_t size;
	void *blob;

	FATAL(a && b && keys);
	tdatfs_text_keys(a, keys, n);
	for (i = 0; i < n; i++) {
		t0 = now();
		CHECK(tdatfs_text_produce(a, &keys[i], NULL, NULL) == 0);
		build += now() - t0;
		CHECK(key_size(a, &keys[i], &size) == 0);
		FATAL(tdatfs_text_state_save(a, &keys[i], &blob, &blen) == 0);
		printf("%-20s %11llu bytes of text, state %8zu bytes, produced in %.3f s\n",
		       key_name(&keys[i]), (unsigned long long)size, blen, now() - t0);
		t0 = now();
		CHECK(tdatfs_text_state_load(b, &keys[i], blob, blen) == 0);
		load += now() - t0;
		total += blen;
		free(blob);
	}
	t0 = now();
	CHECK(tdatfs_text_report_size(b, &size) == 0);
	printf("%zu texts, states %zu bytes, produced in %.3f s, loaded (and the "
	       "report's size known) in %.4f s; report %llu bytes%s\n",
	       n, total, build, load + now() - t0, (unsigned long long)size,
	       n && keys[n - 1].report ? "" : " (from the merged text)");
	if (n && !keys[n - 1].report)
		printf("the report produced apart, as before: %.3f s more\n",
		       time_stream(text_engine_report(a)));
	free(keys);
	tdatfs_text_free(a);
	tdatfs_text_free(b);
	tdat_close(f);
}

int main(int argc, char **argv)
{
	int i;

	if (argc == 3 && !strcmp(argv[1], "--measure")) {
		measure(argv[2]);
		return failures ? 1 : 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
		return 2;
	}
	i = 1;
	if (argc > 3 && !strcmp(argv[1], "--spacing")) {
		spacing = strtoull(argv[2], NULL, 0);
		FATAL(spacing > 0);
		i = 3;
	}
	srand(1);
	for (; i < argc; i++) {
		check_trace(argv[i], 0);
		check_trace(argv[i], 4);
	}
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
