/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-private.h - struct tdat_file and the internal interfaces between
 * the reader's files (tdat-input*.c, tdat-meta.c, tdat-buffer.c,
 * tdat-error.c); the helpers they all share are in tdat-cursor.h.
 *
 * Invariants:
 *  - Everything in struct tdat_file is written only by tdat_open() and its
 *    helpers, except the lazily built per-CPU streams and the buffer
 *    sections' data_size, which are written under @lock.
 *  - Every stream the file holds is in @streams (owned, freed at close);
 *    blobs, sections and formats only borrow them.
 *  - A blob's [off, off + size) lies inside its stream: checked at open.
 *  - @err/@errlen are valid only during tdat_open(); the first message
 *    written wins, later ones are dropped.
 */
#ifndef TDAT_PRIVATE_H
#define TDAT_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdat.h"
#include "tdat-cache.h"
#include "tdat-compress.h"
#include "tdat-stream.h"
#include "tdat-util.h"

/* Limits on what a sane file holds; beyond them the file is refused. */
#define TDP_MAX_OPTION_CHAIN	4096	/* OPTIONS sections chained by DONE */
#define TDP_MAX_STRING		4096	/* a name or clock string */
#define TDP_SCAN_MAX		8192	/* bytes of a format scanned for name/ID */
#define TDP_MIN_PAGE		256u
#define TDP_MAX_PAGE		(16u << 20)
/*
 * Metadata the text engine holds whole: each at least four times the
 * largest of real traces (kallsyms 16.5 MB, saved_cmdlines 73 KB, printk
 * formats 6 KB, an OPTIONS section 3.5 KB, STRINGS 172 bytes), so that a
 * size beyond is a lie (tdatfs(1), DAMAGED TRACES).
 */
#define TDP_MAX_KALLSYMS	(64u << 20)
#define TDP_MAX_CMDLINES	(16u << 20)
#define TDP_MAX_PRINTK		(16u << 20)
#define TDP_MAX_OPTIONS		(32u << 20)	/* one OPTIONS section */
#define TDP_MAX_STRINGS		(1u << 20)	/* all STRINGS sections */
/*
 * Event formats, read in pieces by every text engine's setup and again
 * at random when a format is first met: a section read again from its
 * start for a format (a piece no longer cached, behind every decoder)
 * costs up to its size in decoding, so its size is bounded too, 16 times
 * the largest of real traces (2 MB for 2323 events).
 */
#define TDP_MAX_FORMATS		(32u << 20)	/* one events/ftrace formats section */

/* Sizes the file format fixes. */
#define TDP_SECTION_HDR		16	/* v7: u16 id, u16 flags, u32 string, u64 size */
#define TDP_NO_STRING		0xffffffffu /* section string id: no description */
#define TDP_SECTION_REF		8	/* an option's u64 offset of its section */

/**
 * struct tdp_blob - a byte range of a stream
 * @s: the stream (borrowed from tdat_file.streams); NULL when absent
 * @off: offset in the stream's uncompressed content
 * @size: length
 */
struct tdp_blob {
	struct tdp_stream *s;
	uint64_t off;
	uint64_t size;
};

/**
 * struct tdp_sec - a v7 section
 * @pub: what tdat_section_get() returns (first member)
 * @s: payload stream of a non-buffer section, NULL for buffer sections and
 *	for unknown sections whose compressed header could not be read
 * @buffer: index of the buffer living in it, or -1
 * @size_known: @data_size is known (a compressed buffer section learns it
 *	at the first tdat_section_data_size(), under the file's lock)
 * @data_size: the payload size, once @size_known
 */
struct tdp_sec {
	struct tdat_section pub;
	struct tdp_stream *s;
	long buffer;
	bool size_known;
	uint64_t data_size;
};

/**
 * struct tdp_fmt - one event format
 * @pub: what tdat_event_get() returns (first member); @pub.name is owned,
 *	@pub.system points into tdat_file.systems
 * @text: where its text lives
 */
struct tdp_fmt {
	struct tdat_event_format pub;
	struct tdp_blob text;
};

