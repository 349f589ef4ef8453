/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-stream.h - byte streams stored in a trace file (internal).
 *
 * A stream is a run of bytes of the trace file seen as its uncompressed
 * content.  Three layouts exist:
 *  - TDAT_STREAM_RAW: the bytes as stored.
 *  - TDAT_STREAM_BLOCK: a compressed metadata section, one block
 *    { u32 compressed size, u32 uncompressed size, data }.
 *  - TDAT_STREAM_CHUNKS: compressed trace data, { u32 count, count x
 *    { u32 compressed size, u32 uncompressed size, data } }.
 *
 * Invariants:
 *  - tdat_stream_new() checks every header it reads (block header or the
 *    whole chunk table, read without decompressing) against the stored
 *    range and the file size before any allocation sized from it; an
 *    uncompressed size above TDAT_STREAM_MAX_CHUNK (or, for a block, above
 *    TDAT_STREAM_MAX_BLOCK) is refused.
 *  - Decompressed chunks/blocks live only in the shared chunk cache, keyed
 *    by the file offset of their header; a stream holds no data itself.
 *  - tdat_stream_read() is thread-safe.
 *  - A stream does not own the source it reads from.
 */
#ifndef TDAT_STREAM_H
#define TDAT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tdat-cache.h"
#include "tdat-compress.h"

#define TDAT_STREAM_MAX_CHUNK	(64u << 20)	/* one trace-data chunk */
#define TDAT_STREAM_MAX_BLOCK	(1u << 30)	/* one metadata section */

enum tdat_stream_kind {
	TDAT_STREAM_RAW,
	TDAT_STREAM_BLOCK,
	TDAT_STREAM_CHUNKS,
};

/**
 * struct tdat_source - the file a stream reads from; owned by the caller
 * @fd: the trace file, open O_RDONLY
 * @file_size: its size
 * @big_endian: byte order of the file
 * @ops: decompressor, NULL for an uncompressed file
 * @cache: the chunk cache
 */
struct tdat_source {
	int fd;
	uint64_t file_size;
	bool big_endian;
	const struct tdat_compress_ops *ops;
	struct tdat_cache *cache;
};

struct tdat_stream;

/**
 * tdat_stream_new() - describe a stream stored at @offset
 * @src: the file
 * @kind: layout
 * @offset: file offset of the stream's first byte (of the block or chunk
 *	count header when compressed)
 * @stored_size: bytes it occupies in the file
 * @err: on failure, a message naming what is wrong and the offset
 * @errlen: size of @err
 *
 * Return: a new stream (free with tdat_stream_free()), or NULL with errno
 * set (EINVAL for a damaged header, ENOMEM).
 */
struct tdat_stream *tdat_stream_new(const struct tdat_source *src,
				    enum tdat_stream_kind kind, uint64_t offset,
				    uint64_t stored_size, char *err, size_t errlen);

/** tdat_stream_free() - free a stream; NULL is fine */
void tdat_stream_free(struct tdat_stream *s);

/** tdat_stream_size() - Return: uncompressed size of the stream */
uint64_t tdat_stream_size(const struct tdat_stream *s);

/**
 * tdat_stream_read() - read uncompressed bytes
 * @s: stream
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the uncompressed stream
 *
 * Return: bytes read (short only at the end, 0 at or past the end), -EIO
 * when a chunk in the range does not decompress, or another negative errno.
 * Context: may block while another thread decompresses the same chunk.
 */
ssize_t tdat_stream_read(struct tdat_stream *s, void *buf, size_t len, uint64_t off);

#endif /* TDAT_STREAM_H */
