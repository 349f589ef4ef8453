/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/views.c - the views of SPEC 2.6 (tdatfs-text.h, "views"):
 * the layer above the engine.  It keeps, per engine (its ext slot),
 * each buffer's event stats and the streams of the views asked for.
 *
 * A view's stream is made from the finished stream of the full text it
 * is cut from (text_stream_new_view()); a table of views keeps at most
 * VIEW_STREAMS streams (the least recently used ones not in use are
 * freed) and remembers the sizes of VIEW_MAX views, so a stat after a
 * read costs nothing.  The size of a view whose offsets its account does
 * not give (fields, a window) is made by cutting its text on the
 * read-ahead threads (text/view-size.h), and a small one's text is
 * kept whole (KEPT_BYTES in all) for the reads that follow.  The
 * timeline pictures are kept by a table of their own (text/pictures.h),
 * which calls back here to draw one.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-text.h"
#include "account.h"
#include "engine.h"
#include "fields-row.h"
#include "line.h"
#include "pftrace-cache.h"
#include "pftrace-file.h"
#include "pictures.h"
#include "read-ahead.h"
#include "stream.h"
#include "timeline-pass.h"
#include "view-size.h"

#define VIEW_STREAMS	64
#define VIEW_MAX	4096
/*
 * Text kept whole of the views whose size was made by cutting them
 * (fields, windows), at most: read once more it would be made again.
 * Charged to the chunk cache, but the heap does not give all it frees
 * back: at 8 MiB the daemon's peak RSS reading every file of big.dat
 * rose from 93 to 100 MiB, past cache_size + 32 MiB; at 2 MiB it stays.
 */
#define KEPT_BYTES	(2u << 20)

/* The event stats of a buffer, made once. */
struct buf_stats {
	size_t buffer;
	struct tdatfs_text_event_stat *s;
	size_t n;
};

struct view_entry {
	struct tdatfs_text_view key;
	struct text_stream *st;		/* NULL: freed, or not made yet */
	unsigned int refs;
	uint64_t used;
	bool size_known;
	uint64_t size;
	char *kept;			/* the whole text, or NULL */
	size_t klen;
};

struct text_views {
	pthread_mutex_t lock;
	struct text_pics *pics;		/* the timeline pictures made */
	size_t kept_bytes;		/* likewise */
	struct tdat_file *f;		/* set by the first bytes kept */
	struct buf_stats **bs;		/* each made once, never moved */
	size_t nbs;
	struct view_entry **e;
	size_t n, cap;
	size_t nstreams;
	uint64_t tick;
	struct text_pf_cache *pfs;	/* the trace.pftrace files made */
};

static void *views_make(void)
{
	struct text_views *vw = calloc(1, sizeof(*vw));

	if (!vw)
		return NULL;
	vw->pfs = text_pf_cache_new();
	if (!vw->pfs) {
		free(vw);
		return NULL;
	}
	vw->pics = text_pics_new();
	if (!vw->pics) {
		text_pf_cache_free(vw->pfs);
		free(vw);
		return NULL;
	}
	pthread_mutex_init(&vw->lock, NULL);
	return vw;
}

static void views_free(void *ext)
{
	struct text_views *vw = ext;
	size_t i;

	if (!vw)
		return;
	for (i = 0; i < vw->nbs; i++) {
		free(vw->bs[i]->s);
		free(vw->bs[i]);
	}
	for (i = 0; i < vw->n; i++) {
		text_stream_free(vw->e[i]->st);
		free(vw->e[i]->kept);
		free(vw->e[i]);
	}
	tdat_cache_charge(vw->f, vw->kept_bytes, true);
	text_pics_free(vw->pics);
	text_pf_cache_free(vw->pfs);
	free(vw->bs);
	free(vw->e);
	pthread_mutex_destroy(&vw->lock);
	free(vw);
}

static struct text_views *views_get(struct tdatfs_text *t)
{
	return text_engine_ext(t, views_make, views_free);
}

