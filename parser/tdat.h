/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat.h - read a trace-cmd trace.dat file (format v6 and v7).
 *
 * Invariants of this module:
 *  - tdat_open() validates the whole file layout before it returns: the
 *    initial header, every v7 section header, every option (all OPTIONS
 *    sections, chained through DONE), every metadata section (decompressed
 *    once to check it and to index the event formats, then dropped), and
 *    every buffer's per-CPU data location.  What it cannot use is refused
 *    with one message naming what is wrong and the byte offset.  The one
 *    check it may leave on request (defer_checks), of a big compressed
 *    kallsyms section, runs in tdat_finish_checks() or before the
 *    section's first byte is served.
 *  - Every offset and size taken from the file is checked against the file
 *    size before it is used and before anything is allocated for it.
 *  - The file is opened O_RDONLY and never written.
 *  - After open, a struct tdat_file is immutable except for its chunk cache
 *    and lazily built tables, which are internally locked: every function
 *    below may be called from several threads at once.
 *  - Data is read through positional reads (pread) and the chunk cache;
 *    metadata kept in memory after open is small (option bytes, section and
 *    event tables), never a whole decompressed section.
 *  - Pointers returned by accessors (names, descriptions, option data,
 *    tables) stay valid until tdat_close() and must not be freed.
 *  - Damaged trace data found after open (a chunk that does not decompress,
 *    a broken chunk table, a page the text engine cannot parse) is listed
 *    in the file's damage registry: entries are only appended, never
 *    changed or removed, the first TDAT_ERROR_MAX are kept and the rest
 *    only counted.  A damaged range makes reads fail with -EIO for that
 *    range only.
 */
#ifndef TDAT_H
#define TDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stat;
struct tdat_file;

/* Option ids (also the v7 section ids), as in trace-cmd-private.h. */
enum tdat_option_id {
	TDAT_OPT_DONE = 0,
	TDAT_OPT_DATE = 1,
	TDAT_OPT_CPUSTAT = 2,
	TDAT_OPT_BUFFER = 3,
	TDAT_OPT_TRACECLOCK = 4,
	TDAT_OPT_UNAME = 5,
	TDAT_OPT_HOOK = 6,
	TDAT_OPT_OFFSET = 7,
	TDAT_OPT_CPUCOUNT = 8,
	TDAT_OPT_VERSION = 9,
	TDAT_OPT_PROCMAPS = 10,
	TDAT_OPT_TRACEID = 11,
	TDAT_OPT_TIME_SHIFT = 12,
	TDAT_OPT_GUEST = 13,
	TDAT_OPT_TSC2NSEC = 14,
	TDAT_OPT_STRINGS = 15,
	TDAT_OPT_HEADER_INFO = 16,
	TDAT_OPT_FTRACE_EVENTS = 17,
	TDAT_OPT_EVENT_FORMATS = 18,
	TDAT_OPT_KALLSYMS = 19,
	TDAT_OPT_PRINTK = 20,
	TDAT_OPT_CMDLINES = 21,
	TDAT_OPT_BUFFER_TEXT = 22,
	TDAT_OPT_BTF_FILE = 23,
	TDAT_OPT_LAST_BOOT_INFO = 24,
	TDAT_OPT_MODULES_FILE = 25,
	TDAT_OPT_MAX = 26,
};

/** struct tdat_open_opts - knobs for tdat_open(); zero-init gives defaults */
struct tdat_open_opts {
	uint64_t cache_size;	/* bytes of decompressed data kept; 0 = 64 MiB */
	/*
	 * Leave the check of a big compressed kallsyms section (its whole
	 * decoding; the open reads only its size prefix) to
	 * tdat_finish_checks() or to its first read: for a caller that
	 * knows the section good, by an index whose tdat_layout_crc()
	 * matches, which covers the section's stored bytes.
	 */
	bool defer_checks;
};

/**
 * tdat_open() - open and validate a trace.dat file
 * @path: file to open (read-only)
 * @opts: options, or NULL for defaults
 * @err: buffer for a one-line message on failure ("what ... at offset N"),
 *       without the file name and without a trailing newline; may be NULL
 * @errlen: size of @err
 *
 * Return: a new handle (free with tdat_close()), or NULL with errno set
 * (EINVAL for a file that is not a usable trace, EPROTONOSUPPORT for an
 * unknown version or compression, or the errno of a failed system call).
 */
