/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-int.h - internals shared by the text engine files.
 *
 * Invariants:
 *  - struct tdatfs_text owns one libtraceevent handle.  libtraceevent is
 *    not thread-safe (it caches the last event looked up, sorts the
 *    cmdline table on first use, plugins keep static state), so every
 *    call into it after setup is made with @tep_lock held.
 *  - The event table (struct text_event) has one slot per event id.  When
 *    every format of the file has a plain "name:"/"ID:" head and no id or
 *    name is given twice (every real trace), a format is handed to
 *    libtraceevent only when its id is first met (@lazy): parsing the
 *    2000-odd formats of a kernel is most of the cost of a first read.
 *    The lowest id (whose common fields libtraceevent reads every record
 *    by) and the sched events a plugin learns comms from are parsed at
 *    setup, so what is printed is what parsing all of them would print.
 *    A slot is filled under @tep_lock and published by a release store of
 *    @loaded; once loaded it never changes and is read without the lock.
 *  - kallsyms is given to libtraceevent through a function resolver, read
 *    into a handle of its own (@ksyms) the first time an address is
 *    looked up: most traces never print a symbol.
 *  - A text stream is the text of one buffer, all CPUs merged or one CPU.
 *    It is produced one step at a time; a step appends to a cursor's line
 *    buffer the lines for one record (a dropped-events line, if any, and
 *    the event line), plus one marker line for each run of consecutive
 *    damaged pages of a CPU met while looking for that record (a run is
 *    always skipped within one step, so no position is inside it).
 *  - The position of a stream is fully described by, per CPU, the page
 *    number, the count of records already consumed on that page and a
 *    done flag.  Checkpoints store that position with the text offset it
 *    starts at, so text can be produced again from any checkpoint and is
 *    byte-identical each time.
 */
#ifndef TDATFS_TEXT_INT_H
#define TDATFS_TEXT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <traceevent/trace-seq.h>

#include "tdatfs-text.h"

struct tdat_file;

/* Room after a copied record: a __data_loc field can point up to 64 KiB
 * past the payload with a length up to 64 KiB; zeroes there keep a bad
 * record from making libtraceevent read outside our memory. */
#define SCRATCH_SLACK	(2 * 65536 + 64)

/* Growing byte buffer used for the text of one step. */
struct text_buf {
	char *p;
	size_t len;
	size_t cap;
};

int text_buf_put(struct text_buf *b, const char *s, size_t n);
char *text_buf_reserve(struct text_buf *b, size_t n);

struct text_comm {
	int pid;
	size_t seq;		/* line number, to keep the first of a pid */
	char *comm;
};

/*
 * Comms learned while printing.  The sched_switch plugin registers the
 * comm of each pid it prints that has none yet, so trace-cmd shows a pid
 * missing from saved_cmdlines as "<...>" before its first sched_switch or
 * sched_wakeup line and by name after it.  Per stream, first
 * registrations are kept in stream order; a position in the stream sees
 * the first @seen of them, so text never depends on read order.
 */
struct text_overlay {
	size_t n, cap;
	int *pid;
	char **comm;
	size_t hcap;		/* power of two; 0 = empty */
	int32_t *hash;		/* index + 1, 0 = free */
};

void text_overlay_free(struct text_overlay *ov);

/* Where a record's comm lookups and registrations go. */
struct text_comm_ctx {
	struct text_overlay *ov;
	size_t *seen;
};

/* One record as libtraceevent needs it, plus where it came from. */
struct text_rec {
	uint64_t ts;		/* adjusted timestamp */
	unsigned int cpu;	/* CPU number (not the index) */
	long long missed;	/* kbuffer_missed_events() of the record */
	const void *data;	/* payload, inside the page buffer */
	unsigned int size;	/* payload size, clamped to the page */
	uint64_t offset;	/* of the payload in the CPU's data */
};

struct text_fast;

/* A __data_loc field, as the record checks need it. */
struct text_dyn {
	uint32_t offset;
	uint32_t size;
	bool relative;			/* __rel_loc */
};

/*
 * What the text engine knows of one event id; fixed once @loaded, so the
 * common path reads it without the tep lock (and without reading the
 * tep_event's fields, whose flags libtraceevent may touch while printing).
 */
struct text_event {
	int id;
	bool used;			/* this slot holds @id */
	size_t fmt;			/* lazy: the format of @id in the file */
	atomic_bool loaded;		/* the fields below are set */
	struct tep_event *ev;		/* NULL: no format parsed for @id */
	const char *name;		/* ev->name */
	size_t name_len;
	struct text_fast *fast;		/* compiled info format, or NULL */
	uint64_t min_size;		/* bytes the fixed fields need */
	bool fits;			/* no field with a negative offset/size */
	bool dup;			/* another format has this id */
	unsigned int ndyn;
	struct text_dyn *dyn;		/* the __data_loc fields */
};

