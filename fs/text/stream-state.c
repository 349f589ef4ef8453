/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream-state.c - a text stream's state saved as bytes and loaded
 * into a new stream of the same text: the layer above the stream (it
 * reads the stream's inside, text/stream-internal.h), below the engine.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "account.h"
#include "comm.h"
#include "ftrace-function.h"
#include "line.h"
#include "pack.h"
#include "source.h"
#include "stream-internal.h"
#include "stream-state.h"

#define STATE_MAGIC	0x74737473u	/* "stst" */
/* 2: the account after the checkpoints; 3: then their function call stacks */
#define STATE_VERSION	3u

/* What a state must match: the slots of the stream it is for. */
struct state_shape {
	unsigned int ncpu;
	int only;
	size_t hlen;
	uint64_t *npages;	/* per slot */
	uint32_t *psize;	/* per slot: its buffer's page size */
};

/* A state's fixed fields, and where its comm model lies in the bytes. */
struct state_head {
	uint32_t ncpu;
	int32_t only;
	uint64_t hlen, size, every, nckpt;
	const unsigned char *ov;
	size_t ovlen;
};

/* Where a state's checkpoints go when it is loaded. */
struct state_dst {
	uint64_t *off;
	size_t *seen;
	struct text_pos *pos;
	struct text_account *acct;
	struct text_fnsnap **fn;
	struct text_func *func;		/* resolves the stacks' names */
};

static void shape_release(struct state_shape *sh)
{
	free(sh->npages);
	free(sh->psize);
}

/*
 * The slots of a stream over buffers @bufs (all their CPUs), or over cpu
 * index @cpu of the one buffer; a buffer whose pages no kernel writes
 * (part_cpus()) cannot have a state.  Return: 0, -EINVAL, -ENOENT, -ENOMEM.
 */
static int shape_fill(struct state_shape *sh, struct tdat_file *f,
		      const size_t *bufs, size_t nbufs, int cpu)
{
	size_t p, c, s = 0;

	sh->ncpu = 0;
	for (p = 0; p < nbufs; p++) {
		const struct tdat_buffer *buf = tdat_buffer_get(f, bufs[p]);

		if (!buf || (cpu >= 0 && (nbufs != 1 || (unsigned int)cpu >= buf->ncpus)))
			return -ENOENT;
		if (buf->page_size < 64 || buf->page_size > (1u << 27))
			return -EINVAL;
		sh->ncpu += cpu >= 0 ? 1 : buf->ncpus;
	}
	sh->npages = calloc(sh->ncpu + 1, sizeof(*sh->npages));
	sh->psize = calloc(sh->ncpu + 1, sizeof(*sh->psize));
	if (!sh->npages || !sh->psize)
		return -ENOMEM;
	for (p = 0; p < nbufs; p++) {
		const struct tdat_buffer *buf = tdat_buffer_get(f, bufs[p]);

		for (c = 0; c < buf->ncpus; c++) {
			if (cpu >= 0 && c != (size_t)cpu)
				continue;
			if (text_stream_cpu_pages(f, bufs[p], c, &sh->npages[s]) < 0)
				return -ENOMEM;
			sh->psize[s++] = buf->page_size;
		}
	}
	return 0;
}

/* The fixed fields, checked against @sh, and the comm model's layout. */
static int state_head_read(struct text_unpack *u, const struct state_shape *sh,
			   struct state_head *h, size_t *nreg)
{
	uint32_t magic = text_unpack_u32(u);
	uint32_t version = text_unpack_u32(u);

	h->ncpu = text_unpack_u32(u);
	h->only = (int32_t)text_unpack_u32(u);
	h->hlen = text_unpack_u64(u);
	h->size = text_unpack_u64(u);
	h->every = text_unpack_u64(u);
	if (u->bad || magic != STATE_MAGIC || version != STATE_VERSION ||
	    h->ncpu != sh->ncpu || h->only != sh->only || h->hlen != sh->hlen ||
	    h->size < h->hlen || !h->every)
		return -EINVAL;
	h->ov = u->p;
	if (text_overlay_check(u, nreg) < 0)
		return -EINVAL;
	h->ovlen = u->p - h->ov;
	h->nckpt = text_unpack_u64(u);
	if (!h->nckpt || !text_pack_fits(u, h->nckpt, 16 + 16 * (size_t)h->ncpu))
		return -EINVAL;
	return 0;
}

/* One checkpoint's position of every slot, checked against @sh. */
static int state_pos_read(struct text_unpack *u, const struct state_shape *sh,
			  bool first, struct text_pos *pos)
{
	unsigned int s;

	for (s = 0; s < sh->ncpu; s++) {
		pos[s].page = text_unpack_u64(u);
		pos[s].idx = text_unpack_u32(u);
		pos[s].done = text_unpack_u32(u);
		if (u->bad || pos[s].page > sh->npages[s] ||
		    pos[s].idx > sh->psize[s] || pos[s].done > 1)
			return -EINVAL;
		/* checkpoint 0 is the start (ckpt_add() without a cursor) */
		if (first && (pos[s].page || pos[s].idx || pos[s].done))
			return -EINVAL;
	}
	return 0;
}

/*
 * The account after the checkpoints: into @acct, or checked and dropped.
 * Return: 0, -EINVAL, -ENOMEM.
 */
static int state_acct_read(struct text_unpack *u, uint64_t nckpt,
			   struct text_account *acct)
{
	if (!acct)
		return text_account_check(u, nckpt);
	return text_account_load(acct, u, nckpt);
}

/*
 * The function call stacks of each checkpoint, the first one's empty:
 * into dst->fn, or checked and dropped.  Return: 0, -EINVAL, -ENOMEM.
 */
static int state_fn_read(struct text_unpack *u, uint64_t nckpt,
			 const struct state_dst *dst)
{
	uint64_t k;
	int ret;

	for (k = 0; k < nckpt; k++) {
		struct text_unpack c = *u;
		bool empty = !text_unpack_u32(&c);

		/* a stream without a function formatter has no stacks */
		if ((k == 0 || (dst && !dst->func)) && !empty)
			return -EINVAL;
		if (dst && dst->func)
			ret = text_fnsnap_load(dst->func, u, &dst->fn[k]);
		else
			ret = text_fnsnap_check(u);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * Read and check a whole state against @sh: *@h set; with @dst, the
 * checkpoints go there (room for h->nckpt of them, as a first call
 * without @dst tells).  Return: 0 or -EINVAL.
 */
static int state_read(const void *blob, size_t len, const struct state_shape *sh,
		      struct state_head *h, const struct state_dst *dst)
{
	struct text_unpack u = { .p = blob, .left = len };
	struct text_pos *tmp = calloc(sh->ncpu + 1, sizeof(*tmp));
	uint64_t k, off = 0, seen = 0;
	size_t nreg;
	int ret = -EINVAL;

	if (!tmp)
		return -ENOMEM;
	if (state_head_read(&u, sh, h, &nreg) < 0)
		goto out;
	for (k = 0; k < h->nckpt; k++) {
		uint64_t o = text_unpack_u64(&u), sn = text_unpack_u64(&u);
		struct text_pos *pos = dst ? &dst->pos[k * sh->ncpu] : tmp;

		/* offsets rise strictly; past 0 they lie after the head */
		if (u.bad || o > h->size || sn > nreg || sn < seen ||
		    (k == 0 && (o || sn)) || (k && (o <= off || o < h->hlen)))
			goto out;
		if (state_pos_read(&u, sh, k == 0, pos) < 0)
			goto out;
		off = o;
		seen = sn;
		if (dst) {
			dst->off[k] = o;
			dst->seen[k] = sn;
		}
	}
	ret = state_acct_read(&u, h->nckpt, dst ? dst->acct : NULL);
	if (!ret)
		ret = state_fn_read(&u, h->nckpt, dst);
	if (!ret && u.left)
		ret = -EINVAL;
out:
	free(tmp);
	return ret;
}

/*
 * The head alone, checked against @sh: enough to size a load, whose
 * state_read() checks the rest as it reads it (a full pass first, as the
 * index's check made already, was 15% of a first read of big.dat).
 * Return: 0 or -EINVAL.
 */
static int state_head_only(const void *blob, size_t len,
			   const struct state_shape *sh, struct state_head *h)
{
	struct text_unpack u = { .p = blob, .left = len };
	size_t nreg;

	return state_head_read(&u, sh, h, &nreg);
}

/*
 * Whether a state's bytes are of a stream printing cpu index @cpu only,
 * and, if so, how many CPUs it read in *@ncpu.
 */
static bool read_only(const void *blob, size_t len, int cpu, uint32_t *ncpu)
{
	struct text_unpack u = { .p = blob, .left = len };
	uint32_t skip[2];
	int32_t only;

	text_unpack(&u, skip, sizeof(skip));
	*ncpu = text_unpack_u32(&u);
	only = (int32_t)text_unpack_u32(&u);
	return !u.bad && only == cpu;
}

/**
 * text_stream_state_cpu_read() - how the one-CPU stream a state was saved
 * of read its trace
 * @blob: the state's bytes, checked by text_stream_state_check() for
 *	that same text
 * @len: their size
 * @cpu: the text's cpu index
 *
 * Return: TEXT_CPU_AMONG_ALL when it read every CPU and printed @cpu's
 * records, else TEXT_CPU_ALONE: make the stream that takes the state so.
 */
enum text_cpu_read text_stream_state_cpu_read(const void *blob, size_t len, int cpu)
{
	uint32_t ncpu;

	return cpu >= 0 && read_only(blob, len, cpu, &ncpu) && ncpu > 1 ?
	       TEXT_CPU_AMONG_ALL : TEXT_CPU_ALONE;
}

/**
 * text_stream_state_check() - whether bytes are a state of a stream
 * @f: the trace
 * @parts: the buffers of a stream of several (text_stream_new_multi()),
 *	or NULL for the one buffer @b
 * @nparts: entries in @parts
 * @head: with @parts, its head text
 * @b: without @parts, the buffer (text_stream_new())
 * @cpu: without @parts, its cpu index or -1
 * @blob: the bytes
 * @len: their size
 * @size: set to the text's size
 *
 * Everything text_stream_state_load() checks but what needs the stream
 * itself: of a one-CPU stream, whether it reads every CPU (that depends
 * on its CPU's records, text_stream_new()); either is accepted here, and
 * text_stream_state_cpu_read() tells the stream to make for it.
 *
 * Return: 0, -EINVAL for bytes that are not such a state, -ENOENT, -ENOMEM.
 */
int text_stream_state_check(struct tdat_file *f,
			    const struct text_stream_part *parts, size_t nparts,
			    const char *head, size_t b, int cpu,
			    const void *blob, size_t len, uint64_t *size)
{
	const struct tdat_buffer *buf = tdat_buffer_get(f, b);
	struct state_shape sh = { .only = -1 };
	struct state_head h;
	size_t *bufs, p;
	uint32_t ncpu;
	int ret;

	bufs = calloc(nparts + 1, sizeof(*bufs));
	if (!bufs)
		return -ENOMEM;
	for (p = 0; parts && p < nparts; p++)
		bufs[p] = parts[p].b;
	if (!parts) {
		bufs[0] = b;
		nparts = 1;
		if (buf && cpu >= 0 && buf->ncpus > 1 &&
		    read_only(blob, len, cpu, &ncpu) && ncpu == buf->ncpus) {
			sh.only = cpu;
			cpu = -1;
		}
	} else {
		sh.hlen = strlen(head);
		cpu = -1;
	}
	ret = shape_fill(&sh, f, bufs, nparts, cpu);
	if (!ret)
		ret = state_read(blob, len, &sh, &h, NULL);
	if (!ret)
		*size = h.size;
	shape_release(&sh);
	free(bufs);
	return ret;
}

/* The slots of @st as a state must match them. */
static int stream_shape(struct text_stream *st, struct state_shape *sh)
{
	size_t *bufs = calloc(st->nparts + 1, sizeof(*bufs));
	size_t p;
	int cpu = -1, ret;

	if (!bufs)
		return -ENOMEM;
	for (p = 0; p < st->nparts; p++)
		bufs[p] = st->parts[p].b;
	if (st->nparts == 1 && st->ncpu == 1)
		cpu = (int)st->cidx[0];
	ret = shape_fill(sh, st->env.f, bufs, st->nparts, cpu);
	free(bufs);
	if (ret < 0)
		return ret;
	if (sh->ncpu != st->ncpu)
		return -EINVAL;
	/* the stream's own counts, which the sources read with */
	memcpy(sh->npages, st->npages, st->ncpu * sizeof(*sh->npages));
	sh->only = st->only;
	sh->hlen = st->hlen;
	return 0;
}

/* The bytes of @st's state (stream lock held). */
static int state_pack(struct text_stream *st, struct tdatfs_buf *b)
{
	size_t k, s;

	if (text_pack_u32(b, STATE_MAGIC) < 0 || text_pack_u32(b, STATE_VERSION) < 0 ||
	    text_pack_u32(b, st->ncpu) < 0 || text_pack_u32(b, (uint32_t)st->only) < 0 ||
	    text_pack_u64(b, st->hlen) < 0 || text_pack_u64(b, st->size) < 0 ||
	    text_pack_u64(b, st->ckpt_every) < 0 || text_overlay_save(st->ov, b) < 0 ||
	    text_pack_u64(b, st->nckpt) < 0)
		return -ENOMEM;
	for (k = 0; k < st->nckpt; k++) {
		const struct text_pos *pos = &st->ckpt_pos[k * st->ncpu];

		if (text_pack_u64(b, st->ckpt_off[k]) < 0 ||
		    text_pack_u64(b, st->ckpt_seen[k]) < 0)
			return -ENOMEM;
		for (s = 0; s < st->ncpu; s++)
			if (text_pack_u64(b, pos[s].page) < 0 ||
			    text_pack_u32(b, pos[s].idx) < 0 ||
			    text_pack_u32(b, pos[s].done) < 0)
				return -ENOMEM;
	}
	if (text_account_save(st->acct, b) < 0)
		return -ENOMEM;
	for (k = 0; k < st->nckpt; k++)
		if (text_fnsnap_save(st->ckpt_fn[k], b) < 0)
			return -ENOMEM;
	return 0;
}

/**
 * text_stream_state_save() - a stream's state, once its size is known
 * @st: stream
 * @blob: set to the bytes (the caller frees them with free())
 * @len: set to their size
 *
 * The state is the text's size, the checkpoint spacing, the checkpoints
 * (offset, registrations seen, each slot's position), the comm model, the
 * account and each checkpoint's function call stacks, in this machine's
 * byte order.
 *
 * While it packs, room for the blob is charged to the chunk cache; what
 * the caller keeps, the caller charges.
 *
 * Return: 0, -EAGAIN before the text was produced to its end, -ENOMEM.
 */
int text_stream_state_save(struct text_stream *st, void **blob, size_t *len)
{
	struct tdatfs_buf b = { 0 };
	size_t room = 0;
	int ret = -EAGAIN;

	pthread_mutex_lock(&st->lock);
	if (st->size_known) {
		/*
		 * The blob is about as large as the tables it packs, which
		 * are charged already: room for it made in the chunk cache
		 * first, or the pack would stand beyond the bound until the
		 * caller charges it (16 times big.dat: +16 MB at the peak).
		 */
		room = st->charged;
		tdat_cache_charge(st->env.f, room, false);
		ret = state_pack(st, &b);
	}
	pthread_mutex_unlock(&st->lock);
	if (ret < 0) {
		tdat_cache_charge(st->env.f, room, true);
		tdatfs_buf_release(&b);
		return ret;
	}
	/* held until the index is written: not the doubling's spare half */
	*blob = realloc(b.p, b.len + 1);
	if (!*blob)
		*blob = b.p;
	*len = b.len;
	tdat_cache_charge(st->env.f, room, true);
	return 0;
}

/* Take the checkpoints of @dst, the model @ov and the size (lock held). */
static void state_install(struct text_stream *st, const struct state_head *h,
			  struct state_dst *dst, struct text_overlay *ov)
{
	size_t k;

	for (k = 0; k < st->nckpt; k++)
		text_fnsnap_free(st->ckpt_fn[k]);
	free(st->ckpt_fn);
	free(st->ckpt_off);
	free(st->ckpt_seen);
	free(st->ckpt_pos);
	text_overlay_free(st->ov);
	text_account_free(st->acct);
	st->acct = dst->acct;
	st->ckpt_off = dst->off;
	st->ckpt_seen = dst->seen;
	st->ckpt_pos = dst->pos;
	st->ckpt_fn = dst->fn;
	st->fn_bytes = 0;
	for (k = 0; k < h->nckpt; k++)
		st->fn_bytes += text_fnsnap_bytes(dst->fn[k]);
	st->nckpt = st->ckpt_cap = h->nckpt;
	st->ckpt_every = h->every;
	st->ov = ov;
	st->size = h->size;
	st->size_known = true;
}

/*
 * Load a state (@h from its head, state_head_only()) into @st: the comm
 * model replayed into a model of its own, then the rest read and checked
 * whole into new arrays, which @st takes only when all of it passed.
 */
static int state_apply(struct text_stream *st, const struct text_comms *cm,
		       const void *blob, size_t len, const struct state_shape *sh,
		       struct state_head *h)
{
	struct text_unpack u = { .p = h->ov, .left = h->ovlen };
	struct state_dst dst;
	struct text_overlay *ov = text_overlay_new();
	int ret = -ENOMEM;
	uint64_t k;

	dst.off = malloc(h->nckpt * sizeof(*dst.off));
	dst.seen = malloc(h->nckpt * sizeof(*dst.seen));
	dst.pos = malloc(h->nckpt * st->ncpu * sizeof(*dst.pos) + 1);
	dst.acct = text_account_new();
	dst.fn = calloc(h->nckpt, sizeof(*dst.fn));
	dst.func = text_fmt_func(st->env.fmt);
	if (!ov || !dst.off || !dst.seen || !dst.pos || !dst.acct || !dst.fn)
		goto fail;
	ret = text_overlay_load(ov, cm, &u);
	if (!ret && u.left)
		ret = -EINVAL;
	if (!ret)
		ret = state_read(blob, len, sh, h, &dst);
	if (ret < 0)
		goto fail;
	/* checkpoint 0's tables were charged: the charge is the new tables' */
	tdat_cache_charge(st->env.f, st->charged, true);
	state_install(st, h, &dst, ov);
	/* a finished text's tables, kept as long as the stream */
	st->charged = h->nckpt * (sizeof(*dst.off) + sizeof(*dst.seen) +
				  st->ncpu * sizeof(*dst.pos) +
				  sizeof(*dst.fn)) +
		      st->fn_bytes + text_account_bytes(st->acct);
	tdat_cache_charge(st->env.f, st->charged, false);
	return 0;
fail:
	text_overlay_free(ov);
	free(dst.off);
	free(dst.seen);
	free(dst.pos);
	text_account_free(dst.acct);
	for (k = 0; dst.fn && k < h->nckpt; k++)
		text_fnsnap_free(dst.fn[k]);
	free(dst.fn);
	return ret;
}

/**
 * text_stream_state_load() - give a new stream a saved state
 * @st: stream, not read yet
 * @cm: the engine's comms (the model is replayed against them)
 * @blob: bytes text_stream_state_save() made
 * @len: their size
 *
 * Everything is checked before anything is used (text_stream_state_check(),
 * and here the slots of this very stream and the pids of the model); on an
 * error the stream is as it was.
 *
 * Return: 0, -EINVAL for bytes that are not a state of this stream,
 * -EBUSY when it was read already, -ENOMEM.
 */
int text_stream_state_load(struct text_stream *st, const struct text_comms *cm,
			   const void *blob, size_t len)
{
	struct state_shape sh = { 0 };
	struct state_head h;
	int ret, i;

	pthread_mutex_lock(&st->lock);
	ret = st->size_known || st->nckpt != 1 ? -EBUSY : 0;
	for (i = 0; i < NCURSORS; i++)
		if (st->cur[i].valid)
			ret = -EBUSY;
	if (!ret)
		ret = stream_shape(st, &sh);
	if (!ret)
		ret = state_head_only(blob, len, &sh, &h);
	if (!ret)
		ret = state_apply(st, cm, blob, len, &sh, &h);
	pthread_mutex_unlock(&st->lock);
	shape_release(&sh);
	return ret;
}
