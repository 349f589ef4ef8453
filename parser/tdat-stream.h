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
 *  - Decompressed data lives only in the shared chunk cache; a stream
 *    holds no data itself.  A chunk is one cache entry, keyed by the file
 *    offset of its header (at most TDAT_STREAM_MAX_CHUNK bytes).
 *  - A block is read in pieces of at most min(1 MiB, cache bound / 8)
 *    bytes, each its own cache entry, with resumable decoders; no byte of
 *    it is served before all of it decoded once, so a block reads whole or
 *    fails with -EIO as a whole (tdat-pieces.h has the details and costs).
 *  - tdat_stream_read() is thread-safe; two readers wanting one chunk or
 *    piece decompress it once (the cache's single flight), and a block's
 *    decoder is used by one of them at a time.
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
 * struct tdat_stream_damage - where a stream's data is damaged
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
struct tdat_stream_damage {
	uint32_t chunk;
	uint64_t hdr;
	uint64_t stored;
	uint64_t start;
	uint64_t length;
	bool table;
	bool first;
};

/**
 * tdat_stream_new_tolerant() - describe a chunked stream, keeping what is
 * readable of a damaged chunk table
 * @src: the file
 * @offset: file offset of the u32 chunk count
 * @stored_size: bytes the stream occupies in the file
 * @tail: uncompressed bytes to show as damaged after the last good chunk
 *	when the table is damaged (a page size); 0 shows none
 * @damage: set when the table is damaged (@damage->table true); its
 *	@length is 0 when no table damage was found
 * @err: on damage or failure, a message naming what is wrong and where
 * @errlen: size of @err
 *
 * Like tdat_stream_new() for TDAT_STREAM_CHUNKS, except that a chunk count
 * that does not fit, or a chunk header that does not fit the stream or
 * claims too much, ends the table there instead of failing: the chunks
 * before it are served and the next @tail bytes read as damaged (-EIO).
 *
 * Return: a new stream (free with tdat_stream_free()), or NULL with errno
 * set (EINVAL when the stored range is outside the file, ENOMEM, or the
 * errno of a failed read).
 */
struct tdat_stream *tdat_stream_new_tolerant(const struct tdat_source *src,
					     uint64_t offset, uint64_t stored_size,
					     uint32_t tail,
					     struct tdat_stream_damage *damage,
					     char *err, size_t errlen);

/**
 * tdat_stream_read_partial() - read uncompressed bytes up to any damage
 * @s: stream
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the uncompressed stream
 * @damage: set when the read stopped at damaged data (may be NULL)
 * @hit: set to true when it stopped at damaged data, else false
 *
 * Return: bytes read before the end or the first damaged byte (short when
 * it stopped there); -EIO when @off itself is damaged (@hit set), or
 * another negative errno.
 * Context: may block while another thread decompresses the same chunk.
 */
ssize_t tdat_stream_read_partial(struct tdat_stream *s, void *buf, size_t len,
				 uint64_t off, struct tdat_stream_damage *damage,
				 bool *hit);

/**
 * tdat_stream_locate() - where the byte at @off of the stream is stored
 * @s: stream
 * @off: offset in the uncompressed stream, below its size
 * @where: @hdr set to the file offset of the byte (RAW) or of its chunk's
 *	header, @stored to the chunk's stored size (0 for RAW), @chunk,
 *	@start and @length to the chunk's index and range (RAW: 0, 0, size)
 *
 * Return: 0, or -ERANGE when @off is not inside the stream.
 */
int tdat_stream_locate(const struct tdat_stream *s, uint64_t off,
		       struct tdat_stream_damage *where);

/**
 * tdat_stream_check() - decompress a whole BLOCK stream once, in pieces
 * @s: stream
 *
 * Does what the first read of a block would do first; later reads then
 * serve pieces without it.  RAW and CHUNKS streams return 0 at once
 * (their chunks are checked one by one as they are read).
 *
 * Return: 0, -EIO when the block is damaged, or another negative errno.
 * Context: may block while another thread checks or reads @s.
 */
int tdat_stream_check(struct tdat_stream *s);

/**
 * tdat_stream_decoded() - Return: the bytes a BLOCK stream's decoder has
 * produced so far (skipped and re-decoded ones included), 0 for other
 * layouts; for tests and diagnostics
 */
uint64_t tdat_stream_decoded(const struct tdat_stream *s);

/**
 * tdat_stream_read() - read uncompressed bytes
 * @s: stream
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the uncompressed stream
 *
 * Return: bytes read (short only at the end, 0 at or past the end), -EIO
 * when a chunk in the range (or the block) does not decompress, or another
 * negative errno.
 * Context: may block while another thread decompresses the same chunk,
 * piece or block.
 */
ssize_t tdat_stream_read(struct tdat_stream *s, void *buf, size_t len, uint64_t off);

#endif /* TDAT_STREAM_H */
