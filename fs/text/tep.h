/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/tep.h - the libtraceevent handle of a trace and its lock.
 *
 * Invariants:
 *  - One struct text_tep per engine owns one tep_handle and the plugins
 *    loaded into it, and holds a reference to a kallsyms share
 *    (text/kallsyms.h).
 *  - libtraceevent is not thread-safe (it caches the last event looked
 *    up, sorts the cmdline table on first use, plugins keep static
 *    state), so every call into the handle after setup, by any module, is
 *    made between text_tep_lock() and text_tep_unlock().  During setup
 *    (one thread, no stream yet) the lock is not needed.
 *  - What libtraceevent keeps for the whole process (its format parser's
 *    tokenizer, the plugin option lists, the function plugin's call
 *    stacks) is used under one process-wide lock of this module, taken
 *    inside the handle's lock: text_tep_parse_format(),
 *    text_tep_parse_header_page(), text_tep_new(), text_tep_free() and
 *    text_tep_print_info() take it themselves, so engines on several
 *    threads (the index build's workers) never share that state at once.
 *  - kallsyms is taken from the handle's share (text/kallsyms.h) the
 *    first time libtraceevent looks an address up (so under the lock):
 *    most traces never print a symbol, and the engines of one trace
 *    given one share parse it once.
 *    When that fails for want of memory the lookup answers no symbol and
 *    the caller, still under the lock, gets -ENOMEM from
 *    text_tep_take_error() and must not use the text; the next lookup
 *    tries again.  text_tep_ksyms() reads it early, for the compiled
 *    formats (text/compiled.h), which then search it without a lock.
 *  - Text handed to the handle passes the checks that keep libtraceevent
 *    1.7.1 from crashing on malformed input; what fails them is left out,
 *    as a format that does not parse is.  Which formats were left out
 *    whole, and why, is kept (text_tep_dropped()); the registry hears of
 *    one only when a caller meets its records (text_tep_report_dropped()),
 *    so what errors lists does not depend on which formats were parsed.
 *  - This module knows nothing of the event table, comms or streams.
 */
#ifndef TDATFS_TEXT_TEP_H
#define TDATFS_TEXT_TEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <traceevent/event-parse.h>

#include "tdat.h"

struct text_tep;

/* How the ring-buffer pages of the trace are laid out (header_page). */
struct text_page_fmt {
	unsigned int kernel_long;	/* 4 or 8 */
	bool big_endian;
	bool old_format;
	bool ts_ok;			/* header_page timestamp is 8 bytes */
};

struct text_kallsyms_share;
struct text_tep *text_tep_new(struct tdat_file *f,
			      struct text_kallsyms_share *share);
void text_tep_free(struct text_tep *tt);
struct tep_handle *text_tep_handle(struct text_tep *tt);
struct tdat_file *text_tep_file(struct text_tep *tt);
void text_tep_lock(struct text_tep *tt);
void text_tep_unlock(struct text_tep *tt);
void text_tep_print_info(struct text_tep *tt, struct trace_seq *s,
			 struct tep_record *rec, const struct tep_event *ev);
bool text_tep_field_parsed_string(const struct tep_format_field *f);
void text_tep_field_restore_string(struct tep_format_field *f);

int text_tep_read_meta(struct tdat_file *f, enum tdat_meta which, char **buf,
		       uint64_t *size);
int text_tep_parse_format(struct text_tep *tt, size_t i, char **buf,
			  size_t *cap);
int text_tep_parse_formats(struct text_tep *tt, bool ftrace);
bool text_tep_dropped(const struct text_tep *tt, size_t i);
void text_tep_report_dropped(struct text_tep *tt, size_t i);
int text_tep_parse_printk(struct text_tep *tt);
int text_tep_parse_header_page(struct text_tep *tt);
int text_tep_parse_cmdlines(struct text_tep *tt, const char *buf);
int text_tep_sort_comms(struct text_tep *tt);
int text_tep_take_error(struct text_tep *tt);
struct text_kallsyms;
int text_tep_ksyms(struct text_tep *tt, struct text_kallsyms **ks);
int text_tep_atom_value(struct text_tep *tt, const char *name, uint64_t *val);
void text_tep_page_fmt(struct text_tep *tt, struct text_page_fmt *pf);

#endif /* TDATFS_TEXT_TEP_H */
