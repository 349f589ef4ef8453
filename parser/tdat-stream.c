/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-stream.c - raw, single-block and chunked streams of a trace file.
 *
 * Both compressed layouts keep a table of { header offset, sizes,
 * uncompressed start }: a BLOCK stream has one entry, the block.  A chunk
 * is decompressed whole into one cache entry keyed by its header offset.
 * A block is cut into pieces, each its own cache entry keyed in a range
 * the stream reserved; the pieces come from one resumable decoder per
 * stream (struct block_dec), so a reader going forward continues where
 * the last piece ended.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#define PIECE_MIN	((uint32_t)4 << 10)
#define PIECE_MAX	((uint32_t)1 << 20)
#define PIECE_SHARE	8u	/* a piece is at most 1/8 of the cache */
#define DEC_IN_SIZE	((size_t)128 << 10)	/* compressed bytes read at once */

/*
 * The resumable decoder of a BLOCK stream, under @lock.  While @dec is
 * set it stands at the start of piece @next, having taken @in_pos
 * compressed bytes from the file, of which @in[@in_off .. @in_len) are not
 * consumed yet.  It is dropped at the end of the block and on any error.
 */
struct block_dec {
	pthread_mutex_t lock;
	void *dec;
	uint32_t next;
	bool end;		/* the decoder said the data is complete */
	uint64_t in_pos;
	unsigned char *in;	/* DEC_IN_SIZE bytes */
	size_t in_len, in_off;
	uint64_t decoded;	/* bytes produced in all, for tdat_stream_decoded() */
};

struct tdat_stream {
	struct tdat_source src;	/* a copy; the fd and cache stay the caller's */
	enum tdat_stream_kind kind;
	uint64_t offset;
	uint64_t stored_size;
	uint64_t size;		/* uncompressed */
	uint32_t nchunks;
	struct stream_chunk *chunks;
	uint64_t tail_stored;	/* file bytes behind a CHUNK_TABLE tail */
	/* BLOCK only */
	uint64_t key_base;	/* piece k is cached under key_base + k */
	uint32_t piece;		/* bytes per piece, the last one may be shorter */
	uint32_t npieces;
	bool locks;		/* the two mutexes are initialised */
	uint8_t verified;	/* atomic: the whole block decoded once, cleanly */
	pthread_mutex_t check_lock;	/* one checking pass at a time */
	struct block_dec bd;
};

/* What a cache fill needs to produce one chunk. */
struct chunk_fill {
	struct tdat_cache *cache;
	int fd;
	const struct tdat_compress_ops *ops;
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

static uint32_t get32(const struct tdat_source *src, const unsigned char *p)
{
	return tdp_get32(src->big_endian, p);
}

/* -EIO when the file ends early (it was checked against its size, so it shrank). */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	return tdp_pread_full(fd, buf, len, off, NULL);
}

/* Read the 8-byte header of one chunk at @hdr and check it against @end. */
static int read_chunk_hdr(const struct tdat_stream *s, uint32_t idx,
			  uint64_t hdr, uint64_t end, uint32_t max,
			  struct stream_chunk *ch, char *err, size_t errlen)
{
	const char *what = s->kind == TDAT_STREAM_BLOCK ? "block" : "chunk";
	unsigned char b[CHUNK_HDR_SIZE];
	int ret;

	if (end - hdr < CHUNK_HDR_SIZE) {
		set_err(err, errlen,
			"%s %" PRIu32 " of the stream at offset %" PRIu64
			": header at offset %" PRIu64 " runs past the stream's end at offset %" PRIu64,
			what, idx, s->offset, hdr, end);
		return -EINVAL;
	}
	ret = pread_full(s->src.fd, b, sizeof(b), hdr);
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
	if (ch->csize > end - hdr - CHUNK_HDR_SIZE) {
		set_err(err, errlen,
			"%s %" PRIu32 " of the stream at offset %" PRIu64
			": compressed size %" PRIu32 " does not fit the file (header at offset %" PRIu64 ")",
			what, idx, s->offset, ch->csize, hdr);
		return -EINVAL;
	}
	if (ch->usize > max) {
		set_err(err, errlen,
			"%s %" PRIu32 " of the stream at offset %" PRIu64
			": uncompressed size %" PRIu32 " is above the limit %" PRIu32 " (header at offset %" PRIu64 ")",
			what, idx, s->offset, ch->usize, max, hdr);
		return -EINVAL;
	}
	return 0;
}

