/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-pieces.c - a compressed block in pieces: the decoders, the choice
 * of a decoder for each fill, and the read and check passes.
 *
 * Locks: @check_lock (one checking pass) is taken before the cache's;
 * @lock (decoder bookkeeping) is never held while calling the cache or a
 * decoder.  A fill owns the decoder it marked busy, unlocked.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat-pieces.h"
#include "tdat-util.h"

#define PIECE_MIN	((uint32_t)4 << 10)
#define PIECE_MAX	((uint32_t)1 << 20)
#define PIECE_SHARE	8u	/* a piece is at most 1/8 of the cache */
#define PIECE_DECODERS	4
/* Each decoder may hold a window of MiBs: one per this much cache bound. */
#define PIECE_DEC_SHARE	((size_t)16 << 20)
/* A decoder this many pieces back is continued: about what the cache holds. */
#define PIECE_GAP	PIECE_SHARE
#define DEC_IN_SIZE	((size_t)128 << 10)	/* compressed bytes read at once */

/*
 * One decoder.  Free (@dec NULL) or standing at the start of piece @next,
 * having taken @in_pos compressed bytes from the file, of which
 * @in[@in_off .. @in_len) are not consumed yet.  While @busy a fill runs
 * it towards piece @target, without the lock: only that fill touches the
 * fields other than @busy, @target and @used.
 */
struct piece_dec {
	void *dec;
	bool busy;
	bool end;		/* the decoder said the data is complete */
	uint32_t next;
	uint32_t target;
	uint64_t used;		/* tick of its last use */
	uint64_t in_pos;
	unsigned char *in;	/* DEC_IN_SIZE bytes */
	size_t in_len, in_off;
	size_t charged;		/* its memory, as charged to the cache */
};

/* A fill waiting for a decoder, on its thread's stack. */
struct piece_wait {
	uint32_t k;
	struct piece_wait *next;
};

struct tdp_pieces {
	int fd;
	const struct tdp_compress_ops *ops;
	struct tdp_cache *cache;
	uint64_t data;		/* file offset of the compressed bytes */
	uint32_t csize;
	uint32_t size;		/* stated uncompressed size */
	uint32_t piece;		/* bytes per piece */
	uint32_t npieces;
	int ndec;		/* decoders in use: 1 .. PIECE_DECODERS */
	uint64_t key_base;	/* piece k is cached under key_base + k */
	uint8_t verified;	/* atomic: the whole block decoded once, cleanly */
	uint8_t bad;		/* atomic: the block is damaged */
	uint64_t decoded;	/* atomic */
	pthread_mutex_t check_lock;
	pthread_mutex_t lock;	/* @dec[].busy/target/used, @waiting, @tick */
	pthread_cond_t changed;	/* a decoder was taken or given back */
	struct piece_wait *waiting;
	uint64_t tick;
	struct piece_dec dec[PIECE_DECODERS];
};

/* The piece size for a cache of @max bytes (see tdat-pieces.h). */
static uint32_t piece_size(size_t max)
{
	size_t p = max / PIECE_SHARE;

	if (p > PIECE_MAX)
		p = PIECE_MAX;
	p -= p % PIECE_MIN;
	return p < PIECE_MIN ? PIECE_MIN : (uint32_t)p;
}

static size_t piece_len(const struct tdp_pieces *p, uint32_t k)
{
	uint64_t start = (uint64_t)k * p->piece;

	return p->size - start < p->piece ? (size_t)(p->size - start) : p->piece;
}

/**
 * tdp_pieces_new() - describe a compressed block; nothing is read yet
 * @fd: the trace file (not owned; must outlive the block)
 * @ops: its decompressor
 * @cache: the chunk cache (not owned; must outlive the block)
 * @data: file offset of the compressed bytes
 * @csize: compressed bytes (checked by the caller against the file)
 * @usize: stated uncompressed size (checked by the caller against a limit)
 *
 * Return: the block (free with tdp_pieces_free()), or NULL with errno
 * set (ENOMEM, EOVERFLOW when the cache has no key range left, or the
 * error of a mutex or condition variable creation).
 */
