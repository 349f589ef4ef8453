/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-compress-zlib.c - zlib-wrapped (RFC 1950) data, as trace-cmd writes
 * it with compress2().  Not raw deflate.
 */
#define ZLIB_CONST	/* inflate's next_in points to const input */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "tdat-compress.h"

/* Leading decimal digits as a number, 0 when there are none (as atoi()). */
static unsigned long zlib_major(const char *v)
{
	unsigned long n = 0;

	while (*v >= '0' && *v <= '9') {
		if (n > ULONG_MAX / 10 - 1)
			return ULONG_MAX;
		n = n * 10 + (unsigned long)(*v - '0');
		v++;
	}
	return n;
}

static int zlib_supported(const char *version)
{
	const char *local = zlibVersion();

	/* trace-cmd compares only the major numbers: file <= local. */
	if (!version)
		return 0;
	if (!local || zlib_major(version) > zlib_major(local))
		return -EPROTONOSUPPORT;
	return 0;
}

static int zlib_decompress(const void *src, size_t src_len, void *dst,
			   size_t dst_len)
{
	uLongf out = (uLongf)dst_len;
	int ret;

	if ((size_t)out != dst_len || (size_t)(uLong)src_len != src_len)
		return -EIO;
	ret = uncompress(dst, &out, src, (uLong)src_len);
	if (ret == Z_MEM_ERROR)
		return -ENOMEM;	/* says nothing of the data */
	if (ret != Z_OK || out != dst_len)
		return -EIO;
	return 0;
}

/* An inflate stream; @ended once it returned Z_STREAM_END. */
struct zlib_dec {
	z_stream zs;
	bool ended;
};

static void *zlib_dec_new(void)
{
	struct zlib_dec *z = calloc(1, sizeof(*z));

	if (z && inflateInit(&z->zs) != Z_OK) {
		free(z);
		return NULL;
	}
	return z;
}

static int zlib_dec_reset(void *dec)
{
	struct zlib_dec *z = dec;

	z->ended = false;
	return inflateReset(&z->zs) == Z_OK ? 0 : -ENOMEM;
}

static int zlib_dec_run(void *dec, const void *src, size_t *src_len, bool last,
			void *dst, size_t *dst_len, bool *end)
{
	struct zlib_dec *z = dec;
	/* Larger requests are served in part; the caller loops. */
	uInt in = *src_len > UINT_MAX ? UINT_MAX : (uInt)*src_len;
	uInt out = *dst_len > UINT_MAX ? UINT_MAX : (uInt)*dst_len;
	int ret;

	(void)last;	/* the stream's own end marker ends it */
	*src_len = 0;
	*dst_len = 0;
	*end = z->ended;
	if (z->ended)
		return 0;
	z->zs.next_in = src;
	z->zs.avail_in = in;
	z->zs.next_out = dst;
	z->zs.avail_out = out;
	ret = inflate(&z->zs, Z_NO_FLUSH);
	*src_len = in - z->zs.avail_in;
	*dst_len = out - z->zs.avail_out;
	switch (ret) {
	case Z_STREAM_END:
		z->ended = true;
		*end = true;
		return 0;
	case Z_OK:
	case Z_BUF_ERROR:	/* no progress possible: the caller sees it */
		return 0;
	case Z_MEM_ERROR:
		return -ENOMEM;
	default:		/* Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR */
		return -EIO;
	}
}

static void zlib_dec_free(void *dec)
{
	struct zlib_dec *z = dec;

	if (!z)
		return;
	inflateEnd(&z->zs);
	free(z);
}

/*
 * zlib does not say what it holds: its inflate state (about 7 KiB) and,
 * once a run needed it, the 32 KiB window of a default stream; both counted.
 */
static size_t zlib_dec_mem(void *dec)
{
	return sizeof(struct zlib_dec) + ((size_t)40 << 10) * !!dec;
}

const struct tdp_compress_ops tdp_compress_zlib = {
	.name = "zlib",
	.supported = zlib_supported,
	.decompress = zlib_decompress,
	.dec_new = zlib_dec_new,
	.dec_reset = zlib_dec_reset,
	.dec_run = zlib_dec_run,
	.dec_free = zlib_dec_free,
	.dec_mem = zlib_dec_mem,
};
