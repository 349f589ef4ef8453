/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/format-limits.c - the nesting and length bounds of event formats.
 */
#include <string.h>

#include "format-limits.h"

/*
 * Past the literal that opens at @i: libtraceevent's tokenizer reads up to
 * the same quote not preceded by a lone backslash ("\\" cancels itself).
 */
static size_t skip_literal(const char *fmt, size_t len, size_t i)
{
	char quote = fmt[i], last = 0;

	for (i++; i < len; i++) {
		char c = fmt[i];

		if (c == quote && last != '\\')
			return i + 1;
		last = c == '\\' && last == '\\' ? 0 : c;
	}
	return len;
}

/* An operator byte; "->" (a field of REC) is no operator. */
static bool is_op(const char *fmt, size_t len, size_t i)
{
	if (!fmt[i] || !strchr("!~-+*/%<>=&|^?:", fmt[i]))
		return false;
	if (fmt[i] == '-' && i + 1 < len && fmt[i + 1] == '>')
		return false;
	return !(fmt[i] == '>' && i > 0 && fmt[i - 1] == '-');
}

/* Whether the ')' at @i is followed by an operand. */
static bool casts(const char *fmt, size_t len, size_t i)
{
	for (i++; i < len && (fmt[i] == ' ' || fmt[i] == '\t'); i++)
		;
	return i < len && !strchr(",;)]}\n", fmt[i]) && !is_op(fmt, len, i);
}

/**
 * text_format_depth() - how deep libtraceevent's parser recurses, at most
 * @fmt: format text (need not be NUL-terminated)
 * @len: its size
 *
 * At each byte, the brackets open plus, at every open level, the
 * operators and casts since its last ',' or ';'.  Literals do not count:
 * they end as libtraceevent's tokenizer ends them (at the same quote not
 * escaped by a backslash, or at the end of the text).
 *
 * Return: the greatest such figure; past TEXT_FORMAT_MAX_DEPTH brackets
 * the count stops, with a figure over the bound.
 */
size_t text_format_depth(const char *fmt, size_t len)
{
	/* operators since the last ',' or ';' at each open bracket level */
	size_t ops[TEXT_FORMAT_MAX_DEPTH + 2] = { 0 };
	size_t i = 0, depth = 0, cost = 0, deepest = 0;

	while (i < len) {
		char c = fmt[i];

		if (c == '"' || c == '\'') {
			i = skip_literal(fmt, len, i);
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			/* past the bound the exact figure does not matter */
			if (++depth > TEXT_FORMAT_MAX_DEPTH)
				return cost + depth > deepest ? cost + depth : deepest;
			ops[depth] = 0;
		} else if ((c == ')' || c == ']' || c == '}') && depth) {
			cost -= ops[depth--];
			/* "(type)" and then an operand: a cast, which recurses */
			if (c == ')' && casts(fmt, len, i)) {
				ops[depth]++;
				cost++;
			}
		} else if (c == ',' || c == ';') {
			cost -= ops[depth];
			ops[depth] = 0;
		} else if (is_op(fmt, len, i)) {
			ops[depth]++;
			cost++;
		}
		if (cost + depth > deepest)
			deepest = cost + depth;
		i++;
	}
	return deepest;
}

/**
 * text_format_within_limits() - whether a format may go to libtraceevent
 * @fmt: format text
 * @len: its size
 *
 * Return: true when @len is at most TEXT_FORMAT_MAX_LEN and the nesting
 * at most TEXT_FORMAT_MAX_DEPTH.
 */
bool text_format_within_limits(const char *fmt, size_t len)
{
	return len <= TEXT_FORMAT_MAX_LEN &&
	       text_format_depth(fmt, len) <= TEXT_FORMAT_MAX_DEPTH;
}
