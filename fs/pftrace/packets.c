/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pftrace/packets.c - Perfetto's packets (tdatfs-pftrace.h): system_info,
 * interned kernel symbols, the process tree and ftrace event bundles, on
 * the wire encoding of pftrace/proto.c.  Field numbers are those of
 * perfetto_trace.proto at the commit doc/PERFETTO.md names.
 */
#include <errno.h>
#include <string.h>

#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"

/* Trace */
#define TRACE_PACKET 1
/* TracePacket */
#define PKT_FTRACE_EVENTS 1
#define PKT_PROCESS_TREE 2
#define PKT_SEQUENCE_ID 10
#define PKT_INTERNED_DATA 12
#define PKT_SEQUENCE_FLAGS 13
#define PKT_SYSTEM_INFO 45
/* TracePacket.SequenceFlags */
#define SEQ_INCREMENTAL_STATE_CLEARED 1
/* SystemInfo, Utsname */
#define SYSINFO_UTSNAME 1
#define UTS_SYSNAME 1
#define UTS_VERSION 2
#define UTS_RELEASE 3
#define UTS_MACHINE 4
/* InternedData, InternedString */
#define INTERNED_KERNEL_SYMBOLS 26
#define ISTR_IID 1
#define ISTR_STR 2
/* ProcessTree, its Process and Thread */
#define TREE_PROCESSES 1
#define TREE_THREADS 2
#define PROC_PID 1
#define PROC_PPID 2
#define PROC_CMDLINE 3
#define THREAD_TID 1
#define THREAD_TGID 3
/* FtraceEventBundle */
#define BUNDLE_CPU 1
#define BUNDLE_EVENT 2
#define BUNDLE_LOST_EVENTS 3
/* FtraceEvent */
#define EVENT_TIMESTAMP 1
#define EVENT_PID 2
/* GenericFtraceEvent and its Field */
#define GENERIC_EVENT_NAME 1
#define GENERIC_FIELD 2
#define GFIELD_NAME 1
#define GFIELD_STR 3
#define GFIELD_INT 4
#define GFIELD_UINT 5

/* An int32 on the wire: its low 32 bits, sign-extended to 64. */
static uint64_t wire_i32(int64_t v)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

/* A string field, left out when @s is NULL or empty (proto3's default). */
static int str_put(struct tdatfs_buf *b, uint32_t field, const char *s)
{
	if (!s || !*s)
		return 0;
	return tdatfs_pb_bytes(b, field, s, strlen(s));
}

/* Closes the marks of @m, innermost last in the array, then first. */
static int close_all(struct tdatfs_buf *b, const size_t *m, size_t n)
{
	int err = 0;

	while (n-- && !err)
		err = tdatfs_pb_close(b, m[n]);
	return err;
}

int tdatfs_pf_system_info(struct tdatfs_buf *b,
			  const struct tdatfs_pf_utsname *u)
{
	size_t start = b->len;
	size_t m[3];
	int err;

	err = tdatfs_pb_open(b, TRACE_PACKET, &m[0]);
	if (!err)
		err = tdatfs_pb_open(b, PKT_SYSTEM_INFO, &m[1]);
	if (!err)
		err = tdatfs_pb_open(b, SYSINFO_UTSNAME, &m[2]);
	if (!err)
		err = str_put(b, UTS_SYSNAME, u->sysname);
	if (!err)
		err = str_put(b, UTS_VERSION, u->version);
	if (!err)
		err = str_put(b, UTS_RELEASE, u->release);
	if (!err)
		err = str_put(b, UTS_MACHINE, u->machine);
	if (!err)
		err = close_all(b, m, 3);
	if (err)
		b->len = start;
	return err;
}

