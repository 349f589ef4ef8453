/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser-stream.c - RAW, BLOCK and CHUNKS streams over inline byte fixtures.
 *
 * Compressed payloads are made here with compress2() / ZSTD_compress()
 * from a known plaintext, laid out field by field as trace-cmd writes
 * them, written to a temporary file and read back through tdp_stream_*.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "tdat-cache.h"
#include "tdat-compress.h"
#include "tdat-stream.h"
#include "check.h"

/* --- building fixture files ---------------------------------------------- */

struct fbuf {
	unsigned char *p;
	size_t len, cap;
	bool be;
};

static void put(struct fbuf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put32(struct fbuf *b, uint32_t v)
{
	unsigned char x[4];

	if (b->be) {
		x[0] = v >> 24; x[1] = v >> 16; x[2] = v >> 8; x[3] = v;
	} else {
		x[3] = v >> 24; x[2] = v >> 16; x[1] = v >> 8; x[0] = v;
	}
	put(b, x, 4);
}

/* Compress @n bytes with the named algorithm; returns a malloc()ed buffer. */
static unsigned char *compress_with(const char *alg, const void *src, size_t n,
				    size_t *out_len)
{
	unsigned char *out;
	size_t cap;

	if (!strcmp(alg, "zlib")) {
		uLongf dl = compressBound(n);

		out = malloc(dl);
		if (!out || compress2(out, &dl, src, n, Z_BEST_COMPRESSION) != Z_OK)
			abort();
		*out_len = dl;
		return out;
	}
	cap = ZSTD_compressBound(n);
	out = malloc(cap);
	if (!out)
		abort();
	/* Like trace-cmd: no content size in the frame. */
	{
		ZSTD_CCtx *cc = ZSTD_createCCtx();

		ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
		*out_len = ZSTD_compress2(cc, out, cap, src, n);
		ZSTD_freeCCtx(cc);
	}
	if (ZSTD_isError(*out_len))
		abort();
	return out;
}

/* One compressed piece: u32 csize, u32 usize, data (BLOCK or one chunk). */
static void put_piece(struct fbuf *b, const char *alg, const void *src, size_t n)
{
	size_t clen;
	unsigned char *c = compress_with(alg, src, n, &clen);

	put32(b, (uint32_t)clen);	/* u32 compressed size */
	put32(b, (uint32_t)n);		/* u32 uncompressed size */
	put(b, c, clen);		/* compressed bytes */
	free(c);
}

static int write_tmp(const struct fbuf *b)
{
	char path[] = "/tmp/test-stream-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		abort();
	unlink(path);
	if (write(fd, b->p, b->len) != (ssize_t)b->len)
		abort();
	return fd;
}

static unsigned char *plain;
#define PLAIN_LEN 150001u

static void make_plain(void)
{
	static const char *words[] = { "sched_switch ", "prev_comm=", "bash ",
		"next_pid=", "1234 ", "irq ", "\n", "kworker/0:1 " };
	unsigned int seed = 7;
	size_t i = 0, n;

	plain = malloc(PLAIN_LEN);
	while (i < PLAIN_LEN) {
		/* Words compress, the odd random byte keeps it honest. */
		if (rand_r(&seed) % 5 == 0) {
			plain[i++] = (unsigned char)rand_r(&seed);
			continue;
		}
		const char *w = words[rand_r(&seed) % 8];

		n = strlen(w);
		if (n > PLAIN_LEN - i)
			n = PLAIN_LEN - i;
		memcpy(plain + i, w, n);
		i += n;
	}
}

/* Read [off, off+len) and compare with @want (the stream's full content). */
static void check_read(struct tdp_stream *s, const unsigned char *want,
		       size_t total, uint64_t off, size_t len, const char *what)
{
	unsigned char *buf = malloc(len + 1);
	size_t expect = off >= total ? 0 : (len < total - off ? len : total - off);
	ssize_t n = tdp_stream_read(s, buf, len, off);

	if (n != (ssize_t)expect || (expect && memcmp(buf, want + off, expect))) {
		fprintf(stderr, "%s: read %zu at %llu gave %zd, want %zu bytes%s\n",
			what, len, (unsigned long long)off, n, expect,
			n == (ssize_t)expect ? " (content differs)" : "");
		failures++;
	}
	free(buf);
}

static void check_all_reads(struct tdp_stream *s, const unsigned char *want,
			    size_t total, const char *what)
{
	static const size_t lens[] = { 1, 2, 7, 100, 4095, 4096, 40960, 40961,
				       100000, 1 << 20 };
	uint64_t off;
	size_t i;

	CHECK(tdp_stream_size(s) == total);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (off = 0; off < total + 10; off += 997 + i * 131)
			check_read(s, want, total, off, lens[i], what);
		check_read(s, want, total, total - 1, lens[i], what);
		check_read(s, want, total, total, lens[i], what);
	}
	check_read(s, want, total, 0, total, what);
	check_read(s, want, total, (uint64_t)1 << 62, 10, what);
}

