/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-compress-zlib.c - zlib-wrapped (RFC 1950) data, as trace-cmd writes
 * it with compress2().  Not raw deflate.
 */
#include <errno.h>
#include <limits.h>
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
	if (ret != Z_OK || out != dst_len)
		return -EIO;
	return 0;
}

const struct tdat_compress_ops tdat_compress_zlib = {
	.name = "zlib",
	.supported = zlib_supported,
	.decompress = zlib_decompress,
};
