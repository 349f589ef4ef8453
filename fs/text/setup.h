/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/setup.h - the layers an engine prints with, built in
 * trace-cmd's order: the libtraceevent handle and its plugins, the
 * metadata (v6: file order; v7: the reverse of the option order), the
 * timestamps, the comms, the event table and the formatter.  Not a
 * public header: the engine (text/engine.c) owns one set.
 *
 * Invariants:
 *  - Built once by text_layers_setup(), then only read (each layer locks
 *    what it changes itself); text_layers_release() frees what was built,
 *    also after a setup that failed half way.
 *  - A setup fails the same way for the same file, but for -ENOMEM.
 */
#ifndef TDATFS_TEXT_SETUP_H
#define TDATFS_TEXT_SETUP_H

#include "tdatfs-text.h"
#include "tep.h"

struct tdat_file;
struct text_comms;
struct text_events;
struct text_fmt;
struct text_tep;
struct text_timestamp;

struct text_layers {
	struct tdat_file *f;
	struct tdatfs_text_opts opts;
	struct text_kallsyms_share *ksyms;	/* the engine's, borrowed */
	struct text_tep *tep;
	struct text_events *evs;
	struct text_comms *comms;
	struct text_timestamp *ts;
	struct text_fmt *fmt;
	struct text_page_fmt pf;
};

struct text_kallsyms_share;
int text_layers_setup(struct text_layers *l, struct tdat_file *f,
		      const struct tdatfs_text_opts *opts,
		      struct text_kallsyms_share *ksyms);
void text_layers_release(struct text_layers *l);

#endif /* TDATFS_TEXT_SETUP_H */
