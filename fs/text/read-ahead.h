/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/read-ahead.h - reading ahead of a sequential reader of a
 * finished text on worker threads (the engine's "decode_threads").
 *
 * Invariants:
 *  - Only a finished text (exact size, every checkpoint known) is read
 *    ahead, and only for a reader whose read starts where its previous
 *    one ended: the stretches after it, each [checkpoint j, checkpoint
 *    j + 1), are produced by the workers, each through a mirror of the
 *    text (text_stream_new_mirror()) of its own.  Short stretches (a
 *    view's) are handed out a few at a time, as one job.  Text produced again
 *    from a checkpoint is byte-identical, so what a read returns does not
 *    depend on who produced it: the reader copies from stretches ready,
 *    waits for one in progress, and produces itself (through the text's
 *    own stream) what no worker has.
 *  - A stretch a worker stopped early (an error, a cancel) is used up to
 *    where it stopped; the reader produces the rest itself, so an error
 *    comes back at the offset and with the errno of a read without
 *    workers.
 *  - Memory is bounded: the stretches queued or held, with the buffers
 *    of finished ones kept for the next, take at most AHEAD_BUDGET bytes
 *    of text per engine (half of it per reader), and each worker keeps
 *    one mirror (the text it worked on last).
 *  - A reader that stops waiting (its cancel hook, tdatfs_text_cancel_set())
 *    returns -EINTR and leaves its stretches to the next read; a
 *    stretch no reader wants any more is freed by whoever holds it last.
 *  - text_read_ahead_free() stops the workers (their reads are cancelled) and
 *    joins them before it returns; the texts must outlive the call.  A
 *    text freed before the pool (a view's) is forgotten first
 *    (text_read_ahead_forget()).
 *  - All calls are thread-safe.
 */
#ifndef TDATFS_TEXT_READ_AHEAD_H
#define TDATFS_TEXT_READ_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct text_read_ahead;
struct text_stream;

/*
 * Text bytes queued or produced ahead, at most, per engine: 2 MiB ahead of
 * a reader keeps two workers busy (32 stretches of 64 KiB), and the
 * daemon's peak RSS stays within cache_size + 32 MiB (big.dat, `cat` of
 * trace, report and cpu0's text: 94 MiB with 2 workers, 78 MiB without).
 */
#define AHEAD_BUDGET	(4u << 20)

struct text_read_ahead *text_read_ahead_new(unsigned int nthreads);
void text_read_ahead_free(struct text_read_ahead *a);
unsigned int text_read_ahead_threads(const struct text_read_ahead *a);
ssize_t text_read_ahead_read(struct text_read_ahead *a,
			     struct text_stream *full, char *buf, size_t len,
			     uint64_t off, bool span);
void text_read_ahead_forget(struct text_read_ahead *a,
			    struct text_stream *full);

#endif /* TDATFS_TEXT_READ_AHEAD_H */
