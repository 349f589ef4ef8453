/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index-open.c - the index end to end (fs/tdatfs-index.h) on real traces:
 * built into a temporary directory, then loaded by a fresh engine instead
 * of built; every text's size known before any read and its bytes those
 * of an engine without index; a damaged file, other engine options, an
 * index directory that cannot be made, check_only and cancel.
 *
 * usage: test-index TRACE...
 *        test-index --measure THREADS TRACE   (build and load times, sizes)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tdat.h"
#include "tdatfs-index.h"
#include "tdatfs-text.h"
#include "check.h"

struct text {
	struct tdatfs_text_key key;
	char *bytes;
	size_t len;
};

static ssize_t text_read(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			 char *buf, size_t len, uint64_t off)
{
	return k->report ? tdatfs_text_report_read(t, buf, len, off) :
	       tdatfs_text_read(t, k->buffer, k->cpu, buf, len, off);
}

static int text_size(struct tdatfs_text *t, const struct tdatfs_text_key *k,
		     uint64_t *size)
{
	return k->report ? tdatfs_text_report_size(t, size) :
	       tdatfs_text_size(t, k->buffer, k->cpu, size);
}

/* Every text of the trace, read to its end by an engine without index. */
static struct text *reference(struct tdat_file *f, size_t *n)
{
	struct tdatfs_text *t = tdatfs_text_new(f, NULL);
	struct text *v;
	size_t nk;

	FATAL(t);
	nk = tdatfs_text_keys(t, NULL, 0);
	struct tdatfs_text_key keys[nk ? nk : 1];
	tdatfs_text_keys(t, keys, nk);
	v = calloc(nk ? nk : 1, sizeof(*v));
	FATAL(v);
	for (size_t i = 0; i < nk; i++) {
		size_t cap = 1 << 16;
		ssize_t got;

		v[i].key = keys[i];
		v[i].bytes = malloc(cap);
		FATAL(v[i].bytes);
		while ((got = text_read(t, &keys[i], v[i].bytes + v[i].len,
					cap - v[i].len, v[i].len)) > 0) {
			v[i].len += (size_t)got;
			if (v[i].len == cap) {
				cap *= 2;
				v[i].bytes = realloc(v[i].bytes, cap);
				FATAL(v[i].bytes);
			}
		}
		CHECK(got == 0);
	}
	tdatfs_text_free(t);
	*n = nk;
	return v;
}

/* Sizes exact before any read; a piece from the middle, then every byte. */
static void compare(struct tdatfs_text *t, const struct text *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *buf = malloc(v[i].len + 1);
		uint64_t size = 0;
		size_t at = 0, mid = v[i].len / 2;
		ssize_t got;

		FATAL(buf);
		CHECK(text_size(t, &v[i].key, &size) == 0 && size == v[i].len);
		got = text_read(t, &v[i].key, buf, 100, mid);
		CHECK(got >= 0 && !memcmp(buf, v[i].bytes + mid, (size_t)got));
		CHECK(got == (ssize_t)(v[i].len - mid < 100 ? v[i].len - mid : 100));
		while ((got = text_read(t, &v[i].key, buf + at, v[i].len + 1 - at, at)) > 0)
			at += (size_t)got;
		CHECK(got == 0 && at == v[i].len && !memcmp(buf, v[i].bytes, at));
		free(buf);
	}
}

static int entries(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!dp)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

/* Attach on a fresh engine; Return: its result code (the engine in *@tp). */
static int attach(struct tdat_file *f, const char *trace, struct tdatfs_index_opts *o,
		  struct tdatfs_text **tp, struct tdatfs_index_result *res)
{
	*tp = tdatfs_text_new(f, o->text_opts);
	FATAL(*tp);
	return tdatfs_index_attach(*tp, f, trace, o, res);
}

static void flip_byte(const char *path)
{
	struct stat st;
	uint8_t c;
	int fd = open(path, O_RDWR);

	FATAL(fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0);
	FATAL(pread(fd, &c, 1, st.st_size / 2) == 1);
	c ^= 0x10;
	FATAL(pwrite(fd, &c, 1, st.st_size / 2) == 1);
	close(fd);
}

/*
 * A kept index (@res, from the first build): loaded instead of built;
 * refused for other engine options, and when damaged; built again.
 */
static void test_kept(struct tdat_file *f, const char *trace, struct tdatfs_index_opts *o,
		      struct tdatfs_index_result *first, const struct text *v, size_t n)
{
	struct tdatfs_text_opts few = { .max_checkpoints = 2 };
	struct tdatfs_index_result res;
	struct tdatfs_text *t;
	char path[300];

