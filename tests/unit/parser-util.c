/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser-util.c - the reader's bottom layer (parser/tdat-util.h): byte-order
 * reads in both orders, whole positional reads (short reads, interrupted
 * reads, end of file, errors) and the growable array with its
 * allocation-failure rule.
 *
 * The test defines pread() itself, so the parser's calls come here: it
 * passes them to the kernel unchanged, or cuts them short, or fails them
 * with EINTR, as the test asks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tdat-util.h"
#include "byte-builder.h"
#include "check.h"


/* --- a pread() that misbehaves on request --------------------------------- */

static size_t pread_max;	/* 0: whole reads; else at most this many bytes */
static unsigned int pread_eintr; /* fail this many calls with EINTR first */
static unsigned int pread_calls;

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	pread_calls++;
	if (pread_eintr) {
		pread_eintr--;
		errno = EINTR;
		return -1;
	}
	if (pread_max && len > pread_max)
		len = pread_max;
	return syscall(SYS_pread64, fd, buf, len, off);
}

static void pread_reset(void)
{
	pread_max = 0;
	pread_eintr = 0;
	pread_calls = 0;
}

/* --- byte order ------------------------------------------------------------ */

static void test_endian(void)
{
	struct bb le = { .be = false }, be = { .be = true };

	/* One odd byte first: the readers must not need alignment. */
	u8(&le, 0xee);
	u16(&le, 0x1234);
	u32(&le, 0x89abcdefu);
	u64(&le, 0x0123456789abcdefull);
	u8(&be, 0xee);
	u16(&be, 0x1234);
	u32(&be, 0x89abcdefu);
	u64(&be, 0x0123456789abcdefull);
	FATAL(le.len == 15 && be.len == 15);

	CHECK(le.d[1] == 0x34 && be.d[1] == 0x12);
	CHECK(tdp_get16(false, le.d + 1) == 0x1234);
	CHECK(tdp_get16(true, be.d + 1) == 0x1234);
	CHECK(tdp_get16(true, le.d + 1) == 0x3412);
	CHECK(tdp_get32(false, le.d + 3) == 0x89abcdefu);
	CHECK(tdp_get32(true, be.d + 3) == 0x89abcdefu);
	CHECK(tdp_get32(true, le.d + 3) == 0xefcdab89u);
	CHECK(tdp_get64(false, le.d + 7) == 0x0123456789abcdefull);
	CHECK(tdp_get64(true, be.d + 7) == 0x0123456789abcdefull);
	CHECK(tdp_get64(false, be.d + 7) == 0xefcdab8967452301ull);
	free(le.d);
	free(be.d);
}

/* --- whole positional reads ------------------------------------------------ */

#define FILE_LEN 1000

static int temp_file(uint8_t *content)
{
	char path[] = "/tmp/test-util-XXXXXX";
	int fd = mkstemp(path);

	FATAL(fd >= 0);
	unlink(path);
	for (int i = 0; i < FILE_LEN; i++)
		content[i] = (uint8_t)(i * 13 + 5);
	FATAL(write(fd, content, FILE_LEN) == FILE_LEN);
	return fd;
}

static void test_pread(void)
{
	uint8_t content[FILE_LEN], buf[FILE_LEN + 16];
	int fd = temp_file(content);
	size_t done = 12345;
	int pipefd[2];

	/* The plain path: one call, every byte. */
	pread_reset();
	CHECK(tdp_pread_full(fd, buf, 100, 200, &done) == 0);
	CHECK(done == 100 && pread_calls == 1);
	CHECK(!memcmp(buf, content + 200, 100));
	CHECK(tdp_pread_full(fd, buf, FILE_LEN, 0, NULL) == 0);
	CHECK(!memcmp(buf, content, FILE_LEN));
	/* Up to the last byte exactly, and nothing at all. */
	CHECK(tdp_pread_full(fd, buf, 10, FILE_LEN - 10, &done) == 0 && done == 10);
	CHECK(!memcmp(buf, content + FILE_LEN - 10, 10));
	pread_calls = 0;
	CHECK(tdp_pread_full(fd, buf, 0, FILE_LEN + 5, &done) == 0);
	CHECK(done == 0 && pread_calls == 0);

	/* Short reads are continued where they stopped. */
	pread_reset();
	pread_max = 7;
	memset(buf, 0, sizeof(buf));
	CHECK(tdp_pread_full(fd, buf, 100, 3, &done) == 0);
	CHECK(done == 100 && pread_calls == 15);
	CHECK(!memcmp(buf, content + 3, 100));

	/* EINTR is retried and costs nothing. */
	pread_reset();
	pread_eintr = 3;
	memset(buf, 0, sizeof(buf));
	CHECK(tdp_pread_full(fd, buf, 50, 900, &done) == 0);
	CHECK(done == 50 && pread_calls == 4);
	CHECK(!memcmp(buf, content + 900, 50));

	/* The end of the file comes first: -EIO, and what was read is told. */
	pread_reset();
	CHECK(tdp_pread_full(fd, buf, 20, FILE_LEN - 8, &done) == -EIO);
	CHECK(done == 8 && !memcmp(buf, content + FILE_LEN - 8, 8));
	pread_max = 3;
	CHECK(tdp_pread_full(fd, buf, 20, FILE_LEN - 8, &done) == -EIO);
	CHECK(done == 8);
	pread_reset();
	CHECK(tdp_pread_full(fd, buf, 1, FILE_LEN, &done) == -EIO && done == 0);
	CHECK(tdp_pread_full(fd, buf, 1, FILE_LEN + 4096, NULL) == -EIO);

	/* Offsets no file has, and errors of pread() itself. */
	pread_calls = 0;
	CHECK(tdp_pread_full(fd, buf, 1, (uint64_t)INT64_MAX + 1, &done) == -EINVAL);
	CHECK(done == 0 && pread_calls == 0);
	CHECK(tdp_pread_full(-1, buf, 1, 0, &done) == -EBADF && done == 0);
	FATAL(pipe(pipefd) == 0);
	CHECK(tdp_pread_full(pipefd[0], buf, 1, 0, NULL) == -ESPIPE);
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
	pread_reset();
}