/* --- RAW ----------------------------------------------------------------- */

static void test_raw(void)
{
	static const unsigned char file[] = {
		/* 0: 3 bytes before the stream */
		0xde, 0xad, 0xbe,
		/* 3: the stream, 16 bytes */
		'r', 'a', 'w', ' ', 'b', 'y', 't', 'e', 's', ' ', 'o', 'f', ' ',
		't', 'd', 't',
		/* 19: 2 bytes after it */
		0xef, 0x00,
	};
	struct fbuf b = { 0 };
	struct tdp_source src = { .file_size = sizeof(file) };
	struct tdp_stream *s;
	char err[256] = "";
	uint64_t off;
	size_t len;

	put(&b, file, sizeof(file));
	src.fd = write_tmp(&b);
	s = tdp_stream_new(&src, TDAT_STREAM_RAW, 3, 16, err, sizeof(err));
	CHECK(s);
	if (s) {
		for (off = 0; off <= 17; off++)
			for (len = 0; len <= 18; len++)
				check_read(s, file + 3, 16, off, len, "raw");
		tdp_stream_free(s);
	}
	/* 3 + 17 > 21: past the end of the file */
	s = tdp_stream_new(&src, TDAT_STREAM_RAW, 3, 19, err, sizeof(err));
	CHECK(!s && errno == EINVAL);
	CHECK(strstr(err, "offset 3") != NULL);
	tdp_stream_free(NULL);
	close(src.fd);
	free(b.p);
}

/* --- BLOCK and CHUNKS round trips ----------------------------------------- */

/* @cache_size 0: one piece; small: the block is read in pieces. */
static void test_block(const char *alg, bool be, size_t cache_size)
{
	struct fbuf b = { .be = be };
	struct tdp_cache *cache = tdp_cache_new(cache_size);
	struct tdp_source src = { .big_endian = be, .cache = cache };
	struct tdp_stream *s;
	char err[256] = "", what[64];

	src.ops = tdp_compress_find(alg);
	put(&b, "\x01\x02\x03\x04\x05", 5);	/* 0: 5 bytes before the block */
	put_piece(&b, alg, plain, 70000);	/* 5: the block (8-byte header) */
	put(&b, "\x06\x07", 2);			/* 2 bytes after it */
	src.fd = write_tmp(&b);
	src.file_size = b.len;
	snprintf(what, sizeof(what), "block %s %s cache %zu", alg,
		 be ? "BE" : "LE", cache_size);
	s = tdp_stream_new(&src, TDAT_STREAM_BLOCK, 5, b.len - 7, err, sizeof(err));
	if (!s)
		fprintf(stderr, "%s: %s\n", what, err);
	CHECK(s);
	if (s) {
		check_all_reads(s, plain, 70000, what);
		tdp_stream_free(s);
	}
	close(src.fd);
	free(b.p);
	tdp_cache_free(cache);
}

/* Chunk boundaries, as sizes: full 10-page chunks, tiny and empty ones. */
static const size_t chunk_sizes[] = { 40960, 40960, 1, 0, 4096, 40960, 23024 };
#define NCHUNKS (sizeof(chunk_sizes) / sizeof(chunk_sizes[0]))

/*
 * The table of @walked (a stream of @stored bytes at 3, @n bytes of
 * plain) kept and given back: the stream made from it reads the same
 * bytes; a table that does not fit is refused; one that disagrees with a
 * header reads that chunk as EIO (its header is read with its data).
 */
