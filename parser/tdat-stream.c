/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-stream.c - raw, single-block and chunked streams of a trace file.
 *
 * Both compressed layouts keep a table of { header offset, sizes,
 * uncompressed start }: a BLOCK stream has one entry, the block.  A chunk
 * is decompressed whole into one cache entry keyed by its header offset;
 * a block is read in pieces by tdat-pieces.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-pieces.h"
#include "tdat-stream.h"
#include "tdat-util.h"

#define CHUNK_HDR_SIZE	8u	/* u32 compressed size, u32 uncompressed size */
#define COUNT_SIZE	4u	/* u32 chunk count */

enum chunk_state {
	CHUNK_UNKNOWN,		/* not read yet, or read fine */
	CHUNK_BAD,		/* its data did not decompress: fail fast */
	CHUNK_TABLE,		/* the damaged tail of a broken chunk table */
};

struct stream_chunk {
	uint64_t hdr;		/* file offset of its 8-byte header */
	uint64_t start;		/* offset in the uncompressed stream */
	uint32_t csize;
	uint32_t usize;
	uint8_t state;		/* enum chunk_state; atomic once published */
};

struct tdp_stream {
	struct tdp_source src;	/* a copy; the fd and cache stay the caller's */
	enum tdp_stream_kind kind;
	uint64_t offset;
	uint64_t stored_size;
	uint64_t size;		/* uncompressed */
	uint32_t nchunks;
	struct stream_chunk *chunks;
	uint64_t tail_stored;	/* file bytes behind a CHUNK_TABLE tail */
	struct tdp_pieces *pieces;	/* BLOCK only: its decoding */
};

/* What a cache fill needs to produce one chunk. */
struct chunk_fill {
	struct tdp_cache *cache;
	int fd;
	const struct tdp_compress_ops *ops;
	bool big_endian;
	uint64_t hdr;
	uint32_t csize;
	uint32_t usize;
};

static void __attribute__((format(printf, 3, 4)))
set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint32_t get32(const struct tdp_source *src, const unsigned char *p)
{
	return tdp_get32(src->big_endian, p);
}

/* -EIO when the file ends early (it was checked against its size, so it shrank). */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	return tdp_pread_full(fd, buf, len, off, NULL);
}

/* Whether the file ends before @end now: it shrank since it was checked. */
static bool file_ends_before(int fd, uint64_t end)
{
	struct stat st;

	return !fstat(fd, &st) && (uint64_t)st.st_size < end;
}

/*
 * A CPU's chunk headers read through a window: its chunks are often a
 * few KB apart (big.dat: 3,442 of them, 5.8 KB apart on average), and a
 * pread of each 8-byte header cost more than the bytes in between.  Used
 * only while the last chunk was under a quarter of the window; a failed
 * window read falls back to the header's own read and its error.
 */
#define HDR_WIN_SIZE	((size_t)64 << 10)

struct hdr_win {
	unsigned char *buf;	/* HDR_WIN_SIZE bytes, or NULL: none */
	uint64_t off;
	size_t len;
	uint32_t last_csize;
};

static int hdr_get(int fd, struct hdr_win *w, unsigned char *b, uint64_t hdr,
		   uint64_t end)
{
	size_t n;

	if (w && w->buf && hdr >= w->off && hdr - w->off <= w->len &&
	    w->len - (hdr - w->off) >= CHUNK_HDR_SIZE) {
		memcpy(b, w->buf + (hdr - w->off), CHUNK_HDR_SIZE);
		return 0;
	}
	if (w && w->buf && w->last_csize < HDR_WIN_SIZE / 4) {
		n = end - hdr < HDR_WIN_SIZE ? (size_t)(end - hdr) : HDR_WIN_SIZE;
		if (!pread_full(fd, w->buf, n, hdr)) {
			w->off = hdr;
			w->len = n;
			memcpy(b, w->buf, CHUNK_HDR_SIZE);
			return 0;
		}
		w->len = 0;
	}
	return pread_full(fd, b, CHUNK_HDR_SIZE, hdr);
}

