/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/format-check.h - the checks an event format passes before
 * libtraceevent parses it (split from text/tep.c, which calls them).
 *
 * Invariants:
 *  - Pure: reads only the format's bytes, keeps no state.
 *  - A format refused here is never handed to libtraceevent; its event
 *    prints as one without a format, and the tep layer reports it.
 */
#ifndef TDATFS_TEXT_FORMAT_CHECK_H
#define TDATFS_TEXT_FORMAT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

bool text_format_is_sane(const char *fmt, size_t len);

#endif /* TDATFS_TEXT_FORMAT_CHECK_H */
