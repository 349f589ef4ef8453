/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline/svg.c - the drawing of a timeline picture: the SVG
 * elements of doc/TIMELINE.md (lanes, bars grouped per task, density
 * columns, print ticks, axis, legend) from the model of
 * timeline/model.c.  Every number is printed the same way each time, so
 * the same model gives the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"
#include "tdatfs-timeline.h"
#include "internal.h"

#define TOP		34	/* y of the first lane */
#define LEGEND_MAX	20
#define LEGEND_COLS	4

/* Lane geometry: height and gap. */
static void lane_dims(unsigned int n, unsigned int *h, unsigned int *gap)
{
	unsigned int per;

	if (n <= 64) {
		*h = 18;
		*gap = 6;
		return;
	}
	per = 1500 / n;
	if (per < 3)
		per = 3;
	*gap = per >= 6 ? 2 : 1;
	*h = per - *gap;
}

/**
 * tl_task_find() - the task of a pid
 * @tl: picture
 * @pid: the task
 *
 * Return: its entry, or NULL for a pid never fed.
 */
const struct tl_task *tl_task_find(const struct tdatfs_timeline *tl, int pid)
{
	size_t h;

	if (!tl->ctasks || pid < 0)
		return NULL;
	for (h = tl_pid_hash(pid);; h++) {
		const struct tl_task *t = &tl->tasks[h & (tl->ctasks - 1)];

		if (t->pid == pid)
			return t;
		if (t->pid < 0)
			return NULL;
	}
}

/**
 * tl_colour() - the colour of a task, the same on every lane
 * @pid: the task
 *
 * A hue from the pid, saturated and light (never the lanes' greys
 * nor the prints' red exactly).
 *
 * Return: 0xRRGGBB.
 */
uint32_t tl_colour(int pid)
{
	/* HSV to RGB: per sixth of the hue, which of v, q, p, t is r, g, b */
	static const unsigned char pick[6][3] = {
		{ 0, 3, 2 }, { 1, 0, 2 }, { 2, 0, 3 },
		{ 2, 1, 0 }, { 3, 2, 0 }, { 0, 2, 1 },
	};
	uint32_t h = (uint32_t)pid * 2654435761u, rgb = 0;
	unsigned int hue, i;
	double sat, val, f, c[4];

	h ^= h >> 13;
	hue = h % 360;
	sat = 0.55 + (double)((h >> 9) % 35) / 100;
	val = 0.70 + (double)((h >> 17) % 21) / 100;
	f = (double)(hue % 60) / 60;
	c[0] = val;
	c[1] = val * (1 - sat * f);
	c[2] = val * (1 - sat);
	c[3] = val * (1 - sat * (1 - f));
	for (i = 0; i < 3; i++)
		rgb = rgb << 8 | (uint32_t)(c[pick[hue / 60][i]] * 255 + 0.5);
	return rgb;
}

/* A literal (or any C string). */
static int put_s(struct tdatfs_buf *b, const char *s)
{
	return tdatfs_buf_put(b, s, strlen(s));
}

/* The length of a valid UTF-8 sequence XML takes at @s, or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	/* U+FFFE and U+FFFF are not XML characters */
	if (s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 0;
	return len;
}

/*
 * @n bytes of @s as XML text or attribute value: the markup characters
 * as entities, control bytes and bytes that are not UTF-8 as "\xNN".
 */
static int put_esc(struct tdatfs_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;
	int ret = 0;

	while (!ret && i < n) {
		unsigned char c = u[i];

		if (c == '&')
			ret = put_s(b, "&amp;");
		else if (c == '<')
			ret = put_s(b, "&lt;");
		else if (c == '>')
			ret = put_s(b, "&gt;");
		else if (c == '"')
			ret = put_s(b, "&quot;");
		else if (c == '\'')
			ret = put_s(b, "&apos;");
		else if (c >= 0x20 && c < 0x7f)
			ret = tdatfs_buf_put(b, s + i, 1);
		else if (c >= 0x80 && (k = utf8_len(u + i, n - i)) > 0) {
			ret = tdatfs_buf_put(b, s + i, k);
			i += k;
			continue;
		} else {
			ret = tdatfs_buf_printf(b, "\\x%02x", c);
		}
		i++;
	}
	return ret;
}