/* The finished stream of a buffer's merged text (produced if need be). */
static int full_stream(struct tdatfs_text *t, size_t buffer, int cpu,
		       struct text_stream **st)
{
	struct tdatfs_text_key k = { .report = false, .buffer = buffer, .cpu = cpu };
	int ret = tdatfs_text_produce(t, &k, NULL, NULL);

	if (ret < 0)
		return ret;
	*st = text_engine_stream(t, buffer, cpu);
	if (!*st)
		return -errno;
	return text_stream_acct(*st) ? 0 : -EIO;
}

/* @buffer's stats from its account, into @out (vw->lock not held). */
static int stats_make(struct tdatfs_text *t, size_t buffer, struct buf_stats *out)
{
	const struct text_account_total *tot;
	struct text_stream *st;
	size_t i, n;
	int ret = full_stream(t, buffer, -1, &st);

	if (ret < 0)
		return ret;
	tot = text_account_totals(text_stream_acct(st), &n);
	out->buffer = buffer;
	out->n = n;
	out->s = calloc(n + 1, sizeof(*out->s));
	if (!out->s)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		out->s[i].id = tot[i].id;
		out->s[i].records = tot[i].records;
		out->s[i].bytes = tot[i].bytes;
		out->s[i].first_ts = tot[i].first_ts;
		out->s[i].last_ts = tot[i].last_ts;
	}
	return 0;
}

static const struct buf_stats *stats_find(const struct text_views *vw, size_t buffer)
{
	size_t i;

	for (i = 0; i < vw->nbs; i++)
		if (vw->bs[i]->buffer == buffer)
			return vw->bs[i];
	return NULL;
}

/* @buffer's stats, made on first use. */
static int stats_get(struct tdatfs_text *t, size_t buffer,
		     const struct buf_stats **out)
{
	struct text_views *vw = views_get(t);
	struct buf_stats made = { 0 }, **bs, *one;
	int ret;

	if (!vw)
		return -errno;
	pthread_mutex_lock(&vw->lock);
	*out = stats_find(vw, buffer);
	pthread_mutex_unlock(&vw->lock);
	if (*out)
		return 0;
	/* produced without the lock: views of other buffers go on */
	ret = stats_make(t, buffer, &made);
	if (ret < 0) {
		free(made.s);
		return ret;
	}
	pthread_mutex_lock(&vw->lock);
	*out = stats_find(vw, buffer);
	if (!*out) {
		bs = realloc(vw->bs, (vw->nbs + 1) * sizeof(*bs));
		one = malloc(sizeof(*one));
		if (bs)
			vw->bs = bs;
		if (bs && one) {
			*one = made;
			made.s = NULL;
			bs[vw->nbs++] = one;
			*out = one;
		} else {
			free(one);
		}
	}
	pthread_mutex_unlock(&vw->lock);
	free(made.s);
	return *out ? 0 : -ENOMEM;
}

int tdatfs_text_event_stats(struct tdatfs_text *t, size_t buffer,
			    const struct tdatfs_text_event_stat **stats,
			    size_t *n)
{
	const struct buf_stats *bs;
	int ret;

	*stats = NULL;
	*n = 0;
	if (!t)
		return -EINVAL;
	ret = stats_get(t, buffer, &bs);
	if (ret < 0)
		return ret;
	*stats = bs->s;
	*n = bs->n;
	return 0;
}

static int stat_cmp(const void *key, const void *elem)
{
	int id = *(const int *)key;
	const struct tdatfs_text_event_stat *s = elem;

	return id < s->id ? -1 : id > s->id;
}

/* The event @id's entry in @bs (sorted by id), or NULL. */
static const struct tdatfs_text_event_stat *stat_find(const struct buf_stats *bs,
						      int id)
{
	return bs->n ? bsearch(&id, bs->s, bs->n, sizeof(*bs->s), stat_cmp) : NULL;
}

/*
 * Whether @v is a view of something, and what its stream keeps; for an
 * event, *@ev its stats.  Return: 0, -ENOENT, -EINVAL, or the error of
 * making the buffer's stats.
 */
