/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/line.h - the formatter: the report line(s) of one record,
 * exactly as trace-cmd report (3.1.6) prints them.
 *
 * Invariants:
 *  - The text of a record depends only on the record, the trace's
 *    setup (event table, comms, timestamps) and the comms learned and
 *    function calls met before it in its stream (struct text_comm_ctx,
 *    text/ftrace-function.h), never on what other streams or threads printed.
 *  - A formatter may look at the records after the current one through
 *    the record source it is given (text/source.h), and consume
 *    them when it prints them with the current one: a function_graph
 *    entry looks at the next record of the whole buffer and takes the
 *    exit of a leaf (text/ftrace-funcgraph.h).  text_fmt_lookahead() says
 *    whether that can reach other CPUs in this trace, and
 *    text_fmt_cpu_lookahead() whether one CPU holds a record that does.
 *  - Events with a compiled format are printed without the tep lock;
 *    every other one under it, with the formatter's scratch copy of the
 *    record (zeroes after it, so a bad record cannot make libtraceevent
 *    read outside our memory).
 *  - Damaged records (fields outside the record) become one marker line.
 */
#ifndef TDATFS_TEXT_LINE_H
#define TDATFS_TEXT_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdatfs_buf;
struct text_comm_ctx;
struct text_comms;
struct text_events;
struct text_fmt;
struct text_func;
struct text_rec;
struct text_source;
struct text_tep;
struct text_timestamp;
struct trace_seq;

/*
 * The line heads ("%16s-%-5d [%03d]") a stream position made last, one
 * per CPU slot (the CPU number modulo TEXT_HEADS): a CPU runs one task
 * for many records in a row, so most lines copy their head from here
 * instead of looking the comm up and printing it.  A head is a function
 * of the pid, the CPU and the comm registrations visible (its @seen):
 * an entry is used only when all three match.  Zeroed: empty.
 */
#define TEXT_HEADS	8
#define TEXT_HEAD_MAX	48
struct text_head {
	size_t seen;
	int pid;
	unsigned int cpu;
	unsigned int len;		/* 0: empty */
	char txt[TEXT_HEAD_MAX];
};

struct text_heads {
	struct text_head h[TEXT_HEADS];
};

struct text_fmt *text_fmt_new(struct text_tep *tt, struct text_events *evs,
			      const struct text_comms *cm,
			      const struct text_timestamp *ts, bool big_endian,
			      size_t max_page);
void text_fmt_free(struct text_fmt *fm);
int text_fmt_enable_graph(struct text_fmt *fm, struct tdat_file *f);
int text_fmt_enable_func(struct text_fmt *fm, struct tdat_file *f);
struct text_func *text_fmt_func(struct text_fmt *fm);
bool text_fmt_lookahead(const struct text_fmt *fm);
bool text_fmt_peeks(const struct text_fmt *fm, int id);
int text_fmt_cpu_lookahead(struct text_fmt *fm, struct text_source *src);
int text_format_record(struct text_fmt *fm, const struct text_rec *r,
		       struct text_source *src, struct text_comm_ctx *cc,
		       struct tdatfs_buf *out);

/*
 * Where a record's lines lie in a text's output (text_format_record_parts()),
 * for a second text of the same records made beside it
 * (text/stream-follow.c): [@start, @end) the record's lines, [@head0,
 * @head1) in them its head ("COMM-PID [CPU]", empty for a marker line).
 * @own: all but the head is a function of the record's bytes alone; then
 * @pid is the head's, and @learn says the record registers comms, as
 * event @id.
 */
struct text_line_parts {
	size_t start, end;
	size_t head0, head1;
	int pid, id;
	bool own, learn;
};

int text_format_record_parts(struct text_fmt *fm, const struct text_rec *r,
			     struct text_source *src, struct text_comm_ctx *cc,
			     struct tdatfs_buf *out, struct text_line_parts *lp);
int text_format_record_again(struct text_fmt *fm, const struct text_rec *r,
			     const struct text_line_parts *lp,
			     struct text_comm_ctx *cc, struct tdatfs_buf *scratch,
			     size_t *len);


/* For the views (text/stream.c): a record's event, its time as
 * the line prints it, and passing over a record without its text. */
int text_fmt_record_id(struct text_fmt *fm, const struct text_rec *r, int *id);
bool text_fmt_in_usecs(const struct text_fmt *fm);
bool text_fmt_folds(const struct text_fmt *fm, int id);
uint64_t text_fmt_time_key(const struct text_fmt *fm, uint64_t ts);
int text_fmt_time_put(const struct text_fmt *fm, uint64_t ts, char *out,
		      size_t len);
int text_skip_record(struct text_fmt *fm, const struct text_rec *r, int id,
		     struct text_source *src, struct text_comm_ctx *cc,
		     struct tdatfs_buf *scratch);
int text_learn_record(struct text_fmt *fm, const struct text_rec *r, int id,
		      struct text_comm_ctx *cc);
int text_learn_line(struct text_fmt *fm, const struct text_rec *r, int id,
		    struct text_comm_ctx *cc);
/*
 * What a formatter of the same records (text/fields-row.h) shares with
 * this one: the trace's setup, and the scratch record copy and sequence,
 * which are used under the tep lock only (the copy is all zeroes outside
 * it, and holds at most @max_rec bytes of record; the rest of its
 * @scratch_size bytes stay zero).
 */
struct text_fmt_share {
	struct text_tep *tt;
	struct text_events *evs;
	const struct text_comms *cm;
	bool big_endian;
	bool in_usecs;			/* text_timestamp_in_usecs() */
	struct trace_seq *seq;
	unsigned char *scratch;
	size_t scratch_size;
	size_t max_rec;
};

void text_fmt_share(struct text_fmt *fm, struct text_fmt_share *sh);

#endif /* TDATFS_TEXT_LINE_H */