struct tdat_file *tdat_open(const char *path, const struct tdat_open_opts *opts,
			    char *err, size_t errlen);

/**
 * tdat_finish_checks() - run the checks tdat_open() left (defer_checks)
 * @f: handle
 * @err: buffer for the message on failure, as tdat_open() gives it
 * @errlen: size of @err
 *
 * A caller that asked for defer_checks and has nothing vouching for the
 * file calls it before using the handle, and treats a failure as the
 * open's.  Without it, the first read of the section checks it (a
 * damaged one then fails that read with -EIO).  Once is enough; not
 * thread-safe against readers of the handle.
 *
 * Return: 0 (also when nothing was left), -EINVAL (a section does not
 * decompress) or -ENOMEM.
 */
int tdat_finish_checks(struct tdat_file *f, char *err, size_t errlen);

/**
 * tdat_close() - release a handle and everything it owns
 * @f: handle, or NULL
 */
void tdat_close(struct tdat_file *f);

/* --- the initial header ------------------------------------------------ */

/**
 * tdat_version() - Return: the file format version as trace-cmd reads the
 * header's string, 0 to 7; below 7 the file has the v6 layout
 */
unsigned int tdat_version(const struct tdat_file *f);

/** tdat_big_endian() - Return: true for a big-endian file */
bool tdat_big_endian(const struct tdat_file *f);

/** tdat_long_size() - Return: the user-space long size of the header, 4 or 8 */
unsigned int tdat_long_size(const struct tdat_file *f);

/**
 * tdat_kernel_long_size() - the kernel's long size
 * @f: handle
 *
 * Return: the size of the commit field in the header_page text, 4 or 8;
 * the header's long size when header_page does not say.
 */
unsigned int tdat_kernel_long_size(const struct tdat_file *f);

/** tdat_page_size() - Return: the page size of the file header */
uint32_t tdat_page_size(const struct tdat_file *f);

/** tdat_compression() - Return: "none", "zlib" or "zstd" */
const char *tdat_compression(const struct tdat_file *f);

/** tdat_compression_version() - Return: the compression version, "" for none */
const char *tdat_compression_version(const struct tdat_file *f);

/** tdat_file_size() - Return: the size of the trace file */
uint64_t tdat_file_size(const struct tdat_file *f);

/**
 * tdat_layout_crc() - CRC32 of what the file's layout depends on
 * @f: handle
 * @crc: set to the checksum (zlib's crc32())
 *
 * For an index of the trace to recognise it: v6, every byte before the
 * first CPU data (header, metadata, options, CPU table); v7, the initial
 * header, every section header and the stored bytes of every section but
 * the buffers'; both, the file size and each buffer's name, clock, page
 * size and CPU table (CPU, offset, stored size).  No trace data is read
 * or decompressed (a compressed CPU's chunk headers are not covered).
 *
 * Return: 0, -EIO when the file has shrunk, or the negative errno of a
 * failed read or allocation.
 */
int tdat_layout_crc(const struct tdat_file *f, uint32_t *crc);

/**
 * tdat_data_sample_crc() - CRC32 of pieces of the trace's event data
 * @f: handle
 * @crc: set to the checksum (zlib's crc32())
 *
 * For an index of the trace to see that its event data was rewritten in
 * place (same size, the mtime put back): per CPU of every buffer, the
 * first and last 4 KiB of its stored data and pieces evenly spaced
 * between, 8 pieces in all, or fewer when there are more than 32 CPUs
 * (at least the first and last of each).  Bytes as stored (a compressed
 * CPU's chunks are not decompressed), of a CPU's data as far as the file
 * holds it; a change elsewhere is not seen.
 *
 * Return: 0, or the negative errno of a failed read or allocation.
 */
int tdat_data_sample_crc(const struct tdat_file *f, uint32_t *crc);

/**
 * tdat_file_stat() - fstat() of the file as opened
 * @f: handle
 * @st: filled in
 *
 * Return: 0, or the negative errno of fstat().
 */
int tdat_file_stat(const struct tdat_file *f, struct stat *st);