struct tdatfs_text {
	struct tdat_file *f;
	struct tdatfs_text_opts opts;
	pthread_mutex_t lock;		/* setup and the stream table */
	bool ready;
	int init_err;			/* <0: setup failed, returned on reads */

	pthread_mutex_t tep_lock;	/* every libtraceevent call after setup */
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	struct trace_seq seq;
	unsigned char *scratch;		/* record copy + zeroed slack */
	size_t scratch_size;

	/* page parsing */
	enum kbuffer_long_size klong;
	enum kbuffer_endian kendian;
	unsigned int kernel_long;	/* 4 or 8 */
	bool big_endian;
	bool old_format;
	bool ts_ok;			/* header_page timestamp is 8 bytes */

	/* timestamps, as trace-cmd's timestamp_calc() */
	int64_t ts_offset;
	uint32_t tsc_mult;
	uint32_t tsc_shift;
	bool in_usecs;

	/* saved_cmdlines as parsed at setup, sorted by pid: the comm shown
	 * never depends on what was printed before (plugins register comms
	 * while printing, which would make text depend on read order) */
	struct text_comm *comms;
	size_t ncomms;
	/* events whose plugin handler registers comms, and their fields */
	int sw_id, wk_id, wkn_id;
	struct tep_format_field *sw_ppid, *sw_pcomm, *sw_npid, *sw_ncomm;
	struct tep_format_field *wk_pid, *wk_comm, *wkn_pid, *wkn_comm;

	/* where every record has its type and pid (size 0: unknown) */
	unsigned int type_off, type_size, pid_off, pid_size;

	/* events by id (open addressing, ev_cap a power of two) */
	struct text_event *ev_tab;
	size_t ev_cap;
	bool lazy;			/* formats parsed when first met */

	/* kallsyms, read at the first address lookup (under @tep_lock) */
	struct tep_handle *ksyms;
	bool ksyms_read;

	size_t nbuffers;
	struct text_stream ***streams;	/* [buffer][0 merged, 1 + cpu index] */
};

/* A number of the file's byte order, as tep_read_number() reads it. */
static inline uint64_t text_read_num(const struct tdatfs_text *t,
				     const unsigned char *p, unsigned int size)
{
	uint64_t v = 0;
	unsigned int i;

	if (t->big_endian) {
		for (i = 0; i < size; i++)
			v = (v << 8) | p[i];
	} else {
		for (i = size; i > 0; i--)
			v = (v << 8) | p[i - 1];
	}
	return v;
}

/* A character of a libtraceevent identifier token (names, fields). */
static inline bool text_is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* tdatfs-text-tep.c */
int text_tep_setup(struct tdatfs_text *t);
void text_tep_teardown(struct tdatfs_text *t);
uint64_t text_ts_calc(const struct tdatfs_text *t, uint64_t raw);

const char *text_comm_lookup(const struct tdatfs_text *t,
			     const struct text_comm_ctx *cc, int pid);
int text_comm_register(struct tdatfs_text *t, struct text_comm_ctx *cc,
		       const struct tep_format_field *pidf,
		       const struct tep_format_field *commf,
		       const unsigned char *data);

/* tdatfs-text-line.c */
int text_format_record(struct tdatfs_text *t, const struct text_rec *r,
		       struct text_comm_ctx *cc, struct text_buf *out);
int text_buf_printf(struct text_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int text_tep_parse_format(struct tdatfs_text *t, size_t i, char **buf,
			  size_t *cap);

/* tdatfs-text-event.c */
int text_events_index(struct tdatfs_text *t);
int text_events_preload(struct tdatfs_text *t);
int text_events_setup(struct tdatfs_text *t);
void text_events_teardown(struct tdatfs_text *t);
const struct text_event *text_event_find(struct tdatfs_text *t, int id);
bool text_event_fits(const struct tdatfs_text *t, const struct text_event *te,
		     const unsigned char *data, size_t n);

/* tdatfs-text-fast.c */
struct text_fast *text_fast_compile(struct tep_event *ev);
int text_fast_info(const struct tdatfs_text *t, const struct text_event *te,
		   const unsigned char *data, size_t n, struct text_buf *out);

/* tdatfs-text-stream.c */
struct text_stream *text_stream_new(struct tdatfs_text *t, size_t b, int cpu);
void text_stream_free(struct text_stream *st);
ssize_t text_stream_read(struct text_stream *st, char *buf, size_t len,
			 uint64_t off);
int text_stream_size(struct text_stream *st, uint64_t *size);

#endif /* TDATFS_TEXT_INT_H */