struct tdp_pieces *tdp_pieces_new(int fd, const struct tdp_compress_ops *ops,
				  struct tdp_cache *cache, uint64_t data,
				  uint32_t csize, uint32_t usize)
{
	struct tdp_pieces *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return NULL;
	p->fd = fd;
	p->ops = ops;
	p->cache = cache;
	p->data = data;
	p->csize = csize;
	p->size = usize;
	p->piece = piece_size(tdp_cache_max_bytes(cache));
	p->ndec = (int)(tdp_cache_max_bytes(cache) / PIECE_DEC_SHARE);
	if (p->ndec < 1)
		p->ndec = 1;
	if (p->ndec > PIECE_DECODERS)
		p->ndec = PIECE_DECODERS;
	p->npieces = (uint32_t)(((uint64_t)usize + p->piece - 1) / p->piece);
	/* An empty block is never decompressed, as an empty chunk is not. */
	p->verified = !p->npieces;
	p->key_base = tdp_cache_key_space(cache);
	ret = p->key_base ? 0 : EOVERFLOW;
	if (!ret)
		ret = pthread_mutex_init(&p->check_lock, NULL);
	if (ret)
		goto fail;
	ret = pthread_mutex_init(&p->lock, NULL);
	if (ret)
		goto fail_check;
	ret = pthread_cond_init(&p->changed, NULL);
	if (ret)
		goto fail_lock;
	return p;
fail_lock:
	pthread_mutex_destroy(&p->lock);
fail_check:
	pthread_mutex_destroy(&p->check_lock);
fail:
	free(p);
	errno = ret;
	return NULL;
}

/*
 * Charge the cache with what @d holds now (its state, the window its runs
 * allocated, its input buffer), so that the cache's entries make room.
 */
static void dec_charge(struct tdp_pieces *p, struct piece_dec *d)
{
	size_t now = d->dec ? p->ops->dec_mem(d->dec) + DEC_IN_SIZE : 0;

	if (now > d->charged)
		tdp_cache_charge(p->cache, now - d->charged, false);
	else
		tdp_cache_charge(p->cache, d->charged - now, true);
	d->charged = now;
}

/* Forget a decoder's position; its memory goes too. */
static void dec_drop(struct tdp_pieces *p, struct piece_dec *d)
{
	p->ops->dec_free(d->dec);
	d->dec = NULL;
	free(d->in);
	d->in = NULL;
	dec_charge(p, d);
}

/**
 * tdp_pieces_free() - free a block; NULL is fine
 * @p: block
 *
 * Its cached pieces stay in the cache (they belong to it).
 * Context: no other thread may use @p.
 */
void tdp_pieces_free(struct tdp_pieces *p)
{
	if (!p)
		return;
	for (int i = 0; i < PIECE_DECODERS; i++)
		dec_drop(p, &p->dec[i]);
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->check_lock);
	free(p);
}

/* --- one decoder ---------------------------------------------------------- */