/*
 * Check chunk @idx's header fields in @ch (at @ch->hdr) against @end and
 * @max: those read from the file, or those an index kept of it.
 */
static int check_chunk_hdr(const struct tdp_stream *s, uint32_t idx,
			   uint64_t end, uint32_t max,
			   const struct stream_chunk *ch, char *err,
			   size_t errlen)
{
	const char *what = s->kind == TDAT_STREAM_BLOCK ? "block" : "chunk";

	if (ch->csize > end - ch->hdr - CHUNK_HDR_SIZE) {
		set_err(err, errlen,
			"%s %" PRIu32 " of the stream at offset %" PRIu64
			": compressed size %" PRIu32 " does not fit the file (header at offset %" PRIu64 ")",
			what, idx, s->offset, ch->csize, ch->hdr);
		return -EINVAL;
	}
	if (ch->usize > max) {
		set_err(err, errlen,
			"%s %" PRIu32 " of the stream at offset %" PRIu64
			": uncompressed size %" PRIu32 " is above the limit %" PRIu32 " (header at offset %" PRIu64 ")",
			what, idx, s->offset, ch->usize, max, ch->hdr);
		return -EINVAL;
	}
	return 0;
}

/* Whether a header at @hdr fits before @end; else @err says so. */
static bool hdr_fits(const struct tdp_stream *s, uint32_t idx, uint64_t hdr,
		     uint64_t end, char *err, size_t errlen)
{
	if (end - hdr >= CHUNK_HDR_SIZE)
		return true;
	set_err(err, errlen,
		"%s %" PRIu32 " of the stream at offset %" PRIu64
		": header at offset %" PRIu64 " runs past the stream's end at offset %" PRIu64,
		s->kind == TDAT_STREAM_BLOCK ? "block" : "chunk", idx, s->offset,
		hdr, end);
	return false;
}

/*
 * Read the 8-byte header of one chunk at @hdr (through @w when not NULL)
 * and check it against @end.
 */
static int read_chunk_hdr(const struct tdp_stream *s, uint32_t idx,
			  uint64_t hdr, uint64_t end, uint32_t max,
			  struct hdr_win *w, struct stream_chunk *ch, char *err,
			  size_t errlen)
{
	const char *what = s->kind == TDAT_STREAM_BLOCK ? "block" : "chunk";
	unsigned char b[CHUNK_HDR_SIZE];
	int ret;

	if (!hdr_fits(s, idx, hdr, end, err, errlen))
		return -EINVAL;
	ret = hdr_get(s->src.fd, w, b, hdr, end);
	if (ret) {
		set_err(err, errlen,
			"%s %" PRIu32 " of the stream at offset %" PRIu64
			": cannot read its header at offset %" PRIu64 ": %s",
			what, idx, s->offset, hdr, strerror(-ret));
		return ret == -EIO ? -EINVAL : ret;
	}
	ch->hdr = hdr;
	ch->csize = get32(&s->src, b);
	ch->usize = get32(&s->src, b + 4);
	if (w)
		w->last_csize = ch->csize;
	return check_chunk_hdr(s, idx, end, max, ch, err, errlen);
}

/*
 * The chunk table from @kept (@n pairs of compressed and uncompressed
 * sizes, as tdp_stream_chunk_sizes() gave them for this same file): laid
 * out and checked as the headers read would be, without reading them.
 */