static const char *comm_of(const struct tdatfs_timeline *tl, int pid)
{
	const struct tl_task *t = tl_task_find(tl, pid);

	return t && t->has_comm ? t->comm : "<...>";
}

/* "SEC.FRAC" of @v ns with @dec decimals (truncated), or the raw count. */
static int put_time(struct tdatfs_buf *b, const struct tdatfs_timeline *tl,
		    uint64_t v, unsigned int dec)
{
	uint64_t div = 1;
	unsigned int i;

	if (!tl->in_secs)
		return tdatfs_buf_printf(b, "%" PRIu64, v);
	if (!dec)
		return tdatfs_buf_printf(b, "%" PRIu64, v / 1000000000);
	for (i = dec; i < 9; i++)
		div *= 10;
	return tdatfs_buf_printf(b, "%" PRIu64 ".%0*" PRIu64, v / 1000000000,
				 (int)dec, v % 1000000000 / div);
}

/* A running time as the legend shows it: ms in seconds mode. */
static int put_dur(struct tdatfs_buf *b, const struct tdatfs_timeline *tl,
		   uint64_t ns)
{
	if (!tl->in_secs)
		return tdatfs_buf_printf(b, "%" PRIu64, ns);
	return tdatfs_buf_printf(b, "%" PRIu64 ".%03" PRIu64 " ms",
				 ns / 1000000, ns % 1000000 / 1000);
}

static int draw_head(const struct tdatfs_timeline *tl, struct tdatfs_buf *b,
		     unsigned int height)
{
	int ret;

	ret = tdatfs_buf_printf(b,
				"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
				"height=\"%u\" viewBox=\"0 0 %u %u\" ",
				TDATFS_TIMELINE_SVG_WIDTH, height,
				TDATFS_TIMELINE_SVG_WIDTH, height);
	if (!ret)
		ret = tdatfs_buf_printf(b, "font-family=\"sans-serif\" font-size=\"12\" "
					"data-t0=\"%" PRIu64 "\" data-t1=\"%" PRIu64
					"\" data-left=\"%u\" data-width=\"%u\" ",
					tl->t0, tl->t1, TL_LEFT, TL_W);
	if (!ret)
		ret = tdatfs_buf_printf(b, "data-th=\"%g\">\n<rect x=\"0\" y=\"0\" "
					"width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n",
					tl->th, TDATFS_TIMELINE_SVG_WIDTH,
					height);
	if (!ret)
		ret = put_s(b, "<text class=\"title\" x=\"10\" y=\"20\" "
				   "font-size=\"14\">");
	if (!ret)
		ret = put_esc(b, tl->title, strlen(tl->title));
	if (!ret)
		ret = put_s(b, ": ");
	if (!ret)
		ret = put_time(b, tl, tl->t0, 6);
	if (!ret)
		ret = put_s(b, " - ");
	if (!ret)
		ret = put_time(b, tl, tl->t1, 6);
	if (!ret)
		ret = tdatfs_buf_printf(b, "%s, %u CPUs</text>\n",
					tl->in_secs ? " s" : "", tl->nlanes);
	return ret;
}

/* One bar piece, for grouping a lane's pieces by task. */
struct bar {
	int32_t pid;
	uint32_t ord;
	double x, w;
};

static int bar_cmp(const void *a, const void *b)
{
	const struct bar *p = a, *q = b;

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return p->ord < q->ord ? -1 : p->ord > q->ord;
}

