/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-limits.h - the bounds an event format must keep before it is
 * handed to libtraceevent.
 *
 * Invariants of this module:
 *  - libtraceevent parses a format and evaluates its print arguments by
 *    recursion, one level per nesting of parentheses, brackets or braces:
 *    about 40,000 levels overflow an 8 MiB stack.  A format deeper than
 *    TEXT_FORMAT_MAX_DEPTH, or longer than TEXT_FORMAT_MAX_LEN (which
 *    bounds every other chain of recursion too), is refused as one
 *    libtraceevent cannot parse (tdatfs(1), DAMAGED TRACES).
 *  - The bounds are ten times what the formats of real kernels reach
 *    (tests/damaged/gen-sections measure), and far below a depth that
 *    crashes.
 *  - Nothing here allocates or keeps state: callable from any thread.
 */
#ifndef TDATFS_TEXT_LIMITS_H
#define TDATFS_TEXT_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#define TEXT_FORMAT_MAX_DEPTH	200		/* nesting of ( [ { */
#define TEXT_FORMAT_MAX_LEN	(128u << 10)	/* bytes of one format */

/**
 * text_format_depth() - the deepest nesting of a format's brackets
 * @fmt: format text (need not be NUL-terminated)
 * @len: its size
 *
 * Counts '(', '[' and '{' against their closing bytes outside string and
 * character literals, which end as libtraceevent's tokenizer ends them (at
 * the same quote not escaped by a backslash, or at the end of the text).
 *
 * Return: the greatest number of brackets open at once.
 */
size_t text_format_depth(const char *fmt, size_t len);

/**
 * text_format_within_limits() - whether a format may go to libtraceevent
 * @fmt: format text
 * @len: its size
 *
 * Return: true when @len is at most TEXT_FORMAT_MAX_LEN and the nesting
 * at most TEXT_FORMAT_MAX_DEPTH.
 */
bool text_format_within_limits(const char *fmt, size_t len);

#endif /* TDATFS_TEXT_LIMITS_H */