/* The piece size for a cache of @max bytes (see tdat-stream.h). */
static uint32_t piece_size(size_t max)
{
	size_t p = max / PIECE_SHARE;

	if (p > PIECE_MAX)
		p = PIECE_MAX;
	p -= p % PIECE_MIN;
	return p < PIECE_MIN ? PIECE_MIN : (uint32_t)p;
}

static int stream_init_block(struct tdat_stream *s, char *err, size_t errlen)
{
	uint64_t end = s->offset + s->stored_size;
	int ret;

	s->chunks = calloc(1, sizeof(*s->chunks));
	if (!s->chunks)
		return -ENOMEM;
	s->nchunks = 1;
	ret = read_chunk_hdr(s, 0, s->offset, end, TDAT_STREAM_MAX_BLOCK,
			     &s->chunks[0], err, errlen);
	if (ret)
		return ret;
	s->size = s->chunks[0].usize;
	s->piece = piece_size(tdat_cache_max_bytes(s->src.cache));
	s->npieces = (uint32_t)((s->size + s->piece - 1) / s->piece);
	/* An empty block is never decompressed, as an empty chunk is not. */
	s->verified = !s->npieces;
	s->key_base = tdat_cache_key_space(s->src.cache);
	if (!s->key_base) {
		set_err(err, errlen, "block at offset %" PRIu64 ": too many streams for one cache",
			s->offset);
		return -EOVERFLOW;
	}
	ret = pthread_mutex_init(&s->check_lock, NULL);
	if (ret)
		return -ret;
	ret = pthread_mutex_init(&s->bd.lock, NULL);
	if (ret) {
		pthread_mutex_destroy(&s->check_lock);
		return -ret;
	}
	s->locks = true;
	return 0;
}

/*
 * Read the chunk table.  In @tolerant mode a count or header that does not
 * fit ends the table: the chunks before it stay, and a CHUNK_TABLE
 * pseudo-chunk of @tail_size bytes (may be 0) stands for the rest; @err
 * then holds the reason and *@broken is set.
 */
static int stream_init_chunks(struct tdat_stream *s, bool tolerant,
			      uint32_t tail_size, bool *broken, char *err,
			      size_t errlen)
{
	uint64_t end = s->offset + s->stored_size, pos, total = 0;
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
	for (i = 0; i < count; i++) {
		ret = read_chunk_hdr(s, i, pos, end, TDAT_STREAM_MAX_CHUNK,
				     &s->chunks[i], err, errlen);
		if (ret && (!tolerant || ret != -EINVAL))
			return ret;
		if (ret) {
			*broken = true;
			break;
		}
		s->chunks[i].start = total;
		total += s->chunks[i].usize;
		pos += CHUNK_HDR_SIZE + s->chunks[i].csize;
	}
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

static struct tdat_stream *stream_new(const struct tdat_source *src,
				      enum tdat_stream_kind kind, uint64_t offset,
				      uint64_t stored_size, bool tolerant,
				      uint32_t tail, bool *broken, char *err,
				      size_t errlen)
{
	struct tdat_stream *s;
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
		ret = stream_init_chunks(s, tolerant, tail, broken, err, errlen);
		break;
	default:
		set_err(err, errlen, "stream at offset %" PRIu64 ": unknown layout %d",
			offset, (int)kind);
		break;
	}
	if (ret) {
		if (ret == -ENOMEM || ret == -EAGAIN)
			set_err(err, errlen, "out of memory");
		tdat_stream_free(s);
		errno = -ret;
		return NULL;
	}
	return s;
}

/**
 * tdat_stream_new() - describe a stream stored at @offset
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
 * Return: a new stream (free with tdat_stream_free()), or NULL with errno
 * set (EINVAL for a damaged header or a compressed stream without a
 * decompressor, ENOMEM, or the errno of a failed read).
 */