/**
 * tdat_cpu_count() - the number of CPUs of the traced system
 * @f: handle
 *
 * Return: the CPUCOUNT option if present, else the v6 header count, else
 * the largest CPU number of the buffers plus one.
 */
unsigned int tdat_cpu_count(const struct tdat_file *f);

/* --- v7 sections (none in a v6 file) ------------------------------------ */

/**
 * struct tdat_section - one v7 section, in file order
 * @id: section id (enum tdat_option_id values)
 * @flags: section flags: TDAT_SECTION_COMPRESSED or not
 * @offset: file offset of the 16-byte section header
 * @size: stored size, the bytes after the header
 * @data_size: decompressed payload size for metadata sections (equals
 *	@size when not compressed); for an uncompressed buffer section the
 *	sum of its per-CPU sizes; 0 for a compressed buffer section, whose
 *	size only tdat_section_data_size() learns (it reads chunk tables)
 * @description: the description string from STRINGS, or NULL
 */
#define TDAT_SECTION_COMPRESSED	0x1	/* tdat_section.flags: payload compressed */

struct tdat_section {
	uint16_t id;
	uint16_t flags;
	uint64_t offset;
	uint64_t size;
	uint64_t data_size;
	const char *description;
};

/** tdat_section_count() - Return: the number of v7 sections (0 for v6) */
size_t tdat_section_count(const struct tdat_file *f);

/**
 * tdat_section_get() - one v7 section, in file order
 * @f: handle
 * @i: index
 *
 * Return: the section, or NULL when @i is out of range.
 */
const struct tdat_section *tdat_section_get(const struct tdat_file *f, size_t i);

/**
 * tdat_section_data_size() - decompressed payload size of a section
 * @f: handle
 * @i: index
 * @size: set to the size
 *
 * For a compressed buffer section the first call reads the chunk tables
 * of its CPUs (the size is their sum, 0 if one cannot be read); that is
 * why struct tdat_section leaves it out and opening a file does not read
 * them.
 *
 * Return: 0, or -ENOENT when @i is out of range.
 * Context: takes an internal lock.
 */
int tdat_section_data_size(struct tdat_file *f, size_t i, uint64_t *size);

/**
 * tdat_section_read() - read the (decompressed) payload of a metadata section
 * @f: handle
 * @i: section index
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the payload
 *
 * Return: bytes read (0 at end), -EISDIR for a buffer section, -ENOENT
 * for a bad index, -EIO if the section is damaged, or another negative
 * errno.
 */
ssize_t tdat_section_read(struct tdat_file *f, size_t i, void *buf, size_t len,
			  uint64_t off);

/* --- options ------------------------------------------------------------- */

/**
 * struct tdat_option - one option, in file order (DONE options included)
 * @id: option id; any value, unknown ids are kept
 * @size: size of @data
 * @offset: file offset of the option data
 * @data: the option bytes as stored (numbers in file endianness)
 */
struct tdat_option {
	uint16_t id;
	uint32_t size;
	uint64_t offset;
	const void *data;
};

/** tdat_option_count() - Return: the number of options, DONE included */
size_t tdat_option_count(const struct tdat_file *f);

/**
 * tdat_option_get() - one option, in file order
 * @f: handle
 * @i: index
 *
 * Return: the option, or NULL when @i is out of range.
 */
const struct tdat_option *tdat_option_get(const struct tdat_file *f, size_t i);

/**
 * tdat_option_name() - lower-case name of an option id
 * @id: option id
 *
 * Return: "date", "cpustat", "buffer", ... or NULL for an unknown id.
 */
const char *tdat_option_name(unsigned int id);

/*
 * Numbers in file endianness, for callers that decode option bytes or
 * trace data: @p may have any alignment.
 */

/** tdat_get16() - Return: the u16 at @p in the byte order of @f */
uint16_t tdat_get16(const struct tdat_file *f, const void *p);

/** tdat_get32() - Return: the u32 at @p in the byte order of @f */
uint32_t tdat_get32(const struct tdat_file *f, const void *p);

/** tdat_get64() - Return: the u64 at @p in the byte order of @f */
uint64_t tdat_get64(const struct tdat_file *f, const void *p);

