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
 *  - A decoder (dec_new()) decodes one compressed stream in parts, with
 *    bounded memory: the algorithm's own state and window (zlib 32 KiB;
 *    zstd the frame's window, refused above zstd's default limit of
 *    128 MiB), never the whole output.  It belongs to one caller and is
 *    used by one thread at a time.  dec_run() says *@end once the data is
 *    complete: zlib at the end of its stream (bytes after it are ignored,
 *    as uncompress() does), zstd when the last input byte closes a frame
 *    (so trailing garbage is damage, as for decompress()).
 */
#ifndef TDAT_COMPRESS_H
#define TDAT_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct tdp_compress_ops - one decompression algorithm
 * @name: name as written in the file header ("zlib", "zstd")
 * @supported: check the version string from the file header; 0 or -errno
 * @decompress: decode @src_len bytes of @src into exactly @dst_len bytes of
 *	@dst; 0, or -EIO for data that does not decode to that size
 * @dec_new: a decoder at the start of a stream; free it with @dec_free.
 *	Return: the decoder, or NULL (out of memory)
 * @dec_reset: put @dec back at the start of a (new) stream; 0 or -ENOMEM
 * @dec_run: decode from *@src_len bytes at @src (the last ones of the
 *	input when @last) into at most *@dst_len bytes at @dst; sets
 *	*@src_len and *@dst_len to the bytes consumed and produced, and *@end
 *	when the data is complete (see above).  0, -EIO for damaged data, or
 *	-ENOMEM.  A call that uses nothing and does not end means the
 *	decoder needs input that is not there
 * @dec_free: free a decoder; NULL is fine
 * @dec_mem: the bytes @dec holds now (its state and the window its runs
 *	allocated), for the cache's charges
 */
struct tdp_compress_ops {
	const char *name;
	int (*supported)(const char *version);
	int (*decompress)(const void *src, size_t src_len, void *dst, size_t dst_len);
	void *(*dec_new)(void);
	int (*dec_reset)(void *dec);
	int (*dec_run)(void *dec, const void *src, size_t *src_len, bool last,
		       void *dst, size_t *dst_len, bool *end);
	void (*dec_free)(void *dec);
	size_t (*dec_mem)(void *dec);
};

extern const struct tdp_compress_ops tdp_compress_zlib;
extern const struct tdp_compress_ops tdp_compress_zstd;

const struct tdp_compress_ops *tdp_compress_find(const char *name);

#endif /* TDAT_COMPRESS_H */
