/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/timestamp.h - timestamps as trace-cmd shows them.
 *
 * Invariants:
 *  - struct text_timestamp is made once from the trace's options (DATE, OFFSET,
 *    TIME_SHIFT, TSC2NSEC, TRACECLOCK, in file order, as trace-cmd reads
 *    them) and never changes after: it is read without a lock.
 *  - text_timestamp_calc() is trace-cmd's timestamp_calc(): the TIME_SHIFT
 *    guest-to-host correction of the record's CPU slot (text_timestamp_slot(),
 *    -1 for none: instance buffers, CPUs the option has no samples for),
 *    then TSC2NSEC, then the DATE and OFFSET shifts, wrapping as unsigned
 *    64-bit, TSC2NSEC as trace-cmd's x86-64 build computes it (the
 *    multiplier sign-extended, shift counts modulo 64).  The TIME_SHIFT
 *    samples of a slot are sorted by time with repeated times dropped, as
 *    trace-cmd loads them; a top-buffer CPU whose slot has none (trace-cmd
 *    reads outside its array) keeps its times and is reported in the
 *    damage registry when the settings are made.
 *  - text_timestamp_in_usecs() is whether the time column is seconds.micros
 *    (a nanosecond clock or TSC2NSEC) rather than the raw count.
 */
#ifndef TDATFS_TEXT_TIMESTAMP_H
#define TDATFS_TEXT_TIMESTAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct text_timestamp;

struct text_timestamp *text_timestamp_new(struct tdat_file *f);
void text_timestamp_free(struct text_timestamp *ts);
int text_timestamp_slot(const struct text_timestamp *ts, size_t b, size_t c);
uint64_t text_timestamp_calc(const struct text_timestamp *ts, int slot,
			     uint64_t raw);
bool text_timestamp_in_usecs(const struct text_timestamp *ts);

#endif /* TDATFS_TEXT_TIMESTAMP_H */