/* One InternedString {iid, str} as a kernel_symbols entry. */
static int symbol_put(struct tdatfs_buf *b, const struct tdatfs_pf_symbol *s)
{
	size_t m;
	int err;

	err = tdatfs_pb_open(b, INTERNED_KERNEL_SYMBOLS, &m);
	if (!err)
		err = tdatfs_pb_varint(b, ISTR_IID, s->iid);
	if (!err)
		err = tdatfs_pb_bytes(b, ISTR_STR, s->name, s->len);
	if (!err)
		err = tdatfs_pb_close(b, m);
	return err;
}

/* Sequence id, interned data, flags: the order of the field numbers
 * (Perfetto's reader takes the flags before the packet's interned data
 * whatever their order). */
int tdatfs_pf_symbols(struct tdatfs_buf *b, const struct tdatfs_pf_symbol *s,
		      size_t n, bool clear)
{
	size_t start = b->len;
	size_t m[2];
	size_t i;
	int err;

	err = tdatfs_pb_open(b, TRACE_PACKET, &m[0]);
	if (!err)
		err = tdatfs_pb_varint(b, PKT_SEQUENCE_ID, TDATFS_PF_SEQUENCE);
	if (!err)
		err = tdatfs_pb_open(b, PKT_INTERNED_DATA, &m[1]);
	for (i = 0; i < n && !err; i++)
		err = symbol_put(b, &s[i]);
	if (!err)
		err = tdatfs_pb_close(b, m[1]);
	if (!err && clear)
		err = tdatfs_pb_varint(b, PKT_SEQUENCE_FLAGS,
				       SEQ_INCREMENTAL_STATE_CLEARED);
	if (!err)
		err = tdatfs_pb_close(b, m[0]);
	if (err)
		b->len = start;
	return err;
}

static int process_put(struct tdatfs_buf *b, const struct tdatfs_pf_process *p)
{
	size_t m;
	int err;

	err = tdatfs_pb_open(b, TREE_PROCESSES, &m);
	if (!err)
		err = tdatfs_pb_varint(b, PROC_PID, wire_i32(p->pid));
	if (!err)
		err = tdatfs_pb_varint(b, PROC_PPID, wire_i32(p->ppid));
	if (!err)
		err = tdatfs_pb_bytes(b, PROC_CMDLINE, p->cmdline, p->len);
	if (!err)
		err = tdatfs_pb_close(b, m);
	return err;
}

static int thread_put(struct tdatfs_buf *b, const struct tdatfs_pf_thread *t)
{
	size_t m;
	int err;

	err = tdatfs_pb_open(b, TREE_THREADS, &m);
	if (!err)
		err = tdatfs_pb_varint(b, THREAD_TID, wire_i32(t->tid));
	if (!err)
		err = tdatfs_pb_varint(b, THREAD_TGID, wire_i32(t->tgid));
	if (!err)
		err = tdatfs_pb_close(b, m);
	return err;
}

int tdatfs_pf_process_tree(struct tdatfs_buf *b,
			   const struct tdatfs_pf_process *p, size_t np,
			   const struct tdatfs_pf_thread *t, size_t nt)
{
	size_t start = b->len;
	size_t m[2];
	size_t i;
	int err;

	err = tdatfs_pb_open(b, TRACE_PACKET, &m[0]);
	if (!err)
		err = tdatfs_pb_open(b, PKT_PROCESS_TREE, &m[1]);
	for (i = 0; i < np && !err; i++)
		err = process_put(b, &p[i]);
	for (i = 0; i < nt && !err; i++)
		err = thread_put(b, &t[i]);
	if (!err)
		err = close_all(b, m, 2);
	if (err)
		b->len = start;
	return err;
}

int tdatfs_pf_bundle_begin(struct tdatfs_pf_bundle *pb, struct tdatfs_buf *b,
			   uint32_t cpu, bool lost)
{
	int err;

	pb->b = b;
	pb->start = b->len;
	pb->lost = lost;
	err = tdatfs_pb_open(b, TRACE_PACKET, &pb->packet);
	if (!err)
		err = tdatfs_pb_open(b, PKT_FTRACE_EVENTS, &pb->bundle);
	if (!err)
		err = tdatfs_pb_varint(b, BUNDLE_CPU, cpu);
	if (err)
		b->len = pb->start;
	return err;
}

