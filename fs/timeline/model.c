/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline/model.c - the model of a timeline picture (tdatfs-timeline.h):
 * per lane the long intervals and the runs of short ones, gathered as
 * they are fed and gathered again at a doubled threshold when there are
 * too many; the tasks with their comms and running times; the density
 * columns and the print ticks.  Drawn by timeline/svg.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"
#include "tdatfs-timeline.h"
#include "internal.h"

/* Room for one more of @size bytes in *@arr of *@cap; 0 or -ENOMEM. */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*arr, c * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

struct tdatfs_timeline *tdatfs_timeline_new(const struct tdatfs_timeline_opts *o)
{
	struct tdatfs_timeline *tl;
	unsigned int i;

	if (!o || (o->nlanes && !o->cpus) || o->t1 <= o->t0) {
		errno = EINVAL;
		return NULL;
	}
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	tl->title = strdup(o->title ? o->title : "");
	tl->lanes = calloc(o->nlanes + 1, sizeof(*tl->lanes));
	tl->cache = calloc(TL_CACHE, sizeof(*tl->cache));
	if (!tl->title || !tl->lanes || !tl->cache) {
		tdatfs_timeline_free(tl);
		errno = ENOMEM;
		return NULL;
	}
	tl->nlanes = o->nlanes;
	for (i = 0; i < o->nlanes; i++)
		tl->lanes[i].cpu = o->cpus[i];
	for (i = 0; i < TL_CACHE; i++)
		tl->cache[i].pid = -1;
	tl->t0 = o->t0;
	tl->t1 = o->t1;
	tl->in_secs = o->in_secs;
	tl->max_bytes = o->max_bytes ? o->max_bytes : TDATFS_TIMELINE_MAX_BYTES;
	tl->scale = (double)TL_W / (double)(o->t1 - o->t0);
	tl->th = 1;
	tl->pw = 1;
	tl->dw = 1;
	return tl;
}

static void lane_release(struct tl_lane *l)
{
	size_t i;

	free(l->segs);
	free(l->pcs);
	free(l->dens);
	for (i = 0; i < l->nticks; i++)
		free(l->ticks[i].text);
	free(l->ticks);
}

void tdatfs_timeline_free(struct tdatfs_timeline *tl)
{
	unsigned int i;

	if (!tl)
		return;
	for (i = 0; tl->lanes && i < tl->nlanes; i++)
		lane_release(&tl->lanes[i]);
	free(tl->lanes);
	free(tl->tasks);
	free(tl->cache);
	free(tl->title);
	free(tl);
}

double tdatfs_timeline_threshold(const struct tdatfs_timeline *tl)
{
	return tl->th;
}

/* Double the task table; 0 or -ENOMEM. */
static int tasks_grow(struct tdatfs_timeline *tl)
{
	size_t c = tl->ctasks ? tl->ctasks * 2 : 256, i;
	struct tl_task *t = malloc(c * sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < c; i++)
		t[i].pid = -1;
	for (i = 0; i < tl->ctasks; i++) {
		size_t h;

		if (tl->tasks[i].pid < 0)
			continue;
		for (h = tl_pid_hash(tl->tasks[i].pid); t[h & (c - 1)].pid >= 0; h++)
			;
		t[h & (c - 1)] = tl->tasks[i];
	}
	free(tl->tasks);
	tl->tasks = t;
	tl->ctasks = c;
	return 0;
}

/* The task of @pid, made when new; NULL when out of memory. */
static struct tl_task *task_get(struct tdatfs_timeline *tl, int pid)
{
	struct tl_task *t;
	size_t h;

	if ((tl->ntasks + 1) * 2 > tl->ctasks && tasks_grow(tl) < 0)
		return NULL;
	for (h = tl_pid_hash(pid);; h++) {
		t = &tl->tasks[h & (tl->ctasks - 1)];
		if (t->pid == pid)
			return t;
		if (t->pid < 0)
			break;
	}
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	tl->ntasks++;
	return t;
}

int tdatfs_timeline_comm(struct tdatfs_timeline *tl, int pid, const char *comm,
			  size_t len,
		  uint64_t ts)
{
	struct tl_task *t;
	const char *nul;

	if (pid < 0)
		return 0;
	t = task_get(tl, pid);
	if (!t)
		return -ENOMEM;
	if (t->has_comm && ts < t->comm_ts)
		return 0;
	if (len > TL_COMM)
		len = TL_COMM;
	nul = memchr(comm, '\0', len);
	if (nul)
		len = nul - comm;
	memcpy(t->comm, comm, len);
	t->comm[len] = '\0';
	t->has_comm = true;
	t->comm_ts = ts;
	return 0;
}

