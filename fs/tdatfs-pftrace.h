/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-pftrace.h - Perfetto's trace format (trace.pftrace) written from
 * data: the packets of a `perfetto.protos.Trace` and the protobuf wire
 * encoding under them.  It knows no trace.dat: the text engine's pass
 * (fs/text/) turns records into the structs below, so the unit test feeds
 * it inline data.  Field numbers are Perfetto's (perfetto_trace.proto,
 * doc/PERFETTO.md); nothing of Perfetto's code or generated code is used.
 *
 * Invariants:
 *  - Every function appends whole bytes to a struct tdatfs_buf; on an error
 *    the buffer's length is as it was before the call (nothing half
 *    written is left behind), so a caller may retry or give up cleanly.
 *  - The encoding is canonical: every length is a minimal varint, fields
 *    are written in the order given, integers as their proto type says
 *    (int32 and int64 sign-extended to ten bytes when negative).  The same
 *    input always gives the same bytes, so a size measured once is the
 *    size of every later encoding (trace.pftrace is read at any offset by
 *    encoding again the piece that covers it).
 *  - Each packet function writes one complete `Trace.packet` (field 1):
 *    the pieces of a file are concatenated in any order the caller likes.
 *  - Strings are bytes with a length; they need not be NUL-terminated or
 *    UTF-8 (protobuf strings should be UTF-8; the caller cleans them).
 *  - Nothing allocates but the buffer's growth; nothing is global.
 */
#ifndef TDATFS_PFTRACE_H
#define TDATFS_PFTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdatfs-common.h"

/* The protobuf wire encoding */

/**
 * tdatfs_pb_varint_size() - bytes of a value as a varint
 * @v: the value
 * Return: 1 to 10.
 */
size_t tdatfs_pb_varint_size(uint64_t v);

/**
 * tdatfs_pb_varint_put() - write a value as a varint
 * @p: where, with room for tdatfs_pb_varint_size(@v) bytes
 * @v: the value
 * Return: the bytes written, 1 to 10.
 */
size_t tdatfs_pb_varint_put(void *p, uint64_t v);

/**
 * tdatfs_pb_varint() - append a varint field (wire type 0)
 * @b: buffer
 * @field: field number, 1 to 2^29 - 1
 * @v: the value as it goes on the wire (a negative int32 or int64 cast to
 *	uint64_t, sign-extended)
 * Return: 0, -EINVAL for a bad field number, or -ENOMEM.
 */
int tdatfs_pb_varint(struct tdatfs_buf *b, uint32_t field, uint64_t v);

/**
 * tdatfs_pb_bytes() - append a length-delimited field (wire type 2)
 * @b: buffer
 * @field: field number
 * @p: the bytes (string, bytes or an encoded message)
 * @n: their count
 * Return: 0, -EINVAL, or -ENOMEM.
 */
int tdatfs_pb_bytes(struct tdatfs_buf *b, uint32_t field, const void *p,
		    size_t n);

/**
 * tdatfs_pb_open() - start a nested message field
 * @b: buffer
 * @field: field number
 * @mark: set to what tdatfs_pb_close() needs
 *
 * Writes the tag and reserves room for the length; the message's fields
 * follow.  Pairs nest like brackets.
 * Return: 0, -EINVAL, or -ENOMEM.
 */
int tdatfs_pb_open(struct tdatfs_buf *b, uint32_t field, size_t *mark);

/**
 * tdatfs_pb_close() - end a nested message field
 * @b: buffer
 * @mark: from the matching tdatfs_pb_open()
 *
 * Writes the length as a minimal varint and moves the message down onto
 * it (canonical bytes, see the invariants).
 * Return: 0, or -EFBIG for a message of 2^28 bytes or more (the room
 * reserved for its length).
 */
int tdatfs_pb_close(struct tdatfs_buf *b, size_t mark);

/* Perfetto's packets */

/** TDATFS_PF_SEQUENCE - trusted_packet_sequence_id of every packet written */
#define TDATFS_PF_SEQUENCE 1

/** TDATFS_PF_GENERIC - FtraceEvent's field of GenericFtraceEvent */
#define TDATFS_PF_GENERIC 327

/**
 * struct tdatfs_pf_utsname - SystemInfo.utsname
 * @sysname: "Linux"; NULL or "" leaves the field out, as for the others
 * @version: the kernel's build string ("#1 SMP PREEMPT_DYNAMIC ...")
 * @release: "6.1.0-18-amd64": Perfetto decodes prev_state by it
 * @machine: "x86_64", "aarch64", ...: Perfetto names syscalls by it
 */
struct tdatfs_pf_utsname {
	const char *sysname;
	const char *version;
	const char *release;
	const char *machine;
};

/**
 * tdatfs_pf_system_info() - append the system_info packet
 * @b: buffer
 * @u: the utsname
 * Return: 0 or -ENOMEM.
 */
int tdatfs_pf_system_info(struct tdatfs_buf *b,
			  const struct tdatfs_pf_utsname *u);

/**
 * struct tdatfs_pf_symbol - one interned kernel symbol
 * @iid: its id, not 0; events name the function by it
 * @name: the symbol's name
 * @len: its length
 */
struct tdatfs_pf_symbol {
	uint64_t iid;
	const char *name;
	size_t len;
};

/**
 * tdatfs_pf_symbols() - append a packet of interned kernel symbols
 * @b: buffer
 * @s: the symbols
 * @n: their count
 * @clear: whether the packet starts the sequence's incremental state
 *	(SEQ_INCREMENTAL_STATE_CLEARED): true for the first such packet,
 *	which must come before every bundle that uses the symbols
 * Return: 0 or -ENOMEM.
 */