/* Put @d at the start of the block. */
static int dec_restart(struct tdp_pieces *p, struct piece_dec *d)
{
	int ret;

	if (!d->dec) {
		d->in = malloc(DEC_IN_SIZE);
		d->dec = p->ops->dec_new();
		if (!d->in || !d->dec) {
			dec_drop(p, d);
			return -ENOMEM;
		}
	} else {
		ret = p->ops->dec_reset(d->dec);
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
 * reading more of the block first when the buffered input is used up.
 */
static int dec_step(struct tdp_pieces *p, struct piece_dec *d,
		    unsigned char *dst, size_t len, size_t *got)
{
	size_t slen, dlen = len;
	bool end;
	int ret;

	if (d->in_off == d->in_len && d->in_pos < p->csize) {
		slen = p->csize - d->in_pos < DEC_IN_SIZE ?
		       (size_t)(p->csize - d->in_pos) : DEC_IN_SIZE;
		ret = tdp_pread_full(p->fd, d->in, slen, p->data + d->in_pos, NULL);
		if (ret)
			return ret;
		d->in_pos += slen;
		d->in_len = slen;
		d->in_off = 0;
	}
	slen = d->in_len - d->in_off;
	ret = p->ops->dec_run(d->dec, d->in + d->in_off, &slen,
			      d->in_pos == p->csize, dst, &dlen, &end);
	if (ret)
		return ret;
	d->in_off += slen;
	d->end = end;
	/* Stuck short of the end: the compressed data stops too early. */
	if (!slen && !dlen && !end)
		return -EIO;
	__atomic_add_fetch(&p->decoded, dlen, __ATOMIC_RELAXED);
	*got = dlen;
	return 0;
}

/* Make exactly @len more bytes of the block at @dst. */
static int dec_produce(struct tdp_pieces *p, struct piece_dec *d,
		       unsigned char *dst, size_t len)
{
	size_t got;
	int ret;

	while (len) {
		if (d->end)
			return -EIO;	/* the data ends before its stated size */
		ret = dec_step(p, d, dst, len, &got);
		if (ret)
			return ret;
		dst += got;
		len -= got;
	}
	return 0;
}

/* After the stated size: the data must end here, with nothing more. */
static int dec_finish(struct tdp_pieces *p, struct piece_dec *d)
{
	unsigned char extra;
	size_t got;
	int ret;

	while (!d->end) {
		ret = dec_step(p, d, &extra, 1, &got);
		if (ret)
			return ret;
		if (got)
			return -EIO;	/* runs past its stated size */
	}
	return 0;
}

/*
 * Decode piece @k into @out (room for a full piece unless @k is 0) with
 * @d: from where it stands when that is at or before @k, else from the
 * block's start, decoding the pieces on the way into @out and dropping
 * them.  Making the last piece checks the end and marks the block
 * verified.
 */
static int dec_piece(struct tdp_pieces *p, struct piece_dec *d, uint32_t k,
		     unsigned char *out)
{
	int ret = 0;

	if (!d->dec || d->next > k)
		ret = dec_restart(p, d);
	for (; !ret && d->next < k; d->next++)
		ret = dec_produce(p, d, out, p->piece);
	if (!ret)
		ret = dec_produce(p, d, out, piece_len(p, k));
	if (!ret && ++d->next == p->npieces) {
		ret = dec_finish(p, d);
		if (!ret)
			__atomic_store_n(&p->verified, 1, __ATOMIC_RELEASE);
	}
	if (ret || d->next == p->npieces)
		dec_drop(p, d);
	else
		dec_charge(p, d);
	return ret;
}

/* --- which decoder makes a piece ------------------------------------------ */

/* A fill waits for a piece in [@from, @k): it goes first. */
static bool dec_on_the_way(const struct tdp_pieces *p, uint32_t from, uint32_t k)
{
	for (const struct piece_wait *w = p->waiting; w; w = w->next)
		if (w->k >= from && w->k < k)
			return true;
	return false;
}

/* Continue @d, unless it is busy or an earlier piece on its way waits. */
static struct piece_dec *dec_continue(const struct tdp_pieces *p,
				      struct piece_dec *d, uint32_t k)
{
	if (d->busy || dec_on_the_way(p, d->next, k))
		return NULL;
	return d;
}

/*
 * The decoder to make piece @k now, or NULL to wait for a change; caller
 * holds the lock.  In order: one standing at most PIECE_GAP pieces before
 * @k (or busy towards there; nearest first, a free one before a busy one
 * at the same place), a free one, one further back, the least recently
 * used one.
 */
static struct piece_dec *dec_pick(struct tdp_pieces *p, uint32_t k)
{
	struct piece_dec *near = NULL, *far = NULL, *fresh = NULL, *old = NULL;
	uint64_t near_rank = 0, far_rank = 0, rank;

	for (int i = 0; i < p->ndec; i++) {
		struct piece_dec *d = &p->dec[i];
		uint32_t pos = d->busy ? d->target + 1 : d->next;

		if (!d->busy && !d->dec) {
			if (!fresh)
				fresh = d;
			continue;
		}
		if (pos <= k) {
			rank = (uint64_t)pos << 1 | !d->busy;
			if (k - pos <= PIECE_GAP && (!near || rank > near_rank)) {
				near = d;
				near_rank = rank;
			} else if (k - pos > PIECE_GAP && (!far || rank > far_rank)) {
				far = d;
				far_rank = rank;
			}
		}
		if (!d->busy && (!old || d->used < old->used))
			old = d;
	}
	if (near)
		return dec_continue(p, near, k);
	if (fresh)
		return fresh;
	if (far)
		return dec_continue(p, far, k);
	return old;
}

/* Take a decoder for piece @k, waiting as long as dec_pick() says so. */
static struct piece_dec *dec_take(struct tdp_pieces *p, uint32_t k)
{
	struct piece_wait me = { .k = k };
	struct piece_wait **pp;
	struct piece_dec *d;

	pthread_mutex_lock(&p->lock);
	me.next = p->waiting;
	p->waiting = &me;
	while (!(d = dec_pick(p, k)))
		pthread_cond_wait(&p->changed, &p->lock);
	for (pp = &p->waiting; *pp != &me; pp = &(*pp)->next)
		;
	*pp = me.next;
	d->busy = true;
	d->target = k;
	/* Others may have waited for us to leave the queue. */
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return d;
}

static void dec_give_back(struct tdp_pieces *p, struct piece_dec *d)
{
	pthread_mutex_lock(&p->lock);
	d->busy = false;
	d->used = ++p->tick;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

/* --- the cache's side ----------------------------------------------------- */

struct piece_fill {
	struct tdp_pieces *p;
	uint32_t k;
};

static int piece_fill(void *ctx, uint64_t key, void **data, size_t *size)
{
	const struct piece_fill *pf = ctx;
	struct tdp_pieces *p = pf->p;
	size_t len = piece_len(p, pf->k);
	/* Pieces before @k, full ones, may be decoded into it on the way. */
	size_t cap = pf->k ? p->piece : len;
	unsigned char *out, *fit;
	struct piece_dec *d;
	int ret;

	(void)key;
	out = tdp_cache_alloc(p->cache, cap);
	if (!out)
		return -ENOMEM;
	d = dec_take(p, pf->k);
	ret = dec_piece(p, d, pf->k, out);
	dec_give_back(p, d);
	if (ret) {
		free(out);
		return ret;
	}
	if (len < cap) {
		fit = realloc(out, len);
		if (fit)
			out = fit;
	}
	*data = out;
	*size = len;
	return 0;
}

/* Piece @k, from the cache or made; -EIO when its size is not right. */
static int piece_get(struct tdp_pieces *p, uint32_t k,
		     struct tdp_cache_entry **e)
{
	struct piece_fill pf = { .p = p, .k = k };
	int ret;

	ret = tdp_cache_get(p->cache, p->key_base + k, piece_fill, &pf, e);
	if (!ret && tdp_cache_entry_size(*e) != piece_len(p, k)) {
		tdp_cache_put(p->cache, *e);
		*e = NULL;
		ret = -EIO;
	}
	return ret;
}

static bool is_bad(const struct tdp_pieces *p)
{
	return __atomic_load_n(&p->bad, __ATOMIC_RELAXED);
}

static bool is_verified(const struct tdp_pieces *p)
{
	return __atomic_load_n(&p->verified, __ATOMIC_ACQUIRE);
}

/*
 * Decode the whole block once, piece by piece through the cache, so that
 * no byte of it is served before all of it is known to decode (a zlib
 * checksum or a size mismatch shows only at the end).  A block larger
 * than half the cache leaves its pieces on the done list, not flushing
 * the cache for a pass nobody may follow.
 */
static int pieces_check(struct tdp_pieces *p)
{
	bool big = p->size > tdp_cache_max_bytes(p->cache) / 2;
	struct tdp_cache_entry *e;
	int ret = 0;

	pthread_mutex_lock(&p->check_lock);
	for (uint32_t k = 0; k < p->npieces && !is_verified(p); k++) {
		if (is_bad(p)) {
			ret = -EIO;
			break;
		}
		ret = piece_get(p, k, &e);
		if (ret)
			break;
		if (big)
			tdp_cache_put_done(p->cache, e);
		else
			tdp_cache_put(p->cache, e);
	}
	/* Only making the last piece verifies; a cached one was made so. */
	if (!ret && !is_verified(p))
		ret = -EIO;
	if (ret == -EIO)
		__atomic_store_n(&p->bad, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->check_lock);
	return ret;
}

/**
 * tdp_pieces_check() - decode the whole block once, if not done yet
 * @p: block
 *
 * Return: 0, -EIO when the block is damaged, or another negative errno
 * (-ENOMEM, the errno of a failed read of the file).
 * Context: may block while another thread checks or reads @p.
 */
int tdp_pieces_check(struct tdp_pieces *p)
{
	if (is_bad(p))
		return -EIO;
	if (is_verified(p))
		return 0;
	return pieces_check(p);
}

/*
 * Whether a read is of the whole block as a metadata blob reads it (from
 * inside the first piece, past a size prefix, to the end) while the
 * cache cannot keep the block (over half its bound, as in
 * pieces_check()).  Through the pieces such a read decodes the block
 * again for each reader, and two readers at once take the block's one
 * decoder from each other (a small cache gives one) and restart it, each
 * time from the block's start: two index workers reading kallsyms under
 * cache_size=1M decoded it about 11 times.
 */
static bool read_is_whole(const struct tdp_pieces *p, size_t len, uint64_t off)
{
	return off < p->piece && off + len == p->size && len > p->piece &&
	       p->size > tdp_cache_max_bytes(p->cache) / 2;
}

/*
 * A whole read (read_is_whole()) decoded straight into @buf by a decoder
 * of its own, in one pass: the @off bytes before it are decoded into
 * @buf and overwritten (@off is under a piece, @len above one).  Under
 * @check_lock, so whole reads and checks of the block run one at a time
 * and a second reader waits instead of restarting the first one's
 * decoder.  It doubles as the check of an unverified block: the bytes
 * count only once the whole block decoded cleanly.  Costs one decoder
 * more while it runs, besides the block's own.
 */
static ssize_t pieces_read_whole(struct tdp_pieces *p, void *buf, size_t len,
				 uint64_t off)
{
	struct piece_dec d = { 0 };
	int ret = -EIO;

	pthread_mutex_lock(&p->check_lock);
	if (!is_bad(p))
		ret = dec_restart(p, &d);
	if (!ret && off)
		ret = dec_produce(p, &d, buf, (size_t)off);
	if (!ret)
		ret = dec_produce(p, &d, buf, len);
	if (!ret)
		ret = dec_finish(p, &d);
	if (!ret)
		__atomic_store_n(&p->verified, 1, __ATOMIC_RELEASE);
	if (ret == -EIO)
		__atomic_store_n(&p->bad, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->check_lock);
	dec_drop(p, &d);
	return ret ? ret : (ssize_t)len;
}

/**
 * tdp_pieces_peek() - decode the block's first bytes, unchecked
 * @p: block
 * @buf: destination
 * @len: bytes wanted, at most the stated size
 *
 * For the open alone, which needs a size prefix while tdp_pieces_check()
 * runs on another thread, and fails unless that check passes: what is
 * peeked is never served.  A decoder of its own, so the check is neither
 * waited for nor disturbed; the cache is not touched.
 *
 * Return: 0, -EIO when the first bytes do not decode, or another
 * negative errno.
 */
int tdp_pieces_peek(struct tdp_pieces *p, void *buf, size_t len)
{
	struct piece_dec d = { 0 };
	int ret;

	if (len > p->size)
		return -EIO;
	ret = dec_restart(p, &d);
	if (!ret && len)
		ret = dec_produce(p, &d, buf, len);
	dec_drop(p, &d);
	return ret;
}

/**
 * tdp_pieces_read() - copy uncompressed bytes
 * @p: block
 * @buf: destination
 * @len: bytes wanted, with @off + @len at most the stated size
 * @off: offset in the uncompressed block
 *
 * Return: @len, or a negative errno (-EIO when the block is damaged);
 * bytes copied before a failure do not count.
 * Context: may block while another thread decodes a piece of @p.
 */
ssize_t tdp_pieces_read(struct tdp_pieces *p, void *buf, size_t len,
			uint64_t off)
{
	struct tdp_cache_entry *e;
	uint32_t k = (uint32_t)(off / p->piece);
	size_t done = 0, n, plen;
	uint64_t in;
	int ret;

	if (read_is_whole(p, len, off))
		return pieces_read_whole(p, buf, len, off);
	ret = tdp_pieces_check(p);
	while (!ret && done < len) {
		ret = piece_get(p, k, &e);
		if (ret)
			break;
		plen = piece_len(p, k);
		in = off + done - (uint64_t)k * p->piece;
		n = plen - in < len - done ? (size_t)(plen - in) : len - done;
		memcpy((unsigned char *)buf + done,
		       (const unsigned char *)tdp_cache_entry_data(e) + in, n);
		/*
		 * A read at least a piece long that ends this piece is a bulk
		 * sequential reader: drop the piece behind it (as for chunks).
		 */
		if (in + n == plen && len >= plen)
			tdp_cache_put_done(p->cache, e);
		else
			tdp_cache_put(p->cache, e);
		done += n;
		k++;
	}
	if (ret == -EIO)
		__atomic_store_n(&p->bad, 1, __ATOMIC_RELAXED);
	/* All or nothing: the stream reports a failure for the whole range. */
	return ret ? ret : (ssize_t)done;
}

/**
 * tdp_pieces_decoded() - Return: the bytes the block's decoders have made
 * so far, dropped ones (skipped or decoded again) included; for tests and
 * diagnostics
 */
uint64_t tdp_pieces_decoded(const struct tdp_pieces *p)
{
	return __atomic_load_n(&p->decoded, __ATOMIC_RELAXED);
}