/*
 * An event is written in one pass with its lengths known before its
 * bytes: its size is summed first, so no nested length is back-filled
 * and no body moved (the bytes are those of tdatfs_pb_open() and
 * tdatfs_pb_close(): minimal lengths).
 */

/* Field numbers above this are not valid protobuf. */
#define FIELD_MAX ((1u << 29) - 1)
/* Longest nested body tdatfs_pb_close() takes. */
#define BODY_MAX ((1ull << 28) - 1)

/* Bytes of a tag of wire type 0 or 2. */
static size_t tag_size(uint32_t field)
{
	return tdatfs_pb_varint_size((uint64_t)field << 3);
}

/* Bytes of a length-delimited field of @n bytes. */
static size_t len_field_size(uint32_t field, size_t n)
{
	return tag_size(field) + tdatfs_pb_varint_size(n) + n;
}

static unsigned char *varint_field(unsigned char *p, uint32_t field,
				   uint64_t v)
{
	p += tdatfs_pb_varint_put(p, (uint64_t)field << 3);
	return p + tdatfs_pb_varint_put(p, v);
}

static unsigned char *len_head(unsigned char *p, uint32_t field, size_t n)
{
	p += tdatfs_pb_varint_put(p, ((uint64_t)field << 3) | 2);
	return p + tdatfs_pb_varint_put(p, n);
}

static unsigned char *bytes_field(unsigned char *p, uint32_t field,
				  const void *s, size_t n)
{
	p = len_head(p, field, n);
	if (n)
		memcpy(p, s, n);
	return p + n;
}

/* A number as its proto type puts it on the wire; false for a string
 * or no type. */
static bool wire_value(const struct tdatfs_pf_field *f, uint64_t *v)
{
	switch (f->type) {
	case TDATFS_PF_I32:
		*v = wire_i32(f->i);
		return true;
	case TDATFS_PF_I64:
		*v = (uint64_t)f->i;
		return true;
	case TDATFS_PF_U32:
		*v = (uint32_t)f->u;
		return true;
	case TDATFS_PF_U64:
		*v = f->u;
		return true;
	default:
		return false;
	}
}

/* The field number a generic Field's value goes in. */
static uint32_t generic_number(const struct tdatfs_pf_field *f)
{
	return f->type == TDATFS_PF_STR ? GFIELD_STR :
	       f->type == TDATFS_PF_I32 || f->type == TDATFS_PF_I64 ?
	       GFIELD_INT : GFIELD_UINT;
}

/* Bytes of a field's value part: a typed field whole, or the value of a
 * generic Field; 0 for a bad type or field number. */
static size_t value_size(const struct tdatfs_pf_field *f, uint32_t number)
{
	uint64_t v;

	if (!number || number > FIELD_MAX)
		return 0;
	if (f->type == TDATFS_PF_STR)
		return len_field_size(number, f->len);
	if (!wire_value(f, &v))
		return 0;
	return tag_size(number) + tdatfs_pb_varint_size(v);
}

/* A generic Field's body {name, one value}; 0 for a bad type. */
static size_t gfield_size(const struct tdatfs_pf_field *f)
{
	size_t v = value_size(f, generic_number(f));

	return v ? len_field_size(GFIELD_NAME, f->name_len) + v : 0;
}

/* The body of the event's own message; -EINVAL for a bad field, -EFBIG
 * for one past the longest nested length. */
