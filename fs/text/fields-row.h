/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/fields-row.h - the rows of events/SYSTEM/EVENT/fields.tsv
 * (SPEC 2.6): one record as a table row instead of a report line.
 *
 * Invariants:
 *  - A row is "TIME\tCPU\tCOMM\tPID" then one column per field of the
 *    event's format in format order (common_* fields left out), ending in
 *    "\n".  TIME is the time column of `trace-cmd report -t` without its
 *    padding ("%llu.%09llu" seconds for a clock in nanoseconds or with
 *    TSC2NSEC, else the raw count "%llu"); CPU and PID are plain decimal;
 *    COMM is the comm the record's report line shows.
 *  - A field's column is what `trace-cmd report -R` prints after
 *    " FIELD=" for it (libtraceevent 1.7.1's tep_print_fields()), made by
 *    libtraceevent itself under the tep lock; where a field's value
 *    depends on the fields printed before it (a field the print format
 *    names twice) the whole -R text is printed and cut at the names.
 *    As trace-cmd prints the info with "%.*s" and drops one trailing
 *    newline, a value stops at a NUL (the columns after it are empty)
 *    and the last one loses one trailing newline.  Tab, newline and
 *    backslash are written "\t", "\n", "\\".
 *  - The events whose fields are numbers, printed raw or by a plain
 *    integer conversion of the print format, and arrays get the same
 *    values made here (following libtraceevent's walk of the print
 *    format's pieces, without its printf); the engine's tep_only switch
 *    (text_events_tep_only()) turns that off, and the two texts must be
 *    the same bytes.  Both run under the tep lock (they read the event's
 *    format, whose field flags libtraceevent changes while printing).
 *  - libtraceevent reads from a copy of the record that holds what of
 *    its page it may read (a short last array, such as kernel_stack's caller[8],
 *    shows the bytes after the record, as in trace-cmd), zeroes after.
 *  - A string field is printed with the string flag its format gave it:
 *    libtraceevent clears it for good at the first value that is not
 *    printable (trace-cmd then shows every later value of that field as
 *    ARRAY[...]); here each record is printed as if it were the first,
 *    so the text never depends on what was printed before, and the flag
 *    is put back as it was found.
 *  - text_fields_raw() gives the same values unescaped, one by one (for
 *    trace.pftrace's generic events), and registers no comm.
 *  - The comm lookup and the comm registrations of a record are those of
 *    text_format_record() (text/line.h), in the same order, so a
 *    stream's comm model is the same whichever of the two formatted it.
 */
#ifndef TDATFS_TEXT_FIELDS_ROW_H
#define TDATFS_TEXT_FIELDS_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tdatfs_buf;
struct tep_event;
struct tep_format_field;
struct text_fmt_share;
struct text_comm_ctx;
struct text_fmt;
struct text_rec;

int text_fields_header(struct text_fmt *fm, int id, struct tdatfs_buf *out);
int text_fields_row(struct text_fmt *fm, const struct text_rec *r,
		    struct text_comm_ctx *cc, struct tdatfs_buf *out);
int text_fields_raw(struct text_fmt *fm, const struct text_rec *r,
		    struct tdatfs_buf *out, size_t *ends, size_t nends);

/*
 * The raw values of array fields without libtraceevent, for a caller that
 * decides once per event (trace.pftrace's generic events): when
 * text_fields_arrays_alone(), each array's value in text_fields_raw() is
 * text_raw_array_put() of it on a copy of the record made as
 * text_fields_copy_size() says, zeroes after.
 */
struct text_raw_array {
	uint32_t offset, size;
	bool dynamic, relative;
	bool string;		/* the string flag its format gave it */
};

bool text_fields_arrays_alone(const struct tep_event *ev);
bool text_raw_array_of(const struct tep_format_field *f,
		       struct text_raw_array *a);
int text_raw_array_put(const struct text_fmt_share *sh,
		       const struct text_raw_array *a,
		       const unsigned char *data, size_t data_size, size_t n,
		       struct tdatfs_buf *out);
int text_fields_fast_values(const struct text_fmt_share *sh,
			    const struct tep_event *ev, size_t n,
			    int (*put)(void *ctx, const char *v, size_t len,
				       bool last),
			    void *ctx);
size_t text_fields_copy_need(const struct tep_event *ev);
size_t text_fields_copy_size(const struct text_fmt_share *sh, size_t need,
			     const struct text_rec *r, size_t n);

/**
 * text_fields_value_len() - how much of a -R value trace-cmd shows
 * @v: the value as libtraceevent (or the fast path) made it
 * @len: its length in bytes
 * @last: whether it is the event's last field
 * @cut: set when the value holds a NUL (the values after it show empty)
 *
 * trace-cmd prints the whole -R text with "%.*s" after dropping one
 * trailing newline, so a value ends at its first NUL and the last one
 * loses one trailing newline.  Both the table rows and trace.pftrace's
 * generic events apply this one rule.
 *
 * Return: the shown length, at most @len.
 */
static inline size_t text_fields_value_len(const char *v, size_t len,
					   bool last, bool *cut)
{
	size_t n;

	if (last && len && v[len - 1] == '\n')
		len--;
	n = strnlen(v, len);
	*cut = n < len;
	return n;
}

#endif /* TDATFS_TEXT_FIELDS_ROW_H */