/* --- TIME_SHIFT (option 12), decoded ------------------------------------- */

#define TDAT_TSYNC_INTERPOLATE	0x1	/* tdat_time_shift.flags: interpolate */

/**
 * struct tdat_time_sample - one guest-to-host sample of a CPU
 * @time: guest clock (raw) when the sample was taken
 * @offset: guest-to-host offset then
 * @scaling: multiplier of the guest clock
 * @fraction: right shift after @scaling; 0 when the file has no fraction
 *	block
 */
struct tdat_time_sample {
	int64_t time;
	int64_t offset;
	int64_t scaling;
	int64_t fraction;
};

/**
 * struct tdat_time_shift - a TIME_SHIFT option, decoded
 * @peer_trace_id: trace id of the peer (usually the host)
 * @flags: sync protocol flags (TDAT_TSYNC_INTERPOLATE)
 * @ncpus: entries in @count and @samples
 * @has_fraction: the option carries the fraction block
 * @count: per CPU (in the option's order), its number of samples
 * @samples: per CPU, its @count samples in the option's order (unsorted)
 */
struct tdat_time_shift {
	uint64_t peer_trace_id;
	uint32_t flags;
	uint32_t ncpus;
	bool has_fraction;
	const uint32_t *count;
	const struct tdat_time_sample *const *samples;
};

/**
 * tdat_time_shift_decode() - decode the bytes of a TIME_SHIFT option
 * @o: the option (its @offset only names places in messages)
 * @big_endian: byte order of the file (tdat_big_endian())
 * @err: buffer for a one-line message naming the byte offset; may be NULL
 * @errlen: size of @err
 *
 * The layout is trace-cmd's: u64 peer id, u32 flags, u32 CPU count, then
 * per CPU a u32 count and that many times, offsets and scalings (s64
 * each), then optionally per CPU that many fractions.  Every field must
 * fit the option; bytes after the fraction block are ignored.  A sample
 * count of 0 is kept as it is (the caller decides what it means).
 *
 * Return: the decoded option (free with tdat_time_shift_free()), or NULL
 * with errno ENODATA (shorter than 16 bytes, which trace-cmd ignores),
 * EINVAL (a field runs past the option) or ENOMEM.
 */
struct tdat_time_shift *tdat_time_shift_decode(const struct tdat_option *o,
					       bool big_endian, char *err,
					       size_t errlen);

/**
 * tdat_time_shift_free() - free a decoded TIME_SHIFT
 * @ts: the decoded option, or NULL
 */
void tdat_time_shift_free(struct tdat_time_shift *ts);

/* --- metadata ------------------------------------------------------------ */

enum tdat_meta {
	TDAT_META_HEADER_PAGE,	/* header_page text */
	TDAT_META_HEADER_EVENT,	/* header_event text */
	TDAT_META_KALLSYMS,	/* kallsyms text, without its size prefix */
	TDAT_META_PRINTK,	/* printk_formats text, without its size prefix */
	TDAT_META_CMDLINES,	/* saved_cmdlines text, without its size prefix */
	TDAT_META_BTF,		/* BTF file, decompressed */
	TDAT_META_MODULES,	/* modules file, decompressed */
	TDAT_META_COUNT,
};

/**
 * tdat_meta_size() - size of a metadata blob
 * @f: handle
 * @which: blob
 * @size: set to the size in bytes
 *
 * Return: 0, or -ENOENT when the file does not hold it.
 */
int tdat_meta_size(const struct tdat_file *f, enum tdat_meta which, uint64_t *size);

/**
 * tdat_meta_read() - read part of a metadata blob
 * @f: handle
 * @which: blob
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the blob
 *
 * Return: bytes read (0 at end), -ENOENT, -EIO, or another negative errno.
 */
ssize_t tdat_meta_read(struct tdat_file *f, enum tdat_meta which, void *buf,
		       size_t len, uint64_t off);

/**
 * struct tdat_event_format - one event format file
 * @system: "ftrace" for the ftrace formats, else the system name
 * @name: event name (the format's "name:" line)
 * @id: event id (the format's "ID:" line)
 * @size: size of the format text
 */
struct tdat_event_format {
	const char *system;
	const char *name;
	int id;
	uint64_t size;
};

