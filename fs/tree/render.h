/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/render.h - the generated texts of the tree (README, info, the
 * options/ files, sections/index, an instance's trace_clock), as pure
 * functions of the parser's tables, and the views' texts (summary.tsv,
 * time/README) as functions of the text engine's event stats.  Internal
 * to the tree module; the names are prefixed render_.
 *
 * Invariants:
 *  - Nothing here knows the tree: every function reads an open struct
 *    tdat_file (parser/tdat.h), the text engine's event stats and time
 *    formats (tdatfs-text.h) when it is given one, and its arguments, and
 *    returns text.  The tree decides where the text goes.
 *  - A returned text is malloc'd and owned by the caller (never NULL on
 *    success, "" for an empty text); a failure returns NULL with errno set.
 *  - The same arguments always give the same bytes (the event stats of
 *    a buffer never change once known).
 *  - Each function is documented at its definition, in tree/render.c.
 */
#ifndef TDATFS_TREE_RENDER_H
#define TDATFS_TREE_RENDER_H

#include <stdbool.h>
#include <stddef.h>

struct tdat_file;
struct tdat_option;
struct tdatfs_text;

/* One row of sections/index: the entry's name in sections/, its section. */
struct render_index_entry {
	const char *name;
	size_t section;
};

/* render_readme(): the text of README */
const char *render_readme(size_t *len);

/* render_info(): the text of info: a key: value summary of the file */
char *render_info(struct tdat_file *f, size_t *len);

/* render_option(): one option as its options/ file shows it */
char *render_option(const struct tdat_file *f, const struct tdat_option *o,
		    size_t *len);

/* render_option_repeats(): whether an option id always gets a directory */
bool render_option_repeats(unsigned int id);

/* render_stat_cpu(): the CPU a CPUSTAT option is about */
long render_stat_cpu(const struct tdat_option *o);

/* render_stat_separator(): the instance a CPUSTAT separator starts */
bool render_stat_separator(const struct tdat_option *o, char *name,
			   size_t len);

/* render_occurrence_name(): the file name of a repeated option */
bool render_occurrence_name(const struct tdat_file *f,
			    const struct tdat_option *o, unsigned int nth,
			    char *prefix, size_t plen, char *name, size_t nlen);

/* render_index(): the text of sections/index */
char *render_index(struct tdat_file *f, const struct render_index_entry *e,
		   size_t n, size_t *len);

/* render_clock(): trace_clock text of a buffer */
char *render_clock(const struct tdat_file *f, const char *clock, size_t *len);

/* render_summary(): the text of a buffer's events/summary.tsv */
char *render_summary(struct tdat_file *f, struct tdatfs_text *t, size_t buffer,
		     size_t *len);

/* render_time_readme(): the text of a buffer's time/README */
char *render_time_readme(struct tdatfs_text *t, size_t buffer, size_t *len);

#endif /* TDATFS_TREE_RENDER_H */
