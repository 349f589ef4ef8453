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
 *  - Once a text is finished (its size exact, every checkpoint known: an
 *    index loaded or built, or a first pass to its end), a reader whose
 *    reads follow each other (as cat's do) gets the stretches after its
 *    position produced ahead on worker threads (opts.decode_threads),
 *    the same bytes.  At most 4 MiB of text is produced ahead
 *    per engine (AHEAD_BUDGET).
 *  - All functions are thread-safe.
 */
#ifndef TDATFS_TEXT_H
#define TDATFS_TEXT_H

#include <stdatomic.h>
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
 * @decode_threads: worker threads that produce a finished text ahead of
 *	a sequential reader (text/read-ahead.h), at most 64; 0 for one per
 *	online CPU, negative for none (the text must not change either)
 *
 * All zero is the default.
 */
struct tdatfs_text_opts {
	bool tep_only;
	bool eager;
	unsigned int max_checkpoints;
	int decode_threads;
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
 * tdatfs_text_new_like() - another engine of the same trace, sharing what
 *	does not change once read
 * @like: an engine; it may be freed before the new one
 * @opts: switches for the new engine, copied; NULL for the defaults
 *
 * The two engines (and every engine made like either) take their kallsyms
 * table from one share: the first to need it parses it, the others use
 * that table (text/kallsyms.h).  The text does not change.  For the
 * index build's workers, whose tables would otherwise be freed with them.
 *
 * Return: a new engine (free with tdatfs_text_free()), or NULL with errno set.
 */
struct tdatfs_text *tdatfs_text_new_like(struct tdatfs_text *like,
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
 * Return: bytes read (0 at the end), or a negative errno: -EIO, and no
 * bytes, when the text decodes unlike the size or checkpoints its state
 * gave (the trace's bytes are not those the state was made from).
 * Context: thread-safe; takes the engine, stream and tep locks.
 */
ssize_t tdatfs_text_read(struct tdatfs_text *t, size_t buffer, int cpu,
			 char *buf, size_t len, uint64_t off);

/**
 * tdatfs_text_cancel_set() - let this thread's reads of text be abandoned
 * @fn: polled while a read produces text (every few dozen lines); once it
 *	returns true the read stops with -EINTR, the text and its cursors
 *	left as they were at a line; NULL: never (the default)
 * @ctx: passed to @fn
 *
 * For a request whose reader has gone (a FUSE interrupt): it need not
 * produce the rest.  tdatfs_text_read() and tdatfs_text_report_read()
 * poll it, tdatfs_text_produce() polls its own flag.
 * Context: per thread; set it again (NULL) when the request is answered.
 */
void tdatfs_text_cancel_set(bool (*fn)(void *ctx), void *ctx);

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

/* ---- the index: producing texts ahead, and what that learns ----------- */

/**
 * struct tdatfs_text_key - one text of the engine
 * @report: the report (tdatfs_text_report_read()); then @buffer and @cpu
 *	are not used
 * @buffer: buffer index (tdat_buffer_get())
 * @cpu: index into the buffer's cpus, or -1 for all CPUs merged
 */
struct tdatfs_text_key {
	bool report;
	size_t buffer;
	int cpu;
};

/**
 * tdatfs_text_keys() - the texts an index must produce
 * @t: engine
 * @keys: set to up to @max keys; may be NULL when @max is 0
 * @max: room in @keys
 *
 * Every non-latency buffer's merged text and each of its per-CPU texts,
 * then the report, in that order.  The report is left out when it is
 * made from another text (a file whose only buffer is the top one: the
 * report is its "cpus=N" line and that buffer's merged text), and so is
 * the per-CPU text of a buffer with one CPU (it is the buffer's merged
 * text: the same records, in the same order, printed alone); their sizes
 * are known once those texts' are.
 *
 * Return: the count of keys (may be more than @max).
 * Context: thread-safe; does not set the engine up.
 */
size_t tdatfs_text_keys(struct tdatfs_text *t, struct tdatfs_text_key *keys,
			size_t max);

/**
 * tdatfs_text_pages() - the pages producing a text passes over
 * @t: engine
 * @k: the text
 *
 * The measure of tdatfs_text_produce()'s progress: the sum of the page
 * counts of every CPU the text's records are read from (of a one-CPU
 * text, that CPU's alone, even where its records are read along with
 * the others').
 *
 * Return: the count, 0 for a text without data or that does not exist.
 * Context: thread-safe; does not set the engine up.
 */
uint64_t tdatfs_text_pages(struct tdatfs_text *t, const struct tdatfs_text_key *k);

/**
 * tdatfs_text_produce() - produce a text to its end
 * @t: engine
 * @k: the text
 * @cancel: polled between pieces of text; once it is true the call stops
 *	with -EINTR (the text stays correct, only its size unknown); may be NULL
 * @done: set as it goes (relaxed stores) to the pages passed so far, out
 *	of tdatfs_text_pages(); may be NULL
 *
 * Afterwards tdatfs_text_size() (or tdatfs_text_report_size()) of the
 * text is exact, and its checkpoints cover it (a read anywhere decodes
 * from the checkpoint before it).  Damage met is recorded as reads
 * record it.
 *
 * Return: 0, -EINTR when cancelled, or a negative errno of the reads.
 * Context: thread-safe; several texts of one engine produced at once
 * share its libtraceevent handle (and its lock): to use several cores,
 * produce on several engines of the same trace.
 */
int tdatfs_text_produce(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			const _Atomic bool *cancel, _Atomic uint64_t *done);

/**
 * tdatfs_text_produce_sole() - tdatfs_text_produce() on an engine that no
 * other thread uses meanwhile (an index build's worker)
 * @t: engine
 * @k: the text
 * @cancel: as for tdatfs_text_produce()
 * @done: likewise
 *
 * The same text, size and checkpoints.  A CPU's text is produced from
 * that CPU alone and made again from every CPU at its first
 * function_graph entry, instead of its CPU being looked through first
 * (text_stream_new()): the stream it made may be freed and made again,
 * which is why no other thread may hold it.
 *
 * Return: as tdatfs_text_produce().
 * Context: no other call on @t at the same time.
 */
int tdatfs_text_produce_sole(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			     const _Atomic bool *cancel, _Atomic uint64_t *done);

/**
 * tdatfs_text_can_lead() - whether a buffer's per-CPU texts can be made
 * beside its merged text (tdatfs_text_produce_led())
 * @t: engine
 * @buffer: buffer index
 *
 * A buffer of several CPUs (the text of a buffer's one CPU is its
 * merged text already).
 *
 * Return: true when they can.
 * Context: thread-safe; does not set the engine up.
 */
bool tdatfs_text_can_lead(struct tdatfs_text *t, size_t buffer);

/**
 * tdatfs_text_produce_led() - produce a buffer's merged text and each of
 * its per-CPU texts, each record formatted once
 * @t: engine
 * @buffer: a buffer tdatfs_text_can_lead() accepts
 * @cancel: as for tdatfs_text_produce()
 * @done: set as it goes (relaxed stores) to the pages passed so far, out
 *	of the sum of tdatfs_text_pages() of the buffer's merged text and
 *	of each per-CPU text; may be NULL
 *
 * A per-CPU line is the merged line of the same record but for its head,
 * where that CPU's text may name the task otherwise: the per-CPU texts
 * are made beside the merged one, taking each line's length from it and
 * making only their heads again.  A CPU that met damaged data is then
 * produced apart, and so is every CPU of a buffer with a function_graph
 * entry (a CPU text that reads every CPU).  Sizes, checkpoints and every
 * saved state are the ones tdatfs_text_produce_sole() of each text
 * makes, byte for byte.
 *
 * Return: the count of per-CPU texts made beside the merged one (the
 * others were made apart), -EINVAL for a buffer that cannot lead, or as
 * tdatfs_text_produce().
 * Context: as tdatfs_text_produce_sole().
 */
int tdatfs_text_produce_led(struct tdatfs_text *t, size_t buffer,
			    const _Atomic bool *cancel, _Atomic uint64_t *done);

/**
 * DOC: a buffer's texts made in two parts at once
 *
 * On two engines of the same trace that no other thread uses, a
 * buffer's merged text is split at a time T, in the middle of its
 * largest CPU: tdatfs_text_split_new() starts the part before T on the
 * first engine and the part after it on the second, each making the
 * buffer's CPU texts beside it (as tdatfs_text_produce_led() does);
 * tdatfs_text_split_part() makes each part to its end, both at once on
 * two threads; tdatfs_text_split_join() joins the second part's texts to
 * the first engine's, which then holds every text of the buffer: the
 * same sizes and bytes as made in a row, and checkpoints each of which
 * holds the state a text made in a row has there.
 */
struct tdatfs_text_split;

/**
 * tdatfs_text_split_new() - a buffer's texts split in two parts
 * @t1: the engine of the first part, where the texts end up
 * @t2: another engine of the same trace, for the second part
 * @buffer: a buffer tdatfs_text_can_lead() accepts, none of whose texts
 *	was produced on either engine
 *
 * Reads a few pages of each CPU to find T, and makes the start of the
 * first part.
 *
 * Return: the split (free with tdatfs_text_split_free(), after the
 * join), or NULL with errno set: EXDEV when the text does not split
 * (too short, damaged where it would, its comms kept in a way no fork
 * follows), EINVAL, ENOMEM, or the engine's error.
 * Context: no other call on @t1 or @t2 at the same time.
 */
struct tdatfs_text_split *tdatfs_text_split_new(struct tdatfs_text *t1,
						struct tdatfs_text *t2,
						size_t buffer);

/**
 * tdatfs_text_split_part() - one part of a split made to its end
 * @s: the split
 * @part: 0 for the first part, 1 for the second
 * @cancel: as for tdatfs_text_produce()
 * @done: set as it goes to the pages passed, counting the merged text's
 *	twice (its CPU texts are as far); may be NULL
 *
 * Return: 0, -EINTR when cancelled, or the engine's negative errno.
 * Context: each part on one thread at a time; the two parts may run at
 * once.
 */
int tdatfs_text_split_part(struct tdatfs_text_split *s, unsigned int part,
			   const _Atomic bool *cancel, _Atomic uint64_t *done);

/**
 * tdatfs_text_split_join() - the second part joined to the first
 * @s: the split, both parts made to their end
 * @cancel: as for tdatfs_text_produce()
 * @done: as for tdatfs_text_produce_led(), for what is made again
 *
 * A part is right when the first ends exactly where the second began,
 * no call stack open there, and no comm the first learned after the
 * fork is one the second used; then its checkpoints, account and comm
 * model follow the first's.  A CPU text whose part does not join is
 * made again apart on the first engine; when the merged text does not,
 * the buffer's texts are made again in a row (tdatfs_text_produce_led()).
 *
 * Return: the count of the buffer's texts made again (0: every one
 * joined; its CPUs and 1 more: made again in a row), or a negative
 * errno.
 * Context: no other call on either engine at the same time.
 */
int tdatfs_text_split_join(struct tdatfs_text_split *s, const _Atomic bool *cancel,
			   _Atomic uint64_t *done);

/**
 * tdatfs_text_split_free() - free a split; NULL is fine
 * @s: the split
 *
 * The texts stay on their engines.
 */
void tdatfs_text_split_free(struct tdatfs_text_split *s);

/**
 * tdatfs_text_state_save() - what producing a text to its end learned
 * @t: engine
 * @k: the text, produced to its end (by tdatfs_text_produce() or reads)
 * @blob: set to the saved state; the caller frees it with free()
 * @len: set to its size in bytes
 *
 * The state is the text's size, its checkpoints (text offset, each CPU's
 * page and record there, the learned comms visible there) and the comms
 * trace-cmd learned while printing it.  The bytes are in this engine's
 * own layout and byte order; they mean something only to an engine of
 * the very same trace (the index file says which).
 *
 * Return: 0, -EAGAIN when the text was not produced to its end, -ENOENT
 * for a text that does not exist or has no state of its own (the report
 * and the texts tdatfs_text_keys() leaves out), -ENOMEM.
 * Context: thread-safe.
 */
int tdatfs_text_state_save(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			   void **blob, size_t *len);

/**
 * tdatfs_text_state_load() - give a text what tdatfs_text_state_save() saved
 * @t: engine, on which the text has not been read yet
 * @k: the text
 * @blob: the bytes (copied)
 * @len: their size
 *
 * Checks that the bytes are a state of this text (version, CPU count,
 * checkpoints in order and inside the CPUs' pages, comm counts within
 * what the state registers) before using any of it; on an error nothing
 * changes.  From then on the text's size is exact without a read, and
 * reads start from the saved checkpoints.
 *
 * Return: 0, -EINVAL for bytes that are not such a state, -EBUSY when the
 * text has been read or loaded already, -ENOENT for a text that does not
 * exist or has no state of its own (as for tdatfs_text_state_save()),
 * -ENOMEM.
 * Context: thread-safe; does not set the engine up (that waits for the
 * first read, so loading an index costs no decoding).
 */
int tdatfs_text_state_load(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			   const void *blob, size_t len);

/**
 * struct tdatfs_text_state - one text's saved state, as an index holds it
 * @key: the text
 * @blob: the bytes tdatfs_text_state_save() gave
 * @len: their size
 */
struct tdatfs_text_state {
	struct tdatfs_text_key key;
	const void *blob;
	size_t len;
};

/**
 * tdatfs_text_states_load() - tdatfs_text_state_load() of several texts at once
 * @t: engine
 * @s: the states, each of another text
 * @n: how many
 * @bad: set to the index in @s of the state refused, on an error
 *
 * Every state is checked first, as by tdatfs_text_state_load(); only when
 * all of them pass are they all given to their texts, so on an error
 * nothing changes (no second engine needed to find out whether all pass).
 *
 * Return: 0, or the first refusal's errno as tdatfs_text_state_load()'s.
 * Context: thread-safe; sets nothing up, as tdatfs_text_state_load().
 */
int tdatfs_text_states_load(struct tdatfs_text *t,
			    const struct tdatfs_text_state *s, size_t n,
			    size_t *bad);

/**
 * tdatfs_text_states_adopt() - tdatfs_text_states_load() that keeps the bytes
 * @t: engine
 * @s: the states, each of another text, their blobs inside @bytes
 * @n: how many
 * @bad: as for tdatfs_text_states_load()
 * @bytes: a malloc()ed buffer that holds every blob of @s (an index
 *	file's bytes)
 *
 * The same checks and result as tdatfs_text_states_load(), without a copy
 * of each state: a mount loads megabytes of them, and on a VM that pays
 * for every page first touched the copies cost more than the checks.
 *
 * Return: as tdatfs_text_states_load(), or -EINVAL for no @bytes.  On
 * success the engine owns @bytes and frees them once every text given a
 * state has taken it (its first read) or with the engine; on an error
 * they stay the caller's.
 * Context: thread-safe; sets nothing up, as tdatfs_text_state_load().
 */
int tdatfs_text_states_adopt(struct tdatfs_text *t,
			     const struct tdatfs_text_state *s, size_t n,
			     size_t *bad, void *bytes);

/* ---- views (SPEC 2.6): one event's records, a time window ----------- */

/**
 * enum tdatfs_text_view_kind - what a view shows of a buffer's text
 * @TDATFS_VIEW_EVENT: the lines of the buffer's merged text that belong
 *	to the records of one event (a record's dropped-events line and
 *	every line it prints), in text order
 * @TDATFS_VIEW_FIELDS: one event's records as a table: a header row,
 *	then one tab-separated row per record (fields.tsv)
 * @TDATFS_VIEW_WINDOW: the lines of the buffer's merged text, or of one
 *	CPU's text, whose record time as the line prints it lies in
 *	[@t0, @t1)
 * @TDATFS_VIEW_TIMELINE: timeline.svg (doc/TIMELINE.md): a picture of
 *	what ran on each CPU of the buffer (sched_switch), its prints and,
 *	without sched_switch records, its records' density; of the whole
 *	buffer (@t0 and @t1 both 0) or of the window [@t0, @t1).  At most
 *	TDATFS_TIMELINE_MAX_BYTES (tdatfs-timeline.h), made whole at the first
 *	size or read and kept while the engine's cache of pictures has room
 * @TDATFS_VIEW_PFTRACE: trace.pftrace (doc/PERFETTO.md): the buffer's
 *	records as Perfetto's protobuf trace (tdatfs-pftrace.h), of the
 *	whole buffer (@t0 and @t1 both 0) or of the records whose time as
 *	the window's text prints it lies in [@t0, @t1).  The first size or
 *	read makes a pass over the records that measures each page's
 *	bundle; the engine keeps a table of 16 bytes per page, and a read
 *	encodes again only the pages it covers
 */
enum tdatfs_text_view_kind {
	TDATFS_VIEW_EVENT,
	TDATFS_VIEW_FIELDS,
	TDATFS_VIEW_WINDOW,
	TDATFS_VIEW_TIMELINE,
	TDATFS_VIEW_PFTRACE,
};

/**
 * struct tdatfs_text_view - one view of a buffer
 * @kind: what it shows
 * @buffer: buffer index (tdat_buffer_get())
 * @cpu: %TDATFS_VIEW_WINDOW: index into the buffer's cpus, or -1 for all
 *	merged; the other kinds: -1
 * @event: %TDATFS_VIEW_EVENT and %TDATFS_VIEW_FIELDS: the event id
 * @t0: %TDATFS_VIEW_WINDOW, %TDATFS_VIEW_TIMELINE and %TDATFS_VIEW_PFTRACE:
 *	first time shown (tdatfs_text_time_parse())
 * @t1: the same kinds: first time past the window, > @t0 (a timeline or
 *	trace.pftrace of the whole buffer: both 0)
 *
 * Unused members must be zero (a view is compared as a key).
 */
struct tdatfs_text_view {
	enum tdatfs_text_view_kind kind;
	size_t buffer;
	int cpu;
	int event;
	uint64_t t0, t1;
};

/**
 * struct tdatfs_text_event_stat - one event's records in a buffer
 * @id: event id
 * @records: records of it in the buffer's merged text
 * @bytes: the size of its %TDATFS_VIEW_EVENT view
 * @first_ts: timestamp of its first record, as tdatfs_text_time_format()
 *	takes it
 * @last_ts: timestamp of its last record, the same way
 */
struct tdatfs_text_event_stat {
	int id;
	uint64_t records;
	uint64_t bytes;
	uint64_t first_ts;
	uint64_t last_ts;
};

/**
 * tdatfs_text_event_stats() - the events a buffer has records of
 * @t: engine
 * @buffer: buffer index
 * @stats: set to the table, sorted by id, one entry per event with at
 *	least one record; owned by the engine, valid and unchanged until it
 *	is freed
 * @n: set to the count of entries
 *
 * Learned while the buffer's merged text is produced (an index loads
 * them); when it has not been produced to its end, it is produced now,
 * which costs a pass over the buffer.
 *
 * Return: 0, -ENOENT for a buffer without text (none, or latency), or a
 * negative errno of producing the text.
 * Context: thread-safe.
 */
int tdatfs_text_event_stats(struct tdatfs_text *t, size_t buffer,
			    const struct tdatfs_text_event_stat **stats,
			    size_t *n);

/**
 * tdatfs_text_event_has_fields() - whether an event can have a fields.tsv
 * @t: engine
 * @id: event id
 *
 * The columns of %TDATFS_VIEW_FIELDS are the fields of the event's format
 * as libtraceevent parsed it; an event whose format it could not parse
 * (or that the engine refused to hand it, text/format-limits.h) has none,
 * and its records print as "[UNKNOWN EVENT]" (the format is in the damage
 * registry).  Sets the engine up when it is not.
 *
 * Return: 1 when the engine has the event's format, 0 when not, or the
 * negative errno of the setup (-ENOMEM also when the format could not
 * be read for want of memory).
 * Context: thread-safe.
 */
int tdatfs_text_event_has_fields(struct tdatfs_text *t, int id);

/**
 * tdatfs_text_view_read() - read a view
 * @t: engine
 * @v: the view
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the view
 *
 * The bytes are those of the full text the view is cut from (or, for
 * %TDATFS_VIEW_FIELDS, made from the same records), so a view never
 * disagrees with its text.  The work is proportional to the records the
 * view shows, not to the buffer: it starts from the full text's
 * checkpoints and passes over the stretches between them that hold none.
 * Needs the buffer's event stats (tdatfs_text_event_stats()), but for
 * the timeline and trace.pftrace of a whole buffer (one pass over its
 * records, no text).
 *
 * Return: bytes read (0 at the end), -ENOENT for a view of nothing that
 * exists (a buffer, CPU or event id without records; a window with
 * @t1 <= @t0), -EINTR when this thread's cancel hook stopped a timeline
 * or trace.pftrace being made, or another negative errno.
 * Context: thread-safe.
 */
ssize_t tdatfs_text_view_read(struct tdatfs_text *t,
			      const struct tdatfs_text_view *v, char *buf,
			      size_t len, uint64_t off);

/**
 * tdatfs_text_view_size() - exact size of a view
 * @t: engine
 * @v: the view
 * @size: set to its size
 *
 * Of %TDATFS_VIEW_EVENT, from the event stats; of the other kinds, the
 * first call produces the view to its end (work proportional to it) and
 * the engine keeps the size (of a timeline, its bytes too, while they
 * fit its cache).
 *
 * Return: 0, or a negative errno as for tdatfs_text_view_read().
 * Context: thread-safe.
 */
int tdatfs_text_view_size(struct tdatfs_text *t, const struct tdatfs_text_view *v,
			  uint64_t *size);

/**
 * tdatfs_text_whole_sizes() - the sizes of a buffer's whole timeline.svg
 * and trace.pftrace, as their first stat gives them
 * @t: engine
 * @buffer: buffer index
 * @timeline: set to the size of its %TDATFS_VIEW_TIMELINE view
 * @pftrace: set to the size of its %TDATFS_VIEW_PFTRACE view
 *
 * Made if need be (the whole picture, and the pass over the buffer that
 * measures each page's bundle), and then kept as a stat keeps them; an
 * index keeps these two numbers so that the next engine of the trace
 * needs neither (tdatfs_text_whole_sizes_keep()).  The work is shared
 * with a stat of trace.pftrace asked for meanwhile (it waits for this
 * pass, or this call for its).
 *
 * Return: 0, -ENOENT for a buffer without them (latency), -EINTR when
 * this thread's cancel hook stopped the work, -EINVAL for no such
 * buffer, or another negative errno of the reads.
 * Context: thread-safe.
 */
int tdatfs_text_whole_sizes(struct tdatfs_text *t, size_t buffer,
			    uint64_t *timeline, uint64_t *pftrace);

/**
 * tdatfs_text_whole_sizes_keep() - give an engine the sizes another engine
 * of the same trace found (tdatfs_text_whole_sizes())
 * @t: engine, before either file of @buffer was asked for
 * @buffer: buffer index
 * @timeline: the size of its timeline.svg
 * @pftrace: the size of its trace.pftrace
 *
 * A stat then gives them at no cost.  They are checked as far as can be
 * without the work they save (a buffer that has both files, a picture
 * never empty); a read makes the file as without them, and fails with
 * -EIO when it does not come out the size kept, as a text decoded unlike
 * its kept size does.
 *
 * Return: 0, -EINVAL for sizes refused (or other sizes known already),
 * or -ENOMEM.
 * Context: thread-safe.
 */
int tdatfs_text_whole_sizes_keep(struct tdatfs_text *t, size_t buffer,
				 uint64_t timeline, uint64_t pftrace);

/**
 * tdatfs_text_pftrace_layout() - what the pass over a buffer for its whole
 * trace.pftrace found, as bytes to keep
 * @t: engine
 * @buffer: buffer index
 * @bytes: set to them (opaque; the caller frees them with free())
 * @len: set to their size (16 bytes a ring-buffer page with records,
 *	plus the file's head: its symbols and process tree)
 *
 * The pass is made if need be, as tdatfs_text_whole_sizes() makes it.
 * Given to a later engine of the same trace with
 * tdatfs_text_pftrace_layout_keep(), they spare its first read the pass.
 *
 * Return: 0, -ENOENT for a buffer without the file (latency), -EINVAL
 * for no such buffer, -EINTR when this thread's cancel hook stopped the
 * pass, or another negative errno of the reads.
 * Context: thread-safe.
 */
int tdatfs_text_pftrace_layout(struct tdatfs_text *t, size_t buffer,
			       void **bytes, size_t *len);

/**
 * tdatfs_text_pftrace_layout_keep() - give an engine the layout of a
 * buffer's whole trace.pftrace another engine of the same trace found
 * @t: engine, after tdatfs_text_whole_sizes_keep() of @buffer and before
 *	its trace.pftrace was read
 * @buffer: buffer index
 * @bytes: the layout (tdatfs_text_pftrace_layout()); copied
 * @len: its size
 *
 * The first read of the file then encodes only what it covers.  The
 * layout is checked against the buffer and the kept size at that read;
 * one refused there is dropped and the file made with a pass, as without
 * it, and a bundle that does not encode to the length it gives fails
 * the read with -EIO.
 *
 * Return: 0, -EINVAL when no size is kept for @buffer, a layout is kept
 * already or the file is made already, or -ENOMEM.
 * Context: thread-safe.
 */
int tdatfs_text_pftrace_layout_keep(struct tdatfs_text *t, size_t buffer,
				    const void *bytes, size_t len);

/**
 * tdatfs_text_time_format() - a timestamp as a buffer's text prints it
 * @t: engine
 * @buffer: buffer index
 * @ts: a timestamp from struct tdatfs_text_event_stat
 * @out: destination
 * @len: room in @out (32 is always enough)
 *
 * "SECONDS.MICROS" for a trace with a nanosecond clock, else the raw
 * count, without the padding of the line.
 *
 * Return: the length written (without the NUL), or a negative errno.
 * Context: thread-safe; sets the engine up.
 */
int tdatfs_text_time_format(struct tdatfs_text *t, size_t buffer, uint64_t ts,
			    char *out, size_t len);

/**
 * tdatfs_text_time_parse() - a window bound from its name
 * @t: engine
 * @s: the bound as the text prints times ("506.3175", "506", "12345")
 *	up to its end or a '-'
 * @end: set past the characters taken; may be NULL
 * @time: set to the bound, in the unit struct tdatfs_text_view takes
 *
 * Digits, then an optional '.' and at most nine digits; nothing else.
 *
 * Return: 0, or -EINVAL for anything else (no digits, a sign, more
 * precision than a nanosecond, a value past 64 bits).
 * Context: thread-safe.
 */
int tdatfs_text_time_parse(struct tdatfs_text *t, const char *s, const char **end,
			   uint64_t *time);

/**
 * tdatfs_text_time_range() - the first and last record time of a text
 * @t: engine
 * @buffer: buffer index
 * @first: set to the smallest record time, as tdatfs_text_time_format()
 *	takes it
 * @last: set to the largest
 *
 * From the event stats (tdatfs_text_event_stats()), so the same cost.
 *
 * Return: 0, -ENOENT for a buffer without records, or a negative errno.
 * Context: thread-safe.
 */
int tdatfs_text_time_range(struct tdatfs_text *t, size_t buffer,
			   uint64_t *first, uint64_t *last);

#endif /* TDATFS_TEXT_H */
