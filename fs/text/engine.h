/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/engine.h - what the engine (text/engine.c) shows of itself
 * to whitebox tests and to the views above it (text/views.c);
 * nothing in the engine's own layers uses it.
 *
 * Invariants:
 *  - The stream returned is the one tdatfs_text_read() of the same
 *    (buffer, cpu), or tdatfs_text_report_read(), uses; it belongs to
 *    the engine.  A report made of one buffer's merged text (see
 *    tdatfs_text_keys()) is read from that text, not from the stream
 *    text_engine_report() makes, which is the same text made apart.
 *  - The ext slot holds one layer's per-engine state, made once under
 *    the engine lock and freed with the engine, after its read-ahead
 *    workers stopped; a stream of that layer freed before is forgotten
 *    by them first (text_read_ahead_forget()).
 */
#ifndef TDATFS_TEXT_ENGINE_H
#define TDATFS_TEXT_ENGINE_H

#include <stddef.h>

struct tdat_file;
struct tdatfs_text;
struct text_stream;

struct text_stream *text_engine_stream(struct tdatfs_text *t, size_t buffer,
				       int cpu);
struct text_stream *text_engine_report(struct tdatfs_text *t);

/* For the views, the layer above the engine (text/views.c). */
struct text_read_ahead;
struct text_comms;
struct text_fmt;
int text_engine_fmt(struct tdatfs_text *t, struct text_fmt **fmt,
		    const struct text_comms **cm);
struct tdat_file *text_engine_file(struct tdatfs_text *t);
struct text_read_ahead *text_engine_ahead(struct tdatfs_text *t);
void *text_engine_ext(struct tdatfs_text *t, void *(*make)(void),
		      void (*destroy)(void *ext));

#endif /* TDATFS_TEXT_ENGINE_H */
