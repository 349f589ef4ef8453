/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/ftrace-funcgraph.h - the info text of ftrace's funcgraph_entry and
 * funcgraph_exit records, as trace-cmd report (3.1.6, trace-ftrace.c)
 * writes it instead of their print format (doc/trace-cmd-parity.md, 1).
 *
 * Invariants:
 *  - Only when the trace holds both formats (ftrace/funcgraph_entry and
 *    ftrace/funcgraph_exit) and both parse; otherwise their records keep
 *    their print format, as in trace-cmd.
 *  - An entry looks at the record its whole source gives next (every CPU
 *    of the source, earliest first, text_source_peek_next()); when that
 *    is the matching exit (same pid, same func) the entry is a leaf and
 *    the exit is consumed from the source, so it is never printed and the
 *    source's position (so every checkpoint) holds it as read.
 *  - Fields are read by name from the format, unsigned, in the file's
 *    byte order: a 4-byte long needs nothing special.
 *  - State learned of the formats is filled and read under the tep lock.
 */
#ifndef TDATFS_TEXT_FTRACE_FUNCGRAPH_H
#define TDATFS_TEXT_FTRACE_FUNCGRAPH_H

#include <stdbool.h>
#include <stddef.h>

struct tdat_file;
struct tdatfs_buf;
struct text_event_desc;
struct text_events;
struct text_funcgraph;
struct text_rec;
struct text_source;
struct text_tep;

/* Made at setup; used by the line formatter. */
struct text_funcgraph *text_funcgraph_new(struct tdat_file *f,
					  struct text_tep *tt,
					  struct text_events *evs,
					  bool big_endian);
void text_funcgraph_free(struct text_funcgraph *g);
bool text_funcgraph_lookahead(const struct text_funcgraph *g);
bool text_funcgraph_wants(const struct text_funcgraph *g, int id);
bool text_funcgraph_peeks(const struct text_funcgraph *g, int id);
int text_funcgraph_info(struct text_funcgraph *g,
			const struct text_event_desc *d,
			const struct text_rec *r, struct text_source *src,
			struct tdatfs_buf *out);

#endif /* TDATFS_TEXT_FTRACE_FUNCGRAPH_H */