static int stream_init_kept(struct tdp_stream *s, const uint32_t *kept,
			    uint32_t n, char *err, size_t errlen)
{
	uint64_t end = s->offset + s->stored_size, pos, total = 0;
	uint32_t i;
	int ret;

	if (s->stored_size < COUNT_SIZE ||
	    (uint64_t)n * CHUNK_HDR_SIZE > s->stored_size - COUNT_SIZE) {
		set_err(err, errlen,
			"chunk stream at offset %" PRIu64 ": a kept table of %" PRIu32
			" chunks does not fit its stored size %" PRIu64,
			s->offset, n, s->stored_size);
		return -EINVAL;
	}
	s->chunks = calloc((size_t)n + 1, sizeof(*s->chunks));
	if (!s->chunks)
		return -ENOMEM;
	pos = s->offset + COUNT_SIZE;
	for (i = 0; i < n; i++) {
		struct stream_chunk *ch = &s->chunks[i];

		if (!hdr_fits(s, i, pos, end, err, errlen))
			return -EINVAL;
		ch->hdr = pos;
		ch->csize = kept[2 * (size_t)i];
		ch->usize = kept[2 * (size_t)i + 1];
		ret = check_chunk_hdr(s, i, end, TDAT_STREAM_MAX_CHUNK, ch, err, errlen);
		if (ret)
			return ret;
		ch->start = total;
		total += ch->usize;
		pos += CHUNK_HDR_SIZE + ch->csize;
	}
	s->nchunks = n;
	s->size = total;
	return 0;
}

static int stream_init_block(struct tdp_stream *s, char *err, size_t errlen)
{
	const struct stream_chunk *ch;
	uint64_t end = s->offset + s->stored_size;
	int ret;

	s->chunks = calloc(1, sizeof(*s->chunks));
	if (!s->chunks)
		return -ENOMEM;
	s->nchunks = 1;
	ch = &s->chunks[0];
	ret = read_chunk_hdr(s, 0, s->offset, end, TDAT_STREAM_MAX_BLOCK, NULL,
			     &s->chunks[0], err, errlen);
	if (ret)
		return ret;
	s->size = ch->usize;
	s->pieces = tdp_pieces_new(s->src.fd, s->src.ops, s->src.cache,
				   ch->hdr + CHUNK_HDR_SIZE, ch->csize, ch->usize);
	if (!s->pieces) {
		ret = errno ? -errno : -ENOMEM;
		if (ret == -EOVERFLOW)
			set_err(err, errlen, "block at offset %" PRIu64 ": too many streams for one cache",
				s->offset);
		return ret;
	}
	return 0;
}

/*
 * Read the chunk table.  In @tolerant mode a count or header that does not
 * fit ends the table: the chunks before it stay, and a CHUNK_TABLE
 * pseudo-chunk of @tail_size bytes (may be 0) stands for the rest; @err
 * then holds the reason and *@broken is set.
 */
static int stream_init_chunks(struct tdp_stream *s, bool tolerant,
			      uint32_t tail_size, bool *broken, char *err,
			      size_t errlen)
{
	uint64_t end = s->offset + s->stored_size, pos, total = 0;
	struct hdr_win win = { 0 };
	unsigned char b[COUNT_SIZE];
	uint32_t count, i;
	int ret;

	*broken = false;
	pos = s->offset + COUNT_SIZE;
	if (s->stored_size < COUNT_SIZE) {
		set_err(err, errlen,
			"chunk stream at offset %" PRIu64 ": stored size %" PRIu64
			" is too small for its chunk count",
			s->offset, s->stored_size);
		if (!tolerant)
			return -EINVAL;
		count = 0;
		pos = s->offset;
		*broken = true;
		goto table;
	}
	ret = pread_full(s->src.fd, b, sizeof(b), s->offset);
	if (ret) {
		set_err(err, errlen,
			"chunk stream at offset %" PRIu64 ": cannot read its chunk count: %s",
			s->offset, strerror(-ret));
		return ret == -EIO ? -EINVAL : ret;
	}
	count = get32(&s->src, b);
	/* Each chunk needs at least its header: this bounds the table. */
	if ((uint64_t)count * CHUNK_HDR_SIZE > s->stored_size - COUNT_SIZE) {
		set_err(err, errlen,
			"chunk stream at offset %" PRIu64 ": chunk count %" PRIu32
			" does not fit its stored size %" PRIu64,
			s->offset, count, s->stored_size);
		if (!tolerant)
			return -EINVAL;
		/* Keep the headers that do fit; the first bad one ends it. */
		count = (uint32_t)((s->stored_size - COUNT_SIZE) / CHUNK_HDR_SIZE);
		*broken = true;
	}
table:
	/* One spare slot for the damaged tail in tolerant mode. */
	s->chunks = calloc((size_t)count + 1, sizeof(*s->chunks));
	if (!s->chunks)
		return -ENOMEM;
	/* Without memory for the window, one read per header. */
	win.buf = count > 1 ? malloc(HDR_WIN_SIZE) : NULL;
	for (i = 0; i < count; i++) {
		ret = read_chunk_hdr(s, i, pos, end, TDAT_STREAM_MAX_CHUNK, &win,
				     &s->chunks[i], err, errlen);
		if (ret && (!tolerant || ret != -EINVAL)) {
			free(win.buf);
			return ret;
		}
		if (ret) {
			*broken = true;
			break;
		}
		s->chunks[i].start = total;
		total += s->chunks[i].usize;
		pos += CHUNK_HDR_SIZE + s->chunks[i].csize;
	}
	free(win.buf);
	s->nchunks = i;
	if (*broken) {
		struct stream_chunk *t = &s->chunks[i];

		t->hdr = pos;
		t->start = total;
		t->usize = tail_size;
		t->state = CHUNK_TABLE;
		s->tail_stored = end - pos;
		s->nchunks++;
		total += tail_size;
	}
	s->size = total;
	return 0;
}

