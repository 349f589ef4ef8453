/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-stream-follow.c - a buffer's CPU texts made beside its merged text
 * (tdatfs_text_produce_led()) are the texts made apart: for every buffer
 * that can lead, the saved state of its merged text and of each CPU text
 * is byte for byte the state tdatfs_text_produce_sole() of that text
 * alone saves, and the texts read the same.  Each trace is tried with the
 * default checkpoints, and with a checkpoint every SPACING bytes and at
 * most four of them (thinned many times before the end); the second only
 * where every CPU text was made beside (one made apart is on a stream
 * made again, at the default spacing).
 *
 * Usage: test-text-stream-follow [--measure | --apart] TRACE...
 *   --measure: the figures only (each way's time), no comparison of
 *   reads;
 *   --apart: some CPU text of the traces must be made apart (damaged
 *   data on its CPU, or a function_graph entry), so that the way a
 *   lead drops a CPU is tried.
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
#include "text-compare.h"

/* The small spacing tried: many checkpoints on any trace. */
#define SPACING		4096

static bool measuring;
/* CPU texts made beside their merged text, and made apart, in all */
static unsigned int beside, apart_n;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The states of buffer @b's texts on @a and @b equal, and their texts: of
 * the merged text and of its first @ncpu CPUs.
 */
static void same_states(struct tdatfs_text *a, struct tdatfs_text *b,
			size_t buf, unsigned int ncpu)
{
	for (int c = -1; c < (int)ncpu; c++) {
		struct tdatfs_text_key k = { .buffer = buf, .cpu = c };
		void *x = NULL, *y = NULL;
		size_t xl = 0, yl = 0;

		FATAL(tdatfs_text_state_save(a, &k, &x, &xl) == 0);
		FATAL(tdatfs_text_state_save(b, &k, &y, &yl) == 0);
		CHECK(xl == yl && !memcmp(x, y, xl));
		if (xl != yl || memcmp(x, y, xl))
			fprintf(stderr, "  buffer %zu cpu %d: states differ "
				"(%zu and %zu bytes)\n", buf, c, xl, yl);
		free(x);
		free(y);
		if (!measuring)
			same_text(a, b, buf, c);
	}
}

/* Seconds to produce buffer @buf's merged text alone, on a fresh engine. */
static double merged_alone(struct tdat_file *f, size_t buf)
{
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	struct tdatfs_text_key k = { .buffer = buf, .cpu = -1 };
	double t0 = now();

	FATAL(t);
	CHECK(tdatfs_text_produce_sole(t, &k, NULL, NULL) == 0);
	t0 = now() - t0;
	tdatfs_text_free(t);
	return t0;
}

/* Buffer @b of @f led on one engine and made apart on another. */
static void check_buffer(struct tdat_file *f, size_t buf, unsigned int max_ckpt,
			 uint64_t spacing)
{
	struct tdatfs_text_opts o = { .max_checkpoints = max_ckpt };
	struct tdatfs_text *a = tdatfs_text_new(f, &o), *b = tdatfs_text_new(f, &o);
	struct tdatfs_text_key k = { .buffer = buf, .cpu = -1 };
	unsigned int ncpu = tdat_buffer_get(f, buf)->ncpus;
	uint64_t total = tdatfs_text_pages(a, &k);
	_Atomic uint64_t done = 0;
	double t0, led, apart;
	int made;

	FATAL(a && b);
	space_streams(a, buf, ncpu, spacing);
	space_streams(b, buf, ncpu, spacing);
	for (unsigned int c = 0; c < ncpu; c++) {
		k.cpu = (int)c;
		total += tdatfs_text_pages(a, &k);
	}
	t0 = now();
	made = tdatfs_text_produce_led(a, buf, NULL, &done);
	led = now() - t0;
	CHECK(made >= 0 && made <= (int)ncpu);
	CHECK(atomic_load(&done) == total);
	if (made >= 0) {
		beside += made;
		apart_n += ncpu - made;
	}
	t0 = now();
	for (int c = -1; c < (int)ncpu; c++) {
		k.cpu = c;
		CHECK(tdatfs_text_produce_sole(b, &k, NULL, NULL) == 0);
	}
	apart = now() - t0;
	printf("  buffer %zu (%u CPUs, %d made beside), max_checkpoints %u, "
	       "spacing %llu: led %.3f s, apart %.3f s", buf, ncpu, made,
	       max_ckpt, (unsigned long long)spacing, led, apart);
	if (measuring)
		printf(", the merged text alone %.3f s", merged_alone(f, buf));
	printf("\n");
	/*
	 * A CPU text made apart is made on a stream made again, at the
	 * default spacing: compared only where every one was made beside.
	 */
	same_states(a, b, buf, !spacing || made == (int)ncpu ? ncpu : 0);
	tdatfs_text_free(a);
	tdatfs_text_free(b);
}

/* A cancelled lead leaves no size known, and the next one makes them all. */
static void check_cancel(struct tdat_file *f, size_t buf)
{
	struct tdatfs_text *a = tdatfs_text_new(f, NULL);
	_Atomic bool stop = true;
	uint64_t size;

	FATAL(a);
	CHECK(tdatfs_text_produce_led(a, buf, &stop, NULL) == -EINTR);
	CHECK(tdatfs_text_size(a, buf, -1, &size) == -EAGAIN);
	CHECK(tdatfs_text_size(a, buf, 0, &size) == -EAGAIN);
	tdatfs_text_free(a);
}

static void check_trace(const char *path)
{
	struct tdat_file *f = open_trace(path);
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	size_t nb = tdat_buffer_count(f), led = 0;

	FATAL(t);
	printf("%s:\n", path);
	for (size_t b = 0; b < nb; b++) {
		if (!tdatfs_text_can_lead(t, b))
			continue;
		led++;
		check_buffer(f, b, 0, 0);
		if (measuring)
			continue;
		check_buffer(f, b, 4, SPACING);
		check_cancel(f, b);
	}
	/* every trace given has one: a test of nothing is no test */
	CHECK(led > 0);
	tdatfs_text_free(t);
	tdat_close(f);
}

int main(int argc, char **argv)
{
	bool want_apart = false;
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "--measure")) {
		measuring = true;
		i++;
	} else if (argc > 1 && !strcmp(argv[1], "--apart")) {
		want_apart = true;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s [--measure | --apart] TRACE...\n", argv[0]);
		return 2;
	}
	for (; i < argc; i++)
		check_trace(argv[i]);
	printf("%u CPU texts made beside their merged text, %u apart\n",
	       beside, apart_n);
	CHECK(beside > 0);
	CHECK(!want_apart || apart_n > 0);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