/* The bars of lane @l: one group per task, its pieces laid out per run. */
static int draw_bars(const struct tdatfs_timeline *tl, const struct tl_lane *l,
		     unsigned int y, unsigned int h, struct tdatfs_buf *b)
{
	struct bar *bars = malloc((l->npcs + 1) * sizeof(*bars));
	size_t k, i, n = 0;
	int ret = 0;

	if (!bars)
		return -ENOMEM;
	for (k = 0; k < l->nsegs; k++) {
		double x = l->segs[k].x0;

		for (i = l->segs[k].first; i < l->segs[k].first + l->segs[k].n; i++) {
			if (l->pcs[i].w >= tl->min_w && l->pcs[i].w > 0) {
				bars[n].pid = l->pcs[i].pid;
				bars[n].ord = n;
				bars[n].x = x;
				bars[n++].w = l->pcs[i].w;
			}
			x += l->pcs[i].w;
		}
	}
	qsort(bars, n, sizeof(*bars), bar_cmp);
	for (i = 0; !ret && i < n; i++) {
		if (!i || bars[i].pid != bars[i - 1].pid) {
			const char *c = comm_of(tl, bars[i].pid);

			if (i)
				ret = put_s(b, "</g>\n");
			if (!ret)
				ret = tdatfs_buf_printf(b, "<g class=\"task\" data-pid=\"%d\" "
							"data-comm=\"",
							bars[i].pid);
			if (!ret)
				ret = put_esc(b, c, strlen(c));
			if (!ret)
				ret = tdatfs_buf_printf(b, "\" fill=\"#%06x\"><title>",
							tl_colour(bars[i].pid));
			if (!ret)
				ret = put_esc(b, c, strlen(c));
			if (!ret)
				ret = tdatfs_buf_printf(b, "-%d</title>",
							bars[i].pid);
		}
		if (!ret)
			ret = tdatfs_buf_printf(b, "<rect x=\"%.3f\" y=\"%u\" width=\"%.3f\" "
						"height=\"%u\"/>",
						TL_LEFT + bars[i].x, y,
						bars[i].w, h);
	}
	if (!ret && n)
		ret = put_s(b, "</g>\n");
	free(bars);
	return ret;
}

/* The largest density column of the picture. */
static uint64_t dens_max(const struct tdatfs_timeline *tl)
{
	uint64_t most = 0, sum;
	unsigned int i, c;

	for (i = 0; i < tl->nlanes; i++) {
		const struct tl_lane *l = &tl->lanes[i];

		for (c = 0; l->dens && c < TL_W; c += tl->dw) {
			unsigned int j;

			for (sum = 0, j = c; j < c + tl->dw && j < TL_W; j++)
				sum += l->dens[j];
			if (sum > most)
				most = sum;
		}
	}
	return most;
}

/* The density columns of lane @l, heights out of @most. */
static int draw_dens(const struct tdatfs_timeline *tl, const struct tl_lane *l,
		     unsigned int y, unsigned int h, uint64_t most,
		     struct tdatfs_buf *b)
{
	unsigned int c, j;
	int ret = put_s(b, "<g class=\"density\" fill=\"#3a6fb0\">");

	for (c = 0; !ret && l->dens && c < TL_W; c += tl->dw) {
		uint64_t sum = 0;
		unsigned int ch;

		for (j = c; j < c + tl->dw && j < TL_W; j++)
			sum += l->dens[j];
		if (!sum)
			continue;
		ch = (unsigned int)((sum * h + most - 1) / most);
		ret = tdatfs_buf_printf(b,
					"<rect x=\"%u\" y=\"%u\" width=\"%u\" "
					"height=\"%u\" data-n=\"%" PRIu64 "\"/>",
					TL_LEFT + c, y + h - ch, tl->dw, ch,
					sum);
	}
	return ret ? ret : put_s(b, "</g>\n");
}

/* The print ticks of lane @l, one per print column. */
static int draw_prints(const struct tdatfs_timeline *tl, const struct tl_lane *l,
		       unsigned int y, unsigned int h, struct tdatfs_buf *b)
{
	size_t i = 0, j;
	int ret = put_s(b, "<g class=\"print\">");

	while (!ret && i < l->nticks) {
		const struct tl_tick *k = &l->ticks[i];
		uint32_t col = k->col / tl->pw * tl->pw;
		uint64_t n = 0;

		for (j = i; j < l->nticks &&
			    l->ticks[j].col / tl->pw * tl->pw == col; j++)
			n += l->ticks[j].n;
		i = j;
		ret = tdatfs_buf_printf(b, "<line x1=\"%u.5\" x2=\"%u.5\" y1=\"%u\" "
					"y2=\"%u\" stroke=\"#d00000\" data-n=\"%"
					PRIu64 "\"><title>", TL_LEFT + col,
					TL_LEFT + col, y, y + h, n);
		if (!ret)
			ret = put_esc(b, k->text, k->len);
		if (!ret && k->cut)
			ret = put_s(b, "...");
		if (!ret && n > 1)
			ret = tdatfs_buf_printf(b, " (+%" PRIu64 " more)",
						n - 1);
		if (!ret)
			ret = put_s(b, "</title></line>");
	}
	return ret ? ret : put_s(b, "</g>\n");
}