static int view_check(struct tdatfs_text *t, const struct tdatfs_text_view *v,
		      struct text_filter *flt,
		      const struct tdatfs_text_event_stat **ev)
{
	const struct buf_stats *bs;
	int ret;

	*ev = NULL;
	memset(flt, 0, sizeof(*flt));
	if (v->kind == TDATFS_VIEW_TIMELINE || v->kind == TDATFS_VIEW_PFTRACE) {
		if (v->cpu != -1 || (v->t1 <= v->t0 && (v->t0 || v->t1)))
			return -ENOENT;
		/* a window's starts from the merged text's account */
		return v->t1 ? stats_get(t, v->buffer, &bs) : 0;
	}
	ret = stats_get(t, v->buffer, &bs);
	if (ret < 0)
		return ret;
	switch (v->kind) {
	case TDATFS_VIEW_EVENT:
	case TDATFS_VIEW_FIELDS:
		*ev = stat_find(bs, v->event);
		if (!*ev || v->cpu != -1)
			return -ENOENT;
		flt->kind = v->kind == TDATFS_VIEW_EVENT ? TEXT_FILTER_EVENT :
			    TEXT_FILTER_FIELDS;
		flt->id = v->event;
		return 0;
	case TDATFS_VIEW_WINDOW:
		if (v->t1 <= v->t0 || v->cpu < -1)
			return -ENOENT;
		flt->kind = TEXT_FILTER_WINDOW;
		flt->k0 = v->t0;
		flt->k1 = v->t1;
		return 0;
	case TDATFS_VIEW_TIMELINE:
	case TDATFS_VIEW_PFTRACE:
		break;
	}
	return -EINVAL;
}

/* The key of @v with the members its kind does not use zeroed. */
static struct tdatfs_text_view view_key(const struct tdatfs_text_view *v)
{
	struct tdatfs_text_view k;

	memset(&k, 0, sizeof(k));
	k.kind = v->kind;
	k.buffer = v->buffer;
	k.cpu = v->kind == TDATFS_VIEW_WINDOW ? v->cpu : -1;
	if (v->kind == TDATFS_VIEW_WINDOW || v->kind == TDATFS_VIEW_TIMELINE ||
	    v->kind == TDATFS_VIEW_PFTRACE) {
		k.t0 = v->t0;
		k.t1 = v->t1;
	} else {
		k.event = v->event;
	}
	return k;
}

static bool key_eq(const struct tdatfs_text_view *a, const struct tdatfs_text_view *b)
{
	return a->kind == b->kind && a->buffer == b->buffer && a->cpu == b->cpu &&
	       a->event == b->event && a->t0 == b->t0 && a->t1 == b->t1;
}

/*
 * The full text a view is cut from: a window of one CPU of a one-CPU
 * buffer is cut from its merged text, which is that CPU's (the engine
 * makes it once, tdatfs_text_keys()).
 */
static int view_full(struct tdatfs_text *t, const struct tdatfs_text_view *k,
		     struct text_stream **full)
{
	const struct tdat_buffer *buf = tdat_buffer_get(text_engine_file(t), k->buffer);
	int cpu = k->cpu;

	if (!buf || (cpu >= 0 && (unsigned int)cpu >= buf->ncpus))
		return -ENOENT;
	if (cpu == 0 && buf->ncpus == 1)
		cpu = -1;
	return full_stream(t, k->buffer, cpu, full);
}

/* The fields header of a view: none but for fields.tsv. */
static int view_head(struct text_fmt *fmt, const struct text_filter *flt,
		     char **head)
{
	struct tdatfs_buf b = { 0 };
	int ret;

	*head = NULL;
	if (flt->kind != TEXT_FILTER_FIELDS) {
		*head = strdup("");
		return *head ? 0 : -ENOMEM;
	}
	ret = text_fields_header(fmt, flt->id, &b);
	if (!ret)
		ret = tdatfs_buf_put(&b, "", 1);	/* the NUL */
	if (ret < 0) {
		tdatfs_buf_release(&b);
		return ret;
	}
	*head = b.p;
	return 0;
}

/* What text_pics_get() draws a picture with. */
struct pic_draw {
	struct tdatfs_text *t;
	const struct tdatfs_text_view *k;
};

