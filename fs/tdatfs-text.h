/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text.h - decoded event text, byte-identical to trace-cmd report.
 *
 * Invariants:
 *  - One struct tdatfs_text per open trace.  Its libtraceevent handle
 *    (header page, event formats, kallsyms, printk formats, cmdlines, and
 *    the plugins trace-cmd loads) is built on the first read, not at
 *    creation, so creating it costs nothing at mount.
 *  - The text of a buffer (all CPUs merged in time order, or one CPU) is
 *    produced page by page on demand: the first bytes come without a pass
 *    over the whole buffer.  While text is produced, the byte offset where
 *    each page's text starts is remembered, so once a file's text has been
 *    produced its size is exact and a read at any offset decodes only the
 *    pages it covers.
 *  - The bytes at an offset never depend on the order of reads: the few
 *    things trace-cmd learns while printing (comms registered by the
 *    sched_switch plugin) are kept per text in text order and restored
 *    with each checkpoint.
 *  - Damaged data (a run of consecutive pages of one CPU that do not read
 *    or parse, a record whose fields lie outside it) becomes one
 *    "[tdatfs: ...]" marker line.  Pages that read but do not parse are
 *    also recorded with tdat_cpu_mark_damaged().
 *  - The report (tdatfs_text_report_read()) is every buffer's text merged
 *    in time order, as `trace-cmd report` prints it: a "cpus=N" line, then
 *    with instances each line prefixed by its buffer's name.  It is a text
 *    of its own, with its own checkpoints and learned comms (trace-cmd
 *    learns them across buffers), so a buffer's text and its lines in the
 *    report are made apart.
 *  - All functions are thread-safe.
 */
#ifndef TDATFS_TEXT_H
#define TDATFS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tdat_file;
struct tdatfs_text;

/**
 * struct tdatfs_text_opts - debugging switches of the text engine
 * @tep_only: print every event through libtraceevent, none through a
 *	compiled format (the text must not change: tests compare the two)
 * @eager: parse every event format when the engine is set up, not when
 *	its id is first met (the text must not change either)
 * @max_checkpoints: checkpoints a text keeps before every other one is
 *	dropped; 0 for the default (a memory bound), at least 2 otherwise
 *
 * All zero is the default.
 */
struct tdatfs_text_opts {
	bool tep_only;
	bool eager;
	unsigned int max_checkpoints;
};

/**
 * tdatfs_text_new() - text engine for a trace
 * @f: the trace; must outlive the engine
 * @opts: switches, copied; NULL for the defaults
 *
 * Return: a new engine (free with tdatfs_text_free()), or NULL with errno set.
 */
struct tdatfs_text *tdatfs_text_new(struct tdat_file *f,
				    const struct tdatfs_text_opts *opts);

/**
 * tdatfs_text_free() - free an engine; NULL is fine
 * @t: engine
 */
void tdatfs_text_free(struct tdatfs_text *t);

/**
 * tdatfs_text_read() - read decoded text
 * @t: engine
 * @buffer: buffer index (tdat_buffer_get())
 * @cpu: index into the buffer's cpus, or -1 for all CPUs merged
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the text
 *
 * The first call builds the libtraceevent handle.  A read continues from
 * the cursor or checkpoint nearest before @off.  A latency buffer has no
 * text here (its stored text is shown as it is, not decoded).
 *
 * Return: bytes read (0 at the end), or a negative errno.
 * Context: thread-safe; takes the engine, stream and tep locks.
 */
ssize_t tdatfs_text_read(struct tdatfs_text *t, size_t buffer, int cpu,
			 char *buf, size_t len, uint64_t off);

/**
 * tdatfs_text_size() - exact size of a text, once known
 * @t: engine
 * @buffer: buffer index
 * @cpu: index into the buffer's cpus, or -1
 * @size: set to the size when known
 *
 * Return: 0, or -EAGAIN while the text has not been produced to its end,
 * or -ENOENT for a buffer or CPU that does not exist.
 * Context: thread-safe.
 */
int tdatfs_text_size(struct tdatfs_text *t, size_t buffer, int cpu, uint64_t *size);

/**
 * tdatfs_text_report_read() - read the report: every buffer merged
 * @t: engine
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the report
 *
 * The bytes of `trace-cmd report` (3.1.6): "cpus=N" (tdat_cpu_count()),
 * then the records of every buffer but a latency one in time order, a tie
 * going to the earlier buffer (tdat_buffer_get() order), then the lower
 * CPU index.  With instances, an instance's lines start with its name
 * right-aligned to the longest instance name and ": ", the top buffer's
 * with as many spaces plus two.
 *
 * Return: bytes read (0 at the end), or a negative errno.
 * Context: thread-safe; takes the engine, stream and tep locks.
 */
ssize_t tdatfs_text_report_read(struct tdatfs_text *t, char *buf, size_t len,
				uint64_t off);

/**
 * tdatfs_text_report_size() - exact size of the report, once known
 * @t: engine
 * @size: set to the size when known
 *
 * Return: 0, or -EAGAIN while the report has not been produced to its end.
 * Context: thread-safe.
 */
int tdatfs_text_report_size(struct tdatfs_text *t, uint64_t *size);

#endif /* TDATFS_TEXT_H */
