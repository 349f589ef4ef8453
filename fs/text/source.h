/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/source.h - the records of a set of CPUs of one buffer, read
 * page by page: the reading cursor under a text stream, and what a
 * formatter sees of it.
 *
 * Invariants:
 *  - A source reads the CPUs it was made for (indices into the buffer's
 *    cpus, in the buffer's order); each CPU has its own position, fully
 *    described by a struct text_pos: the page number, the count of records
 *    already consumed on that page and a done flag.  text_source_seek()
 *    to a position and reading on gives the same records every time.
 *  - Pages follow trace-cmd's get_next_page(): page k of a CPU exists
 *    while k * page_size < the CPU's data size.
 *  - Damaged pages (that do not read, or read but do not parse) are
 *    skipped as one run per step, never stopped inside: each run becomes
 *    one "[tdatfs: ...]" marker line, written to the buffer the peek was
 *    given (for text_source_peek(), the source's own, which the stream
 *    puts after the current record's text).  Pages that read but do not
 *    parse are also recorded with tdat_cpu_mark_damaged().
 *  - A record (struct text_rec) points into its CPU's page buffer.  Each
 *    CPU has two, used in turn per page, so the record being formatted
 *    stays valid while the next one of its CPU is peeked (even on the
 *    next page); a second page change frees it.
 *  - A source is used by one thread at a time (its stream's lock).
 */
#ifndef TDATFS_TEXT_SOURCE_H
#define TDATFS_TEXT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdatfs_buf;
struct text_page_fmt;
struct text_source;
struct text_timestamp;

/* Position of one CPU. */
struct text_pos {
	uint64_t page;		/* page number in the CPU's stream */
	uint32_t idx;		/* records consumed on that page */
	uint32_t done;		/* no more records */
};

/* One record as libtraceevent needs it, plus where it came from. */
struct text_rec {
	uint64_t ts;		/* adjusted timestamp */
	unsigned int cpu;	/* CPU number (not the index) */
	long long missed;	/* kbuffer_missed_events() of the record */
	const void *data;	/* payload, inside the page buffer */
	unsigned int size;	/* payload size, clamped to the page */
	unsigned int avail;	/* bytes readable at @data: to the page end */
	uint64_t offset;	/* of the payload in the CPU's data */
};

/* For the stream: make, position, and read by CPU index. */
struct text_source *text_source_new(struct tdat_file *f, size_t b,
				    const size_t *cidx, const uint64_t *npages,
				    unsigned int ncpu,
				    const struct text_page_fmt *pf,
				    const struct text_timestamp *ts);
void text_source_free(struct text_source *src);
void text_source_seek(struct text_source *src, const struct text_pos *pos);
void text_source_tell(const struct text_source *src, struct text_pos *pos);
uint64_t text_source_at(const struct text_source *src, unsigned int i,
			struct text_pos *pos);
int text_source_peek_index(struct text_source *src, unsigned int i,
			   struct tdatfs_buf *markers,
			   const struct text_rec **rec);
int text_source_consume_index(struct text_source *src, unsigned int i,
			      struct tdatfs_buf *markers);
int text_source_peek_first(struct text_source *src, int only,
			   struct tdatfs_buf *markers,
			   struct tdatfs_buf *discard,
			   const struct text_rec **rec, unsigned int *idx);
int text_source_flush(struct text_source *src, struct tdatfs_buf *out);
uint64_t text_source_consumed(const struct text_source *src);

/* For a formatter: the CPU of a record, by CPU number, or the whole
 * source (the earliest next record of all its CPUs). */
int text_source_peek(struct text_source *src, unsigned int cpu,
		     const struct text_rec **rec);
int text_source_peek_next(struct text_source *src, const struct text_rec **rec);
int text_source_consume(struct text_source *src, unsigned int cpu);
int text_source_pos(const struct text_source *src, unsigned int cpu,
		    struct text_pos *pos);

#endif /* TDATFS_TEXT_SOURCE_H */
