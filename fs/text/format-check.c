/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/format-check.c - whether libtraceevent reads an event format as
 * the kernel wrote it (text/format-check.h): plain ASCII, print arguments
 * naming only the format's own fields, constant divisors.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "format-check.h"

/* Whether @name (@len bytes) is declared by a "field:" line of @fmt. */
static bool format_has_field(const char *fmt, const char *name, size_t len)
{
	const char *p = fmt;

	while ((p = strstr(p, "field:")) != NULL) {
		const char *semi = strchr(p, ';'), *e;

		if (!semi)
			return false;
		e = semi;
		/* "char comm[16];": the name is before the brackets */
		if (e > p && e[-1] == ']')
			while (e > p && *e != '[')
				e--;
		while (e > p && e[-1] == ' ')
			e--;
		if ((size_t)(e - p) >= len && !memcmp(e - len, name, len) &&
		    !text_is_ident(e[-(ptrdiff_t)len - 1]))
			return true;
		p = semi + 1;
	}
	return false;
}

/* Whether *@p starts "TYPE)" for a TYPE with a non-zero size; moves past. */
static bool sizeof_type_known(const char **p)
{
	static const char *const types[] = {
		"u8)", "u16)", "u32)", "u64)", "s8)", "s16)", "s32)", "s64)",
		"char)", "short)", "int)", "long)", "unsigned int)",
		"unsigned long)", "long long)", "unsigned long long)",
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t n = strlen(types[i]);

		if (!strncmp(*p, types[i], n)) {
			*p += n;
			return true;
		}
	}
	return false;
}

/*
 * libtraceevent 1.7.1 evaluates '/' and '%' without a zero check, at parse
 * time in __print_flags/__print_symbolic values and at print time in
 * arguments (fuzz/, tests/corpus/crash-tep-modulo-by-zero.dat).  Accept
 * the print fmt @args (after "print fmt:") only when every divisor outside
 * the quoted strings is a non-zero number or sizeof(<integer type>).
 */
static bool divisors_are_constants(const char *args)
{
	const char *p = args;
	bool quoted = false;

	for (; *p && *p != '\n'; p++) {
		char *end;

		if (*p == '"' && (p == args || p[-1] != '\\'))
			quoted = !quoted;
		if (quoted || (*p != '/' && *p != '%'))
			continue;
		p++;
		while (*p == ' ' || *p == '(')
			p++;
		/* "__get_dynamic_array_len(x) / sizeof(u64)" is in real kernels */
		if (!strncmp(p, "sizeof(", 7)) {
			const char *q = p + 7;

			if (!sizeof_type_known(&q))
				return false;
			p = q - 1;
			continue;
		}
		if (strtoull(p, &end, 0) == 0 || end == p)
			return false;
		p = end - 1;
	}
	return true;
}

/*
 * Whether libtraceevent's event_read_print() stops before the arguments
 * of the print fmt @p (after "print fmt:"): it reads one string (its
 * tokenizer: up to the closing quote not after a backslash), joins the
 * strings that follow it, and fails unless a ',' or the end comes next.
 * That is how a kernel's ""%s"" reads (an empty string, then '%'): the
 * event is kept as failed and no argument is ever parsed or evaluated.
 * A string ended by another byte (a tab) is not followed: false.
 */
static bool print_args_unread(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p != '"')
			return *p != ',' && *p != '\0';
		for (p++; *p != '"'; p++) {
			if (*p == '\\' && p[1] && p[1] != '\t')
				p++;
			else if (*p == '\0' || *p == '\t')
				return false;
		}
		p++;
	}
}

/**
 * text_format_is_sane() - whether a format may go to libtraceevent
 * @fmt: the format's text, NUL-terminated
 * @len: its length
 *
 * libtraceevent 1.7.1 crashes on some malformed formats (a non-ASCII byte
 * in a field type, a __print_symbolic() of a REC->name that is not a
 * field, a divisor that may be zero: fuzz/, tests/corpus/crash-tep-*).
 * Kernel formats are plain ASCII, print only their own fields and divide
 * by constants, so anything else is not handed to tep_parse_event(); the
 * event then prints as one without a format.
 *
 * Return: true when it may.
 */
bool text_format_is_sane(const char *fmt, size_t len)
{
	const char *p;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)fmt[i];

		if ((c < 0x20 && c != '\t' && c != '\n') || c > 0x7e)
			return false;
	}
	p = strstr(fmt, "print fmt:");
	if (p && print_args_unread(p + 10))
		return true;
	if (p && !divisors_are_constants(p + 10))
		return false;
	while (p && (p = strstr(p, "REC->")) != NULL) {
		size_t n = 0;

		p += 5;
		while (text_is_ident(p[n]))
			n++;
		if (!n || !format_has_field(fmt, p, n))
			return false;
		p += n;
	}
	return true;
}
