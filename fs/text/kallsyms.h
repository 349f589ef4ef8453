/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/kallsyms.h - a trace's kallsyms as a sorted address table, the
 * answer to libtraceevent's function resolver.
 *
 * Invariants:
 *  - text_kallsyms_find() gives, for every address, the name and start that
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
 *  - A table does not change after text_kallsyms_new(); lookups on our own
 *    table take no lock (the fallback handle needs its caller's lock),
 *    and each thread remembers its last answers by address, keyed by a
 *    generation no two tables share.
 *  - A share (struct text_kallsyms_share) holds the one table of a trace
 *    that several engines use, made by the first to ask for it: the
 *    index build's workers and the engine that reads after them parse
 *    kallsyms once between them.  Only our own tables are shared (their
 *    lookups take no lock); a text that goes to the fallback gives each
 *    asker a table of its own, as before.  The share lives as long as
 *    its last reference, and a shared table as long as its share.
 *  - This module calls only libtraceevent.
 */
#ifndef TDATFS_TEXT_KALLSYMS_H
#define TDATFS_TEXT_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>

struct text_kallsyms;

struct text_kallsyms *text_kallsyms_new(const char *text);
void text_kallsyms_free(struct text_kallsyms *ks);
const char *text_kallsyms_find(struct text_kallsyms *ks,
			       unsigned long long addr,
			       unsigned long long *start);
int text_kallsyms_address(const struct text_kallsyms *ks, const char *name,
			  unsigned long long *addr);
bool text_kallsyms_own(const struct text_kallsyms *ks);

struct text_kallsyms_share;

/*
 * Reads a trace's kallsyms text for a share: 0 with *text malloc'd (the
 * share frees it) or NULL when the trace has none; or -ENOMEM.
 */
typedef int (*text_kallsyms_read_fn)(void *arg, char **text);

struct text_kallsyms_share *text_kallsyms_share_new(void);
struct text_kallsyms_share *
text_kallsyms_share_ref(struct text_kallsyms_share *sh);
void text_kallsyms_share_free(struct text_kallsyms_share *sh);
int text_kallsyms_share_get(struct text_kallsyms_share *sh,
			    text_kallsyms_read_fn read, void *arg,
			    struct text_kallsyms **ks, bool *own_copy);

#endif /* TDATFS_TEXT_KALLSYMS_H */
