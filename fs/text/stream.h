/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/stream.h - the text of one buffer (all CPUs merged, or one
 * CPU), or of several buffers merged, produced on demand, with
 * checkpoints and a few cursors.
 *
 * Invariants:
 *  - Record order is trace-cmd's tracecmd_read_next_data(): peek every
 *    CPU (in the buffer's CPU order) and take the smallest timestamp; on
 *    a tie the first CPU wins.  A stream of one CPU reads that CPU
 *    alone, except when its text may look at other CPUs (the CPU holds a
 *    function_graph entry, text_fmt_cpu_lookahead()): then it reads every
 *    CPU in that order and prints only its own records, as trace-cmd
 *    report --cpu N does; its checkpoints hold every CPU's position.
 *    Which of the two a stream is, its saved state says (a stream made
 *    for a state is made alike, without looking at its CPU first); a
 *    producer that no one else reads may try the CPU alone and make the
 *    stream again at the first record that looks ahead (-EXDEV).  Several
 *    buffers merge the same way over their CPUs in buffer order
 *    (tracecmd_iterate_events_multi()): on a tie the first buffer wins.
 *  - A stream of several buffers may start with a fixed head text and
 *    put a fixed text of each buffer before every record of it; a
 *    one-buffer stream has neither.
 *  - The text is produced one step at a time; a step appends the lines
 *    for one record (a dropped-events line, if any, and the event line),
 *    plus one marker line for each run of damaged pages met while looking
 *    for it.
 *  - A checkpoint is the position of the record sources at a step
 *    boundary (text/source.h), the count of learned comms visible
 *    there, a copy of the function tracer's call stacks there
 *    (text/ftrace-function.h) and the text offset it starts at; text produced again from a
 *    checkpoint is byte-identical each time.  Checkpoint memory is
 *    bounded: past a count every other one is dropped and the spacing
 *    doubles (also when the copies of the call stacks pass their own
 *    bound).
 *  - Once the text was produced to its end its size is exact.  A size
 *    and checkpoints known before (loaded from a saved state, or made
 *    by another cursor) hold for every later decode: one that ends
 *    elsewhere, goes on past the size, or makes a step across a
 *    checkpoint (a view: enters an entry elsewhere) is of other bytes
 *    than those they were made from, and the read fails with -EIO, with
 *    no bytes, never a cut or padded text.
 *  - Its state (size, checkpoints, comm model, account, call stacks) can be saved
 *    and loaded into a new stream of the same text (text/stream-state.h).
 *  - The frontier keeps an account of the text between checkpoints
 *    (text/account.h).  A view of a finished one-buffer stream
 *    (text_stream_new_view()) is a stream of its own whose checkpoints
 *    are the full text's at the stretches holding records it keeps: it
 *    passes over the records it does not keep as printing them would
 *    (the same comms learned, the same records consumed), drops their
 *    text and the markers met before them, and goes from the end of one
 *    stretch to the start of the next.
 *  - A mirror of a finished stream (text_stream_new_mirror()) is a
 *    second producer of the same text: its own lock and cursors on the
 *    full text's checkpoints and comm model, both only read, so it can
 *    produce one stretch while the full stream produces another.  A view
 *    of an event is finished when made (its entries' offsets are its
 *    account's byte counts); another view is once its text was produced
 *    to its end, or cut (text_stream_view_cut()) and its lengths learned.
 *    The mirror of a finished view is a second view of the same
 *    records cut from the same full text, with the same offsets, so it
 *    outlives the view.
 *  - A buffer's merged stream may lead the streams of its CPUs read
 *    alone (text_stream_lead()): its frontier makes their texts as it
 *    passes their records, each record formatted once; what that leaves
 *    of them is what producing each alone would, byte for byte.
 *  - A buffer's merged text may be made in two parts at once, on two
 *    streams (text/stream-split.c): the first stops before the first
 *    record at or after a time T (text_stream_stop_at()), the second
 *    starts where each CPU reaches T with the comm models the records
 *    before T teach (text_stream_start_part()), each leading its CPU
 *    texts.  The join appends the second's checkpoints and account to
 *    the first's only when the first ended exactly where the second
 *    began, with no call stack open and the same comm models: then every
 *    checkpoint holds the state the text made in a row holds there.
 *  - All calls on one stream serialize on its lock.
 */
#ifndef TDATFS_TEXT_STREAM_H
#define TDATFS_TEXT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tdat_file;
struct text_account;
struct text_comms;
struct text_fmt;
struct text_page_fmt;
struct text_stream;
struct text_timestamp;

/* What a stream reads and formats with; all must outlive the stream. */
struct text_stream_env {
	struct tdat_file *f;
	struct text_fmt *fmt;
	const struct text_page_fmt *pf;
	const struct text_timestamp *ts;
	unsigned int max_checkpoints;	/* 0: the memory bound */
};

/* What a view keeps of its text's records (text_stream_new_view()). */
enum text_filter_kind {
	TEXT_FILTER_EVENT,	/* the lines of one event's records */
	TEXT_FILTER_FIELDS,	/* one event's records as table rows */
	TEXT_FILTER_WINDOW,	/* the lines of records with k0 <= key < k1 */
};

struct text_filter {
	enum text_filter_kind kind;
	int id;
	bool every;		/* every stretch: records of @id are also
				 * printed inside other records' lines */
	uint64_t k0, k1;	/* text_fmt_time_key() */
};

/* A buffer of a stream of several, and what each of its records starts with. */
struct text_stream_part {
	size_t b;
	const char *prefix;
};

/* How a stream of one CPU reads (text_stream_new()). */
enum text_cpu_read {
	TEXT_CPU_LOOK,		/* as the CPU's records need: look first */
	TEXT_CPU_ALONE,		/* that CPU only (its state says so) */
	TEXT_CPU_AMONG_ALL,	/* every CPU, printing its own (likewise) */
	TEXT_CPU_TRY_ALONE,	/* alone until a record that looks ahead:
				 * from then on reads fail with -EXDEV (for a
				 * producer no one else reads: it makes the
				 * stream again, TEXT_CPU_AMONG_ALL) */
};

struct text_stream *text_stream_new(const struct text_stream_env *env,
				    size_t b, int cpu, enum text_cpu_read how);
struct text_stream *text_stream_new_multi(const struct text_stream_env *env,
					  const struct text_stream_part *parts,
					  size_t nparts, const char *head);
struct text_stream *text_stream_new_view(struct text_stream *full,
					 const struct text_filter *flt,
					 const char *head);
struct text_stream *text_stream_new_mirror(struct text_stream *full);
/* A buffer's CPU texts made beside its merged text (text/stream-follow.c). */
int text_stream_lead(struct text_stream *st, struct text_stream **cpus);
unsigned int text_stream_lead_end(struct text_stream *st, bool *done);
/* A merged text made in two parts at once (text/stream-split.c). */
struct tdatfs_buf;
struct text_pos;
int text_stream_split_point(struct text_stream *st, uint64_t *ts,
			    struct text_pos *pos);
void text_stream_stop_at(struct text_stream *st, uint64_t ts);
int text_stream_start_part(struct text_stream *m, struct text_stream **cpus,
			   uint64_t ts, const struct text_pos *pos);
int text_stream_model_save(struct text_stream *st, struct tdatfs_buf *out);
bool text_stream_ends_at(struct text_stream *st, const struct text_pos *pos);
int text_stream_join(struct text_stream *st, struct text_stream *part,
		     const struct text_comms *cm, const struct tdatfs_buf *model);
/* A view's text cut in parts on several threads (text/view-size.h). */
size_t text_stream_view_entries(struct text_stream *v);
void text_stream_view_split(struct text_stream *v, size_t parts, size_t *bounds);
struct text_stream *text_stream_view_alike(struct text_stream *v);
int text_stream_view_cut(struct text_stream *v, size_t j0, size_t j1,
			 uint64_t *bytes, struct tdatfs_buf *keep, size_t max,
			 const _Atomic bool *stop);
int text_stream_view_learn(struct text_stream *v, const uint64_t *bytes,
			   size_t n);
int text_stream_finished(struct text_stream *st, const uint64_t **ckpt,
			 size_t *n, uint64_t *size);
const struct text_account *text_stream_acct(struct text_stream *st);
void text_stream_free(struct text_stream *st);
ssize_t text_stream_read(struct text_stream *st, char *buf, size_t len,
			 uint64_t off);
ssize_t text_stream_produce(struct text_stream *st, size_t len, uint64_t off);
int text_stream_size(struct text_stream *st, uint64_t *size);

/* This thread's cancel hook (tdatfs_text_cancel_set()), asked now. */
bool text_stream_cancelled(void);

/* How far a stream's text was produced, in pages (the index's progress). */
uint64_t text_stream_frontier_pages(struct text_stream *st);
int text_stream_cpu_pages(struct tdat_file *f, size_t b, size_t c,
			  uint64_t *pages);

/* For tests: make checkpoints often, list them, forget every cursor. */
void text_stream_set_spacing(struct text_stream *st, uint64_t bytes);
size_t text_stream_checkpoints(struct text_stream *st, uint64_t *off,
			       size_t max);
void text_stream_drop_cursors(struct text_stream *st);

#endif /* TDATFS_TEXT_STREAM_H */