/* Lane @i at @y: background, marker, label, then what it shows. */
static int draw_lane(const struct tdatfs_timeline *tl, unsigned int i, unsigned int y,
		     unsigned int h, bool density, uint64_t most,
		     struct tdatfs_buf *b, struct tl_bytes *by)
{
	const struct tl_lane *l = &tl->lanes[i];
	size_t at;
	int ret;

	ret = tdatfs_buf_printf(b, "<g class=\"lane\" data-cpu=\"%u\" data-y=\"%u\" "
				"data-h=\"%u\">\n<rect class=\"bg\" x=\"%u\" y=\"%u\" "
				"width=\"%u\" height=\"%u\" fill=\"#f4f4f4\"/>",
				l->cpu, y, h, TL_LEFT, y, TL_W, h);
	if (!ret)
		ret = tdatfs_buf_printf(b, "<rect class=\"mark\" x=\"%u\" y=\"%u\" "
					"width=\"6\" height=\"%u\" fill=\"#303030\"/>",
					TL_LEFT - 10, y, h);
	if (!ret)
		ret = tdatfs_buf_printf(b, "<text x=\"%u\" y=\"%u\" font-size=\"%u\" "
					"text-anchor=\"end\">cpu%u</text>\n",
					TL_LEFT - 14,
					y + h - (h > 4 ? h / 4 : 0),
					h < 12 ? h + 1 : 12, l->cpu);
	at = b->len;
	if (!ret && density)
		ret = draw_dens(tl, l, y, h, most, b);
	else if (!ret)
		ret = draw_bars(tl, l, y, h, b);
	if (density)
		by->dens += b->len - at;
	else
		by->bars += b->len - at;
	at = b->len;
	if (!ret)
		ret = draw_prints(tl, l, y, h, b);
	by->prints += b->len - at;
	return ret ? ret : put_s(b, "</g>\n");
}

/* Ticks in [t0, t1) at multiples of @step. */
static uint64_t tick_count(const struct tdatfs_timeline *tl, uint64_t step)
{
	uint64_t first = tl->t0 / step + (tl->t0 % step != 0);
	uint64_t last = (tl->t1 - 1) / step;

	return last >= first ? last - first + 1 : 0;
}

/* The axis step: 1, 2 or 5 x 10^k giving 5 to 12 ticks; *@k10 the k. */
static uint64_t axis_step(const struct tdatfs_timeline *tl, unsigned int *k10)
{
	static const unsigned int m[] = { 1, 2, 5 };
	uint64_t p = 1, step = 1;
	unsigned int k, i;

	for (k = 0; k < 19; k++, p *= 10) {
		for (i = 0; i < 3; i++) {
			step = m[i] * p;
			*k10 = k;
			if (tick_count(tl, step) <= 12)
				return step;
		}
	}
	return step;
}

static int draw_axis(const struct tdatfs_timeline *tl, unsigned int y,
		     struct tdatfs_buf *b)
{
	unsigned int k10, dec;
	uint64_t step = axis_step(tl, &k10), v;
	int ret;

	dec = !tl->in_secs || k10 >= 9 ? 0 : 9 - k10;
	ret = tdatfs_buf_printf(b, "<g class=\"axis\" stroke=\"#000000\">"
				"<line x1=\"%u\" x2=\"%u\" y1=\"%u\" y2=\"%u\"/>\n",
				TL_LEFT, TL_LEFT + TL_W, y, y);
	v = tl->t0 / step * step;
	if (v < tl->t0)
		v += step;
	for (; !ret && v < tl->t1; v += step) {
		double x = TL_LEFT + (double)(v - tl->t0) * tl->scale;

		ret = tdatfs_buf_printf(b, "<line x1=\"%.3f\" x2=\"%.3f\" y1=\"%u\" "
					"y2=\"%u\"/><text x=\"%.3f\" y=\"%u\" stroke=\"none\" "
					"text-anchor=\"middle\">", x, x, y,
					y + 5, x, y + 18);
		if (!ret)
			ret = put_time(b, tl, v, dec);
		if (!ret)
			ret = put_s(b, "</text>\n");
		if (v > UINT64_MAX - step)
			break;
	}
	if (!ret)
		ret = tdatfs_buf_printf(b, "<text x=\"%u\" y=\"%u\" stroke=\"none\" "
					"text-anchor=\"end\">%s</text></g>\n",
					TL_LEFT + TL_W, y + 32,
					tl->in_secs ? "seconds" :
						      "clock counts");
	return ret;
}

