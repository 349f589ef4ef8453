/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-engine.h - what the engine (tdatfs-text.c) shows of itself
 * to whitebox tests; nothing in the engine's own layers uses it.
 *
 * Invariants:
 *  - The stream returned is the one tdatfs_text_read() of the same
 *    (buffer, cpu), or tdatfs_text_report_read(), uses; it belongs to
 *    the engine.  A report made of one buffer's merged text (see
 *    tdatfs_text_keys()) is read from that text, not from the stream
 *    text_engine_report() makes, which is the same text made apart.
 */
#ifndef TDATFS_TEXT_ENGINE_H
#define TDATFS_TEXT_ENGINE_H

#include <stddef.h>

struct tdatfs_text;
struct text_stream;

struct text_stream *text_engine_stream(struct tdatfs_text *t, size_t buffer,
				       int cpu);
struct text_stream *text_engine_report(struct tdatfs_text *t);

#endif /* TDATFS_TEXT_ENGINE_H */
