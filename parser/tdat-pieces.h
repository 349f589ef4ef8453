/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-pieces.h - one compressed block (a metadata section) read in
 * bounded pieces through the chunk cache (internal; tdat-stream.c uses it
 * for TDAT_STREAM_BLOCK).
 *
 * Invariants:
 *  - The block is cut into pieces of P = min(1 MiB, cache bound / 8)
 *    bytes, rounded down to 4 KiB and at least 4 KiB; the last piece may
 *    be shorter.  Piece k is one cache entry under key B + k, B from
 *    tdat_cache_key_space().  So no entry is above an eighth of the cache
 *    (or 4 KiB), and a block larger than the cache is never held whole.
 *  - Pieces come from resumable decoders: one per 16 MiB of cache bound,
 *    1 to 4 per block, as each holds a window (a small cache keeps them
 *    few).  A decoder stands where the last piece it made ends; a fill
 *    continues the one standing closest before its piece (decoding and
 *    dropping the pieces in between), waiting for a busy one that will
 *    stand there, and lets a fill for a piece on the way go first.  A
 *    piece more than 8 pieces after every decoder takes a free decoder if
 *    there is one, so readers far apart keep their own.  A piece behind
 *    every decoder restarts one at the block's start: a random read costs
 *    up to its offset in decoding, a sequential pass each byte once.
 *  - Memory besides the cache, per decoder from its first piece until it
 *    reaches the block's end or fails (then it is freed): its state and
 *    window (zlib 32 KiB; zstd the frame's, refused above 128 MiB) and
 *    128 KiB of compressed input; per fill in progress one piece.  Never
 *    the stated uncompressed size.
 *  - No byte is served until the whole block has decoded once, cleanly
 *    (tdat_pieces_check(), run by the first read if nobody did): a block
 *    reads fully or fails with -EIO as a whole.  Data that ends before or
 *    runs past the stated size is damage; so is a zlib checksum mismatch.
 *    Once damaged, every read fails at once without decoding.
 *  - All functions but tdat_pieces_free() are thread-safe; two fills of
 *    one piece decompress it once (the cache's single flight).
 */
#ifndef TDAT_PIECES_H
#define TDAT_PIECES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tdat-cache.h"
#include "tdat-compress.h"

struct tdat_pieces;

/**
 * tdat_pieces_new() - describe a compressed block; nothing is read yet
 * @fd: the trace file (not owned; must outlive the block)
 * @ops: its decompressor
 * @cache: the chunk cache (not owned; must outlive the block)
 * @data: file offset of the compressed bytes
 * @csize: compressed bytes (checked by the caller against the file)
 * @usize: stated uncompressed size (checked by the caller against a limit)
 *
 * Return: the block (free with tdat_pieces_free()), or NULL with errno
 * set (ENOMEM, EOVERFLOW when the cache has no key range left, or the
 * error of a mutex or condition variable creation).
 */
struct tdat_pieces *tdat_pieces_new(int fd, const struct tdat_compress_ops *ops,
				    struct tdat_cache *cache, uint64_t data,
				    uint32_t csize, uint32_t usize);

/**
 * tdat_pieces_free() - free a block; NULL is fine
 * @p: block
 *
 * Its cached pieces stay in the cache (they belong to it).
 * Context: no other thread may use @p.
 */
void tdat_pieces_free(struct tdat_pieces *p);

/**
 * tdat_pieces_check() - decode the whole block once, if not done yet
 * @p: block
 *
 * Return: 0, -EIO when the block is damaged, or another negative errno
 * (-ENOMEM, the errno of a failed read of the file).
 * Context: may block while another thread checks or reads @p.
 */
int tdat_pieces_check(struct tdat_pieces *p);

/**
 * tdat_pieces_read() - copy uncompressed bytes
 * @p: block
 * @buf: destination
 * @len: bytes wanted, with @off + @len at most the stated size
 * @off: offset in the uncompressed block
 *
 * Return: @len, or a negative errno (-EIO when the block is damaged);
 * bytes copied before a failure do not count.
 * Context: may block while another thread decodes a piece of @p.
 */
ssize_t tdat_pieces_read(struct tdat_pieces *p, void *buf, size_t len,
			 uint64_t off);

/**
 * tdat_pieces_decoded() - Return: the bytes the block's decoders have made
 * so far, dropped ones (skipped or decoded again) included; for tests and
 * diagnostics
 */
uint64_t tdat_pieces_decoded(const struct tdat_pieces *p);

#endif /* TDAT_PIECES_H */
