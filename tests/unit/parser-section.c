/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parser-section.c - a compressed section (BLOCK stream) larger than the
 * cache: read in pieces, each byte decoded about once per pass, right
 * bytes for any read, damage reported and never served, many threads
 * getting the same bytes, and a whole read decoded once.
 *
 * Each fixture is one block { u32 compressed size, u32 uncompressed size,
 * data } made here with compress2() or ZSTD_compress2() (no content size
 * in the frame, as trace-cmd writes it), after a few bytes of padding.
 */
#include <errno.h>
#include <pthread.h>
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

#define PAD		5u		/* bytes before the block */
#define PLAIN_LEN	1500007u	/* not a multiple of any piece size */
#define SMALL_CACHE	((size_t)64 << 10)	/* pieces of 8 KiB */
#define SMALL_PIECE	(SMALL_CACHE / 8)

static unsigned char *plain;

/* Text-like bytes that compress, with the odd random byte. */
static void make_plain(void)
{
	static const char *words[] = { "ffffffff81000000 T _stext\n", "sched_",
		"switch ", "[kernel]", " t ", "irq_", "0123456789abcdef", "\n" };
	unsigned int seed = 11;
	size_t i = 0, n;

	plain = malloc(PLAIN_LEN);
	if (!plain)
		abort();
	while (i < PLAIN_LEN) {
		if (rand_r(&seed) % 7 == 0) {
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

static unsigned char *compress_with(const char *alg, const void *src, size_t n,
				    size_t *out_len)
{
	unsigned char *out;

	if (!strcmp(alg, "zlib")) {
		uLongf dl = compressBound(n);

		out = malloc(dl);
		if (!out || compress2(out, &dl, src, n, Z_DEFAULT_COMPRESSION) != Z_OK)
			abort();
		*out_len = dl;
		return out;
	}
	{
		size_t cap = ZSTD_compressBound(n);
		ZSTD_CCtx *cc = ZSTD_createCCtx();

		out = malloc(cap);
		if (!out || !cc)
			abort();
		ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
		*out_len = ZSTD_compress2(cc, out, cap, src, n);
		ZSTD_freeCCtx(cc);
		if (ZSTD_isError(*out_len))
			abort();
	}
	return out;
}

static void le32(unsigned char *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

/* A block file: PAD bytes, u32 csize, u32 usize, the compressed data. */
struct fixture {
	unsigned char *file;
	size_t len;		/* file size */
	size_t clen;		/* compressed bytes */
};

static void fixture_make_from(struct fixture *fx, const char *alg,
			      const unsigned char *src, size_t n)
{
	unsigned char *c = compress_with(alg, src, n, &fx->clen);

	fx->len = PAD + 8 + fx->clen;
	fx->file = calloc(1, fx->len);
	if (!fx->file)
		abort();
	le32(fx->file + PAD, (uint32_t)fx->clen);	/* u32 compressed size */
	le32(fx->file + PAD + 4, (uint32_t)n);		/* u32 uncompressed size */
	memcpy(fx->file + PAD + 8, c, fx->clen);	/* the data */
	free(c);
}

static void fixture_make(struct fixture *fx, const char *alg, size_t n)
{
	fixture_make_from(fx, alg, plain, n);
}

static int write_tmp(const unsigned char *p, size_t len)
{
	char path[] = "/tmp/test-section-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		abort();
	unlink(path);
	if (write(fd, p, len) != (ssize_t)len)
		abort();
	return fd;
}

/* An open block over @fx with its own cache of @cache_size bytes. */
struct open_block {
	struct tdp_source src;
	struct tdp_stream *s;
};

static bool block_open(struct open_block *ob, const struct fixture *fx,
		       const char *alg, size_t cache_size)
{
	char err[256] = "";

	memset(ob, 0, sizeof(*ob));
	ob->src.cache = tdp_cache_new(cache_size);
	ob->src.ops = tdp_compress_find(alg);
	ob->src.fd = write_tmp(fx->file, fx->len);
	ob->src.file_size = fx->len;
	ob->s = tdp_stream_new(&ob->src, TDAT_STREAM_BLOCK, PAD, fx->len - PAD,
			       err, sizeof(err));
	if (!ob->s)
		fprintf(stderr, "block %s: %s\n", alg, err);
	return ob->s != NULL;
}

static void block_close(struct open_block *ob)
{
	tdp_stream_free(ob->s);
	close(ob->src.fd);
	tdp_cache_free(ob->src.cache);
}

/* A fresh fixture of PLAIN_LEN bytes, open; false (a failure) when not. */
static bool fixture_open(struct fixture *fx, struct open_block *ob,
			 const char *alg, size_t cache_size)
{
	fixture_make(fx, alg, PLAIN_LEN);
	if (block_open(ob, fx, alg, cache_size))
		return true;
	failures++;
	return false;
}

/* Read [0, size) in @step-byte reads; true when every byte was right. */
static bool read_sequential(struct tdp_stream *s, size_t size, size_t step)
{
	unsigned char *buf = malloc(step);
	bool ok = true;
	size_t off;

	for (off = 0; ok && off < size; off += step) {
		size_t want = size - off < step ? size - off : step;

		ok = tdp_stream_read(s, buf, step, off) == (ssize_t)want &&
		     !memcmp(buf, plain + off, want);
	}
	free(buf);
	return ok;
}

/* --- sequential reads decode each byte about once ------------------------ */

static void test_sequential(const char *alg)
{
	struct tdp_cache_stats st;
	struct fixture fx;
	struct open_block ob;
	uint64_t d0;

	fixture_make(&fx, alg, PLAIN_LEN);
	if (!block_open(&ob, &fx, alg, SMALL_CACHE)) {
		failures++;
		goto out;
	}
	CHECK(tdp_stream_size(ob.s) == PLAIN_LEN);
	CHECK(tdp_stream_decoded(ob.s) == 0);	/* nothing at open */
	CHECK(tdp_stream_check(ob.s) == 0);
	CHECK(tdp_stream_decoded(ob.s) == PLAIN_LEN);
	CHECK(tdp_stream_check(ob.s) == 0);	/* once is enough */
	CHECK(tdp_stream_decoded(ob.s) == PLAIN_LEN);

	/* Page-sized, unaligned reads: one more pass, not one per piece. */
	d0 = tdp_stream_decoded(ob.s);
	CHECK(read_sequential(ob.s, PLAIN_LEN, 1000));
	CHECK(tdp_stream_decoded(ob.s) - d0 == PLAIN_LEN);
	/*
	 * Bulk reads of a piece each: the same, less the pieces at the end
	 * still cached from the pass before (bulk reads evict their own first).
	 */
	d0 = tdp_stream_decoded(ob.s);
	CHECK(read_sequential(ob.s, PLAIN_LEN, SMALL_PIECE));
	CHECK(tdp_stream_decoded(ob.s) - d0 <= PLAIN_LEN);
	CHECK(tdp_stream_decoded(ob.s) - d0 >= PLAIN_LEN - SMALL_CACHE);
	/* No entry above a piece, and the bound held. */
	tdp_cache_stats(ob.src.cache, &st);
	CHECK(st.bytes <= SMALL_CACHE);
	CHECK(st.misses >= 2 * (PLAIN_LEN / SMALL_PIECE));
	CHECK(st.misses <= 3 * (PLAIN_LEN / SMALL_PIECE + 1));
	block_close(&ob);

	/* Without a check first, the first read checks: two passes. */
	if (block_open(&ob, &fx, alg, SMALL_CACHE)) {
		CHECK(read_sequential(ob.s, PLAIN_LEN, 4096));
		CHECK(tdp_stream_decoded(ob.s) == 2 * (uint64_t)PLAIN_LEN);
		block_close(&ob);
	}
	/* A cache that holds it all: one pass, then hits only. */
	if (block_open(&ob, &fx, alg, 0)) {
		CHECK(read_sequential(ob.s, PLAIN_LEN, 4096));
		CHECK(read_sequential(ob.s, PLAIN_LEN, 100000));
		CHECK(tdp_stream_decoded(ob.s) == PLAIN_LEN);
		block_close(&ob);
	}
out:
	free(fx.file);
}

/*
 * Piece sizes: min(1 MiB, cache / 8), in 4 KiB units, at least 4 KiB.
 * Seen from outside: after the check, a read of byte 0 either hits (the
 * check kept every piece: the cache holds them all) or restarts the
 * decoder and decodes exactly the first piece.
 */
static void test_piece_size(void)
{
	static const struct { size_t cache, piece; } cases[] = {
		{ 1, 4096 }, { 40000, 4096 }, { 100000, 12288 },
		{ (size_t)1 << 20, (size_t)128 << 10 },
		{ (size_t)64 << 20, (size_t)1 << 20 },
	};
	struct tdp_cache_stats st;
	struct fixture fx;
	struct open_block ob;
	unsigned char b;
	uint64_t d0;
	size_t i, npieces;

	fixture_make(&fx, "zstd", PLAIN_LEN);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!block_open(&ob, &fx, "zstd", cases[i].cache)) {
			failures++;
			continue;
		}
		npieces = (PLAIN_LEN + cases[i].piece - 1) / cases[i].piece;
		CHECK(tdp_stream_check(ob.s) == 0);
		d0 = tdp_stream_decoded(ob.s);
		CHECK(tdp_stream_read(ob.s, &b, 1, 0) == 1 && b == plain[0]);
		tdp_cache_stats(ob.src.cache, &st);
		if (PLAIN_LEN <= cases[i].cache / 2) {
			CHECK(st.entries == npieces);
			CHECK(st.misses == npieces);
			CHECK(tdp_stream_decoded(ob.s) == d0);
		} else {
			CHECK(tdp_stream_decoded(ob.s) - d0 == cases[i].piece);
			CHECK(st.misses == npieces + 1);
		}
		block_close(&ob);
	}
	free(fx.file);
}

/* --- random reads --------------------------------------------------------- */

static void test_random(const char *alg)
{
	unsigned char *buf = malloc(3 * SMALL_PIECE + 1);
	struct fixture fx;
	struct open_block ob;
	unsigned int seed = 3;
	int i, bad = 0;

	fixture_make(&fx, alg, PLAIN_LEN);
	if (!buf || !block_open(&ob, &fx, alg, SMALL_CACHE)) {
		failures++;
		goto out;
	}
	for (i = 0; i < 200; i++) {
		size_t off = (size_t)rand_r(&seed) % (PLAIN_LEN + 100);
		size_t len = (size_t)rand_r(&seed) % (3 * SMALL_PIECE + 1);
		size_t want = off >= PLAIN_LEN ? 0 :
			      (len < PLAIN_LEN - off ? len : PLAIN_LEN - off);
		ssize_t n;

		/* Some reads around piece boundaries. */
		if (i % 5 == 0)
			off = (size_t)(rand_r(&seed) % (PLAIN_LEN / SMALL_PIECE)) *
			      SMALL_PIECE - (size_t)(rand_r(&seed) % 3);
		if (off > PLAIN_LEN + 100)
			off = 0;
		want = off >= PLAIN_LEN ? 0 :
		       (len < PLAIN_LEN - off ? len : PLAIN_LEN - off);
		n = tdp_stream_read(ob.s, buf, len, off);
		if (n != (ssize_t)want || (want && memcmp(buf, plain + off, want)))
			bad++;
	}
	CHECK(bad == 0);
	/* The last byte, and past the end. */
	CHECK(tdp_stream_read(ob.s, buf, 10, PLAIN_LEN - 1) == 1 &&
	      buf[0] == plain[PLAIN_LEN - 1]);
	CHECK(tdp_stream_read(ob.s, buf, 10, PLAIN_LEN) == 0);
	/* Going backwards one piece at a time: each restarts, bytes right. */
	for (i = 10; i >= 0; i--)
		CHECK(read_sequential(ob.s, (size_t)(i + 1) * SMALL_PIECE, SMALL_PIECE));
	block_close(&ob);
out:
	free(buf);
	free(fx.file);
}

/* --- damage ------------------------------------------------------------- */

enum damage {
	DMG_CUT,		/* the compressed data stops half way */
	DMG_GARBAGE,		/* bytes in the middle overwritten */
	DMG_SHORT,		/* the header states more than the data holds */
	DMG_LONG,		/* the header states less: the data runs past */
	DMG_TAIL,		/* the last bytes (zlib: checksum) changed */
	DMG_TRAILING,		/* junk after the data, inside csize */
	DMG_COUNT,
};

static const char *const damage_names[] = {
	"cut", "garbage", "short", "long", "tail", "trailing",
};

/* Damage @fx as @how says; returns false when @how does not apply. */
static bool fixture_damage(struct fixture *fx, const char *alg, enum damage how)
{
	unsigned char *data = fx->file + PAD + 8;
	size_t i;

	switch (how) {
	case DMG_CUT:
		fx->clen /= 2;
		fx->len = PAD + 8 + fx->clen;
		le32(fx->file + PAD, (uint32_t)fx->clen);
		return true;
	case DMG_GARBAGE:
		for (i = fx->clen / 2; i < fx->clen / 2 + 64; i++)
			data[i] ^= 0x5a;
		return true;
	case DMG_SHORT:
		le32(fx->file + PAD + 4, PLAIN_LEN + 1);
		return true;
	case DMG_LONG:
		le32(fx->file + PAD + 4, PLAIN_LEN - 1);
		return true;
	case DMG_TAIL:
		/* zstd without a checksum cannot see a changed literal. */
		if (strcmp(alg, "zlib"))
			return false;
		data[fx->clen - 1] ^= 0x01;
		return true;
	case DMG_TRAILING: {
		/* zlib ignores bytes after its stream, as uncompress() does. */
		unsigned char *n;

		if (strcmp(alg, "zstd"))
			return false;
		n = realloc(fx->file, fx->len + 4);
		if (!n)
			abort();
		fx->file = n;
		memcpy(fx->file + fx->len, "\x01\x02\x03\x04", 4);
		fx->len += 4;
		fx->clen += 4;
		le32(fx->file + PAD, (uint32_t)fx->clen);
		return true;
	}
	default:
		return false;
	}
}

static void test_damage(const char *alg, enum damage how)
{
	struct tdp_stream_damage d;
	unsigned char buf[4096];
	struct fixture fx;
	struct open_block ob;
	int round, firsts = 0;
	ssize_t n;
	bool hit;

	fixture_make(&fx, alg, PLAIN_LEN);
	if (!fixture_damage(&fx, alg, how))
		goto out;
	if (!block_open(&ob, &fx, alg, SMALL_CACHE)) {
		failures++;
		goto out;
	}
	for (round = 0; round < 3; round++) {
		/* No byte at all, even the first ones that decode fine. */
		n = tdp_stream_read_partial(ob.s, buf, sizeof(buf), 0, &d, &hit);
		if (n != -EIO || !hit)
			fprintf(stderr, "damage %s %s round %d: read gave %zd\n",
				alg, damage_names[how], round, n);
		CHECK(n == -EIO && hit);
		CHECK(d.chunk == 0 && d.hdr == PAD && d.start == 0);
		CHECK(d.length == tdp_stream_size(ob.s) && !d.table);
		firsts += d.first;
		CHECK(tdp_stream_read(ob.s, buf, 1, PLAIN_LEN / 2) == -EIO);
		CHECK(tdp_stream_check(ob.s) == -EIO);
	}
	CHECK(firsts == 1);
	block_close(&ob);

	/* Checked first: the check fails, then so does every read. */
	if (block_open(&ob, &fx, alg, 0)) {
		CHECK(tdp_stream_check(ob.s) == -EIO);
		CHECK(tdp_stream_read(ob.s, buf, 1, 0) == -EIO);
		block_close(&ob);
	}
out:
	free(fx.file);
}

/* --- the decoders fed a byte at a time ---------------------------------- */

static void test_decoder_bytewise(const char *alg)
{
	const struct tdp_compress_ops *ops = tdp_compress_find(alg);
	size_t clen, in = 0, out = 0, sl, dl, n = 20000;
	unsigned char *c = compress_with(alg, plain, n, &clen);
	unsigned char *got = malloc(n + 1);
	void *dec = ops->dec_new();
	bool end = false;
	int ret = 0, round;

	CHECK(dec && got);
	for (round = 0; dec && got && round < 2; round++) {
		in = out = 0;
		end = false;
		while (!ret && !end && out <= n) {
			sl = in < clen ? 1 : 0;
			dl = 1;
			ret = ops->dec_run(dec, c + in, &sl, in + sl == clen,
					   got + out, &dl, &end);
			in += sl;
			out += dl;
			if (!sl && !dl && !end)
				break;
		}
		CHECK(ret == 0 && end && out == n && in == clen);
		CHECK(!memcmp(got, plain, n));
		CHECK(ops->dec_reset(dec) == 0);	/* round 2 after a reset */
	}
	ops->dec_free(dec);
	ops->dec_free(NULL);
	free(got);
	free(c);
}

/* --- many threads on one section ---------------------------------------- */

#define NTHREADS 8

struct reader {
	struct tdp_stream *s;
	unsigned int seed;
	int bad;
};

static void *reader_run(void *arg)
{
	struct reader *r = arg;
	unsigned char *buf = malloc(2 * SMALL_PIECE);
	int i;

	if (!buf) {
		r->bad++;
		return NULL;
	}
	for (i = 0; i < 40; i++) {
		size_t off, len = 1 + (size_t)rand_r(&r->seed) % (2 * SMALL_PIECE);
		ssize_t n, want;

		/* Half the threads walk forward, half jump around. */
		if (r->seed & 1)
			off = ((size_t)i * 9973) % PLAIN_LEN;
		else
			off = (size_t)rand_r(&r->seed) % PLAIN_LEN;
		want = (ssize_t)(len < PLAIN_LEN - off ? len : PLAIN_LEN - off);
		n = tdp_stream_read(r->s, buf, len, off);
		if (n != want || memcmp(buf, plain + off, (size_t)want))
			r->bad++;
	}
	free(buf);
	return NULL;
}

static void test_threads(const char *alg, size_t cache_size)
{
	struct reader rd[NTHREADS];
	pthread_t th[NTHREADS];
	struct fixture fx;
	struct open_block ob;
	int i, bad = 0;

	fixture_make(&fx, alg, PLAIN_LEN);
	/* Fresh: the threads also race to be the one that checks. */
	if (!block_open(&ob, &fx, alg, cache_size)) {
		failures++;
		goto out;
	}
	for (i = 0; i < NTHREADS; i++) {
		rd[i] = (struct reader){ .s = ob.s, .seed = (unsigned int)i * 77 + 1 };
		if (pthread_create(&th[i], NULL, reader_run, &rd[i]))
			abort();
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		bad += rd[i].bad;
	}
	CHECK(bad == 0);
	block_close(&ob);
out:
	free(fx.file);
}

/* Run @fn on @n threads, the i-th given @args + i * @stride, and join them. */
static void run_threads(void *(*fn)(void *), void *args, size_t stride, int n)
{
	pthread_t th[NTHREADS];
	int i;

	if (n > NTHREADS)
		abort();
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn, (char *)args + (size_t)i * stride))
			abort();
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

/*
 * A read of all of the block but a size prefix, as a metadata blob is
 * read whole (kallsyms past its 4 bytes), from a block over half the
 * cache: one pass straight into the buffer, the check included; four
 * such readers at once a pass each, where they used to take the block's
 * one decoder from each other and restart it from the start.  A damaged
 * block gives -EIO and nothing else, as a read through the pieces does.
 */
#define WHOLE_READERS	4
#define WHOLE_PREFIX	4u

struct whole_reader {
	struct tdp_stream *s;
	int bad;
};

static void *whole_reader_run(void *arg)
{
	struct whole_reader *r = arg;
	size_t len = PLAIN_LEN - WHOLE_PREFIX;
	unsigned char *buf = malloc(len);

	if (!buf || tdp_stream_read(r->s, buf, len, WHOLE_PREFIX) != (ssize_t)len ||
	    memcmp(buf, plain + WHOLE_PREFIX, len))
		r->bad++;
	free(buf);
	return NULL;
}

static void test_whole(const char *alg)
{
	struct whole_reader rd[WHOLE_READERS];
	struct fixture fx;
	struct open_block ob;
	uint64_t d0;
	int i, bad = 0;

	if (!fixture_open(&fx, &ob, alg, SMALL_CACHE))
		goto out;
	rd[0] = (struct whole_reader){ .s = ob.s };
	whole_reader_run(&rd[0]);
	CHECK(rd[0].bad == 0);
	CHECK(tdp_stream_decoded(ob.s) == PLAIN_LEN);	/* check and read */
	CHECK(tdp_stream_check(ob.s) == 0);		/* verified by it */
	CHECK(tdp_stream_decoded(ob.s) == PLAIN_LEN);
	d0 = tdp_stream_decoded(ob.s);
	for (i = 0; i < WHOLE_READERS; i++)
		rd[i] = (struct whole_reader){ .s = ob.s };
	run_threads(whole_reader_run, rd, sizeof(rd[0]), WHOLE_READERS);
	for (i = 0; i < WHOLE_READERS; i++)
		bad += rd[i].bad;
	CHECK(bad == 0);
	CHECK(tdp_stream_decoded(ob.s) - d0 == WHOLE_READERS * (uint64_t)PLAIN_LEN);
	/* Reads through the pieces still serve, without another check. */
	d0 = tdp_stream_decoded(ob.s);
	CHECK(read_sequential(ob.s, PLAIN_LEN, 4096));
	CHECK(tdp_stream_decoded(ob.s) - d0 == PLAIN_LEN);
	block_close(&ob);

	/* Damaged: the whole read fails, and every read after it. */
	if (fixture_damage(&fx, alg, DMG_GARBAGE) &&
	    block_open(&ob, &fx, alg, SMALL_CACHE)) {
		rd[0] = (struct whole_reader){ .s = ob.s };
		whole_reader_run(&rd[0]);
		CHECK(rd[0].bad == 1);
		CHECK(tdp_stream_read(ob.s, fx.file, 1, 0) == -EIO);
		CHECK(tdp_stream_check(ob.s) == -EIO);
		block_close(&ob);
	}
out:
	free(fx.file);
}

/*
 * Threads each reading the whole block in order from a different start.
 * With a decoder per reader (a cache of 16 MiB per decoder) each keeps its
 * own: all of it costs the check, a pass per reader and the way to each
 * start (3.5 times the size for two), not a restart per piece.
 */
struct far_reader {
	struct tdp_stream *s;
	const unsigned char *want;
	size_t size, start;
	int bad;
};

static void *far_reader_run(void *arg)
{
	struct far_reader *r = arg;
	unsigned char buf[16384];
	size_t i, off, want;

	for (i = 0; i < r->size; i += sizeof(buf)) {
		off = (r->start + i) % r->size;
		want = r->size - off < sizeof(buf) ? r->size - off : sizeof(buf);
		if (tdp_stream_read(r->s, buf, sizeof(buf), off) != (ssize_t)want ||
		    memcmp(buf, r->want + off, want))
			r->bad++;
	}
	return NULL;
}

static void test_far_readers(const char *alg, const unsigned char *src,
			     size_t size, size_t cache_size, int nreaders,
			     uint64_t bound)
{
	struct far_reader rd[4];
	pthread_t th[4];
	struct fixture fx;
	struct open_block ob;
	int i, bad = 0;

	fixture_make_from(&fx, alg, src, size);
	if (!block_open(&ob, &fx, alg, cache_size)) {
		failures++;
		goto out;
	}
	CHECK(tdp_stream_check(ob.s) == 0);
	for (i = 0; i < nreaders; i++) {
		rd[i] = (struct far_reader){ .s = ob.s, .want = src, .size = size,
			.start = size / (size_t)nreaders * (size_t)i };
		if (pthread_create(&th[i], NULL, far_reader_run, &rd[i]))
			abort();
	}
	for (i = 0; i < nreaders; i++) {
		pthread_join(th[i], NULL);
		bad += rd[i].bad;
	}
	CHECK(bad == 0);
	if (bound && tdp_stream_decoded(ob.s) > bound) {
		fprintf(stderr, "far readers %s: decoded %llu bytes, bound %llu\n", alg,
			(unsigned long long)tdp_stream_decoded(ob.s),
			(unsigned long long)bound);
		failures++;
	}
	block_close(&ob);
out:
	free(fx.file);
}

/* Two readers far apart in a 40 MiB section, with a cache of 32 MiB. */
static void test_far_readers_big(void)
{
	size_t size = (size_t)40 << 20, i;
	unsigned char *big = malloc(size);

	if (!big)
		abort();
	/* plain again and again, each copy a little different */
	for (i = 0; i < size; i++)
		big[i] = plain[i % PLAIN_LEN] ^ (unsigned char)(i / PLAIN_LEN);
	test_far_readers("zstd", big, size, (size_t)32 << 20, 2,
			 (uint64_t)size * 9 / 2);
	free(big);
}

/* Threads wanting one missing piece at once: one decodes it, once. */
struct same_piece {
	struct tdp_stream *s;
	pthread_barrier_t *go;
	int bad;
};

static void *same_piece_run(void *arg)
{
	struct same_piece *r = arg;
	unsigned char buf[100];

	pthread_barrier_wait(r->go);
	if (tdp_stream_read(r->s, buf, sizeof(buf), 10) != sizeof(buf) ||
	    memcmp(buf, plain + 10, sizeof(buf)))
		r->bad++;
	return NULL;
}

static void test_single_flight(const char *alg)
{
	struct same_piece rd[NTHREADS];
	struct tdp_cache_stats a, b;
	pthread_barrier_t go;
	struct fixture fx;
	struct open_block ob;
	uint64_t d0;
	int i, bad = 0;

	if (!fixture_open(&fx, &ob, alg, SMALL_CACHE))
		goto out;
	/* Checked, and piece 0 long gone from the cache. */
	CHECK(tdp_stream_check(ob.s) == 0);
	tdp_cache_stats(ob.src.cache, &a);
	d0 = tdp_stream_decoded(ob.s);
	pthread_barrier_init(&go, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		rd[i] = (struct same_piece){ .s = ob.s, .go = &go };
	run_threads(same_piece_run, rd, sizeof(rd[0]), NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		bad += rd[i].bad;
	pthread_barrier_destroy(&go);
	tdp_cache_stats(ob.src.cache, &b);
	CHECK(bad == 0);
	CHECK(b.misses - a.misses == 1);
	CHECK(tdp_stream_decoded(ob.s) - d0 == SMALL_PIECE);
	block_close(&ob);
out:
	free(fx.file);
}

int main(void)
{
	static const char *algs[] = { "zlib", "zstd" };
	int i, d;

	make_plain();
	test_piece_size();
	for (i = 0; i < 2; i++) {
		test_decoder_bytewise(algs[i]);
		test_sequential(algs[i]);
		test_random(algs[i]);
		for (d = 0; d < DMG_COUNT; d++)
			test_damage(algs[i], (enum damage)d);
		test_threads(algs[i], SMALL_CACHE);
		test_whole(algs[i]);
		test_single_flight(algs[i]);
		/* One decoder for four readers: right bytes, at some cost. */
		test_far_readers(algs[i], plain, PLAIN_LEN, SMALL_CACHE, 4, 0);
		test_threads(algs[i], (size_t)1 << 20);
	}
	test_far_readers_big();
	free(plain);
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("section: all checks passed\n");
	return 0;
}