static int pic_draw(void *ctx, char **bytes, size_t *len)
{
	const struct pic_draw *d = ctx;
	const struct tdatfs_text_event_stat *ev;
	struct text_filter flt;
	int ret = view_check(d->t, d->k, &flt, &ev);

	return ret ? ret : text_timeline_make(d->t, d->k->buffer, d->k->t0,
					      d->k->t1, bytes, len);
}

/*
 * The bytes of picture @v, drawn if need be: a copy of @len wanted from
 * @off into @buf (NULL: its size only).  Return: 0 or a negative errno.
 */
static int pic_get(struct tdatfs_text *t, const struct tdatfs_text_view *v,
		   char *buf, size_t len, uint64_t off, size_t *got,
		   uint64_t *size)
{
	struct tdatfs_text_view k = view_key(v);
	struct text_views *vw = views_get(t);
	struct pic_draw d = { .t = t, .k = &k };

	if (!vw)
		return -errno;
	if (v->cpu != -1)
		return -ENOENT;	/* a picture is of all the buffer's CPUs */
	return text_pics_get(vw->pics, text_engine_file(t), &k, pic_draw, &d,
			     buf, len, off, got, size);
}

/*
 * A read of trace.pftrace @v (@buf NULL: none), its size into @size
 * when not NULL; the file made by its first use.  Return: bytes read,
 * or a negative errno.
 */
static ssize_t pf_read(struct tdatfs_text *t, const struct tdatfs_text_view *v,
		       char *buf, size_t len, uint64_t off, uint64_t *size)
{
	struct tdatfs_text_view k = view_key(v);
	struct text_views *vw = views_get(t);
	const struct tdatfs_text_event_stat *ev;
	struct text_pf_file *pf;
	struct text_filter flt;
	uint64_t ksize = 0;
	ssize_t n = 0;
	bool kept;
	int ret;

	if (!vw)
		return -errno;
	ret = view_check(t, &k, &flt, &ev);
	if (ret < 0)
		return ret;
	/* a whole buffer's size kept by an index: a stat costs no pass */
	kept = !k.t0 && !k.t1 &&
	       text_pf_cache_size_kept(vw->pfs, k.buffer, &ksize);
	if (kept && !buf) {
		*size = ksize;
		return 0;
	}
	ret = text_pf_cache_get(vw->pfs, t, k.buffer, k.t0, k.t1, &pf);
	if (ret < 0)
		return ret;
	if (size)
		*size = text_pf_file_size(pf);
	if (kept && text_pf_file_size(pf) != ksize)
		n = -EIO;	/* the trace changed since the size was kept */
	else if (buf)
		n = text_pf_file_read(pf, buf, len, off);
	text_pf_cache_put(vw->pfs, pf);
	return n;
}

/* Forget the text @e keeps (lock held). */
static void kept_drop(struct text_views *vw, struct view_entry *e)
{
	if (!e->kept)
		return;
	vw->kept_bytes -= e->klen;
	tdat_cache_charge(vw->f, e->klen, true);
	free(e->kept);
	e->kept = NULL;
	e->klen = 0;
}

/*
 * Keep @text, the whole text of @e (taken: emptied), charged to @f's
 * chunk cache, forgetting the least recently used ones past the bound;
 * lock held.
 */
static void kept_store(struct text_views *vw, struct tdat_file *f,
		       struct view_entry *e, struct tdatfs_buf *text)
{
	if (e->kept || !text->len || text->len > KEPT_BYTES)
		return;
	while (vw->kept_bytes + text->len > KEPT_BYTES) {
		struct view_entry *lru = NULL;

		for (size_t i = 0; i < vw->n; i++)
			if (vw->e[i]->kept && (!lru || vw->e[i]->used < lru->used))
				lru = vw->e[i];
		if (!lru)
			return;
		kept_drop(vw, lru);
	}
	vw->f = f;
	tdat_cache_charge(f, text->len, false);
	e->kept = text->p;
	e->klen = text->len;
	vw->kept_bytes += text->len;
	*text = (struct tdatfs_buf){ 0 };
}