struct tdat_stream *tdat_stream_new(const struct tdat_source *src,
				    enum tdat_stream_kind kind, uint64_t offset,
				    uint64_t stored_size, char *err, size_t errlen)
{
	bool broken;

	return stream_new(src, kind, offset, stored_size, false, 0, &broken,
			  err, errlen);
}

/**
 * tdat_stream_new_tolerant() - describe a chunked stream, keeping what is
 * readable of a damaged chunk table
 * @src: the file; copied, but its fd and cache must outlive the stream
 * @offset: file offset of the u32 chunk count
 * @stored_size: bytes the stream occupies in the file
 * @tail: uncompressed bytes shown as damaged after the last good chunk
 *	when the table is damaged
 * @damage: set to the table damage (@damage->length 0 and @damage->table
 *	false when the table is sound)
 * @err: the reason for the damage or failure; may be NULL
 * @errlen: size of @err
 *
 * Return: a new stream (free with tdat_stream_free()), or NULL with errno
 * set (EINVAL when the stored range is outside the file or there is no
 * decompressor, ENOMEM, or the errno of a failed read).
 */
struct tdat_stream *tdat_stream_new_tolerant(const struct tdat_source *src,
					     uint64_t offset, uint64_t stored_size,
					     uint32_t tail,
					     struct tdat_stream_damage *damage,
					     char *err, size_t errlen)
{
	struct tdat_stream *s;
	bool broken;

	memset(damage, 0, sizeof(*damage));
	s = stream_new(src, TDAT_STREAM_CHUNKS, offset, stored_size, true, tail,
		       &broken, err, errlen);
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
 * tdat_stream_free() - free a stream
 * @s: stream, or NULL
 *
 * Cached chunks stay in the cache (they belong to it).
 */
void tdat_stream_free(struct tdat_stream *s)
{
	if (!s)
		return;
	if (s->locks) {
		if (s->bd.dec)
			s->src.ops->dec_free(s->bd.dec);
		free(s->bd.in);
		pthread_mutex_destroy(&s->bd.lock);
		pthread_mutex_destroy(&s->check_lock);
	}
	free(s->chunks);
	free(s);
}

/**
 * tdat_stream_size() - uncompressed size of a stream
 * @s: stream
 *
 * Return: the size in bytes.
 */
uint64_t tdat_stream_size(const struct tdat_stream *s)
{
	return s->size;
}

static int chunk_fill(void *ctx, uint64_t key, void **data, size_t *size)
{
	const struct chunk_fill *cf = ctx;
	void *in, *out;
	int ret;

	(void)key;
	in = malloc(cf->csize ? cf->csize : 1);
	out = tdat_cache_alloc(cf->cache, cf->usize);
	if (!in || !out) {
		free(in);
		free(out);
		return -ENOMEM;
	}
	ret = pread_full(cf->fd, in, cf->csize, cf->hdr + CHUNK_HDR_SIZE);
	if (!ret)
		ret = cf->ops->decompress(in, cf->csize, out, cf->usize);
	free(in);
	if (ret) {
		free(out);
		return ret;
	}
	*data = out;
	*size = cf->usize;
	return 0;
}

static void chunk_fill_init(const struct tdat_stream *s,
			    const struct stream_chunk *ch, struct chunk_fill *cf)
{
	memset(cf, 0, sizeof(*cf));
	cf->cache = s->src.cache;
	cf->fd = s->src.fd;
	cf->ops = s->src.ops;
	cf->hdr = ch->hdr;
	cf->csize = ch->csize;
	cf->usize = ch->usize;
}

/* The chunk holding @off, which is below s->size: the last one starting at or before it. */
static uint32_t chunk_find(const struct tdat_stream *s, uint64_t off)
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

static void damage_of(const struct tdat_stream *s, uint32_t i,
		      struct tdat_stream_damage *d)
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
 * tdat_stream_locate() - where the byte at @off of the stream is stored
 * @s: stream
 * @off: offset in the uncompressed stream
 * @where: filled in (see tdat-stream.h)
 *
 * Return: 0, or -ERANGE when @off is not inside the stream.
 */
int tdat_stream_locate(const struct tdat_stream *s, uint64_t off,
		       struct tdat_stream_damage *where)
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
static void mark_bad(struct tdat_stream *s, uint32_t i,
		     struct tdat_stream_damage *damage, bool *hit)
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

/* --- a block in pieces ---------------------------------------------------- */

static size_t piece_len(const struct tdat_stream *s, uint32_t k)
{
	uint64_t start = (uint64_t)k * s->piece;

	return s->size - start < s->piece ? (size_t)(s->size - start) : s->piece;
}

/* Forget the decoder's position; its memory goes too. */
static void bdec_drop(struct tdat_stream *s)
{
	struct block_dec *d = &s->bd;

	s->src.ops->dec_free(d->dec);
	d->dec = NULL;
	free(d->in);
	d->in = NULL;
}

/* Put the decoder at the start of the block. */
static int bdec_restart(struct tdat_stream *s)
{
	struct block_dec *d = &s->bd;
	int ret;

	if (!d->dec) {
		d->in = malloc(DEC_IN_SIZE);
		d->dec = s->src.ops->dec_new();
		if (!d->in || !d->dec) {
			bdec_drop(s);
			return -ENOMEM;
		}
	} else {
		ret = s->src.ops->dec_reset(d->dec);
		if (ret)
			return ret;
	}
	d->next = 0;
	d->end = false;
	d->in_pos = 0;
	d->in_len = d->in_off = 0;
	return 0;
}

/*
 * One decoder call making at most @len bytes at @dst (*@got of them),
 * reading more of the block first when its buffered input is used up.
 */
static int bdec_step(struct tdat_stream *s, unsigned char *dst, size_t len,
		     size_t *got)
{
	const struct stream_chunk *ch = &s->chunks[0];
	struct block_dec *d = &s->bd;
	size_t slen, dlen = len;
	bool end;
	int ret;

	if (d->in_off == d->in_len && d->in_pos < ch->csize) {
		slen = ch->csize - d->in_pos < DEC_IN_SIZE ?
		       (size_t)(ch->csize - d->in_pos) : DEC_IN_SIZE;
		ret = pread_full(s->src.fd, d->in, slen,
				 ch->hdr + CHUNK_HDR_SIZE + d->in_pos);
		if (ret)
			return ret;
		d->in_pos += slen;
		d->in_len = slen;
		d->in_off = 0;
	}
	slen = d->in_len - d->in_off;
	ret = s->src.ops->dec_run(d->dec, d->in + d->in_off, &slen,
				  d->in_pos == ch->csize, dst, &dlen, &end);
	if (ret)
		return ret;
	d->in_off += slen;
	d->end = end;
	/* Stuck short of the end: the compressed data stops too early. */
	if (!slen && !dlen && !end)
		return -EIO;
	d->decoded += dlen;
	*got = dlen;
	return 0;
}

/* Make exactly @len more bytes of the block at @dst. */
static int bdec_produce(struct tdat_stream *s, unsigned char *dst, size_t len)
{
	size_t got;
	int ret;

	while (len) {
		if (s->bd.end)
			return -EIO;	/* the data ends before its stated size */
		ret = bdec_step(s, dst, len, &got);
		if (ret)
			return ret;
		dst += got;
		len -= got;
	}
	return 0;
}

/* After the stated size: the data must end here, with nothing more. */
static int bdec_finish(struct tdat_stream *s)
{
	unsigned char extra;
	size_t got;
	int ret;

	while (!s->bd.end) {
		ret = bdec_step(s, &extra, 1, &got);
		if (ret)
			return ret;
		if (got)
			return -EIO;	/* runs past its stated size */
	}
	return 0;
}

/*
 * Decode piece @k into @out (room for a full piece): from where the
 * decoder stands when that is at or before @k, else from the block's
 * start, decoding the pieces on the way into @out and dropping them.
 * Decoding piece npieces - 1 checks the end and marks the block verified.
 */
static int bdec_piece(struct tdat_stream *s, uint32_t k, unsigned char *out)
{
	struct block_dec *d = &s->bd;
	int ret = 0;

	if (!d->dec || d->next > k)
		ret = bdec_restart(s);
	for (; !ret && d->next < k; d->next++)
		ret = bdec_produce(s, out, s->piece);
	if (!ret)
		ret = bdec_produce(s, out, piece_len(s, k));
	if (!ret && ++d->next == s->npieces) {
		ret = bdec_finish(s);
		if (!ret)
			__atomic_store_n(&s->verified, 1, __ATOMIC_RELEASE);
	}
	if (ret || d->next == s->npieces)
		bdec_drop(s);
	return ret;
}

/* What a cache fill needs to produce one piece. */
struct piece_fill {
	struct tdat_stream *s;
	uint32_t k;
};

static int piece_fill(void *ctx, uint64_t key, void **data, size_t *size)
{
	const struct piece_fill *pf = ctx;
	struct tdat_stream *s = pf->s;
	size_t len = piece_len(s, pf->k);
	unsigned char *out, *fit;
	int ret;

	(void)key;
	/* A full piece: the pieces skipped on the way are decoded here too. */
	out = tdat_cache_alloc(s->src.cache, s->piece);
	if (!out)
		return -ENOMEM;
	pthread_mutex_lock(&s->bd.lock);
	ret = bdec_piece(s, pf->k, out);
	pthread_mutex_unlock(&s->bd.lock);
	if (ret) {
		free(out);
		return ret;
	}
	if (len < s->piece) {
		fit = realloc(out, len ? len : 1);
		if (fit)
			out = fit;
	}
	*data = out;
	*size = len;
	return 0;
}

/* Get piece @k from the cache (filled on a miss); -EIO when it is not right. */
static int piece_get(struct tdat_stream *s, uint32_t k,
		     struct tdat_cache_entry **e)
{
	struct piece_fill pf = { .s = s, .k = k };
	int ret;

	ret = tdat_cache_get(s->src.cache, s->key_base + k, piece_fill, &pf, e);
	if (!ret && tdat_cache_entry_size(*e) != piece_len(s, k)) {
		tdat_cache_put(s->src.cache, *e);
		*e = NULL;
		ret = -EIO;
	}
	return ret;
}

/*
 * Decode the whole block once, piece by piece through the cache, so that
 * no byte of it is served before all of it is known to decode (a zlib
 * checksum, or a size mismatch, shows only at the end).  A block larger
 * than half the cache leaves its pieces on the done list, not flushing
 * the cache for a pass nobody may follow.
 */
static int block_check(struct tdat_stream *s)
{
	bool big = s->size > tdat_cache_max_bytes(s->src.cache) / 2;
	struct tdat_cache_entry *e;
	int ret = 0;

	pthread_mutex_lock(&s->check_lock);
	for (uint32_t k = 0; k < s->npieces; k++) {
		if (__atomic_load_n(&s->verified, __ATOMIC_ACQUIRE))
			break;
		if (__atomic_load_n(&s->chunks[0].state, __ATOMIC_RELAXED) != CHUNK_UNKNOWN) {
			ret = -EIO;
			break;
		}
		ret = piece_get(s, k, &e);
		if (ret)
			break;
		if (big)
			tdat_cache_put_done(s->src.cache, e);
		else
			tdat_cache_put(s->src.cache, e);
	}
	/* The last piece's fill verifies the block; a cached one was verified. */
	if (!ret && !__atomic_load_n(&s->verified, __ATOMIC_ACQUIRE))
		ret = -EIO;
	pthread_mutex_unlock(&s->check_lock);
	return ret;
}

static ssize_t stream_read_block(struct tdat_stream *s, unsigned char *buf,
				 size_t len, uint64_t off,
				 struct tdat_stream_damage *damage, bool *hit)
{
	struct tdat_cache_entry *e;
	uint32_t k = (uint32_t)(off / s->piece);
	size_t done = 0, n, plen;
	uint64_t in;
	int ret = 0;

	/* A block known bad fails at once: no decompression per read. */
	if (__atomic_load_n(&s->chunks[0].state, __ATOMIC_RELAXED) != CHUNK_UNKNOWN)
		ret = -EIO;
	else if (!__atomic_load_n(&s->verified, __ATOMIC_ACQUIRE))
		ret = block_check(s);
	while (!ret && done < len) {
		ret = piece_get(s, k, &e);
		if (ret)
			break;
		plen = piece_len(s, k);
		in = off + done - (uint64_t)k * s->piece;
		n = plen - in < len - done ? (size_t)(plen - in) : len - done;
		memcpy(buf + done, (const unsigned char *)tdat_cache_entry_data(e) + in, n);
		/* As for chunks: a bulk reader ending a piece drops it. */
		if (in + n == plen && len >= plen)
			tdat_cache_put_done(s->src.cache, e);
		else
			tdat_cache_put(s->src.cache, e);
		done += n;
		k++;
	}
	if (ret == -EIO)
		mark_bad(s, 0, damage, hit);
	if (ret)
		return done ? (ssize_t)done : ret;
	return (ssize_t)done;
}

static ssize_t stream_read_chunks(struct tdat_stream *s, unsigned char *buf,
				  size_t len, uint64_t off,
				  struct tdat_stream_damage *damage, bool *hit)
{
	const struct stream_chunk *ch;
	struct tdat_cache_entry *e;
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
			ret = tdat_cache_get(s->src.cache, ch->hdr, chunk_fill,
					     &cf, &e);
		}
		/* The cache serves what fill made: re-check, keys are shared. */
		if (!ret && tdat_cache_entry_size(e) != ch->usize) {
			tdat_cache_put(s->src.cache, e);
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
		memcpy(buf + done, (const unsigned char *)tdat_cache_entry_data(e) + in, n);
		/*
		 * A read at least a chunk long that ends this chunk is a bulk
		 * sequential reader (a raw file through the page cache, which
		 * keeps the bytes): drop the chunk behind it.  Page-sized
		 * reads (text decoding) keep plain LRU.
		 */
		if (in + n == ch->usize && len >= ch->usize)
			tdat_cache_put_done(s->src.cache, e);
		else
			tdat_cache_put(s->src.cache, e);
		done += n;
		i++;
	}
	return (ssize_t)done;
}

