/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-graph.h - the info text of ftrace's funcgraph_entry and
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
#ifndef TDATFS_TEXT_GRAPH_H
#define TDATFS_TEXT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

struct tdat_file;
struct text_buf;
struct text_event_desc;
struct text_events;
struct text_graph;
struct text_rec;
struct text_source;
struct text_tep;

/* Made at setup; used by the line formatter. */
struct text_graph *text_graph_new(struct tdat_file *f, struct text_tep *tt,
				  struct text_events *evs, bool big_endian);
void text_graph_free(struct text_graph *g);
bool text_graph_lookahead(const struct text_graph *g);
bool text_graph_wants(const struct text_graph *g, int id);
bool text_graph_peeks(const struct text_graph *g, int id);
int text_graph_info(struct text_graph *g, const struct text_event_desc *d,
		    const struct text_rec *r, struct text_source *src,
		    struct text_buf *out);

#endif /* TDATFS_TEXT_GRAPH_H */
