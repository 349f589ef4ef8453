/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/compiled.h - compiled info formats: the info text of events
 * written without printf and without libtraceevent.
 *
 * Invariants:
 *  - A format is compiled only when the program is certain to print the
 *    bytes libtraceevent 1.7.1 prints for every record of the event;
 *    anything else is refused (NULL) and left to libtraceevent.
 *  - A program is read-only once made and reads only the record and the
 *    engine's own kallsyms table (never libtraceevent's fallback handle),
 *    so it runs without the tep lock, from any thread; it must not
 *    outlive the text_tep it was compiled with.
 *  - The argument trees are compiled by what they are (fields, atoms,
 *    casts, operators, '?' ':', __print_flags(), __print_symbolic(),
 *    __get_str()), never by matching the format's text; an argument of
 *    any other kind leaves the whole event to libtraceevent.
 *  - An event with a plugin handler is compiled only for the kmem
 *    plugin's call_site handler, whose prefix the program prints, and
 *    for the sched plugin's handlers (sched_switch, sched_wakeup,
 *    sched_wakeup_new), whose text the program prints instead of the
 *    format; the comms those register are not the program's business:
 *    the caller learns them (text_comms_learn()) as after
 *    libtraceevent's printing.  Other handlers stay with libtraceevent.
 *  - A name atom evaluated as a number (test_for_symbol(): a kernel
 *    symbol's address, which text/tep.c registers on the handle) is not
 *    compiled: its event goes to libtraceevent.
 *  - The caller has checked that all of the record's fixed fields lie
 *    inside it (text_event_whole(); a record ending inside its last
 *    array goes to libtraceevent); __data_loc strings are bounded here.
 */
#ifndef TDATFS_TEXT_COMPILED_H
#define TDATFS_TEXT_COMPILED_H

#include <stdbool.h>
#include <stddef.h>

struct tep_event;
struct tdatfs_buf;
struct text_compiled;
struct text_tep;

struct text_compiled *text_compiled_compile(struct tep_event *ev,
					    struct text_tep *tt);
void text_compiled_free(struct text_compiled *fp);
int text_compiled_info(const struct text_compiled *fp, bool big_endian,
		       const unsigned char *data, size_t n,
		       struct tdatfs_buf *out);

#endif /* TDATFS_TEXT_COMPILED_H */