static int task_cmp(const void *a, const void *b)
{
	const struct tl_task *p = *(const struct tl_task *const *)a;
	const struct tl_task *q = *(const struct tl_task *const *)b;

	if (p->ns != q->ns)
		return p->ns > q->ns ? -1 : 1;
	return p->pid < q->pid ? -1 : p->pid > q->pid;
}

/* The tasks with the most running time, at most LEGEND_MAX; their count. */
static size_t legend_tasks(const struct tdatfs_timeline *tl, const struct tl_task **top)
{
	const struct tl_task **all = malloc((tl->ntasks + 1) * sizeof(*all));
	size_t i, n = 0;

	if (!all)
		return 0;
	for (i = 0; i < tl->ctasks; i++)
		if (tl->tasks[i].pid > 0 && tl->tasks[i].ns)
			all[n++] = &tl->tasks[i];
	qsort(all, n, sizeof(*all), task_cmp);
	if (n > LEGEND_MAX)
		n = LEGEND_MAX;
	memcpy(top, all, n * sizeof(*all));
	free(all);
	return n;
}

static int draw_legend(const struct tdatfs_timeline *tl, const struct tl_task **top,
		       size_t n, unsigned int y, struct tdatfs_buf *b)
{
	size_t i;
	int ret = put_s(b, "<g class=\"legend\">\n");

	for (i = 0; !ret && i < n; i++) {
		unsigned int x = TL_LEFT + (i % LEGEND_COLS) * 360;
		unsigned int yy = y + (i / LEGEND_COLS) * 18;
		const char *c = comm_of(tl, top[i]->pid);

		ret = tdatfs_buf_printf(b, "<g class=\"legend-item\" data-pid=\"%d\" "
					"data-comm=\"", top[i]->pid);
		if (!ret)
			ret = put_esc(b, c, strlen(c));
		if (!ret)
			ret = tdatfs_buf_printf(b, "\" data-ns=\"%" PRIu64 "\"><rect x=\"%u\" "
						"y=\"%u\" width=\"12\" height=\"12\" "
						"fill=\"#%06x\"/><text x=\"%u\" y=\"%u\">",
						top[i]->ns, x, yy,
						tl_colour(top[i]->pid), x + 18,
						yy + 11);
		if (!ret)
			ret = put_esc(b, c, strlen(c));
		if (!ret)
			ret = tdatfs_buf_printf(b, "-%d  ", top[i]->pid);
		if (!ret)
			ret = put_dur(b, tl, top[i]->ns);
		if (!ret)
			ret = put_s(b, "</text></g>\n");
	}
	return ret ? ret : put_s(b, "</g>\n");
}

/**
 * tl_draw() - the SVG bytes of the model as it is now
 * @tl: picture
 * @density: density columns instead of bars
 * @out: the bytes are appended
 * @by: set to the bytes of the bars, density columns and print ticks
 *
 * Return: 0 or -ENOMEM.
 */
int tl_draw(struct tdatfs_timeline *tl, bool density, struct tdatfs_buf *out,
	    struct tl_bytes *by)
{
	const struct tl_task *top[LEGEND_MAX];
	unsigned int h, gap, i, y, axis, height;
	uint64_t most = density ? dens_max(tl) : 0;
	size_t n = density ? 0 : legend_tasks(tl, top);
	int ret;

	memset(by, 0, sizeof(*by));
	if (tl->bare) {
		ret = draw_head(tl, out, 60);
		if (!ret)
			ret = put_s(out, "<text x=\"10\" y=\"44\">too many CPUs to draw "
				    "within the bound</text>\n");
		return ret ? ret : put_s(out, "</svg>\n");
	}
	lane_dims(tl->nlanes, &h, &gap);
	axis = TOP + tl->nlanes * (h + gap) - gap + 6;
	height = axis + 46 + (unsigned int)((n + LEGEND_COLS - 1) / LEGEND_COLS) * 18;
	ret = draw_head(tl, out, height);
	for (i = 0, y = TOP; !ret && i < tl->nlanes; i++, y += h + gap)
		ret = draw_lane(tl, i, y, h, density, most ? most : 1, out, by);
	if (!ret)
		ret = draw_axis(tl, axis, out);
	if (!ret)
		ret = draw_legend(tl, top, n, axis + 46, out);
	return ret ? ret : put_s(out, "</svg>\n");
}
