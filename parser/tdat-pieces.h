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
 *    tdp_cache_key_space().  So no entry is above an eighth of the cache
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
 *  - Memory per decoder from its first piece until it reaches the
 *    block's end or fails (then it is freed): its state and window (zlib
 *    32 KiB; zstd the frame's, refused above 128 MiB) and 128 KiB of
 *    compressed input, charged to the cache after each piece it makes
 *    (tdp_cache_charge()), so the cache's entries make room for it.
 *    Besides the cache: per fill in progress one piece, and the window a
 *    decoder's first piece allocates until it is charged.  Never the
 *    stated uncompressed size.
 *  - No byte is served until the whole block has decoded once, cleanly
 *    (tdp_pieces_check(), run by the first read if nobody did): a block
 *    reads fully or fails with -EIO as a whole.  Data that ends before or
 *    runs past the stated size is damage; so is a zlib checksum mismatch.
 *    Once damaged, every read fails at once without decoding.
 *  - A read from inside the first piece to the block's end (a metadata
 *    blob read whole, past its size prefix) of a block over half the
 *    cache bound bypasses the pieces: a decoder of its own decodes it
 *    straight into the caller's buffer in one pass, which also verifies
 *    the block.  Such reads and checks of one block run one at a time, so
 *    N whole readers cost N passes, not restarts of a shared decoder;
 *    memory: one decoder more while it runs, never a second copy.
 *  - All functions but tdp_pieces_free() are thread-safe; two fills of
 *    one piece decompress it once (the cache's single flight).
 */
#ifndef TDAT_PIECES_H
#define TDAT_PIECES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tdat-cache.h"
#include "tdat-compress.h"

struct tdp_pieces;

struct tdp_pieces *tdp_pieces_new(int fd, const struct tdp_compress_ops *ops,
				  struct tdp_cache *cache, uint64_t data,
				  uint32_t csize, uint32_t usize);

void tdp_pieces_free(struct tdp_pieces *p);

int tdp_pieces_check(struct tdp_pieces *p);

int tdp_pieces_peek(struct tdp_pieces *p, void *buf, size_t len);

ssize_t tdp_pieces_read(struct tdp_pieces *p, void *buf, size_t len,
			uint64_t off);

uint64_t tdp_pieces_decoded(const struct tdp_pieces *p);

#endif /* TDAT_PIECES_H */
