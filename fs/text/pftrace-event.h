/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-event.h - a record as one of Perfetto's FtraceEvents, and
 * what trace.pftrace says of the trace besides its events (the process
 * tree).  The wire bytes are fs/tdatfs-pftrace.h's; this is the mapping
 * from a trace's event formats to Perfetto's messages.
 *
 * Invariants:
 *  - An event id maps to a typed message (doc/PERFETTO.md section 4) only
 *    when its format (matched by system and name: sched/, task/,
 *    ftrace/, power/, irq/, workqueue/, raw_syscalls/) has every field
 *    the typed message needs, by name, with a compatible type; else to
 *    GenericFtraceEvent with every non-common field of its format, in
 *    format order.  Compatible: an integer of 1, 2, 4 (or, for a 64-bit
 *    proto type, 8) bytes of either signedness for an integer; a char
 *    array or __data_loc char[] for a string; an integer array for
 *    sys_enter's repeated args.  Fields Perfetto has but some kernels
 *    lack (the wakeups' success, task_*'s oom_score_adj,
 *    sched_process_exit's tgid, irq_handler_entry's handler,
 *    workqueue_execute_end's function, funcgraph_exit's calltime,
 *    rettime and overrun) are written when the format has them; format
 *    fields the message has no number for are not written.
 *    suspend_resume's action is a `const char *` on real kernels, not a
 *    string: those formats go generic.
 *  - Generic fields: a signed integer of 1, 2, 4 or 8 bytes as int_value
 *    (TDATFS_PF_I64), an unsigned one as uint_value (TDATFS_PF_U64),
 *    both read from the record as libtraceevent reads them; every other
 *    field (strings, arrays, dynamic arrays, odd sizes) as str_value
 *    holding what `trace-cmd report -R` prints after " FIELD=" for it
 *    (text_fields_raw(): a value after a NUL is empty, the last field
 *    loses one trailing newline).
 *  - Typed string fields hold the field's bytes up to its first NUL or
 *    its end (char buf[]: the record's end), as Perfetto's traced_probes
 *    writes them; not -R's ARRAY[...] for a non-printable comm.  print's
 *    buf loses one trailing newline, as -R shows it (trace_marker adds
 *    one to most writes; Perfetto's atrace parsing needs none).
 *  - Every string written is valid UTF-8 (protoc and python-protobuf's
 *    pure-Python decoder refuse anything else in a `string`): each
 *    maximal ill-formed subsequence becomes U+FFFD, exactly Python's
 *    bytes.decode("utf-8", "replace") (the WHATWG decoder, Unicode 3.9's
 *    "maximal subparts"), so a checker cleans trace-cmd's text the same
 *    way.  A string is at most TEXT_PF_STR_MAX bytes after cleaning, cut
 *    at a character boundary.
 *  - The mapping of an id is decided once per engine (at its first
 *    record, or text_pf_event_type()) and never changes.
 *  - The same record always gives the same event (sizes measured once
 *    hold for every later encoding).
 *  - Kernel function fields (funcgraph func, workqueue function) are
 *    written as their address, which is also their interned iid; the
 *    scratch lists the record's non-zero ones for the symbol table, and
 *    text_pf_symbol_name() names those a kallsyms symbol holds.
 *  - The process tree depends only on the events noted, not on their
 *    order: per pid the earliest task_newtask and the earliest
 *    sched_process_fork count (ties by their values).
 */
#ifndef TDATFS_TEXT_PFTRACE_EVENT_H
#define TDATFS_TEXT_PFTRACE_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"

struct text_fmt;
struct text_rec;

struct text_pf_events;	/* per engine: how each event id's records are written */

/* Longest string value written, in bytes (after UTF-8 cleaning). */
#define TEXT_PF_STR_MAX 65536

/* Reused record after record by one thread; zeroed to start. */
struct text_pf_scratch {
	struct tdatfs_pf_field *fields;	/* the event's fields */
	size_t cap;			/* room in @fields */
	struct tdatfs_buf strs;		/* bytes the fields' strings point into */
	uint64_t syms[4];		/* kernel function addresses of the record */
	unsigned int nsyms;
	struct tdatfs_buf raw;		/* a generic record's -R values */
	size_t *ends;			/* where each of them ends in @raw */
	size_t nends;			/* room in @ends */
	unsigned char *copy;		/* a record's copy for its arrays' values */
	size_t copy_size;		/* its bytes, zero past the record */
};

struct text_pf_events *text_pf_events_new(struct text_fmt *fm);	/* NULL + errno */
void text_pf_events_free(struct text_pf_events *m);			/* NULL ok */
void text_pf_scratch_release(struct text_pf_scratch *s);		/* NULL ok */

/*
 * text_pf_event_make() - fill @e for record @r with timestamp @ts:
 * pid = common_pid, type and fields; the pointers in @e point into @s and
 * the record.  Return 0, -ENOENT for a record of an event id the trace
 * has no format for (the caller leaves it out), or a negative errno.
 * Thread-safe for different scratches (takes the tep lock where
 * libtraceevent prints).
 */
int text_pf_event_make(struct text_pf_events *m, const struct text_rec *r,
		       uint64_t ts, struct text_pf_scratch *s,
		       struct tdatfs_pf_event *e);

/*
 * text_pf_event_type() - what records of event @id become: *type is the
 * typed message's FtraceEvent field number or TDATFS_PF_GENERIC.
 * Return 0, -ENOENT for an id without a format, or -ENOMEM.
 */
int text_pf_event_type(struct text_pf_events *m, int id, uint32_t *type);

/*
 * text_pf_symbol_name() - the kallsyms symbol holding @addr, as
 * trace-cmd names it (*name lives as long as the engine, not
 * NUL-terminated for the caller's purpose: use *len).  Return 0, -ENOENT
 * when none holds it (the address is then not interned), or -ENOMEM.
 */
int text_pf_symbol_name(struct text_pf_events *m, uint64_t addr,
			const char **name, size_t *len);

/* Append @n bytes of @s as valid UTF-8 (see the invariants), at most @max bytes. */
int text_pf_utf8_put(struct tdatfs_buf *b, const char *s, size_t n, size_t max);

/* The process tree: fed every event made, written once at the end. */
struct text_pf_tree;
struct text_pf_tree *text_pf_tree_new(void);				/* NULL + errno */
void text_pf_tree_free(struct text_pf_tree *pt);			/* NULL ok */
int text_pf_tree_note(struct text_pf_tree *pt, const struct tdatfs_pf_event *e);
int text_pf_tree_merge(struct text_pf_tree *dst, const struct text_pf_tree *src);
/* Appends the process_tree packet, or nothing when no record linked a thread to a process. */
int text_pf_tree_write(const struct text_pf_tree *pt, struct tdatfs_buf *b);

#endif /* TDATFS_TEXT_PFTRACE_EVENT_H */