static void test_kept(const struct tdp_source *src, const struct tdp_stream *walked,
		      uint64_t stored, size_t n, const char *what)
{
	struct tdp_source fresh = *src;
	struct tdp_stream *s;
	unsigned char buf[64];
	uint32_t *t = NULL, nt = 0;
	char err[256] = "", kwhat[80];

	snprintf(kwhat, sizeof(kwhat), "%s, kept table", what);
	FATAL(tdp_stream_chunk_count(walked, &nt) == 0);
	CHECK(nt == NCHUNKS);
	t = malloc(2 * sizeof(*t) * (nt ? nt : 1));
	FATAL(t);
	tdp_stream_chunk_sizes(walked, t);
	for (size_t i = 0; i < nt && i < NCHUNKS; i++)
		CHECK(t[2 * i + 1] == chunk_sizes[i]);
	/* a cache of its own, so that no chunk is served from the walk's reads */
	fresh.cache = tdp_cache_new(100000);
	s = tdp_stream_new_kept(&fresh, 3, stored, t, nt, err, sizeof(err));
	CHECK(s && tdp_stream_size(s) == n);
	if (s)
		check_all_reads(s, plain, n, kwhat);
	tdp_stream_free(s);
	/* a compressed size past the stored range, or one chunk too many */
	t[0] += (uint32_t)stored;
	s = tdp_stream_new_kept(&fresh, 3, stored, t, nt, err, sizeof(err));
	CHECK(!s && errno == EINVAL && strstr(err, "does not fit") != NULL);
	t[0] -= (uint32_t)stored;
	s = tdp_stream_new_kept(&fresh, 3, stored, t, (uint32_t)(stored / 8), err, sizeof(err));
	CHECK(!s && errno == EINVAL);
	/*
	 * The file's second chunk header changed since the table was kept
	 * (its data did not: only the header check can tell): EIO there,
	 * the chunks around it as they were.
	 */
	{
		off_t hdr1 = 3 + 4 + 8 + (off_t)t[0];
		unsigned char was, now;

		FATAL(pread(src->fd, &was, 1, hdr1) == 1);
		now = was ^ 0x40;
		FATAL(pwrite(src->fd, &now, 1, hdr1) == 1);
		/* nothing cached from the reads above */
		tdp_cache_free(fresh.cache);
		fresh.cache = tdp_cache_new(100000);
		s = tdp_stream_new_kept(&fresh, 3, stored, t, nt, err, sizeof(err));
		CHECK(s != NULL);
		if (s) {
			CHECK(tdp_stream_read(s, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
			CHECK(!memcmp(buf, plain, sizeof(buf)));
			CHECK(tdp_stream_read(s, buf, sizeof(buf), chunk_sizes[0]) == -EIO);
			CHECK(tdp_stream_read(s, buf, sizeof(buf), n - sizeof(buf)) ==
			      (ssize_t)sizeof(buf));
			CHECK(!memcmp(buf, plain + n - sizeof(buf), sizeof(buf)));
			tdp_stream_free(s);
		}
		FATAL(pwrite(src->fd, &was, 1, hdr1) == 1);
	}
	free(t);
	tdp_cache_free(fresh.cache);
}

static void test_chunks(const char *alg, bool be)
{
	struct fbuf b = { .be = be };
	struct tdp_cache *cache = tdp_cache_new(100000);	/* forces evictions */
	struct tdp_source src = { .big_endian = be, .cache = cache };
	struct tdp_stream *s;
	char err[256] = "", what[64];
	size_t i, pos = 0;

	src.ops = tdp_compress_find(alg);
	put(&b, "\xaa\xbb\xcc", 3);		/* 0: 3 bytes before the stream */
	put32(&b, NCHUNKS);			/* 3: u32 chunk count */
	for (i = 0; i < NCHUNKS; i++) {		/* 7: the chunks */
		put_piece(&b, alg, plain + pos, chunk_sizes[i]);
		pos += chunk_sizes[i];
	}
	put(&b, "\xdd", 1);			/* 1 byte after it */
	src.fd = write_tmp(&b);
	src.file_size = b.len;
	snprintf(what, sizeof(what), "chunks %s %s", alg, be ? "BE" : "LE");
	s = tdp_stream_new(&src, TDAT_STREAM_CHUNKS, 3, b.len - 4, err, sizeof(err));
	if (!s)
		fprintf(stderr, "%s: %s\n", what, err);
	CHECK(s);
	if (s) {
		check_all_reads(s, plain, pos, what);
		test_kept(&src, s, b.len - 4, pos, what);
		tdp_stream_free(s);
	}
	/* The same bytes read with the other byte order: a nonsense count. */
	src.big_endian = !be;
	s = tdp_stream_new(&src, TDAT_STREAM_CHUNKS, 3, b.len - 4, err, sizeof(err));
	CHECK(!s && errno == EINVAL);
	CHECK(strstr(err, "offset 3") != NULL);
	close(src.fd);
	free(b.p);
	tdp_cache_free(cache);
}

/* --- a damaged chunk ------------------------------------------------------ */

static void test_corrupt(const char *alg, int damage)
{
	struct fbuf b = { 0 };
	struct tdp_cache *cache = tdp_cache_new(0);
	struct tdp_source src = { .cache = cache };
	struct tdp_stream *s;
	unsigned char buf[8192];
	char err[256] = "";
	size_t c1, clen;
	unsigned char *c;
	int round;

	src.ops = tdp_compress_find(alg);
	put32(&b, 3);				/* 0: u32 chunk count */
	put_piece(&b, alg, plain, 4096);	/* 4: chunk 0, intact */
	c1 = b.len;				/* chunk 1, damaged below */
	c = compress_with(alg, plain + 4096, 4096, &clen);
	put32(&b, (uint32_t)clen);		/* u32 compressed size */
	/* u32 uncompressed size: one more than the data holds (damage 1) */
	put32(&b, damage == 1 ? 4097 : 4096);
	put(&b, c, clen);			/* compressed bytes */
	free(c);
	if (damage == 0)			/* garbage instead of a frame */
		memset(b.p + c1 + 8, 0xff, clen);
	put_piece(&b, alg, plain + 8192, 4096);	/* chunk 2, intact */
	src.fd = write_tmp(&b);
	src.file_size = b.len;
	s = tdp_stream_new(&src, TDAT_STREAM_CHUNKS, 0, b.len, err, sizeof(err));
	CHECK(s);	/* headers are fine: damage shows only on reading */
	if (!s)
		goto out;
	for (round = 0; round < 2; round++) {	/* a failure is not cached */
		CHECK(tdp_stream_read(s, buf, 4096, 0) == 4096);
		CHECK(!memcmp(buf, plain, 4096));
		CHECK(tdp_stream_read(s, buf, 1, 4096) == -EIO);
		CHECK(tdp_stream_read(s, buf, 10, 4090) == -EIO);
		CHECK(tdp_stream_read(s, buf, 8192, 0) == -EIO);
		/* chunk 2 starts where chunk 1's stated size ends */
		CHECK(tdp_stream_read(s, buf, 8192, damage == 1 ? 8193 : 8192)
		      == 4096);
		CHECK(!memcmp(buf, plain + 8192, 4096));
	}
	tdp_stream_free(s);
out:
	close(src.fd);
	free(b.p);
	tdp_cache_free(cache);
}

/* --- lying headers ------------------------------------------------------ */

struct lie {
	const char *name;
	enum tdp_stream_kind kind;
	bool be;
	unsigned char bytes[40];
	size_t len;		/* file size */
	uint64_t offset;	/* stream offset */
	uint64_t stored;	/* stored size */
	const char *want;	/* substring the message must hold */
	const char *want2;
};

static const struct lie lies[] = {
	{ "csize past the end", TDAT_STREAM_CHUNKS, false, {
		0, 0, 0, 0,		/* 0: 4 bytes before the stream */
		1, 0, 0, 0,		/* 4: u32 count = 1 */
		0xff, 0xff, 0xff, 0xff,	/* 8: u32 csize = 4294967295 */
		10, 0, 0, 0,		/* 12: u32 usize = 10 */
		1, 2, 3, 4,		/* 16: 4 bytes of data */
	  }, 20, 4, 16, "compressed size 4294967295", "header at offset 8" },
	{ "csize past the stored range", TDAT_STREAM_CHUNKS, false, {
		1, 0, 0, 0,		/* 0: u32 count = 1 */
		5, 0, 0, 0,		/* 4: u32 csize = 5 */
		10, 0, 0, 0,		/* 8: u32 usize = 10 */
		1, 2, 3, 4, 5,		/* 12: 5 bytes, only 4 in the range */
	  }, 17, 0, 16, "compressed size 5", "header at offset 4" },
	{ "usize above the chunk limit", TDAT_STREAM_CHUNKS, true, {
		0, 0, 0, 2,		/* 0: u32 count = 2 (big endian) */
		0, 0, 0, 1,		/* 4: chunk 0: u32 csize = 1 */
		0, 0, 0, 1,		/* 8: u32 usize = 1 */
		0x55,			/* 12: 1 byte of data */
		0, 0, 0, 1,		/* 13: chunk 1: u32 csize = 1 */
		0x04, 0, 0, 1,		/* 17: u32 usize = 64 MiB + 1 */
		0x55,			/* 21: 1 byte of data */
	  }, 22, 0, 22, "chunk 1 ", "header at offset 13" },
	{ "count too large", TDAT_STREAM_CHUNKS, false, {
		0, 0, 0, 0,		/* 0: 4 bytes before the stream */
		0, 0, 0, 0x10,		/* 4: u32 count = 268435456 */
		1, 0, 0, 0,		/* 8: u32 csize = 1 */
		1, 0, 0, 0,		/* 12: u32 usize = 1 */
		0x55,			/* 16: 1 byte of data */
	  }, 17, 4, 13, "count 268435456", "offset 4" },
	{ "truncated table", TDAT_STREAM_CHUNKS, false, {
		2, 0, 0, 0,		/* 0: u32 count = 2 */
		1, 0, 0, 0,		/* 4: chunk 0: u32 csize = 1 */
		1, 0, 0, 0,		/* 8: u32 usize = 1 */
		0x55,			/* 12: 1 byte of data */
		1, 0, 0, 0,		/* 13: chunk 1: u32 csize = 1 */
		1, 0, 0,		/* 17: 3 of the 4 bytes of usize */
	  }, 20, 0, 20, "chunk 1 ", "header at offset 13" },
	{ "no room for the count", TDAT_STREAM_CHUNKS, false, {
		0, 0, 0,		/* 0: 3 bytes, the count needs 4 */
	  }, 3, 0, 3, "offset 0", NULL },
	{ "block usize above the limit", TDAT_STREAM_BLOCK, false, {
		0, 0,			/* 0: 2 bytes before the block */
		1, 0, 0, 0,		/* 2: u32 csize = 1 */
		1, 0, 0, 0x40,		/* 6: u32 usize = 1 GiB + 1 */
		0x55,			/* 10: 1 byte of data */
	  }, 11, 2, 9, "uncompressed size 1073741825", "header at offset 2" },
	{ "block csize past the end", TDAT_STREAM_BLOCK, true, {
		0, 0, 0, 2,		/* 0: u32 csize = 2 (big endian) */
		0, 0, 0, 1,		/* 4: u32 usize = 1 */
		0x55,			/* 8: 1 byte of data, 2 announced */
	  }, 9, 0, 9, "compressed size 2", "header at offset 0" },
	{ "block header cut short", TDAT_STREAM_BLOCK, false, {
		1, 0, 0, 0,		/* 0: u32 csize = 1 */
		1, 0,			/* 4: half of the usize */
	  }, 6, 0, 6, "header at offset 0", NULL },
	{ "stored size past the file", TDAT_STREAM_CHUNKS, false, {
		0, 0, 0, 0,		/* 0: u32 count = 0 */
	  }, 4, 0, 5, "offset 0", "size 4" },
};

static void test_lies(void)
{
	struct tdp_cache *cache = tdp_cache_new(0);
	struct tdp_source src = { .cache = cache, .ops = &tdp_compress_zstd };
	struct tdp_stream *s;
	struct fbuf b;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		const struct lie *l = &lies[i];

		b = (struct fbuf){ 0 };
		put(&b, l->bytes, l->len);
		src.fd = write_tmp(&b);
		src.file_size = l->len;
		src.big_endian = l->be;
		strcpy(err, "");
		errno = 0;
		s = tdp_stream_new(&src, l->kind, l->offset, l->stored, err,
				   sizeof(err));
		if (s || errno != EINVAL || !strstr(err, l->want) ||
		    (l->want2 && !strstr(err, l->want2))) {
			fprintf(stderr, "lie \"%s\": stream %p errno %d message \"%s\"\n",
				l->name, (void *)s, errno, err);
			failures++;
		}
		tdp_stream_free(s);
		close(src.fd);
		free(b.p);
	}

	/* A valid empty chunk stream: count 0, size 0. */
	b = (struct fbuf){ 0 };
	put(&b, "\0\0\0\0", 4);		/* 0: u32 count = 0 */
	src.fd = write_tmp(&b);
	src.file_size = 4;
	s = tdp_stream_new(&src, TDAT_STREAM_CHUNKS, 0, 4, err, sizeof(err));
	CHECK(s && tdp_stream_size(s) == 0);
	if (s) {
		unsigned char x;

		CHECK(tdp_stream_read(s, &x, 1, 0) == 0);
	}
	tdp_stream_free(s);
	/* A compressed layout needs a decompressor. */
	src.ops = NULL;
	s = tdp_stream_new(&src, TDAT_STREAM_CHUNKS, 0, 4, err, sizeof(err));
	CHECK(!s && errno == EINVAL);
	close(src.fd);
	free(b.p);
	tdp_cache_free(cache);
}

/* --- the decompressors themselves --------------------------------------- */

static void test_compress(void)
{
	unsigned char out[200];
	unsigned char *c;
	size_t clen;

	CHECK(tdp_compress_find("zlib") == &tdp_compress_zlib);
	CHECK(tdp_compress_find("zstd") == &tdp_compress_zstd);
	CHECK(tdp_compress_find("none") == NULL);
	CHECK(tdp_compress_find("ZLIB") == NULL);
	CHECK(tdp_compress_find("zlib ") == NULL);
	CHECK(tdp_compress_find(NULL) == NULL);
	CHECK(tdp_compress_zlib.supported("1.2.13") == 0);
	CHECK(tdp_compress_zlib.supported("0.9") == 0);
	CHECK(tdp_compress_zlib.supported("99.0.1") < 0);
	CHECK(tdp_compress_zstd.supported("1.5.5") == 0);
	CHECK(tdp_compress_zstd.supported("99.0") == 0);

	c = compress_with("zlib", plain, 200, &clen);
	CHECK(tdp_compress_zlib.decompress(c, clen, out, 200) == 0);
	CHECK(!memcmp(out, plain, 200));
	CHECK(tdp_compress_zlib.decompress(c, clen, out, 199) == -EIO);
	CHECK(tdp_compress_zlib.decompress(c, clen - 1, out, 200) == -EIO);
	free(c);
	c = compress_with("zstd", plain, 200, &clen);
	CHECK(tdp_compress_zstd.decompress(c, clen, out, 200) == 0);
	CHECK(!memcmp(out, plain, 200));
	CHECK(tdp_compress_zstd.decompress(c, clen, out, 199) == -EIO);
	CHECK(tdp_compress_zstd.decompress(c, clen - 1, out, 200) == -EIO);
	free(c);
	/* Raw deflate is not zlib-wrapped data: refused. */
	CHECK(tdp_compress_zlib.decompress("\x03\x00", 2, out, 0) == -EIO);
}

int main(void)
{
	static const char *algs[] = { "zlib", "zstd" };
	int i;

	make_plain();
	test_compress();
	test_raw();
	for (i = 0; i < 2; i++) {
		test_block(algs[i], false, 0);
		test_block(algs[i], false, 40000);
		test_block(algs[i], true, 0);
		test_block(algs[i], true, 40000);
		test_chunks(algs[i], false);
		test_chunks(algs[i], true);
		test_corrupt(algs[i], 0);
		test_corrupt(algs[i], 1);
	}
	test_lies();
	free(plain);
	if (failures) {
		fprintf(stderr, "test-stream: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test-stream: all checks passed\n");
	return 0;
}
