/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/width-bound.h - the '*' widths and precisions of a parsed print
 * format bounded by TEXT_FORMAT_MAX_WIDTH (text/format-limits.h).
 *
 * Invariants of this module:
 *  - A conversion "%*d" or "%.*s" takes its width or precision from an
 *    argument, so from the record.  libtraceevent 1.7.1 prints through a
 *    trace_seq that grows by 4 KiB and runs vsnprintf() again each time:
 *    a width of W costs W * W / 8 KiB bytes written (20,000,000: minutes
 *    for one record; 0x7fffffff: never done).  Every such argument of
 *    a number or string conversion is replaced, in the parsed event, by
 *    a tree of libtraceevent's own operators that evaluates to the same
 *    value when it lies in [0, TEXT_FORMAT_MAX_WIDTH] (as the int
 *    libtraceevent makes of it), to TEXT_FORMAT_MAX_WIDTH above.  So
 *    every path that prints the format through libtraceevent (the info
 *    text, the "-R" values of fields.tsv) is bounded, and prints what
 *    trace-cmd prints inside the bound.
 *  - A negative value is undefined in libtraceevent 1.7.1 (it hands
 *    printf the value as the width, and for "%s" takes the string from
 *    beyond the arguments: trace-cmd prints garbage or crashes); here a
 *    width becomes 0, a number's precision 1 and a string's
 *    TEXT_FORMAT_MAX_WIDTH, as C reads a negative precision.  The length
 *    of "%*ph" is not bounded: libtraceevent cuts it to its array.
 *  - The argument keeps its address (libtraceevent's print cache points
 *    at it); its old content is kept by the bound, and put back by
 *    text_width_bound_undo(), which must run before the event is freed
 *    (libtraceevent would free the bound's nodes, which it did not make).
 *  - Calls are made on one event by one thread (the tep lock or setup).
 */
#ifndef TDATFS_TEXT_WIDTH_BOUND_H
#define TDATFS_TEXT_WIDTH_BOUND_H

#include <traceevent/event-parse.h>

struct text_width_bound;

int text_width_bound_event(struct tep_event *ev,
			   struct text_width_bound **list);
void text_width_bound_undo(struct text_width_bound *list);

#endif /* TDATFS_TEXT_WIDTH_BOUND_H */
