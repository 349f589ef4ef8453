/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-compress.h - decompressors behind one small ops struct (internal).
 *
 * Invariants:
 *  - An ops struct is stateless and shared; decompress() is reentrant and
 *    may run on several threads at once.
 *  - decompress() never writes more than @dst_len bytes and succeeds only
 *    when the input decodes to exactly @dst_len bytes: trace-cmd frames do
 *    not carry their content size, the chunk header does, and a mismatch
 *    means damaged data.
 */
#ifndef TDAT_COMPRESS_H
#define TDAT_COMPRESS_H

#include <stddef.h>

/**
 * struct tdat_compress_ops - one decompression algorithm
 * @name: name as written in the file header ("zlib", "zstd")
 * @supported: check the version string from the file header; 0 or -errno
 * @decompress: decode @src_len bytes of @src into exactly @dst_len bytes of
 *	@dst; 0, or -EIO for data that does not decode to that size
 */
struct tdat_compress_ops {
	const char *name;
	int (*supported)(const char *version);
	int (*decompress)(const void *src, size_t src_len, void *dst, size_t dst_len);
};

extern const struct tdat_compress_ops tdat_compress_zlib;
extern const struct tdat_compress_ops tdat_compress_zstd;

/**
 * tdat_compress_find() - look up a decompressor by the header's name
 * @name: compression name from the file header
 *
 * Return: the ops, or NULL for "none" and for unknown names (the caller
 * tells them apart).
 */
const struct tdat_compress_ops *tdat_compress_find(const char *name);

#endif /* TDAT_COMPRESS_H */
