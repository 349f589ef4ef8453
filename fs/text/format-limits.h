/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/format-limits.h - the bounds an event format must keep before it is
 * handed to libtraceevent.
 *
 * Invariants of this module:
 *  - libtraceevent parses a format and evaluates its print arguments by
 *    recursion, a level per bracket (parentheses, brackets, braces), per
 *    operator of a chain ("!!!x", "1+1+1", "a?b:c?d:e") and per cast:
 *    about 40,000 levels overflow an 8 MiB stack.  A format whose nesting
 *    of these (text_format_depth()) is over TEXT_FORMAT_MAX_DEPTH, or that
 *    is longer than TEXT_FORMAT_MAX_LEN, is refused as one libtraceevent
 *    cannot parse (tdatfs(1), DAMAGED TRACES).
 *  - The bounds are about ten times the nesting (39) and sixteen times
 *    the length (8193 bytes) the formats of real kernels reach
 *    (tests/damaged/gen-sections measure), and a hundred times below a
 *    nesting that crashes.
 *  - A width or precision a conversion takes from the record ("%*d",
 *    "%.*s") is bounded by TEXT_FORMAT_MAX_WIDTH when the format is
 *    parsed (text/width-bound.h): a line of text stays short, and
 *    libtraceevent's printing of it linear.  Real formats print columns
 *    ("%*s" of a name, an indent), far below it.
 *  - Nothing here allocates or keeps state: callable from any thread.
 */
#ifndef TDATFS_TEXT_FORMAT_LIMITS_H
#define TDATFS_TEXT_FORMAT_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#define TEXT_FORMAT_MAX_DEPTH	400		/* text_format_depth() */
#define TEXT_FORMAT_MAX_LEN	(128u << 10)	/* bytes of one format */
#define TEXT_FORMAT_MAX_WIDTH	4096		/* a '*' width, precision */

size_t text_format_depth(const char *fmt, size_t len);
bool text_format_within_limits(const char *fmt, size_t len);

#endif /* TDATFS_TEXT_FORMAT_LIMITS_H */