static int body_size(const struct tdatfs_pf_event *e, size_t *size)
{
	bool generic = e->type == TDATFS_PF_GENERIC;
	size_t n = generic ? len_field_size(GENERIC_EVENT_NAME, e->name_len) : 0;
	size_t i, k;

	for (i = 0; i < e->n; i++) {
		const struct tdatfs_pf_field *f = &e->fields[i];

		k = generic ? gfield_size(f) : value_size(f, f->number);
		if (!k)
			return -EINVAL;
		if (generic && k > BODY_MAX)
			return -EFBIG;
		n += generic ? len_field_size(GENERIC_FIELD, k) : k;
	}
	if (n > BODY_MAX)
		return -EFBIG;
	*size = n;
	return 0;
}

/* A field's value part at @p (value_size() bytes). */
static unsigned char *value_put(unsigned char *p,
				const struct tdatfs_pf_field *f,
				uint32_t number)
{
	uint64_t v = 0;

	if (f->type == TDATFS_PF_STR)
		return bytes_field(p, number, f->str, f->len);
	wire_value(f, &v);
	return varint_field(p, number, v);
}

/* The event's own message at @p, its body @body bytes. */
static unsigned char *body_put(unsigned char *p,
			       const struct tdatfs_pf_event *e, size_t body)
{
	bool generic = e->type == TDATFS_PF_GENERIC;
	size_t i;

	p = len_head(p, e->type, body);
	if (generic)
		p = bytes_field(p, GENERIC_EVENT_NAME, e->name, e->name_len);
	for (i = 0; i < e->n; i++) {
		const struct tdatfs_pf_field *f = &e->fields[i];

		if (!generic) {
			p = value_put(p, f, f->number);
			continue;
		}
		p = len_head(p, GENERIC_FIELD, gfield_size(f));
		p = bytes_field(p, GFIELD_NAME, f->name, f->name_len);
		p = value_put(p, f, generic_number(f));
	}
	return p;
}

/* Timestamp, pid, event: the order of Perfetto's fast path. */
int tdatfs_pf_bundle_event(struct tdatfs_pf_bundle *pb,
			   const struct tdatfs_pf_event *e)
{
	struct tdatfs_buf *b = pb->b;
	size_t body, ev;
	unsigned char *p, *q;
	int err;

	if (!e->type || e->type == EVENT_TIMESTAMP || e->type == EVENT_PID ||
	    e->type > FIELD_MAX)
		return -EINVAL;
	err = body_size(e, &body);
	if (err)
		return err;
	ev = tag_size(EVENT_TIMESTAMP) + tdatfs_pb_varint_size(e->timestamp) +
	     tag_size(EVENT_PID) + tdatfs_pb_varint_size(e->pid) +
	     len_field_size(e->type, body);
	if (ev > BODY_MAX)
		return -EFBIG;
	p = (unsigned char *)tdatfs_buf_reserve(b, len_field_size(BUNDLE_EVENT,
								  ev));
	if (!p)
		return -ENOMEM;
	q = len_head(p, BUNDLE_EVENT, ev);
	q = varint_field(q, EVENT_TIMESTAMP, e->timestamp);
	q = varint_field(q, EVENT_PID, e->pid);
	q = body_put(q, e, body);
	b->len += q - p;
	return 0;
}

/* lost_events after the events, the sequence id after the bundle: the
 * order of the field numbers, so the bytes are protobuf's own. */
int tdatfs_pf_bundle_end(struct tdatfs_pf_bundle *pb)
{
	struct tdatfs_buf *b = pb->b;
	int err = 0;

	if (pb->lost)
		err = tdatfs_pb_varint(b, BUNDLE_LOST_EVENTS, 1);
	if (!err)
		err = tdatfs_pb_close(b, pb->bundle);
	if (!err)
		err = tdatfs_pb_varint(b, PKT_SEQUENCE_ID, TDATFS_PF_SEQUENCE);
	if (!err)
		err = tdatfs_pb_close(b, pb->packet);
	if (err)
		b->len = pb->start;
	return err;
}

void tdatfs_pf_bundle_abort(struct tdatfs_pf_bundle *pb)
{
	if (pb && pb->b)
		pb->b->len = pb->start;
}