/*
 * A read of view @v from the text its entry keeps: true with *@n the
 * bytes copied, false when none is kept.
 */
static bool kept_read(struct tdatfs_text *t, const struct tdatfs_text_view *v,
		      char *buf, size_t len, uint64_t off, ssize_t *n)
{
	struct tdatfs_text_view k = view_key(v);
	struct text_views *vw = views_get(t);
	bool found = false;

	if (!vw)
		return false;
	pthread_mutex_lock(&vw->lock);
	/* no walk of the table while nothing is kept (most reads) */
	for (size_t i = 0; vw->kept_bytes && i < vw->n && !found; i++) {
		struct view_entry *e = vw->e[i];

		if (!e->kept || !key_eq(&e->key, &k))
			continue;
		found = true;
		*n = off < e->klen ? (ssize_t)(e->klen - off < len ? e->klen - off : len) : 0;
		if (*n)
			memcpy(buf, e->kept + off, (size_t)*n);
		e->used = ++vw->tick;
	}
	pthread_mutex_unlock(&vw->lock);
	return found;
}

/* Free a view's stream that the read-ahead workers of @a may know. */
static void stream_drop(struct text_read_ahead *a, struct text_stream *st)
{
	text_read_ahead_forget(a, st);
	text_stream_free(st);
}

/* Free the stream of the least recently used entry not in use. */
static void streams_trim(struct text_views *vw, struct text_read_ahead *a)
{
	struct view_entry *lru = NULL;
	size_t i;

	if (vw->nstreams < VIEW_STREAMS)
		return;
	for (i = 0; i < vw->n; i++) {
		struct view_entry *e = vw->e[i];

		if (e->st && !e->refs && (!lru || e->used < lru->used))
			lru = e;
	}
	if (lru) {
		stream_drop(a, lru->st);
		lru->st = NULL;
		vw->nstreams--;
	}
}

/* The entry of @k, made when new; NULL when out of memory (lock held). */
static struct view_entry *entry_find(struct text_views *vw,
				     const struct tdatfs_text_view *k,
				     struct text_read_ahead *a)
{
	struct view_entry *e, **arr;
	size_t i, lru = vw->n;