/* A new segment at the end of @l; 0 or -ENOMEM. */
static int seg_add(struct tl_lane *l, double x0, double x1)
{
	struct tl_seg *s;

	if (grow((void **)&l->segs, &l->csegs, l->nsegs, sizeof(*l->segs)) < 0)
		return -ENOMEM;
	s = &l->segs[l->nsegs++];
	s->x0 = x0;
	s->x1 = x1;
	s->first = l->npcs;
	s->n = 0;
	return 0;
}

/* Add @w of @pid to the last segment of lane @li (a run: once per pid). */
static int piece_put(struct tdatfs_timeline *tl, unsigned int li, int pid, double w)
{
	struct tl_lane *l = &tl->lanes[li];
	struct tl_seg *s = &l->segs[l->nsegs - 1];
	struct tl_cache *c = &tl->cache[(tl_pid_hash(pid) ^ li * 40503u) % TL_CACHE];
	size_t i, stop = s->n > 8 ? s->first + s->n - 8 : s->first;

	if (c->lane == li && c->pid == pid && c->idx >= s->first &&
	    c->idx < s->first + s->n && l->pcs[c->idx].pid == pid) {
		l->pcs[c->idx].w += w;
		return 0;
	}
	for (i = s->first + s->n; i > stop; i--) {
		if (l->pcs[i - 1].pid == pid) {
			l->pcs[i - 1].w += w;
			return 0;
		}
	}
	if (grow((void **)&l->pcs, &l->cpcs, l->npcs, sizeof(*l->pcs)) < 0)
		return -ENOMEM;
	l->pcs[l->npcs].pid = pid;
	l->pcs[l->npcs].w = w;
	c->lane = li;
	c->pid = pid;
	c->idx = l->npcs++;
	s->n++;
	tl->npieces++;
	return 0;
}

/*
 * Lane @li gets [@x0, @x1) holding @np pieces: a long interval or a
 * segment of its own when at least th px, else gathered into the open
 * run (TIMELINE.md "Merging").
 */
static int lane_add(struct tdatfs_timeline *tl, unsigned int li, double x0, double x1,
		    const struct tl_piece *p, size_t np)
{
	struct tl_lane *l = &tl->lanes[li];
	struct tl_seg *r = l->open ? &l->segs[l->nsegs - 1] : NULL;
	bool is_long = x1 - x0 >= tl->th;
	size_t i;
	int ret;

	if (r && (is_long || x0 - r->x1 >= tl->th))
		l->open = false;
	if (!l->open) {
		ret = seg_add(l, x0, x1);
		if (ret < 0)
			return ret;
		l->open = !is_long;
	}
	r = &l->segs[l->nsegs - 1];
	for (i = 0; i < np; i++) {
		ret = piece_put(tl, li, p[i].pid, p[i].w);
		if (ret < 0)
			return ret;
	}
	if (x1 > r->x1)
		r->x1 = x1;
	if (r->x1 - r->x0 >= tl->th)
		l->open = false;
	return 0;
}

/* Gather lane @li again at the threshold now. */
static int lane_regather(struct tdatfs_timeline *tl, unsigned int li)
{
	struct tl_lane *l = &tl->lanes[li];
	struct tl_seg *segs = l->segs;
	struct tl_piece *pcs = l->pcs;
	size_t k, nsegs = l->nsegs;
	int ret = 0;

	l->segs = NULL;
	l->pcs = NULL;
	l->nsegs = l->csegs = l->npcs = l->cpcs = 0;
	l->open = false;
	for (k = 0; !ret && k < nsegs; k++)
		ret = lane_add(tl, li, segs[k].x0, segs[k].x1,
			       &pcs[segs[k].first], segs[k].n);
	free(segs);
	free(pcs);
	return ret;
}

/**
 * coarsen() - double the merging threshold and gather every lane again
 * @tl: picture
 *
 * Past the plot's width (every lane one run) doubling gathers nothing
 * more: then @th_max is set and the narrowest pieces are left out of the
 * drawing instead (@min_w, doubling from 1/64 px).
 *
 * Return: 0 or -ENOMEM.
 */
static int coarsen(struct tdatfs_timeline *tl)
{
	unsigned int i;
	int ret = 0;

	if (tl->th_max) {
		tl->min_w = tl->min_w ? tl->min_w * 2 : 1.0 / 64;
		return 0;
	}
	tl->th *= 2;
	if (tl->th > 4 * TL_W)
		tl->th_max = true;
	for (i = 0; i < TL_CACHE; i++)
		tl->cache[i].pid = -1;
	tl->npieces = 0;
	for (i = 0; !ret && i < tl->nlanes; i++)
		ret = lane_regather(tl, i);
	return ret;
}

/* @ts as px from the left edge (not clipped). */
static double px(const struct tdatfs_timeline *tl, uint64_t ts)
{
	return (double)(ts - tl->t0) * tl->scale;
}