	snprintf(path, sizeof(path), "%s", first->path);
	tdatfs_index_result_release(first);
	CHECK(attach(f, trace, o, &t, &res) == 0 && res.loaded && !res.built);
	CHECK(res.kept && !strcmp(res.path, path) && !res.why);
	compare(t, v, n);
	tdatfs_index_result_release(&res);
	tdatfs_text_free(t);
	/* Other engine options: refused, built again. */
	o->text_opts = &few;
	CHECK(attach(f, trace, o, &t, &res) == 0 && res.built);
	CHECK(res.why && !strcmp(res.why, "made with another max_checkpoints"));
	tdatfs_index_result_release(&res);
	tdatfs_text_free(t);
	o->text_opts = NULL;
	o->check_only = true;
	CHECK(attach(f, trace, o, &t, &res) == -EINVAL && !res.loaded);
	tdatfs_index_result_release(&res);
	tdatfs_text_free(t);
	o->check_only = false;
	CHECK(attach(f, trace, o, &t, &res) == 0 && res.built);
	tdatfs_index_result_release(&res);
	tdatfs_text_free(t);
	/* A damaged file: refused, built again, correct bytes. */
	flip_byte(path);
	CHECK(attach(f, trace, o, &t, &res) == 0 && res.built && res.kept);
	CHECK(res.why && !strcmp(res.why, "bad checksum"));
	compare(t, v, n);
	tdatfs_text_free(t);
	CHECK(unlink(path) == 0);
	tdatfs_index_result_release(&res);
}

static void test_trace(const char *trace)
{
	char err[256], dir[] = "/tmp/test-index.XXXXXX", bad[300];
	struct tdat_file *f = tdat_open(trace, NULL, err, sizeof(err));
	struct tdatfs_index_opts o = { .prog = "test-index", .threads = 2 };
	struct tdatfs_index_result res;
	struct tdatfs_text *t;
	struct text *v;
	size_t n;
	bool damaged;

	FATAL(f);
	FATAL(mkdtemp(dir));
	v = reference(f, &n);
	damaged = tdat_error_total(f) > 0;
	o.dir = dir;

	/* Check only, nothing there yet. */
	o.check_only = true;
	CHECK(attach(f, trace, &o, &t, &res) == -ENOENT && !res.loaded && !res.built);
	tdatfs_index_result_release(&res);
	tdatfs_text_free(t);
	o.check_only = false;

	/* Built, kept (unless damaged), then loaded by a fresh engine. */
	CHECK(attach(f, trace, &o, &t, &res) == 0 && res.built && !res.loaded);
	CHECK(res.kept == !damaged && res.texts == n);
	CHECK(damaged || entries(dir) == 1);
	compare(t, v, n);
	tdatfs_text_free(t);
	if (!damaged)
		test_kept(f, trace, &o, &res, v, n);
	tdatfs_index_result_release(&res);
	CHECK(entries(dir) == 0);

	/* Cancelled before it starts: -EINTR, nothing written. */
	_Atomic bool stop = true;
	o.cancel = &stop;
	CHECK(attach(f, trace, &o, &t, &res) == -EINTR && !res.kept);
	CHECK(entries(dir) == 0);
	tdatfs_index_result_release(&res);
	tdatfs_text_free(t);
	o.cancel = NULL;

	/* A directory that cannot be made: memory only, same bytes. */
	snprintf(bad, sizeof(bad), "%s/file", dir);
	close(open(bad, O_CREAT | O_WRONLY, 0600));
	snprintf(bad, sizeof(bad), "%s/file/sub", dir);
	o.dir = bad;
	CHECK(attach(f, trace, &o, &t, &res) == 0 && res.built && !res.kept && res.why);
	compare(t, v, n);
	tdatfs_index_result_release(&res);
	tdatfs_text_free(t);
	CHECK(entries(dir) == 1);
	snprintf(bad, sizeof(bad), "%s/file", dir);
	unlink(bad);
	CHECK(rmdir(dir) == 0);

	for (size_t i = 0; i < n; i++)
		free(v[i].bytes);
	free(v);
	tdat_close(f);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Build with @threads workers, then load: times, sizes, peak RSS. */
static int measure(unsigned int threads, const char *trace)
{
	char err[256], dir[] = "/tmp/test-index-m.XXXXXX";
	struct tdat_file *f = tdat_open(trace, NULL, err, sizeof(err));
	struct tdatfs_index_opts o = { .prog = "test-index", .threads = threads,
				       .progress = TDATFS_PROGRESS_TTY };
	struct tdatfs_index_result res;
	struct tdatfs_text *t;
	struct rusage ru;
	double t0;

	FATAL(f && mkdtemp(dir));
	o.dir = dir;
	t0 = now_s();
	FATAL(attach(f, trace, &o, &t, &res) == 0);
	printf("%s: built with %u threads in %.3f s: %zu texts, %llu bytes of text, index %llu bytes\n",
	       trace, threads, now_s() - t0, res.texts, (unsigned long long)res.bytes,
	       (unsigned long long)res.file_bytes);
	tdatfs_text_free(t);
	tdatfs_index_result_release(&res);
	getrusage(RUSAGE_SELF, &ru);
	printf("  peak RSS after the build: %ld KiB\n", ru.ru_maxrss);
	t0 = now_s();
	FATAL(attach(f, trace, &o, &t, &res) == 0 && res.loaded);
	printf("  loaded in %.4f s\n", now_s() - t0);
	unlink(res.path);
	rmdir(dir);
	tdatfs_index_result_release(&res);
	tdatfs_text_free(t);
	tdat_close(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--measure"))
		return measure((unsigned int)atoi(argv[2]), argv[3]);
	for (int i = 1; i < argc; i++)
		test_trace(argv[i]);
	if (failures)
		fprintf(stderr, "test-index: %d failures\n", failures);
	return failures != 0;
}
