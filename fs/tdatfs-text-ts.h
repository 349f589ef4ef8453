/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-ts.h - timestamps as trace-cmd shows them.
 *
 * Invariants:
 *  - struct text_ts is made once from the trace's options (DATE, OFFSET,
 *    TSC2NSEC, TRACECLOCK, in file order, as trace-cmd reads them) and
 *    never changes after: it is read without a lock.
 *  - text_ts_calc() is trace-cmd's timestamp_calc(): TSC2NSEC first, then
 *    the DATE and OFFSET shifts, wrapping as unsigned 64-bit.
 *  - text_ts_in_usecs() is whether the time column is seconds.micros
 *    (a nanosecond clock or TSC2NSEC) rather than the raw count.
 */
#ifndef TDATFS_TEXT_TS_H
#define TDATFS_TEXT_TS_H

#include <stdbool.h>
#include <stdint.h>

struct tdat_file;
struct text_ts;

struct text_ts *text_ts_new(struct tdat_file *f);
void text_ts_free(struct text_ts *ts);
uint64_t text_ts_calc(const struct text_ts *ts, uint64_t raw);
bool text_ts_in_usecs(const struct text_ts *ts);

#endif /* TDATFS_TEXT_TS_H */
