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

static int zstd_err(size_t ret)
{
	if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
		return -ENOMEM;
	return -EIO;
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
	if (ZSTD_isError(ret))
		return zstd_err(ret);
	if (ret != dst_len)
		return -EIO;
	return 0;
}

/* A decoder of its own: the per-thread one is reset by every call above. */
static void *zstd_dec_new(void)
{
	return ZSTD_createDCtx();
}

static int zstd_dec_reset(void *dec)
{
	size_t ret = ZSTD_DCtx_reset(dec, ZSTD_reset_session_only);

	return ZSTD_isError(ret) ? zstd_err(ret) : 0;
}

static int zstd_dec_run(void *dec, const void *src, size_t *src_len, bool last,
			void *dst, size_t *dst_len, bool *end)
{
	ZSTD_inBuffer in = { .src = src, .size = *src_len };
	ZSTD_outBuffer out = { .dst = dst, .size = *dst_len };
	size_t ret = ZSTD_decompressStream(dec, &out, &in);

	*src_len = in.pos;
	*dst_len = out.pos;
	*end = false;
	if (ZSTD_isError(ret))
		return zstd_err(ret);
	/* 0: a frame is complete and flushed; more input starts the next. */
	*end = last && in.pos == in.size && ret == 0;
	return 0;
}

static void zstd_dec_free(void *dec)
{
	ZSTD_freeDCtx(dec);
}

static size_t zstd_dec_mem(void *dec)
{
	return ZSTD_sizeof_DStream(dec);
}

const struct tdp_compress_ops tdp_compress_zstd = {
	.name = "zstd",
	.supported = zstd_supported,
	.decompress = zstd_decompress,
	.dec_new = zstd_dec_new,
	.dec_reset = zstd_dec_reset,
	.dec_run = zstd_dec_run,
	.dec_free = zstd_dec_free,
	.dec_mem = zstd_dec_mem,
};
