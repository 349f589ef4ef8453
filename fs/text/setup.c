/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/setup.c - the layers an engine prints with, built in
 * trace-cmd's order (text/setup.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "comm.h"
#include "event-table.h"
#include "line.h"
#include "setup.h"
#include "tep.h"
#include "timestamp.h"

/* saved_cmdlines into the handle and into the comms of the engine. */
static int parse_cmdlines(struct text_layers *t)
{
	uint64_t size;
	char *buf;
	int ret;

	ret = text_tep_read_meta(t->f, TDAT_META_CMDLINES, &buf, &size);
	if (ret < 0)
		return ret;
	if (buf)
		ret = text_tep_parse_cmdlines(t->tep, buf);
	if (!ret)
		t->comms = text_comms_new(buf);
	free(buf);
	if (ret < 0)
		return ret;
	return t->comms ? 0 : -ENOMEM;
}

/* The non-ftrace formats: all of them, or in a lazy table the few first. */
static int parse_formats(struct text_layers *t, bool ftrace)
{
	if (text_events_lazy(t->evs))
		return ftrace ? 0 : text_events_preload(t->evs);
	return text_tep_parse_formats(t->tep, ftrace);
}

/*
 * The metadata in the order trace-cmd reads it (v6: file order; v7: the
 * reverse of the option order, as its section list is built by
 * prepending).
 */
static int parse_meta(struct text_layers *t)
{
	int ret;

	if (tdat_version(t->f) >= 7) {
		ret = parse_cmdlines(t);
		if (!ret)
			ret = text_tep_parse_printk(t->tep);
		if (!ret)
			ret = parse_formats(t, false);
		if (!ret)
			ret = parse_formats(t, true);
		if (!ret)
			ret = text_tep_parse_header_page(t->tep);
	} else {
		ret = text_tep_parse_header_page(t->tep);
		if (!ret)
			ret = parse_formats(t, true);
		if (!ret)
			ret = parse_formats(t, false);
		if (!ret)
			ret = text_tep_parse_printk(t->tep);
		if (!ret)
			ret = parse_cmdlines(t);
	}
	return ret;
}

static size_t max_page_size(struct tdat_file *f)
{
	uint32_t max_page = tdat_page_size(f);
	size_t i;

	for (i = 0; i < tdat_buffer_count(f); i++) {
		const struct tdat_buffer *b = tdat_buffer_get(f, i);

		if (b && b->page_size > max_page)
			max_page = b->page_size;
	}
	return max_page;
}

/*
 * Build the layers as trace-cmd builds its handle: plugins first (their
 * handlers attach when the formats are parsed), then the metadata.
 * Formats are parsed when first met where that prints the same
 * (text/event-table.c) and kallsyms is read at the first address lookup.
 */
static int setup(struct text_layers *t)
{
	int ret;

	t->tep = text_tep_new(t->f, t->ksyms);
	if (!t->tep)
		return -ENOMEM;
	t->evs = text_events_new(t->f, t->tep, t->opts.eager, t->opts.tep_only);
	if (!t->evs)
		return -ENOMEM;
	ret = parse_meta(t);
	if (ret < 0)
		return ret;
	text_tep_page_fmt(t->tep, &t->pf);
	t->ts = text_timestamp_new(t->f);
	if (!t->ts)
		return -ENOMEM;
	ret = text_tep_sort_comms(t->tep);
	if (ret < 0)
		return ret;
	text_comms_find_events(t->comms, text_tep_handle(t->tep));
	ret = text_events_finish(t->evs);
	if (ret < 0)
		return ret;
	t->fmt = text_fmt_new(t->tep, t->evs, t->comms, t->ts, t->pf.big_endian,
			      max_page_size(t->f));
	if (!t->fmt)
		return -ENOMEM;
	ret = text_fmt_enable_graph(t->fmt, t->f);
	return ret < 0 ? ret : text_fmt_enable_func(t->fmt, t->f);
}

/**
 * text_layers_setup() - build the layers for a trace
 * @l: zeroed layers (or released ones)
 * @f: the trace; must outlive the layers
 * @opts: the engine's switches (copied)
 * @ksyms: where the kallsyms table comes from; must outlive the layers
 *
 * Return: 0, or a negative errno; then what was built is still in @l
 * for text_layers_release().
 */
int text_layers_setup(struct text_layers *l, struct tdat_file *f,
		      const struct tdatfs_text_opts *opts,
		      struct text_kallsyms_share *ksyms)
{
	l->f = f;
	l->opts = *opts;
	l->ksyms = ksyms;
	return setup(l);
}

/**
 * text_layers_release() - free what text_layers_setup() built
 * @l: layers; all NULL is fine
 *
 * The layers are zero afterwards (but @f, the switches and the share).
 */
void text_layers_release(struct text_layers *l)
{
	text_fmt_free(l->fmt);
	text_events_free(l->evs);
	text_comms_free(l->comms);
	text_timestamp_free(l->ts);
	text_tep_free(l->tep);
	l->fmt = NULL;
	l->evs = NULL;
	l->comms = NULL;
	l->ts = NULL;
	l->tep = NULL;
}
