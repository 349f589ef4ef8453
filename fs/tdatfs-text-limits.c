/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-limits.c - the nesting and length bounds of event formats.
 * The functions are documented in tdatfs-text-limits.h.
 */
#include "tdatfs-text-limits.h"

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

size_t text_format_depth(const char *fmt, size_t len)
{
	size_t i = 0, depth = 0, deepest = 0;

	while (i < len) {
		char c = fmt[i];

		if (c == '"' || c == '\'') {
			i = skip_literal(fmt, len, i);
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			if (++depth > deepest)
				deepest = depth;
		} else if ((c == ')' || c == ']' || c == '}') && depth) {
			depth--;
		}
		i++;
	}
	return deepest;
}

bool text_format_within_limits(const char *fmt, size_t len)
{
	return len <= TEXT_FORMAT_MAX_LEN &&
	       text_format_depth(fmt, len) <= TEXT_FORMAT_MAX_DEPTH;
}