/**
 * tdat_stream_read_partial() - read uncompressed bytes up to any damage
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
ssize_t tdat_stream_read_partial(struct tdat_stream *s, void *buf, size_t len,
				 uint64_t off, struct tdat_stream_damage *damage,
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
 * tdat_stream_read() - read uncompressed bytes
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
ssize_t tdat_stream_read(struct tdat_stream *s, void *buf, size_t len, uint64_t off)
{
	bool hit;
	ssize_t n = tdat_stream_read_partial(s, buf, len, off, NULL, &hit);

	/* All or nothing here: a range with damage in it fails as a whole. */
	return hit ? -EIO : n;
}

/**
 * tdat_stream_check() - decompress a whole BLOCK stream once
 * @s: stream
 *
 * Return: 0 (at once for RAW and CHUNKS streams, whose chunks are checked
 * one by one as they are read), -EIO when the block is damaged, or another
 * negative errno (-ENOMEM; the errno of a failed read of the file).
 * Context: may block while another thread checks or reads @s.
 */
int tdat_stream_check(struct tdat_stream *s)
{
	if (s->kind != TDAT_STREAM_BLOCK)
		return 0;
	if (__atomic_load_n(&s->chunks[0].state, __ATOMIC_RELAXED) != CHUNK_UNKNOWN)
		return -EIO;
	if (__atomic_load_n(&s->verified, __ATOMIC_ACQUIRE))
		return 0;
	return block_check(s);
}

/**
 * tdat_stream_decoded() - bytes a BLOCK stream's decoder has produced
 * @s: stream
 *
 * Return: the count since the stream was made (0 for other layouts).
 */
uint64_t tdat_stream_decoded(struct tdat_stream *s)
{
	uint64_t n;

	if (s->kind != TDAT_STREAM_BLOCK)
		return 0;
	pthread_mutex_lock(&s->bd.lock);
	n = s->bd.decoded;
	pthread_mutex_unlock(&s->bd.lock);
	return n;
}
