/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-ksym.h - a trace's kallsyms as a sorted address table, the
 * answer to libtraceevent's function resolver.
 *
 * Invariants:
 *  - text_ksym_find() gives, for every address, the name and start that
 *    tep_find_function() and tep_find_function_address() of libtraceevent
 *    1.7.1 give on a handle tep_parse_kallsyms() was fed the same text:
 *    the same entries ('A'/'a' symbols and '$' names left out), in the
 *    same order (by address; equal addresses last line first), searched
 *    by the same bisection (glibc's bsearch() with libtraceevent's
 *    comparison, so an address past the last symbol resolves to nothing
 *    and a tie on an exact address picks the entry the bisection meets).
 *  - The text is parsed here only when every line is in the form the
 *    kernel writes ("ADDR T NAME" or "ADDR T NAME\t[MOD]", printable
 *    ASCII); any other text goes whole to tep_parse_kallsyms() on a
 *    private handle, so odd input keeps libtraceevent's own answers.
 *  - Module names are not kept: nothing libtraceevent prints shows them,
 *    and a resolver that leaves them NULL is what the engine always had.
 *  - A table does not change after text_ksym_new(); lookups on our own
 *    table take no lock (the fallback handle needs its caller's lock).
 *  - This module calls only libtraceevent.
 */
#ifndef TDATFS_TEXT_KSYM_H
#define TDATFS_TEXT_KSYM_H

#include <stdbool.h>
#include <stddef.h>

struct text_ksym;

struct text_ksym *text_ksym_new(const char *text);
void text_ksym_free(struct text_ksym *ks);
const char *text_ksym_find(struct text_ksym *ks, unsigned long long addr,
			   unsigned long long *start);
bool text_ksym_own(const struct text_ksym *ks);

#endif /* TDATFS_TEXT_KSYM_H */