/** tdat_event_count() - Return: the number of event formats */
size_t tdat_event_count(const struct tdat_file *f);

/**
 * tdat_event_get() - one event format, in file order: the ftrace formats
 * first, then each system's
 * @f: handle
 * @i: index
 *
 * Return: the format, or NULL when @i is out of range.
 */
const struct tdat_event_format *tdat_event_get(const struct tdat_file *f, size_t i);

/**
 * tdat_event_read() - read part of an event format text
 * @f: handle
 * @i: format index
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the text
 *
 * Return: bytes read (0 at end), -ENOENT for a bad index, or another
 * negative errno.
 */
ssize_t tdat_event_read(struct tdat_file *f, size_t i, void *buf, size_t len,
			uint64_t off);

/* --- buffers (flyrecord instances and latency text) ---------------------- */

/**
 * struct tdat_cpu_data - where one CPU's data of a buffer lives
 * @cpu: CPU number
 * @offset: file offset of the data (of the chunk stream when compressed)
 * @stored_size: bytes stored in the file
 */
struct tdat_cpu_data {
	unsigned int cpu;
	uint64_t offset;
	uint64_t stored_size;
};

/**
 * struct tdat_buffer - one buffer of trace data
 * @name: instance name, "" for the top instance
 * @clock: trace clock name ("local", ...), or "" when unknown
 * @page_size: ring-buffer page (sub-buffer) size of this buffer
 * @latency: true for a latency (text) buffer; it then has one "CPU" 0
 *	whose stream is the text
 * @section: index of its v7 section, or -1 (v6)
 * @ncpus: entries in @cpus
 * @cpus: per-CPU data locations, in file order
 */
struct tdat_buffer {
	const char *name;
	const char *clock;
	uint32_t page_size;
	bool latency;
	long section;
	unsigned int ncpus;
	const struct tdat_cpu_data *cpus;
};

/** tdat_buffer_count() - Return: the number of buffers */
size_t tdat_buffer_count(const struct tdat_file *f);

/**
 * tdat_buffer_get() - one buffer: the top one first, then in file order
 * @f: handle
 * @i: index
 *
 * Return: the buffer, or NULL when @i is out of range.
 */
const struct tdat_buffer *tdat_buffer_get(const struct tdat_file *f, size_t i);

/**
 * tdat_cpu_size() - uncompressed size of one CPU's data stream
 * @f: handle
 * @b: buffer index
 * @c: index into the buffer's @cpus (not the CPU number)
 * @size: set to the size
 *
 * For a compressed file the chunk table is read (not decompressed) the
 * first time it is needed.  A damaged table ends the stream at the damage
 * plus one page that reads as damaged (and is recorded as such).
 *
 * Return: 0, -ENOENT for bad indexes, or -EIO when the stream cannot be
 * described at all.
 * Context: takes an internal lock.
 */
int tdat_cpu_size(struct tdat_file *f, size_t b, size_t c, uint64_t *size);

/**
 * tdat_cpu_read() - read a range of one CPU's uncompressed data
 * @f: handle
 * @b: buffer index
 * @c: index into the buffer's @cpus
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the uncompressed stream
 *
 * Decompressed chunks go through the file's chunk cache.  A range that
 * runs into damaged data (a chunk that does not decompress, the part of
 * the stream behind a damaged chunk table) returns the good bytes before
 * it; a read that starts in damaged data fails with -EIO.  Damage found
 * is recorded in the damage registry (tdat_error_get()).  A read that
 * fails because the file is shorter than it was at open (truncated under
 * a mount) fails with -ESTALE, good bytes before it or not, and is
 * recorded as "... cannot be read: the file shrank from N to M bytes".
 *
 * Return: bytes read (short at the end of the stream or before damage, 0
 * at end), -ENOENT for bad indexes, -EIO when @off is in a damaged range,
 * -ESTALE when the file shrank, or another negative errno.
 * Context: takes an internal lock; may block on another thread
 * decompressing the same chunk.
 */
ssize_t tdat_cpu_read(struct tdat_file *f, size_t b, size_t c, void *buf,
		      size_t len, uint64_t off);

