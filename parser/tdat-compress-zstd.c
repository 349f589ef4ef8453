/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-compress-zstd.c - zstd frames as trace-cmd writes them: without the
 * content size, so the caller's stated size is the only size there is.
 *
 * A decompression context is kept per thread (freed when the thread
 * exits), so concurrent readers neither share nor reallocate one per call.
 */
#include <errno.h>
#include <pthread.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "tdat-compress.h"

static pthread_key_t zstd_dctx_key;
static pthread_once_t zstd_dctx_once = PTHREAD_ONCE_INIT;
static int zstd_dctx_key_ok;

static void zstd_dctx_free(void *p)
{
	ZSTD_freeDCtx(p);
}

static void zstd_dctx_key_init(void)
{
	zstd_dctx_key_ok = !pthread_key_create(&zstd_dctx_key, zstd_dctx_free);
}

static ZSTD_DCtx *zstd_dctx(void)
{
	ZSTD_DCtx *d;

	pthread_once(&zstd_dctx_once, zstd_dctx_key_init);
	if (!zstd_dctx_key_ok)
		return NULL;
	d = pthread_getspecific(zstd_dctx_key);
	if (d)
		return d;
	d = ZSTD_createDCtx();
	if (d && pthread_setspecific(zstd_dctx_key, d)) {
		ZSTD_freeDCtx(d);
		return NULL;
	}
	return d;
}

static int zstd_supported(const char *version)
{
	(void)version;	/* trace-cmd accepts any zstd version */
	return 0;
}

static int zstd_decompress(const void *src, size_t src_len, void *dst,
			   size_t dst_len)
{
	ZSTD_DCtx *d = zstd_dctx();
	size_t ret;

	if (d) {
		ret = ZSTD_decompressDCtx(d, dst, dst_len, src, src_len);
	} else {
		/* No per-thread context: a one-shot one still works. */
		ret = ZSTD_decompress(dst, dst_len, src, src_len);
	}
	if (ZSTD_isError(ret)) {
		if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
			return -ENOMEM;
		return -EIO;
	}
	if (ret != dst_len)
		return -EIO;
	return 0;
}

const struct tdat_compress_ops tdat_compress_zstd = {
	.name = "zstd",
	.supported = zstd_supported,
	.decompress = zstd_decompress,
};