/**
 * struct tdp_buf - one buffer
 * @pub: what tdat_buffer_get() returns (first member); name and clock owned
 * @cpus: owned array behind @pub.cpus
 * @kind: layout of every per-CPU stream
 * @streams: lazily created per-CPU streams (under tdat_file.lock)
 * @failed: a stream that could not be created (damaged chunk table)
 * @extra: bytes the stream occupies beyond @cpus[i].stored_size (the
 *	chunk count that trace-cmd leaves out of a compressed CPU's size)
 * @order: file order of the buffer's descriptor, for sorting
 */
struct tdp_buf {
	struct tdat_buffer pub;
	struct tdat_cpu_data *cpus;
	enum tdp_stream_kind kind;
	struct tdp_stream **streams;
	bool *failed;
	uint8_t *extra;
	size_t order;
};

/**
 * struct tdp_errlog - damage found after open (tdat-error.c)
 * @lock: guards the rest; taken last, never held while taking another
 * @v: entries, in the order found
 * @n: entries kept
 * @cap: room in @v
 * @dropped: reports beyond TDAT_ERROR_MAX
 * @ready: @lock was initialised
 */
struct tdp_errlog {
	pthread_mutex_t lock;
	struct tdat_error *v;
	size_t n, cap;
	uint64_t dropped;
	bool ready;
};

/**
 * struct tdat_file - an open trace file (see tdat.h for the invariants)
 */
struct tdat_file {
	int fd;
	uint64_t file_size;
	struct tdp_source src;
	struct tdp_cache *cache;
	pthread_mutex_t lock;
	struct tdp_errlog errlog;

	unsigned int version;
	bool big_endian;
	unsigned int long_size;
	unsigned int kernel_long_size;
	uint32_t page_size;
	char comp_name[64];
	char comp_version[64];
	const struct tdp_compress_ops *ops;

	struct tdp_sec *secs;
	size_t nsecs;
	char *strings;		/* all STRINGS payloads, NUL appended */
	size_t strings_len;

	struct tdat_option *opts;
	size_t nopts, opts_cap;

	struct tdp_blob meta[TDAT_META_COUNT];
	struct tdp_fmt *fmts;
	size_t nfmts, fmts_cap;
	char **systems;
	size_t nsystems, systems_cap;

	struct tdp_buf *bufs;
	size_t nbufs, bufs_cap;

	struct tdp_stream **streams;
	size_t nstreams, streams_cap;

	unsigned int cpu_count;	/* 0 until known */
	unsigned int header_cpus; /* v6 header count */
	bool have_traceclock;
	char *traceclock;	/* bracketed name from TRACECLOCK, or NULL */

	/* a section's check left by the open (tdat_finish_checks()) */
	struct tdp_defer {
		bool wanted;	/* tdat_open_opts.defer_checks */
		bool pending;
		size_t sec;
		unsigned int id;
	} defer;

	char *err;
	size_t errlen;
};

struct tdp_cur;

/*
 * The format readers, each called only from the layers above it: the open
 * (tdat-input.c) calls the v6 and v7 layouts, which call the metadata and
 * buffer readers, which report damage to tdat-error.c.
 */

/* tdat-input-v6.c, tdat-input-v7.c */
int tdp_open_v6(struct tdat_file *f, uint64_t pos);
int tdp_open_v7(struct tdat_file *f, uint64_t first_options, uint64_t after);

/* tdat-meta.c */
int tdp_meta_finish(struct tdat_file *f, int r);
int tdp_meta_header_info(struct tdp_cur *c, bool markers);
int tdp_meta_formats(struct tdp_cur *c, const char *system);
int tdp_meta_systems(struct tdp_cur *c);
int tdp_meta_sized(struct tdp_cur *c, enum tdat_meta which, unsigned int prefix);
int tdp_meta_v7(struct tdat_file *f);

/* tdat-buffer.c */
struct tdp_buf *tdp_buffer_new(struct tdat_file *f, const char *name,
			       const char *clock, uint32_t page_size,
			       bool latency, long section, unsigned int ncpus);
int tdp_buffers_v7(struct tdat_file *f);
int tdp_buffers_finish(struct tdat_file *f);
void tdp_buffers_free(struct tdat_file *f);

/* tdat-error.c */
int tdp_errlog_init(struct tdat_file *f);
void tdp_errlog_free(struct tdat_file *f);
int tdp_error_add(struct tdat_file *f, const struct tdat_error *e);
const char *tdp_buffer_label(const struct tdat_file *f, size_t b);

#endif /* TDAT_PRIVATE_H */