int tdatfs_pf_symbols(struct tdatfs_buf *b, const struct tdatfs_pf_symbol *s,
		      size_t n, bool clear);

/**
 * struct tdatfs_pf_process - ProcessTree.Process
 * @pid: process id (tgid)
 * @ppid: parent's process id
 * @cmdline: its first cmdline element (the comm); Perfetto skips a
 *	process without one, so it is always written
 * @len: its length
 */
struct tdatfs_pf_process {
	int32_t pid;
	int32_t ppid;
	const char *cmdline;
	size_t len;
};

/**
 * struct tdatfs_pf_thread - ProcessTree.Thread
 * @tid: thread id
 * @tgid: its process's id
 */
struct tdatfs_pf_thread {
	int32_t tid;
	int32_t tgid;
};

/**
 * tdatfs_pf_process_tree() - append a process_tree packet
 * @b: buffer
 * @p: processes
 * @np: their count
 * @t: threads
 * @nt: their count
 * Return: 0 or -ENOMEM.
 */
int tdatfs_pf_process_tree(struct tdatfs_buf *b,
			   const struct tdatfs_pf_process *p, size_t np,
			   const struct tdatfs_pf_thread *t, size_t nt);

/**
 * enum tdatfs_pf_type - a field's proto type, which decides its encoding
 * @TDATFS_PF_I32: int32: the low 32 bits of @i, sign-extended
 * @TDATFS_PF_I64: int64: @i
 * @TDATFS_PF_U32: uint32: the low 32 bits of @u
 * @TDATFS_PF_U64: uint64: @u
 * @TDATFS_PF_STR: string: @str, @len
 *
 * In a generic event the signed types go to int_value, the unsigned ones
 * to uint_value and strings to str_value.
 */
enum tdatfs_pf_type {
	TDATFS_PF_I32,
	TDATFS_PF_I64,
	TDATFS_PF_U32,
	TDATFS_PF_U64,
	TDATFS_PF_STR,
};

/**
 * struct tdatfs_pf_field - one field of an event
 * @number: typed events: the field's number in the typed message; generic
 *	events: unused
 * @name: generic events: the field's name; typed events: unused
 * @name_len: its length
 * @type: how the value is written
 * @i: value of the signed types
 * @u: value of the unsigned types
 * @str: value of %TDATFS_PF_STR
 * @len: its length
 */
struct tdatfs_pf_field {
	uint32_t number;
	const char *name;
	size_t name_len;
	enum tdatfs_pf_type type;
	int64_t i;
	uint64_t u;
	const char *str;
	size_t len;
};

/**
 * struct tdatfs_pf_event - one FtraceEvent
 * @timestamp: ns (or a counter clock's counts), as the buffer's text
 *	shows the record's time
 * @pid: common_pid
 * @type: FtraceEvent's field number of the typed message (sched_switch
 *	4, ...), or %TDATFS_PF_GENERIC
 * @name: %TDATFS_PF_GENERIC: the event's name (event_name)
 * @name_len: its length
 * @fields: the fields, in the order they are written
 * @n: their count
 */
struct tdatfs_pf_event {
	uint64_t timestamp;
	uint32_t pid;
	uint32_t type;
	const char *name;
	size_t name_len;
	const struct tdatfs_pf_field *fields;
	size_t n;
};

/**
 * struct tdatfs_pf_bundle - a bundle packet being written
 * @b: its buffer
 * @start: length of @b before the packet (for undoing it)
 * @packet: the packet's mark (tdatfs_pb_open())
 * @bundle: the bundle's mark
 * @lost: whether lost_events is written (after the events, in field
 *	number order, as protobuf's own serializers write it)
 *
 * Filled by tdatfs_pf_bundle_begin(); the caller only holds it.
 */
struct tdatfs_pf_bundle {
	struct tdatfs_buf *b;
	size_t start;
	size_t packet;
	size_t bundle;
	bool lost;
};

/**
 * tdatfs_pf_bundle_begin() - start a packet of one CPU's events
 * @pb: set up for the calls below
 * @b: buffer
 * @cpu: the CPU, written even when 0 (Perfetto drops a bundle without)
 * @lost: whether events of this CPU were lost just before this bundle
 *
 * The packet carries %TDATFS_PF_SEQUENCE, so that interned symbols of
 * tdatfs_pf_symbols() reach its events.
 * Return: 0 or -ENOMEM (then nothing was written).
 */
int tdatfs_pf_bundle_begin(struct tdatfs_pf_bundle *pb, struct tdatfs_buf *b,
			   uint32_t cpu, bool lost);

/**
 * tdatfs_pf_bundle_event() - append an event to a bundle
 * @pb: the bundle
 * @e: the event
 * Return: 0, -EINVAL for an event of no type, or -ENOMEM; on an error
 * the bundle holds the events before this one.
 */
int tdatfs_pf_bundle_event(struct tdatfs_pf_bundle *pb,
			   const struct tdatfs_pf_event *e);

/**
 * tdatfs_pf_bundle_end() - finish a bundle packet
 * @pb: the bundle
 * Return: 0, or -EFBIG when the bundle reached 2^28 bytes (then the
 * whole packet is undone).
 */
int tdatfs_pf_bundle_end(struct tdatfs_pf_bundle *pb);

/**
 * tdatfs_pf_bundle_abort() - undo a bundle packet
 * @pb: the bundle; its buffer gets back the length it had before
 */
void tdatfs_pf_bundle_abort(struct tdatfs_pf_bundle *pb);

#endif /* TDATFS_PFTRACE_H */
