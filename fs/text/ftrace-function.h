/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/ftrace-function.h - the info text of ftrace's function and
 * func_repeats records as libtraceevent 1.7.1's function plugin prints it
 * (options indent on, parent and offset off, as trace-cmd report without
 * -O), with the call stacks it indents from kept per stream position
 * instead of per process.
 *
 * Invariants:
 *  - The plugin's model: one stack of function names per CPU number
 *    (record->cpu, whatever the buffer).  A record with parent P and
 *    function F (names as tep_find_function() resolves them, compared by
 *    their text) is indented 3 * i spaces for the first i whose entry is
 *    P, and F goes to entry i + 1; when no entry is P, P goes to entry 0,
 *    F to entry 1 and the entries after them stay (they are met again by
 *    later records).  A P that does not resolve indents nothing and
 *    changes nothing; an F that does not resolve is printed as its
 *    address ("0x%llx") and not stored.  So a stack is a list without
 *    holes: entries are only ever set at or before its end.
 *  - Both events feed the same stacks; a func_repeats record adds
 *    " (count: N  last_ts: S.UUUUUU)" (its time less its delta).  A format
 *    without the fields the plugin reads is left to libtraceevent.
 *  - struct text_func is made at setup and only learns the field offsets
 *    of the two formats, once each, under the tep lock.
 *  - struct text_fnstack is the stacks at one position of one stream (a
 *    cursor's); text only depends on the records printed before the
 *    position in that stream, never on other streams or threads.  It is
 *    used under its stream's lock.
 *  - struct text_fnsnap is a stacks' copy at a checkpoint: it never
 *    changes once made, so a finished stream's views and mirrors share
 *    them.  As bytes (text_fnsnap_save()) an entry is the address it was
 *    resolved from: loading resolves it again in the same trace, to the
 *    same name.
 */
#ifndef TDATFS_TEXT_FTRACE_FUNCTION_H
#define TDATFS_TEXT_FTRACE_FUNCTION_H

#include <stdbool.h>
#include <stddef.h>

struct tdat_file;
struct tdatfs_buf;
struct text_event_desc;
struct text_fnsnap;
struct text_fnstack;
struct text_func;
struct text_rec;
struct text_tep;
struct text_unpack;

/* Made at setup; used by the line formatter. */
struct text_func *text_func_new(struct tdat_file *f, struct text_tep *tt,
				bool big_endian);
void text_func_free(struct text_func *fn);
bool text_func_wants(const struct text_func *fn, int id);
int text_func_info(struct text_func *fn, const struct text_event_desc *d,
		   const struct text_rec *r, struct text_fnstack *stk,
		   struct tdatfs_buf *out);

/* A position's stacks. */
struct text_fnstack *text_fnstack_new(void);
void text_fnstack_free(struct text_fnstack *stk);
int text_fnstack_snap(const struct text_fnstack *stk, struct text_fnsnap **snap);
int text_fnstack_restore(struct text_fnstack *stk, const struct text_fnsnap *snap);

/* A checkpoint's copy, and as bytes. */
void text_fnsnap_free(struct text_fnsnap *snap);
size_t text_fnsnap_bytes(const struct text_fnsnap *snap);
int text_fnsnap_save(const struct text_fnsnap *snap, struct tdatfs_buf *out);
int text_fnsnap_check(struct text_unpack *u);
int text_fnsnap_load(struct text_func *fn, struct text_unpack *u,
		     struct text_fnsnap **snap);

#endif /* TDATFS_TEXT_FTRACE_FUNCTION_H */
