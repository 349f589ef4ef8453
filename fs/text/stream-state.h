/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream-state.h - a text stream's state as bytes: what producing
 * its text to the end learned (its size, checkpoints, comm model, the
 * function call stacks at each checkpoint), saved
 * and loaded into a new stream of the same text.
 *
 * Invariants:
 *  - A loaded stream reads exactly as the saved one did, byte for byte,
 *    and knows its size without a read.
 *  - Bytes are checked whole (layout, version, slots, offsets rising and
 *    inside the text, pages inside each CPU, comm counts inside the
 *    model) before a stream takes any of them; on an error nothing
 *    changes.  A count in them allocates only once the bytes are known
 *    to hold that many entries, so hostile bytes cost memory in
 *    proportion to their length at most.
 *  - The layout is this machine's (its byte order and a version number):
 *    whoever stores the bytes records the machine.
 */
#ifndef TDATFS_TEXT_STREAM_STATE_H
#define TDATFS_TEXT_STREAM_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

struct tdat_file;
struct text_comms;
struct text_stream;
struct text_stream_part;

int text_stream_state_save(struct text_stream *st, void **blob, size_t *len);
int text_stream_state_check(struct tdat_file *f,
			    const struct text_stream_part *parts, size_t nparts,
			    const char *head, size_t b, int cpu,
			    const void *blob, size_t len, uint64_t *size);
int text_stream_state_load(struct text_stream *st, const struct text_comms *cm,
			   const void *blob, size_t len);
enum text_cpu_read text_stream_state_cpu_read(const void *blob, size_t len, int cpu);

#endif /* TDATFS_TEXT_STREAM_STATE_H */
