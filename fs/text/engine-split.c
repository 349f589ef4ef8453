/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/engine-split.c - a buffer's merged text and its CPU texts made in
 * two parts at once, on two engines, then joined on the first
 * (text/stream-split.c says how a text splits and when a join holds).
 * The invariants are in text/engine-internal.h; the public functions
 * are documented in tdatfs-text.h.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-text.h"
#include "engine-internal.h"
#include "source.h"
#include "stream.h"

struct tdatfs_text_split {
	struct tdatfs_text *t[2];
	size_t buffer;
	unsigned int ncpu;
	uint64_t ts;			/* T: part 2 starts at its records */
	struct text_pos *pos;		/* where part 2 starts */
	struct text_stream *m[2];	/* the merged text of each part */
	struct text_stream **cpus[2];	/* its CPU texts led, NULL: apart */
	bool *made[2];
	/* the comm models part 2 started from: merged, then each CPU's */
	struct tdatfs_buf *model;
};

void tdatfs_text_split_free(struct tdatfs_text_split *s)
{
	if (!s)
		return;
	for (int i = 0; i < 2; i++) {
		free(s->cpus[i]);
		free(s->made[i]);
	}
	for (unsigned int c = 0; s->model && c <= s->ncpu; c++)
		tdatfs_buf_release(&s->model[c]);
	free(s->model);
	free(s->pos);
	free(s);
}

/* Part 1, made to stop at T and lead its CPUs; part 2's streams made. */
static int make_parts(struct tdatfs_text_split *s)
{
	int ret;

	ret = text_eng_stream_as(s->t[0], s->buffer, -1, true, TEXT_CPU_LOOK,
				 &s->m[0]);
	if (!ret)
		ret = text_eng_cpu_streams(s->t[0], s->buffer, s->ncpu, s->cpus[0]);
	if (!ret)
		ret = text_stream_split_point(s->m[0], &s->ts, s->pos);
	if (!ret)
		ret = text_stream_lead(s->m[0], s->cpus[0]);
	if (ret)
		return ret;
	text_stream_stop_at(s->m[0], s->ts);
	ret = text_eng_stream_as(s->t[1], s->buffer, -1, true, TEXT_CPU_LOOK,
				 &s->m[1]);
	if (!ret)
		ret = text_eng_cpu_streams(s->t[1], s->buffer, s->ncpu, s->cpus[1]);
	/* a CPU part 1 does not lead, part 2 does not either */
	for (unsigned int c = 0; !ret && c < s->ncpu; c++)
		if (!s->cpus[0][c])
			s->cpus[1][c] = NULL;
	return ret;
}

struct tdatfs_text_split *tdatfs_text_split_new(struct tdatfs_text *t1,
						struct tdatfs_text *t2,
						size_t buffer)
{
	struct tdatfs_text_split *s;
	int ret = -ENOMEM;

	if (!t1 || !t2 || t1 == t2 || !tdatfs_text_can_lead(t1, buffer)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->t[0] = t1;
	s->t[1] = t2;
	s->buffer = buffer;
	s->ncpu = tdat_buffer_get(t1->f, buffer)->ncpus;
	s->pos = calloc(s->ncpu + 1, sizeof(*s->pos));
	s->model = calloc(s->ncpu + 1, sizeof(*s->model));
	for (int i = 0; i < 2; i++) {
		s->cpus[i] = calloc(s->ncpu + 1, sizeof(*s->cpus[i]));
		s->made[i] = calloc(s->ncpu + 1, sizeof(*s->made[i]));
	}
	if (s->pos && s->model && s->cpus[0] && s->cpus[1] && s->made[0] &&
	    s->made[1])
		ret = make_parts(s);
	if (ret) {
		tdatfs_text_split_free(s);
		errno = -ret;
		return NULL;
	}
	return s;
}

/*
 * Part 2 started: its models learned from the records before T, and
 * kept as they start; its CPUs led.  Return: 0 or a negative errno.
 */
static int start_second(struct tdatfs_text_split *s)
{
	int ret = text_stream_start_part(s->m[1], s->cpus[1], s->ts, s->pos);

	if (!ret)
		ret = text_stream_model_save(s->m[1], &s->model[0]);
	for (unsigned int c = 0; !ret && c < s->ncpu; c++)
		if (s->cpus[1][c])
			ret = text_stream_model_save(s->cpus[1][c], &s->model[1 + c]);
	return ret ? ret : text_stream_lead(s->m[1], s->cpus[1]);
}

int tdatfs_text_split_part(struct tdatfs_text_split *s, unsigned int part,
			   const _Atomic bool *cancel, _Atomic uint64_t *done)
{
	int ret;

	if (!s || part > 1)
		return -EINVAL;
	ret = part ? start_second(s) : 0;
	return ret ? ret : text_eng_produce_to_end(s->m[part], cancel, done, 2);
}

/*
 * The CPU texts of part 2 joined to part 1's; *@made says which hold.
 * Return: 0 or a negative errno.
 */
static int join_cpus(struct tdatfs_text_split *s, bool *made)
{
	int ret = 0;

	for (unsigned int c = 0; !ret && c < s->ncpu; c++) {
		made[c] = s->made[0][c] && s->made[1][c] && s->cpus[1][c];
		if (!made[c])
			continue;
		ret = text_stream_join(s->cpus[0][c], s->cpus[1][c],
				       s->t[0]->l.comms, &s->model[1 + c]);
		if (ret == -EXDEV) {
			made[c] = false;
			ret = 0;
		}
	}
	return ret;
}

/*
 * Part 1's texts forgotten on its engine, to be made again in a row:
 * the merged one and every CPU's it led.
 */
static void forget_all(struct tdatfs_text_split *s)
{
	text_eng_stream_forget(s->t[0], s->buffer, -1);
	for (unsigned int c = 0; c < s->ncpu; c++)
		if (s->cpus[0][c])
			text_eng_stream_forget(s->t[0], s->buffer, (int)c);
}

int tdatfs_text_split_join(struct tdatfs_text_split *s, const _Atomic bool *cancel,
			   _Atomic uint64_t *done)
{
	unsigned int apart = 0;
	bool *made;
	int ret;

	if (!s)
		return -EINVAL;
	made = calloc(s->ncpu + 1, sizeof(*made));
	if (!made)
		return -ENOMEM;
	text_stream_lead_end(s->m[0], s->made[0]);
	text_stream_lead_end(s->m[1], s->made[1]);
	ret = text_stream_ends_at(s->m[0], s->pos) ?
	      text_stream_join(s->m[0], s->m[1], s->t[0]->l.comms, &s->model[0]) :
	      -EXDEV;
	if (!ret)
		ret = join_cpus(s, made);
	for (unsigned int c = 0; !ret && c < s->ncpu; c++) {
		apart += !made[c];
		/* its first part alone is no text: made again */
		if (!made[c] && s->cpus[0][c])
			text_eng_stream_forget(s->t[0], s->buffer, (int)c);
	}
	if (!ret)
		ret = text_eng_produce_rest(s->t[0], s->buffer, s->ncpu, made,
					    cancel, done);
	if (ret == -EXDEV) {
		/* the parts do not make the text in a row: made so */
		forget_all(s);
		ret = tdatfs_text_produce_led(s->t[0], s->buffer, cancel, done);
		apart = s->ncpu + 1;
	}
	free(made);
	return ret < 0 ? ret : (int)apart;
}