/**
 * tdat_chunk_tables_save() - the chunk tables of the CPU streams made so
 * far, as bytes to keep beside the trace
 * @f: handle
 * @buf: set to the bytes; the caller frees them with free()
 * @len: set to their size
 *
 * Only sound tables are kept: a stream not made yet, not chunked, or with
 * a damaged table is left out (a later open reads its headers).  The
 * bytes are in host order, for tdat_chunk_tables_load() of the same file
 * on this kind of machine.
 *
 * Return: 0 or -ENOMEM.
 * Context: takes an internal lock.
 */
int tdat_chunk_tables_save(struct tdat_file *f, void **buf, size_t *len);

/**
 * tdat_chunk_tables_load() - make CPU streams from kept chunk tables
 * @f: handle
 * @buf: bytes tdat_chunk_tables_save() gave for this same file (the
 *	caller vouches for that: an index whose identity matched)
 * @len: their size
 * @err: on -EINVAL, what is wrong
 * @errlen: size of @err
 *
 * Each stream not made yet is made from its table instead of reading its
 * chunk headers across the file; each table is checked against the
 * stream's stored range as headers read are, and each chunk's header is
 * compared with the table when the chunk is decompressed (a mismatch is
 * damage, as a chunk that does not decompress).  A stream made already
 * keeps the table it read.
 *
 * Return: 0, -EINVAL for bytes that are not sound tables of this file
 * (streams made from the tables before the bad one stay), or -ENOMEM.
 * Context: takes an internal lock; call before the streams are read.
 */
int tdat_chunk_tables_load(struct tdat_file *f, const void *buf, size_t len,
			   char *err, size_t errlen);

/**
 * tdat_cache_charge() - count memory a reader holds in the chunk cache's bound
 * @f: handle; NULL charges nothing
 * @bytes: bytes more (the caller allocated them) or, when @give_back, less
 *	(freed; at most what it charged)
 * @give_back: the charge goes down instead of up
 *
 * For large, long-lived tables a reader builds from the data it read
 * (a view's entries, pictures): the cache evicts decompressed chunks to
 * make room for them, so the bound covers both.  Charges count up to half
 * the bound (tdat-cache.h).
 *
 * Context: takes the cache lock.
 */
void tdat_cache_charge(struct tdat_file *f, size_t bytes, bool give_back);

/**
 * tdat_cache_drop() - free the decompressed chunks no reader holds
 * @f: handle; NULL does nothing
 *
 * At the end of work whose chunks no one wants next (an index build,
 * before the index is encoded and loaded): the memory goes back to the
 * system at once.  Reads afterwards fill the cache again.
 *
 * Context: takes the cache lock.
 */
void tdat_cache_drop(struct tdat_file *f);

/* --- damage found so far ------------------------------------------------ */

#define TDAT_ERROR_MAX		1000	/* entries kept; the rest are counted */
#define TDAT_ERROR_WHAT		160	/* bytes of tdat_error.what */

/**
 * struct tdat_error - one damaged range of trace data
 * @what: what is damaged, e.g. "chunk 3 of buffer top cpu1 does not
 *	decompress" (NUL-terminated)
 * @offset: file offset of the damaged data (a chunk's header, a page)
 * @stored_size: bytes it occupies in the file, as far as known
 * @buffer: buffer index (tdat_buffer_get())
 * @cpu: index into the buffer's cpus (not the CPU number)
 * @start: first damaged byte in the CPU's uncompressed stream
 *	(trace_pipe_raw)
 * @length: damaged bytes there; reads of them fail with -EIO (0 when the
 *	damage hides no readable byte, e.g. a table cut after its last chunk)
 */
struct tdat_error {
	char what[TDAT_ERROR_WHAT];
	uint64_t offset;
	uint64_t stored_size;
	size_t buffer;
	unsigned int cpu;
	uint64_t start;
	uint64_t length;
};

/**
 * tdat_error_count() - damaged ranges kept so far
 * @f: handle
 *
 * Return: the number of entries tdat_error_get() can return (at most
 * TDAT_ERROR_MAX); it only grows.
 * Context: takes the registry lock.
 */
size_t tdat_error_count(struct tdat_file *f);