	for (i = 0; i < vw->n; i++)
		if (key_eq(&vw->e[i]->key, k))
			return vw->e[i];
	if (vw->n >= VIEW_MAX) {
		/* forget the least recently used view not in use */
		for (i = 0; i < vw->n; i++)
			if (!vw->e[i]->refs &&
			    (lru == vw->n || vw->e[i]->used < vw->e[lru]->used))
				lru = i;
		if (lru == vw->n)
			return NULL;
		e = vw->e[lru];
		if (e->st)
			vw->nstreams--;
		stream_drop(a, e->st);
		kept_drop(vw, e);
		memset(e, 0, sizeof(*e));
		e->key = *k;
		return e;
	}
	if (vw->n == vw->cap) {
		size_t cap = vw->cap ? vw->cap * 2 : 16;

		arr = realloc(vw->e, cap * sizeof(*arr));
		if (!arr)
			return NULL;
		vw->e = arr;
		vw->cap = cap;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = *k;
	vw->e[vw->n++] = e;
	return e;
}

/*
 * The entry of view @v with its stream, held (entry_put() after); on
 * the way, *@ev as view_check() sets it.  Return: 0 or a negative errno.
 */
static int entry_get(struct tdatfs_text *t, const struct tdatfs_text_view *v,
		     struct view_entry **out,
		     const struct tdatfs_text_event_stat **ev)
{
	struct tdatfs_text_view k = view_key(v);
	struct text_views *vw = views_get(t);
	struct text_stream *full = NULL;
	const struct text_comms *cm;
	struct text_filter flt;
	struct text_fmt *fmt;
	struct view_entry *e;
	char *head = NULL;
	int ret;

	if (!vw)
		return -errno;
	ret = view_check(t, &k, &flt, ev);
	if (!ret)
		ret = view_full(t, &k, &full);
	if (!ret)
		ret = text_engine_fmt(t, &fmt, &cm);
	/* a row per record: also those printed on another record's line */
	if (!ret && flt.kind == TEXT_FILTER_FIELDS)
		flt.every = text_fmt_folds(fmt, flt.id);
	if (!ret)
		ret = view_head(fmt, &flt, &head);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(&vw->lock);
	e = entry_find(vw, &k, text_engine_ahead(t));
	if (e && !e->st) {
		streams_trim(vw, text_engine_ahead(t));
		e->st = text_stream_new_view(full, &flt, head);
		if (e->st)
			vw->nstreams++;
		else
			ret = -errno;
	}
	if (!e)
		ret = -ENOMEM;
	if (!ret) {
		e->refs++;
		e->used = ++vw->tick;
		*out = e;
	}
	pthread_mutex_unlock(&vw->lock);
	free(head);
	return ret;
}

static void entry_put(struct tdatfs_text *t, struct view_entry *e)
{
	struct text_views *vw = views_get(t);

	pthread_mutex_lock(&vw->lock);
	e->refs--;
	if (!e->size_known && text_stream_size(e->st, &e->size) == 0)
		e->size_known = true;
	pthread_mutex_unlock(&vw->lock);
}

int tdatfs_text_event_has_fields(struct tdatfs_text *t, int id)
{
	struct tdatfs_buf head = { 0 };
	const struct text_comms *cm;
	struct text_fmt *fmt;
	int ret;

	if (!t)
		return -EINVAL;
	ret = text_engine_fmt(t, &fmt, &cm);
	if (ret < 0)
		return ret;
	/* the header is what an event without a format cannot have */
	ret = text_fields_header(fmt, id, &head);
	tdatfs_buf_release(&head);
	return ret == -ENOENT ? 0 : ret < 0 ? ret : 1;
}

ssize_t tdatfs_text_view_read(struct tdatfs_text *t,
			      const struct tdatfs_text_view *v, char *buf,
			      size_t len, uint64_t off)
{
	const struct tdatfs_text_event_stat *ev;
	struct view_entry *e;
	ssize_t n;
	int ret;

	if (!t || !v || (!buf && len))
		return -EINVAL;
	if (v->kind == TDATFS_VIEW_TIMELINE) {
		size_t got;
		uint64_t size;

		ret = pic_get(t, v, buf, len, off, &got, &size);
		return ret < 0 ? ret : (ssize_t)got;
	}
	if (v->kind == TDATFS_VIEW_PFTRACE)
		return pf_read(t, v, buf, len, off, NULL);
	if (kept_read(t, v, buf, len, off, &n))
		return n;
	ret = entry_get(t, v, &e, &ev);
	if (ret < 0)
		return ret;
	/* an event's view is read ahead as a finished text is */
	n = text_read_ahead_read(text_engine_ahead(t), e->st, buf, len, off,
				 true);
	entry_put(t, e);
	return n;
}

/* The size a view's entry knows, without making its stream. */
static bool size_cached(struct tdatfs_text *t, const struct tdatfs_text_view *v,
			uint64_t *size)
{
	struct tdatfs_text_view k = view_key(v);
	struct text_views *vw = views_get(t);
	bool known = false;
	size_t i;

	if (!vw)
		return false;
	pthread_mutex_lock(&vw->lock);
	for (i = 0; i < vw->n; i++) {
		if (key_eq(&vw->e[i]->key, &k) && vw->e[i]->size_known) {
			*size = vw->e[i]->size;
			known = true;
		}
	}
	pthread_mutex_unlock(&vw->lock);
	return known;
}

/*
 * The size of the view of @e, made by cutting its text on the engine's
 * read-ahead threads (the work is the view's, once); its text kept when
 * small, for the reads that follow.  Return: 0 or a negative errno.
 */
static int view_cut(struct tdatfs_text *t, struct view_entry *e, uint64_t *size)
{
	struct text_views *vw = views_get(t);
	unsigned int threads = text_read_ahead_threads(text_engine_ahead(t));
	struct tdatfs_buf text = { 0 };
	int ret = text_view_size_cut(e->st, threads, KEPT_BYTES, &text);

	if (!ret)
		ret = text_stream_size(e->st, size);
	if (!ret && text.len) {
		pthread_mutex_lock(&vw->lock);
		kept_store(vw, text_engine_file(t), e, &text);
		pthread_mutex_unlock(&vw->lock);
	}
	tdatfs_buf_release(&text);
	return ret;
}

int tdatfs_text_view_size(struct tdatfs_text *t, const struct tdatfs_text_view *v,
			  uint64_t *size)
{
	const struct tdatfs_text_event_stat *ev;
	struct text_filter flt;
	struct view_entry *e;
	int ret;

	if (!t || !v || !size)
		return -EINVAL;
	if (v->kind == TDATFS_VIEW_TIMELINE) {
		size_t got;

		return pic_get(t, v, NULL, 0, 0, &got, size);
	}
	if (v->kind == TDATFS_VIEW_PFTRACE)
		return (int)pf_read(t, v, NULL, 0, 0, size);
	if (size_cached(t, v, size))
		return 0;
	if (v->kind == TDATFS_VIEW_EVENT) {
		ret = view_check(t, v, &flt, &ev);
		if (!ret)
			*size = ev->bytes;
		return ret;
	}
	ret = entry_get(t, v, &e, &ev);
	if (ret < 0)
		return ret;
	ret = text_stream_size(e->st, size);
	if (ret == -EAGAIN)
		ret = view_cut(t, e, size);
	entry_put(t, e);
	return ret;
}

int tdatfs_text_whole_sizes(struct tdatfs_text *t, size_t buffer,
			    uint64_t *timeline, uint64_t *pftrace)
{
	struct tdatfs_text_view v = {
		.kind = TDATFS_VIEW_TIMELINE, .buffer = buffer, .cpu = -1,
	};
	const struct tdat_buffer *b;
	int ret;

	if (!t || !timeline || !pftrace)
		return -EINVAL;
	b = tdat_buffer_get(text_engine_file(t), buffer);
	if (!b)
		return -EINVAL;
	if (b->latency)
		return -ENOENT;
	ret = tdatfs_text_view_size(t, &v, timeline);
	v.kind = TDATFS_VIEW_PFTRACE;
	return ret ? ret : tdatfs_text_view_size(t, &v, pftrace);
}

int tdatfs_text_pftrace_layout(struct tdatfs_text *t, size_t buffer,
			       void **bytes, size_t *len)
{
	struct text_views *vw = t ? views_get(t) : NULL;
	const struct tdat_buffer *b;

	if (!vw)
		return t ? -errno : -EINVAL;
	b = tdat_buffer_get(text_engine_file(t), buffer);
	if (!b || !bytes || !len)
		return -EINVAL;
	if (b->latency)
		return -ENOENT;
	return text_pf_cache_layout(vw->pfs, t, buffer, bytes, len);
}

int tdatfs_text_pftrace_layout_keep(struct tdatfs_text *t, size_t buffer,
				    const void *bytes, size_t len)
{
	struct text_views *vw = t ? views_get(t) : NULL;

	if (!vw)
		return t ? -errno : -EINVAL;
	if (!bytes)
		return -EINVAL;
	return text_pf_cache_layout_keep(vw->pfs, t, buffer, bytes, len);
}

int tdatfs_text_whole_sizes_keep(struct tdatfs_text *t, size_t buffer,
				 uint64_t timeline, uint64_t pftrace)
{
	struct tdatfs_text_view k = {
		.kind = TDATFS_VIEW_TIMELINE, .buffer = buffer, .cpu = -1,
	};
	struct text_views *vw = t ? views_get(t) : NULL;
	const struct tdat_buffer *b;
	int ret;

	if (!vw)
		return t ? -errno : -EINVAL;
	b = tdat_buffer_get(text_engine_file(t), buffer);
	/* a latency buffer has neither file; a picture is never empty */
	if (!b || b->latency || !timeline || timeline > SIZE_MAX)
		return -EINVAL;
	ret = text_pf_cache_size_keep(vw->pfs, buffer, pftrace);
	if (ret < 0)
		return ret;
	k = view_key(&k);
	return text_pics_size_keep(vw->pics, &k, timeline);
}