/* A table kept of a chunked stream (tdp_stream_new_kept()). */
struct kept_table {
	const uint32_t *sizes;
	uint32_t n;
};

static struct tdp_stream *stream_new(const struct tdp_source *src,
				     enum tdp_stream_kind kind, uint64_t offset,
				     uint64_t stored_size, bool tolerant,
				     uint32_t tail, const struct kept_table *kept,
				     bool *broken, char *err, size_t errlen)
{
	struct tdp_stream *s;
	int ret = -EINVAL;

	*broken = false;
	if (offset > src->file_size || stored_size > src->file_size - offset) {
		set_err(err, errlen,
			"stream at offset %" PRIu64 ": stored size %" PRIu64
			" runs past the end of the file (size %" PRIu64 ")",
			offset, stored_size, src->file_size);
		errno = EINVAL;
		return NULL;
	}
	if (kind != TDAT_STREAM_RAW && (!src->ops || !src->cache)) {
		set_err(err, errlen,
			"compressed stream at offset %" PRIu64 " in a file without a decompressor",
			offset);
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		set_err(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->src = *src;
	s->kind = kind;
	s->offset = offset;
	s->stored_size = stored_size;
	switch (kind) {
	case TDAT_STREAM_RAW:
		s->size = stored_size;
		ret = 0;
		break;
	case TDAT_STREAM_BLOCK:
		ret = stream_init_block(s, err, errlen);
		break;
	case TDAT_STREAM_CHUNKS:
		ret = kept ? stream_init_kept(s, kept->sizes, kept->n, err, errlen) :
		      stream_init_chunks(s, tolerant, tail, broken, err, errlen);
		break;
	default:
		set_err(err, errlen, "stream at offset %" PRIu64 ": unknown layout %d",
			offset, (int)kind);
		break;
	}
	if (ret) {
		if (ret == -ENOMEM || ret == -EAGAIN)
			set_err(err, errlen, "out of memory");
		tdp_stream_free(s);
		errno = -ret;
		return NULL;
	}
	return s;
}

/**
 * tdp_stream_new() - describe a stream stored at @offset
 * @src: the file; copied, but its fd and cache must outlive the stream
 * @kind: layout
 * @offset: file offset of the stream's first byte (of the block or chunk
 *	count header when compressed)
 * @stored_size: bytes it occupies in the file
 * @err: on failure, a message naming what is wrong and the offset; may be
 *	NULL
 * @errlen: size of @err
 *
 * For BLOCK and CHUNKS the headers are read and checked here, nothing is
 * decompressed.  Bytes after the last chunk, inside @stored_size, are
 * ignored.
 *
 * Return: a new stream (free with tdp_stream_free()), or NULL with errno
 * set (EINVAL for a damaged header or a compressed stream without a
 * decompressor, ENOMEM, or the errno of a failed read).
 */
struct tdp_stream *tdp_stream_new(const struct tdp_source *src,
				  enum tdp_stream_kind kind, uint64_t offset,
				  uint64_t stored_size, char *err, size_t errlen)
{
	bool broken;

	return stream_new(src, kind, offset, stored_size, false, 0, NULL,
			  &broken, err, errlen);
}

/**
 * tdp_stream_new_tolerant() - describe a chunked stream, keeping what is
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
 * Like tdp_stream_new() for TDAT_STREAM_CHUNKS, except that a chunk count
 * that does not fit, or a chunk header that does not fit the stream or
 * claims too much, ends the table there instead of failing: the chunks
 * before it are served and the next @tail bytes read as damaged (-EIO).
 *
 * Return: a new stream (free with tdp_stream_free()), or NULL with errno
 * set (EINVAL when the stored range is outside the file, ENOMEM, or the
 * errno of a failed read).
 */
struct tdp_stream *tdp_stream_new_tolerant(const struct tdp_source *src,
					   uint64_t offset, uint64_t stored_size,
					   uint32_t tail,
					   struct tdp_stream_damage *damage,
					   char *err, size_t errlen)
{
	struct tdp_stream *s;
	bool broken;

	memset(damage, 0, sizeof(*damage));
	s = stream_new(src, TDAT_STREAM_CHUNKS, offset, stored_size, true, tail,
		       NULL, &broken, err, errlen);
	if (s && broken) {
		const struct stream_chunk *t = &s->chunks[s->nchunks - 1];

		damage->chunk = s->nchunks - 1;
		damage->hdr = t->hdr;
		damage->stored = s->tail_stored;
		damage->start = t->start;
		damage->length = t->usize;
		damage->table = true;
	}
	return s;
}

/**
 * tdp_stream_new_kept() - describe a chunked stream from a chunk table
 * kept of it, without reading its headers
 * @src: the file
 * @offset: file offset of the u32 chunk count
 * @stored_size: bytes the stream occupies in the file
 * @sizes: @n pairs { compressed size, uncompressed size }, in file order,
 *	as tdp_stream_chunk_sizes() gave them for this same file
 * @n: chunks
 * @err: on failure, a message naming what is wrong and where
 * @errlen: size of @err
 *
 * The caller vouches that the table is this file's (an index whose
 * identity matched); it is checked against the stored range as headers
 * read from the file are, and each header is compared with the file's
 * when its chunk is decompressed (chunk_fill()), so a table that is not
 * the file's shows as damage, never as other bytes.
 *
 * Return: a new stream (free with tdp_stream_free()), or NULL with errno
 * set (EINVAL for a table that does not fit the stored range, ENOMEM).
 */
struct tdp_stream *tdp_stream_new_kept(const struct tdp_source *src,
				       uint64_t offset, uint64_t stored_size,
				       const uint32_t *sizes, uint32_t n,
				       char *err, size_t errlen)
{
	const struct kept_table kept = { .sizes = sizes, .n = n };
	bool broken;

	return stream_new(src, TDAT_STREAM_CHUNKS, offset, stored_size, false, 0,
			  &kept, &broken, err, errlen);
}

/**
 * tdp_stream_chunk_count() - how many chunks a stream's table has, to keep
 * @s: stream
 * @n: set to the count
 *
 * Return: 0, or -ENODATA when @s is not chunked or its table is damaged
 * (there is nothing sound to keep).
 */
int tdp_stream_chunk_count(const struct tdp_stream *s, uint32_t *n)
{
	if (s->kind != TDAT_STREAM_CHUNKS ||
	    (s->nchunks && __atomic_load_n(&s->chunks[s->nchunks - 1].state,
					   __ATOMIC_RELAXED) == CHUNK_TABLE))
		return -ENODATA;
	*n = s->nchunks;
	return 0;
}

/**
 * tdp_stream_chunk_sizes() - a chunked stream's table, to keep
 * @s: stream that tdp_stream_chunk_count() found sound
 * @out: room for the count's pairs { compressed size, uncompressed size },
 *	each a native-endian uint32_t; any alignment
 */
void tdp_stream_chunk_sizes(const struct tdp_stream *s, void *out)
{
	unsigned char *p = out;

	for (uint32_t i = 0; i < s->nchunks; i++) {
		memcpy(p, &s->chunks[i].csize, sizeof(uint32_t));
		memcpy(p + sizeof(uint32_t), &s->chunks[i].usize, sizeof(uint32_t));
		p += 2 * sizeof(uint32_t);
	}
}

/**
 * tdp_stream_free() - free a stream
 * @s: stream, or NULL
 *
 * Cached chunks stay in the cache (they belong to it).
 */
void tdp_stream_free(struct tdp_stream *s)
{
	if (!s)
		return;
	tdp_pieces_free(s->pieces);
	free(s->chunks);
	free(s);
}

/**
 * tdp_stream_size() - uncompressed size of a stream
 * @s: stream
 *
 * Return: the size in bytes.
 */
uint64_t tdp_stream_size(const struct tdp_stream *s)
{
	return s->size;
}

/*
 * Decompress one chunk.  Its header is read again with its data and must
 * say what the table says: a table kept by an index is checked here.
 */
static int chunk_fill(void *ctx, uint64_t key, void **data, size_t *size)
{
	const struct chunk_fill *cf = ctx;
	size_t inlen = CHUNK_HDR_SIZE + (size_t)cf->csize;
	unsigned char *in;
	void *out;
	int ret;

	(void)key;
	in = malloc(inlen);
	out = tdp_cache_alloc(cf->cache, cf->usize);
	if (!in || !out) {
		free(in);
		free(out);
		return -ENOMEM;
	}
	ret = pread_full(cf->fd, in, inlen, cf->hdr);
	if (ret == -EIO && file_ends_before(cf->fd, cf->hdr + inlen))
		ret = -ESTALE;	/* not damage: the chunk is good again once restored */
	if (!ret && (tdp_get32(cf->big_endian, in) != cf->csize ||
		     tdp_get32(cf->big_endian, in + 4) != cf->usize))
		ret = -EIO;
	if (!ret)
		ret = cf->ops->decompress(in + CHUNK_HDR_SIZE, cf->csize, out, cf->usize);
	free(in);
	if (ret) {
		free(out);
		return ret;
	}
	*data = out;
	*size = cf->usize;
	return 0;
}

static void chunk_fill_init(const struct tdp_stream *s,
			    const struct stream_chunk *ch, struct chunk_fill *cf)
{
	memset(cf, 0, sizeof(*cf));
	cf->cache = s->src.cache;
	cf->fd = s->src.fd;
	cf->ops = s->src.ops;
	cf->big_endian = s->src.big_endian;
	cf->hdr = ch->hdr;
	cf->csize = ch->csize;
	cf->usize = ch->usize;
}

/* The chunk holding @off, which is below s->size: the last one starting at or before it. */
static uint32_t chunk_find(const struct tdp_stream *s, uint64_t off)
{
	uint32_t lo = 0, hi = s->nchunks - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (s->chunks[mid].start <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void damage_of(const struct tdp_stream *s, uint32_t i,
		      struct tdp_stream_damage *d)
{
	const struct stream_chunk *ch = &s->chunks[i];

	if (!d)
		return;
	d->chunk = i;
	d->hdr = ch->hdr;
	d->first = false;
	d->start = ch->start;
	d->length = ch->usize;
	d->table = __atomic_load_n(&ch->state, __ATOMIC_RELAXED) == CHUNK_TABLE;
	d->stored = d->table ? s->tail_stored : CHUNK_HDR_SIZE + (uint64_t)ch->csize;
}

/**
 * tdp_stream_locate() - where the byte at @off of the stream is stored
 * @s: stream
 * @off: offset in the uncompressed stream, below its size
 * @where: @hdr set to the file offset of the byte (RAW) or of its chunk's
 *	header, @stored to the chunk's stored size (0 for RAW), @chunk,
 *	@start and @length to the chunk's index and range (RAW: 0, 0, size)
 *
 * Return: 0, or -ERANGE when @off is not inside the stream.
 */
int tdp_stream_locate(const struct tdp_stream *s, uint64_t off,
		      struct tdp_stream_damage *where)
{
	if (off >= s->size)
		return -ERANGE;
	memset(where, 0, sizeof(*where));
	if (s->kind == TDAT_STREAM_RAW) {
		where->hdr = s->offset + off;
		where->length = s->size;
		return 0;
	}
	damage_of(s, chunk_find(s, off), where);
	return 0;
}

/*
 * Record that chunk @i (0 for a block) is damaged: set *@hit and @damage,
 * whose @first only the read that found it first sees set.
 */
static void mark_bad(struct tdp_stream *s, uint32_t i,
		     struct tdp_stream_damage *damage, bool *hit)
{
	uint8_t unknown = CHUNK_UNKNOWN;
	bool first;

	first = __atomic_compare_exchange_n(&s->chunks[i].state, &unknown,
					    CHUNK_BAD, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	damage_of(s, i, damage);
	if (damage)
		damage->first = first;
	*hit = true;
}

static ssize_t stream_read_block(struct tdp_stream *s, unsigned char *buf,
				 size_t len, uint64_t off,
				 struct tdp_stream_damage *damage, bool *hit)
{
	ssize_t n = -EIO;

	/* A block known bad fails at once: no decompression per read. */
	if (__atomic_load_n(&s->chunks[0].state, __ATOMIC_RELAXED) == CHUNK_UNKNOWN)
		n = tdp_pieces_read(s->pieces, buf, len, off);
	if (n == -EIO)
		mark_bad(s, 0, damage, hit);
	return n;
}

static ssize_t stream_read_chunks(struct tdp_stream *s, unsigned char *buf,
				  size_t len, uint64_t off,
				  struct tdp_stream_damage *damage, bool *hit)
{
	const struct stream_chunk *ch;
	struct tdp_cache_entry *e;
	struct chunk_fill cf;
	uint32_t i = chunk_find(s, off);
	size_t done = 0, n;
	uint64_t in;
	int ret;

	while (done < len && i < s->nchunks) {
		ch = &s->chunks[i];
		if (!ch->usize) {
			i++;
			continue;
		}
		ret = -EIO;
		e = NULL;
		/* A chunk known bad fails at once: no decompression per read. */
		if (__atomic_load_n(&ch->state, __ATOMIC_RELAXED) == CHUNK_UNKNOWN) {
			chunk_fill_init(s, ch, &cf);
			ret = tdp_cache_get(s->src.cache, ch->hdr, chunk_fill,
					    &cf, &e);
		}
		/* The cache serves what fill made: re-check, keys are shared. */
		if (!ret && tdp_cache_entry_size(e) != ch->usize) {
			tdp_cache_put(s->src.cache, e);
			ret = -EIO;
		}
		if (ret == -EIO)
			mark_bad(s, i, damage, hit);
		if (ret)
			return done ? (ssize_t)done : ret;
		in = off + done - ch->start;
		n = ch->usize - in;
		if (n > len - done)
			n = len - done;
		memcpy(buf + done, (const unsigned char *)tdp_cache_entry_data(e) + in, n);
		/*
		 * A read at least a chunk long that ends this chunk is a bulk
		 * sequential reader (a raw file through the page cache, which
		 * keeps the bytes): drop the chunk behind it.  Page-sized
		 * reads (text decoding) keep plain LRU.
		 */
		if (in + n == ch->usize && len >= ch->usize)
			tdp_cache_put_done(s->src.cache, e);
		else
			tdp_cache_put(s->src.cache, e);
		done += n;
		i++;
	}
	return (ssize_t)done;
}

/**
 * tdp_stream_read_partial() - read uncompressed bytes up to any damage
 * @s: stream
 * @buf: destination
 * @len: bytes wanted; at most SSIZE_MAX are read
 * @off: offset in the uncompressed stream
 * @damage: set to the damaged chunk when the read stopped at one; may be
 *	NULL
 * @hit: set to true when the read stopped at damaged data
 *
 * Return: bytes read up to the end or up to the first damaged byte; -EIO
 * when @off itself is damaged (@hit set); another negative errno.
 * Context: may block while another thread decompresses the same chunk.
 */
ssize_t tdp_stream_read_partial(struct tdp_stream *s, void *buf, size_t len,
				uint64_t off, struct tdp_stream_damage *damage,
				bool *hit)
{
	int ret;

	*hit = false;
	if (off >= s->size || !len)
		return 0;
	if (len > s->size - off)
		len = (size_t)(s->size - off);
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	if (s->kind == TDAT_STREAM_BLOCK)
		return stream_read_block(s, buf, len, off, damage, hit);
	if (s->kind == TDAT_STREAM_CHUNKS)
		return stream_read_chunks(s, buf, len, off, damage, hit);
	ret = pread_full(s->src.fd, buf, len, s->offset + off);
	return ret ? ret : (ssize_t)len;
}

/**
 * tdp_stream_read() - read uncompressed bytes
 * @s: stream
 * @buf: destination
 * @len: bytes wanted; at most SSIZE_MAX are read
 * @off: offset in the uncompressed stream
 *
 * Return: bytes read (short only at the end, 0 at or past the end), -EIO
 * when a chunk in the range does not decompress (or the file shrank), or
 * another negative errno.
 * Context: may block while another thread decompresses the same chunk.
 */
ssize_t tdp_stream_read(struct tdp_stream *s, void *buf, size_t len, uint64_t off)
{
	bool hit;
	ssize_t n = tdp_stream_read_partial(s, buf, len, off, NULL, &hit);

	/* All or nothing here: a range with damage in it fails as a whole. */
	return hit ? -EIO : n;
}

/* The block's pieces keep their own damage mark: a read still reports it first. */
/**
 * tdp_stream_check() - decompress a whole BLOCK stream once, in pieces
 * @s: stream
 *
 * Does what the first read of a block would do first; later reads then
 * serve pieces without it.  RAW and CHUNKS streams return 0 at once
 * (their chunks are checked one by one as they are read).
 *
 * Return: 0, -EIO when the block is damaged, or another negative errno.
 * Context: may block while another thread checks or reads @s.
 */
int tdp_stream_check(struct tdp_stream *s)
{
	if (s->kind != TDAT_STREAM_BLOCK)
		return 0;
	if (__atomic_load_n(&s->chunks[0].state, __ATOMIC_RELAXED) != CHUNK_UNKNOWN)
		return -EIO;
	return tdp_pieces_check(s->pieces);
}

/**
 * tdp_stream_decoded() - Return: the bytes a BLOCK stream's decoder has
 * produced so far (skipped and re-decoded ones included), 0 for other
 * layouts; for tests and diagnostics
 */
uint64_t tdp_stream_decoded(const struct tdp_stream *s)
{
	return s->kind == TDAT_STREAM_BLOCK ? tdp_pieces_decoded(s->pieces) : 0;
}

/**
 * tdp_stream_peek() - the first bytes of a BLOCK stream, before its check
 * @s: stream
 * @buf: destination
 * @len: bytes, at most the stream's size
 *
 * Only for the open, which fails unless tdp_stream_check() of @s passes
 * (see tdp_pieces_peek()).  Other layouts read as tdp_stream_read() does.
 *
 * Return: 0, -EIO when the bytes cannot be had, or another negative errno.
 */
int tdp_stream_peek(struct tdp_stream *s, void *buf, size_t len)
{
	ssize_t n;

	if (s->kind == TDAT_STREAM_BLOCK)
		return tdp_pieces_peek(s->pieces, buf, len);
	n = tdp_stream_read(s, buf, len, 0);
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EIO;
}
