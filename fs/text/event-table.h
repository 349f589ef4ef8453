/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/event-table.h - the event table: what the text engine knows of
 * each event id, and where every record has its type and pid.
 *
 * Invariants:
 *  - One slot per event id.  When every format of the file has a plain
 *    "name:"/"ID:" head and no id is given twice (every real trace), a
 *    format is handed to libtraceevent only when its id is first met
 *    (lazy): parsing the 2000-odd formats of a kernel is most of the cost
 *    of a first read, and each engine (one per index worker) parses its
 *    own.  The lowest id (whose common fields libtraceevent reads every
 *    record by), the sched events a plugin learns comms from and, of
 *    formats sharing a system and name, the first in file order and the
 *    lowest id are parsed at setup (text_events_preload()), so what is
 *    printed is what parsing all of them would print.
 *  - A slot is filled under the tep lock and published by a release
 *    store; once published it never changes and is read without a lock.
 *    The struct text_event_desc of a slot is what readers may use; the
 *    rest of the slot is this module's.
 *  - Nothing here reads a tep_event's fields after publication
 *    (libtraceevent may touch their flags while printing): what the
 *    record checks need is copied into the slot (struct text_fit).
 */
#ifndef TDATFS_TEXT_EVENT_TABLE_H
#define TDATFS_TEXT_EVENT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tep_event;
struct text_events;
struct text_compiled;
struct text_tep;

/* A line head's end: the name padded to 20, ": " after it. */
#define TEXT_TAIL_LEN	22
#define TEXT_TAIL_ROOM	32

/* What a reader of the table may use of a published slot. */
struct text_event_desc {
	struct tep_event *ev;		/* the parsed format */
	const char *name;		/* ev->name */
	size_t name_len;
	/* a name under 20 bytes: "NAME: " padded to TEXT_TAIL_LEN bytes,
	 * the end of every line head, copied whole; else tail_len 0 */
	char tail[TEXT_TAIL_ROOM];
	unsigned int tail_len;
	const struct text_compiled *fast; /* compiled info format, or NULL */
	bool dup;			/* another format has this id */
};

/* A __data_loc field, as the record checks need it. */
struct text_dyn {
	uint32_t offset;
	uint32_t size;
	bool relative;			/* __rel_loc */
};

/*
 * The longest last array a record may hold only part of: libtraceevent's
 * raw field printing reads the whole array from where it starts, so the
 * zeroed room after a record copy must be at least this long.
 */
#define TEXT_FIT_SHORT_MAX	65536u

/* Whether a record holds the fields of its event. */
struct text_fit {
	uint64_t min_size;		/* bytes the fixed fields need */
	uint64_t short_size;		/* bytes needed when the last array
					 * may be short: its offset, or
					 * min_size when there is none */
	bool fits;			/* no field with a negative offset/size */
	unsigned int ndyn;
	struct text_dyn *dyn;		/* the __data_loc fields */
};

/* A numeric field read as tep_get_field_val() reads it (text_num_field_find()). */
struct text_num_field {
	uint32_t off;
	uint32_t size;			/* 1, 2, 4 or 8 */
};

bool text_num_field_find(struct tep_event *ev, const char *name,
			 struct text_num_field *nf);
uint64_t text_num_field_read(const struct text_num_field *nf, bool big_endian,
			     const void *data);

int text_fit_init(struct text_fit *fit, const struct tep_event *ev);
void text_fit_release(struct text_fit *fit);
bool text_fit_check(const struct text_fit *fit, bool big_endian,
		    const unsigned char *data, size_t n);

struct text_events *text_events_new(struct tdat_file *f, struct text_tep *tt,
				    bool eager, bool tep_only);
void text_events_free(struct text_events *evs);
bool text_events_lazy(const struct text_events *evs);
int text_events_preload(struct text_events *evs);
int text_events_finish(struct text_events *evs);

int text_event_lookup(struct text_events *evs, int id,
		      const struct text_event_desc **d);
bool text_event_fits(const struct text_events *evs,
		     const struct text_event_desc *d,
		     const unsigned char *data, size_t n);
bool text_event_whole(const struct text_event_desc *d, size_t n);
bool text_events_tep_only(const struct text_events *evs);
bool text_record_type(const struct text_events *evs, const unsigned char *data,
		      size_t n, int *id);
bool text_record_pid(const struct text_events *evs, const unsigned char *data,
		     size_t n, int *pid);

#endif /* TDATFS_TEXT_EVENT_TABLE_H */
