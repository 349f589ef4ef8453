/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-render.h - the generated texts of the tree (README, info, the
 * options/ files, sections/index, an instance's trace_clock), as pure
 * functions of the parser's tables.  Internal to the tree module; the
 * names are prefixed render_.
 *
 * Invariants:
 *  - Nothing here knows the tree: every function reads an open struct
 *    tdat_file (parser/tdat.h) and its arguments, and returns text.  The
 *    tree's builder decides where the text goes.
 *  - A returned text is malloc'd and owned by the caller (never NULL on
 *    success, "" for an empty text); a failure returns NULL with errno set.
 *  - The same arguments always give the same bytes.
 */
#ifndef TDATFS_RENDER_H
#define TDATFS_RENDER_H

#include <stdbool.h>
#include <stddef.h>

struct tdat_file;
struct tdat_option;

/* One row of sections/index: the entry's name in sections/, its section. */
struct render_index_entry {
	const char *name;
	size_t section;
};

/**
 * render_readme() - the text of README
 * @len: set to its length
 *
 * Return: a static text (not to be freed).
 */
const char *render_readme(size_t *len);

/**
 * render_info() - the text of info: a key: value summary of the file
 * @f: trace
 * @len: set to the length of the result
 *
 * Return: a malloc'd text, or NULL (errno ENOMEM).
 */
char *render_info(struct tdat_file *f, size_t *len);

/**
 * render_option() - one option as its options/ file shows it
 * @f: trace (for its endianness and version)
 * @o: the option
 * @len: set to the length of the result
 *
 * Text options are shown without their trailing NUL, binary ones as
 * key: value lines, unknown ids as their raw bytes.
 *
 * Return: a malloc'd text, or NULL (errno ENOMEM).
 */
char *render_option(const struct tdat_file *f, const struct tdat_option *o,
		    size_t *len);

/**
 * render_option_repeats() - whether an option id always gets a directory
 * @id: option id
 *
 * Return: true for the ids that occur once per CPU, buffer or guest.
 */
bool render_option_repeats(unsigned int id);

/**
 * render_stat_cpu() - the CPU a CPUSTAT option is about
 * @o: a CPUSTAT option
 *
 * Return: N of its leading "CPU: N" line, or -1 when it has none.
 */
long render_stat_cpu(const struct tdat_option *o);

/**
 * render_stat_separator() - the instance a CPUSTAT separator starts
 * @o: a CPUSTAT option
 * @name: set to the instance's name
 * @len: room in @name
 *
 * trace-cmd writes "\nBuffer: NAME\n\n" before the CPUSTAT entries of an
 * instance.
 *
 * Return: true when @o is such a separator and its name fits in @name.
 */
bool render_stat_separator(const struct tdat_option *o, char *name,
			   size_t len);

/**
 * render_occurrence_name() - file name of one occurrence of a repeated option
 * @f: trace
 * @o: the option
 * @nth: how many options of its id came before it
 * @prefix: CPUSTAT's instance prefix ("NAME-"), updated by a separator
 * @plen: room in @prefix
 * @name: set to the name; "" for a CPUSTAT separator (folded into the
 *	names of the entries after it)
 * @nlen: room in @name
 */
void render_occurrence_name(const struct tdat_file *f,
			    const struct tdat_option *o, unsigned int nth,
			    char *prefix, size_t plen, char *name, size_t nlen);

/**
 * render_index() - the text of sections/index
 * @f: trace
 * @e: the entries of sections/, in the order to list them
 * @n: entries in @e
 * @len: set to the length of the result
 *
 * Reads the chunk tables of every compressed buffer (their sizes); an entry
 * whose section cannot be sized is left out.
 *
 * Return: a malloc'd text, or NULL (errno ENOMEM).
 */
char *render_index(struct tdat_file *f, const struct render_index_entry *e,
		   size_t n, size_t *len);

/**
 * render_clock() - trace_clock text of a buffer
 * @f: trace
 * @clock: the buffer's clock name ("" when unknown)
 * @len: set to the length of the result
 *
 * The TRACECLOCK option's list is shown with @clock bracketed, as a live
 * instance's trace_clock file shows it; without a TRACECLOCK option, or
 * when @clock is not in its list, the result is @clock and a newline.
 *
 * Return: a malloc'd text, or NULL (errno ENOENT when @clock is empty,
 * ENOMEM).
 */
char *render_clock(const struct tdat_file *f, const char *clock, size_t *len);

#endif /* TDATFS_RENDER_H */