int tdatfs_timeline_run(struct tdatfs_timeline *tl, unsigned int lane, int pid,
		 uint64_t start, uint64_t end)
{
	struct tl_piece p;
	struct tl_task *t;
	int ret;

	if (lane >= tl->nlanes)
		return -EINVAL;
	if (start < tl->t0)
		start = tl->t0;
	if (end > tl->t1)
		end = tl->t1;
	if (pid <= 0 || end <= start)
		return 0;
	t = task_get(tl, pid);
	if (!t)
		return -ENOMEM;
	t->ns += end - start;
	p.pid = pid;
	p.w = (double)(end - start) * tl->scale;
	ret = lane_add(tl, lane, px(tl, start), px(tl, end), &p, 1);
	while (!ret && !tl->th_max && tl->npieces > TDATFS_TIMELINE_PIECES_MAX)
		ret = coarsen(tl);
	return ret;
}

/* The px column of @ts, clamped to the plot. */
static uint32_t column(const struct tdatfs_timeline *tl, uint64_t ts)
{
	double x = px(tl, ts);

	return x >= TL_W ? TL_W - 1 : (uint32_t)x;
}

int tdatfs_timeline_record(struct tdatfs_timeline *tl, unsigned int lane, uint64_t ts)
{
	struct tl_lane *l;

	if (lane >= tl->nlanes)
		return -EINVAL;
	if (ts < tl->t0 || ts >= tl->t1)
		return 0;
	l = &tl->lanes[lane];
	if (!l->dens) {
		l->dens = calloc(TL_W, sizeof(*l->dens));
		if (!l->dens)
			return -ENOMEM;
	}
	if (l->dens[column(tl, ts)] < UINT32_MAX)
		l->dens[column(tl, ts)]++;
	l->records++;
	return 0;
}

/* The tick of column @col in @l, made when new (kept in column order). */
static struct tl_tick *tick_get(struct tl_lane *l, uint32_t col, bool *made)
{
	size_t i = l->nticks;

	*made = false;
	while (i > 0 && l->ticks[i - 1].col > col)
		i--;
	if (i > 0 && l->ticks[i - 1].col == col)
		return &l->ticks[i - 1];
	if (grow((void **)&l->ticks, &l->cticks, l->nticks, sizeof(*l->ticks)) < 0)
		return NULL;
	memmove(&l->ticks[i + 1], &l->ticks[i], (l->nticks - i) * sizeof(*l->ticks));
	l->nticks++;
	memset(&l->ticks[i], 0, sizeof(l->ticks[i]));
	l->ticks[i].col = col;
	*made = true;
	return &l->ticks[i];
}

int tdatfs_timeline_print(struct tdatfs_timeline *tl, unsigned int lane, uint64_t ts,
		   const char *text, size_t len)
{
	struct tl_tick *k;
	bool made;

	if (lane >= tl->nlanes)
		return -EINVAL;
	if (ts < tl->t0 || ts >= tl->t1)
		return 0;
	k = tick_get(&tl->lanes[lane], column(tl, ts), &made);
	if (!k)
		return -ENOMEM;
	k->n++;
	if (!made)
		return 0;
	if (len && text[len - 1] == '\n')
		len--;
	k->cut = len > TDATFS_TIMELINE_PRINT_MAX;
	if (k->cut)
		len = TDATFS_TIMELINE_PRINT_MAX;
	k->text = malloc(len + 1);
	if (!k->text)
		return -ENOMEM;
	memcpy(k->text, text, len);
	k->len = len;
	return 0;
}

int tdatfs_timeline_render(struct tdatfs_timeline *tl, bool density,
			    char **out, size_t *len)
{
	struct tdatfs_buf b = { 0 };
	struct tl_bytes by;
	int ret, tries;

	*out = NULL;
	*len = 0;
	for (tries = 0; tries < 200; tries++) {
		b.len = 0;
		ret = tl_draw(tl, density, &b, &by);
		if (ret < 0)
			break;
		if (b.len <= tl->max_bytes) {
			if (b.p)
				b.p[b.len] = '\0';	/* the room is always there */
			*out = b.p ? b.p : strdup("");
			*len = b.len;
			return *out ? 0 : -ENOMEM;
		}
		/* coarsen what takes the most room */
		if (by.prints >= by.bars && by.prints >= by.dens &&
		    tl->pw < TL_W)
			tl->pw *= 2;
		else if (density && tl->dw < TL_W)
			tl->dw *= 2;
		else if (!density && (by.bars || !tl->th_max))
			ret = coarsen(tl);
		else if (tl->pw < TL_W)
			tl->pw *= 2;
		else if (!tl->bare)
			tl->bare = true;
		else
			break;
		if (ret < 0)
			break;
	}
	tdatfs_buf_release(&b);
	return ret < 0 ? ret : -EFBIG;
}