/* --- growable arrays ------------------------------------------------------- */

static void test_grow(void)
{
	uint64_t *v = NULL, *n;
	size_t cap = 0, len = 0;

	/* The first allocation takes the minimum, later ones double. */
	v = tdp_grow(v, &cap, 1, sizeof(*v), 16);
	FATAL(v);
	CHECK(cap == 16);
	for (len = 0; len < 16; len++)
		v[len] = len * 3;
	n = tdp_grow(v, &cap, 16, sizeof(*v), 16);
	CHECK(n == v && cap == 16);	/* room enough: nothing moves */
	v = tdp_grow(v, &cap, 17, sizeof(*v), 16);
	FATAL(v);
	CHECK(cap == 32);
	/* A need beyond double is met exactly. */
	v = tdp_grow(v, &cap, 100, sizeof(*v), 16);
	FATAL(v);
	CHECK(cap == 100);
	for (; len < 100; len++)
		v[len] = len * 3;
	for (size_t i = 0; i < len; i++)
		CHECK(v[i] == i * 3);
	/* Appending one at a time stays O(n): few reallocations. */
	{
		unsigned int moves = 0;

		for (size_t want = 101; want <= 100000; want++) {
			size_t before = cap;

			v = tdp_grow(v, &cap, want, sizeof(*v), 16);
			FATAL(v);
			moves += cap != before;
			v[want - 1] = want;
		}
		CHECK(moves <= 11);
		CHECK(cap >= 100000);
	}
	free(v);

	/* No minimum and no need still gives a usable array. */
	cap = 0;
	v = tdp_grow(NULL, &cap, 0, sizeof(*v), 0);
	CHECK(v && cap == 1);
	free(v);
}

/*
 * The failure rule: NULL and ENOMEM, and the old array, its contents and
 * its capacity stay as they were (the caller frees it as before).
 */
static void test_grow_failure(void)
{
	size_t cap = 0;
	uint32_t *v = tdp_grow(NULL, &cap, 8, sizeof(*v), 0);

	FATAL(v);
	for (uint32_t i = 0; i < 8; i++)
		v[i] = 0xa0 + i;
	/* A size that overflows size_t. */
	errno = 0;
	CHECK(!tdp_grow(v, &cap, SIZE_MAX / 2, sizeof(*v), 0));
	CHECK(errno == ENOMEM && cap == 8);
	CHECK(!tdp_grow(v, &cap, 9, SIZE_MAX / 4, 0));
	CHECK(errno == ENOMEM && cap == 8);
	/* A size that fits size_t but no memory (sanitizers abort on it). */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__has_feature)
#define TRY_HUGE 1
#elif defined(__has_feature)
#if !__has_feature(address_sanitizer)
#define TRY_HUGE 1
#endif
#endif
#ifdef TRY_HUGE
	errno = 0;
	CHECK(!tdp_grow(v, &cap, SIZE_MAX / 8, sizeof(*v), 0));
	CHECK(errno == ENOMEM && cap == 8);
#endif
	for (uint32_t i = 0; i < 8; i++)
		CHECK(v[i] == 0xa0 + i);
	/* ... and the array still grows once memory is there. */
	v = tdp_grow(v, &cap, 9, sizeof(*v), 0);
	FATAL(v);
	CHECK(cap == 16 && v[7] == 0xa7);
	free(v);
}

int main(void)
{
	test_endian();
	test_pread();
	test_grow();
	test_grow_failure();
	if (failures) {
		fprintf(stderr, "test-util: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test-util: all checks passed\n");
	return 0;
}
