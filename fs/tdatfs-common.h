/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-common.h - what every subsystem of fs/ may use and which uses
 * nothing of fs/: the growing byte buffer the text engine and the
 * timeline picture write into, and the progress line of long work (an
 * index build, a whole-trace check) with the signals that stop such work,
 * shared by both front ends.
 *
 * Invariants of the byte buffer (struct tdatfs_buf):
 *  - @p holds @len bytes of text; when @cap is not 0, @p has room for
 *    @cap bytes and @len < @cap (one byte is always free after the text,
 *    so a caller may put a NUL there; the buffer never does).
 *  - A zeroed struct is an empty buffer; it allocates on first growth.
 *  - The text is bytes, not a C string: it may hold NULs.
 *  - Appending never shortens the text; on -ENOMEM the text is as it was.
 *  - The owner frees @p with tdatfs_buf_release(); the struct itself is
 *    the owner's (usually embedded).
 *
 * Invariants of the progress line:
 *  - The line goes to stderr, and only after a second of work: shorter
 *    work stays silent.  On a terminal it is redrawn in place ("\r", the
 *    rest of a longer line blanked) at most five times a second and
 *    finished with a newline by tdatfs_progress_end(); elsewhere, only
 *    when asked for, it is a plain line every two seconds.
 *  - Its figures are the caller's: done out of a total in the caller's
 *    unit, a unit's bytes for the rate; time left assumes the rate so far.
 *  - One progress object is drawn by one thread at a time.
 *  - Signal stopping is process-wide (signal actions are): one
 *    tdatfs_progress_stop_on_signals() at a time, undone by
 *    tdatfs_progress_restore().  A signal ignored when it starts stays
 *    ignored (nohup, a shell's background job).
 */
#ifndef TDATFS_COMMON_H
#define TDATFS_COMMON_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* The byte buffer */

/**
 * struct tdatfs_buf - a growing run of bytes (invariants above)
 * @p: the bytes, or NULL before the first growth
 * @len: bytes held
 * @cap: bytes @p has room for (0 before the first growth)
 */
struct tdatfs_buf {
	char *p;
	size_t len;
	size_t cap;
};

/**
 * tdatfs_buf_reserve() - room for @n more bytes
 * @b: buffer
 * @n: bytes the caller will write at the returned pointer
 *
 * The caller writes at most @n bytes there and then sets @b->len; the
 * point is to write a line without a copy through a temporary.
 *
 * Return: b->p + b->len, or NULL when out of memory.
 */
char *tdatfs_buf_reserve(struct tdatfs_buf *b, size_t n);

/**
 * tdatfs_buf_put() - append bytes
 * @b: buffer
 * @s: bytes
 * @n: count
 *
 * Return: 0 or -ENOMEM.
 */
int tdatfs_buf_put(struct tdatfs_buf *b, const char *s, size_t n);

/**
 * tdatfs_buf_printf() - append formatted text, at most 255 bytes of it
 * @b: buffer
 * @fmt: printf format
 *
 * Only for the engine's own short lines (markers, dropped events): the
 * bound keeps them off the heap.
 *
 * Return: 0, -EINVAL on a format error, or -ENOMEM.
 */
int tdatfs_buf_printf(struct tdatfs_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * tdatfs_buf_release() - free the text and empty the buffer
 * @b: buffer, or NULL; the struct itself is not freed
 */
void tdatfs_buf_release(struct tdatfs_buf *b);

/* The progress line */

struct tdatfs_progress;

/**
 * struct tdatfs_progress_opts - what a progress line says
 * @prog: the program's name, first on the line
 * @trace: the trace's path, second
 * @what: the work, e.g. "indexing"
 * @unit: what @total counts, plural, e.g. "pages"
 * @unit_bytes: bytes of one unit, for the rate in MB/s (0: 1)
 * @total: units of the whole work; 0 shows nothing
 * @always: also when stderr is not a terminal (plain lines)
 *
 * The line reads "PROG: TRACE: WHAT: P% of TOTAL UNIT, R MB/s, S s left".
 * The strings must outlive the object.
 */
struct tdatfs_progress_opts {
	const char *prog;
	const char *trace;
	const char *what;
	const char *unit;
	uint64_t unit_bytes;
	uint64_t total;
	bool always;
};

/**
 * tdatfs_progress_new() - start the clock of a piece of work
 * @o: what the line says (copied; its strings are not)
 *
 * Decides once whether the line is shown at all (stderr a terminal, or
 * @o->always; @o->total not 0); a hidden one costs a clock read an update.
 *
 * Return: the object (free with tdatfs_progress_free()), or NULL with
 * errno set.
 */
struct tdatfs_progress *tdatfs_progress_new(const struct tdatfs_progress_opts *o);

/**
 * tdatfs_progress_update() - the work has reached @done units
 * @p: progress, or NULL (nothing happens)
 * @done: units done so far, at most the total
 *
 * Draws the line when the work has lasted a second and the last line is
 * old enough; otherwise returns at once.
 */
void tdatfs_progress_update(struct tdatfs_progress *p, uint64_t done);

/**
 * tdatfs_progress_end() - the work is over
 * @p: progress, or NULL
 * @done: units done in the end
 *
 * A line left on a terminal is redrawn with these figures and ended
 * with a newline; nothing else is printed.  No update may follow.
 */
void tdatfs_progress_end(struct tdatfs_progress *p, uint64_t done);

/**
 * tdatfs_progress_clear() - make room for another line on the terminal
 * @p: progress, or NULL
 *
 * A line drawn in place is blanked and the cursor put back at its start,
 * so that text printed next starts a clean line; the next update draws
 * the line anew.  Elsewhere nothing happens.
 */
void tdatfs_progress_clear(struct tdatfs_progress *p);

/**
 * tdatfs_progress_free() - free a progress object; NULL is fine
 * @p: progress
 */
void tdatfs_progress_free(struct tdatfs_progress *p);

/**
 * tdatfs_progress_stop_on_signals() - let SIGINT, SIGTERM, SIGHUP stop work
 * @cancel: set to true by the first of them that arrives (the flag a
 *	build polls); must stay valid until tdatfs_progress_restore()
 *
 * Each of the three that is not ignored is caught (SA_RESTART) and
 * remembered; the actions before are saved.  What to do about the
 * signal afterwards (exit 128 + N) is the caller's business.
 */
void tdatfs_progress_stop_on_signals(_Atomic bool *cancel);

/**
 * tdatfs_progress_restore() - put the signal actions saved back
 *
 * Return: the last of the signals that arrived since
 * tdatfs_progress_stop_on_signals(), or 0.
 */
int tdatfs_progress_restore(void);

#endif /* TDATFS_COMMON_H */