/**
 * tdat_error_total() - damaged ranges found so far, kept or not
 * @f: handle
 *
 * Reports beyond TDAT_ERROR_MAX are counted without checking for repeats,
 * so past the bound the figure can count one range more than once.
 *
 * Return: the entries kept plus the reports dropped beyond TDAT_ERROR_MAX.
 * Context: takes the registry lock.
 */
uint64_t tdat_error_total(struct tdat_file *f);

/**
 * tdat_error_get() - copy one entry of the damage registry
 * @f: handle
 * @i: index, in the order the damage was found
 * @out: filled in
 *
 * Return: 0, or -ENOENT when @i is not below tdat_error_count().
 * Context: takes the registry lock.
 */
int tdat_error_get(struct tdat_file *f, size_t i, struct tdat_error *out);

/**
 * tdat_error_format() - one line for an entry, as the errors file shows it
 * @e: entry
 * @buf: destination (may be NULL when @len is 0)
 * @len: size of @buf
 *
 * The line is "WHAT: file offset N, S bytes stored; trace_pipe_raw bytes
 * A-B" and a newline (the last part is left out when @e->length is 0).
 *
 * Return: the length of the full line, as snprintf() returns it.
 */
int tdat_error_format(const struct tdat_error *e, char *buf, size_t len);

/**
 * tdat_cpu_mark_damaged() - record a damaged range of a CPU's data
 * @f: handle
 * @b: buffer index
 * @c: index into the buffer's cpus
 * @off: first damaged byte in the uncompressed stream
 * @len: damaged bytes
 * @why: what is wrong, e.g. "does not parse"; NULL for "is damaged"
 *
 * For callers that find damage in data that reads fine (the text engine,
 * for a page that does not parse).  The entry says "page at offset @off
 * of buffer NAME cpuN @why" (plus "(in chunk N)" in a compressed file) and
 * where the page lives in the file: its chunk's header and stored size, or
 * for uncompressed data the page itself.  A range already covered by an
 * entry of the same CPU is not added again.
 *
 * Return: 0 (also when the registry is full or the range is known),
 * -ENOENT for bad indexes or an @off outside the stream, -EIO when the
 * stream cannot be read at all, or -ENOMEM.
 * Context: takes the file's lock, then (not nested) the registry lock.
 */
int tdat_cpu_mark_damaged(struct tdat_file *f, size_t b, size_t c, uint64_t off,
			  uint64_t len, const char *why);

/**
 * tdat_option_mark_damaged() - record an option the data contradicts
 * @f: handle
 * @o: the option (tdat_option_get())
 * @b: buffer index of the data it contradicts
 * @c: index into the buffer's cpus
 * @why: what is wrong, e.g. "has no samples for cpu 0"
 *
 * For callers that find an option unusable for some data only when they
 * use it (the text engine, for a TIME_SHIFT without samples for a CPU
 * that has records).  The entry says "option NAME at offset N @why" and
 * covers the option's bytes; it hides no byte of trace_pipe_raw.  The
 * same option, buffer and CPU are not added twice.
 *
 * Return: 0 (also when the registry is full or the entry is known), or
 * -ENOMEM.
 * Context: takes the registry lock.
 */
int tdat_option_mark_damaged(struct tdat_file *f, const struct tdat_option *o,
			     size_t b, size_t c, const char *why);

/**
 * tdat_event_mark_damaged() - record an event format a reader cannot use
 * @f: handle
 * @i: format index (tdat_event_get())
 * @why: what is wrong, e.g. "does not parse"
 *
 * For callers that find a format unusable only when they parse it (the
 * text engine, for a format libtraceevent drops or one it refuses to
 * hand over).  The entry says "event format SYSTEM/NAME (id N) @why"
 * ("(id N, section offset O)" for a format in a compressed section, O its
 * offset in the section's uncompressed bytes) with the bytes of the names
 * that are not printable ASCII as \xNN, and covers the format's bytes:
 * the file offset of its text, or of its compressed section's block.  It
 * hides no byte of trace_pipe_raw.  The same format is not added twice.
 *
 * Return: 0 (also when the registry is full or the entry is known),
 * -ENOENT for a bad index, or -ENOMEM.
 * Context: takes the registry lock.
 */
int tdat_event_mark_damaged(struct tdat_file *f, size_t i, const char *why);

#endif /* TDAT_H */
