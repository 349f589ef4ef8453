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
 *  - tdp_stream_new() checks every header it reads (block header or the
 *    whole chunk table, read without decompressing) against the stored
 *    range and the file size before any allocation sized from it; an
 *    uncompressed size above TDAT_STREAM_MAX_CHUNK (or, for a block, above
 *    TDAT_STREAM_MAX_BLOCK) is refused.
 *  - Decompressed data lives only in the shared chunk cache; a stream
 *    holds no data itself.  A chunk is one cache entry, keyed by the file
 *    offset of its header (at most TDAT_STREAM_MAX_CHUNK bytes).
 *  - A block is read in pieces of at most min(1 MiB, cache bound / 8)
 *    bytes, each its own cache entry, with resumable decoders; no byte of
 *    it is served before all of it decoded once, so a block reads whole or
 *    fails with -EIO as a whole (tdat-pieces.h has the details and costs).
 *    The one exception, tdp_stream_peek(), is for the open, which fails
 *    unless the block's check passes.
 *  - tdp_stream_read() is thread-safe; two readers wanting one chunk or
 *    piece decompress it once (the cache's single flight), and a block's
 *    decoder is used by one of them at a time.
 *  - A chunk whose stored bytes lie past the file's end now (the file
 *    shrank after open) fails with -ESTALE and is not marked damaged, so
 *    it reads again once the bytes are back.
 *  - A chunked stream can be made from a chunk table an index kept of the
 *    same file instead of its headers (tdp_stream_new_kept()): the table
 *    is checked against the stored range as read headers are, and every
 *    chunk decompressed has its header read with its data and compared
 *    with the table, whichever way the table was made.
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

enum tdp_stream_kind {
	TDAT_STREAM_RAW,
	TDAT_STREAM_BLOCK,
	TDAT_STREAM_CHUNKS,
};

/**
 * struct tdp_source - the file a stream reads from; owned by the caller
 * @fd: the trace file, open O_RDONLY
 * @file_size: its size
 * @big_endian: byte order of the file
 * @ops: decompressor, NULL for an uncompressed file
 * @cache: the chunk cache
 */
struct tdp_source {
	int fd;
	uint64_t file_size;
	bool big_endian;
	const struct tdp_compress_ops *ops;
	struct tdp_cache *cache;
};

struct tdp_stream;

struct tdp_stream *tdp_stream_new(const struct tdp_source *src,
				  enum tdp_stream_kind kind, uint64_t offset,
				  uint64_t stored_size, char *err, size_t errlen);

void tdp_stream_free(struct tdp_stream *s);

uint64_t tdp_stream_size(const struct tdp_stream *s);

/**
 * struct tdp_stream_damage - where a stream's data is damaged
 * @chunk: index of the chunk (0 for a block)
 * @hdr: file offset of the chunk's 8-byte header
 * @stored: bytes it occupies in the file (header included), as far as
 *	known; for a damaged chunk table, the bytes left in the stream
 * @start: first damaged byte in the uncompressed stream
 * @length: damaged bytes in the uncompressed stream
 * @table: true when the chunk table itself is damaged here (the stream's
 *	tail), false for a chunk whose header is sound but whose data does
 *	not decompress
 * @first: set by a read that found this chunk damaged for the first time
 *	(exactly one read per damaged chunk sees it set)
 */
struct tdp_stream_damage {
	uint32_t chunk;
	uint64_t hdr;
	uint64_t stored;
	uint64_t start;
	uint64_t length;
	bool table;
	bool first;
};

struct tdp_stream *tdp_stream_new_tolerant(const struct tdp_source *src,
					   uint64_t offset, uint64_t stored_size,
					   uint32_t tail,
					   struct tdp_stream_damage *damage,
					   char *err, size_t errlen);

struct tdp_stream *tdp_stream_new_kept(const struct tdp_source *src,
				       uint64_t offset, uint64_t stored_size,
				       const uint32_t *sizes, uint32_t n,
				       char *err, size_t errlen);

int tdp_stream_chunk_count(const struct tdp_stream *s, uint32_t *n);
void tdp_stream_chunk_sizes(const struct tdp_stream *s, void *out);

ssize_t tdp_stream_read_partial(struct tdp_stream *s, void *buf, size_t len,
				uint64_t off, struct tdp_stream_damage *damage,
				bool *hit);

int tdp_stream_locate(const struct tdp_stream *s, uint64_t off,
		      struct tdp_stream_damage *where);

int tdp_stream_check(struct tdp_stream *s);

int tdp_stream_peek(struct tdp_stream *s, void *buf, size_t len);

uint64_t tdp_stream_decoded(const struct tdp_stream *s);

ssize_t tdp_stream_read(struct tdp_stream *s, void *buf, size_t len, uint64_t off);

#endif /* TDAT_STREAM_H */
