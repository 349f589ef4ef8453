/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index/file.h - the index file, internal to index/open.c: its
 * bytes, the checks made before any of them is used, where it lives, and
 * how it is written.
 *
 * Invariants:
 *  - Pure: no threads, no text engine, no environment; what the caller
 *    knows (the trace's identity, the texts it expects, $XDG_CACHE_HOME
 *    and $HOME) comes in as arguments.
 *  - The layout (IDX_AT_* offsets; numbers in host order) is: a magic, a
 *    format version, a machine tag (byte order, pointer and long sizes:
 *    an index serves the kind of machine that wrote it), its own length,
 *    the tdatfs and libtraceevent versions that made the texts, the
 *    trace's identity (size, mtime in ns, inode, ctime in ns, layout CRC,
 *    data sample CRC, the engine's checkpoint bound), the texts (key, then the opaque state bytes), the
 *    trace's chunk tables (u64 length, then the parser's opaque bytes,
 *    tdat_chunk_tables_save()), optionally the sizes section (below),
 *    and a CRC32 of every byte before it.
 *  - The sizes section keeps what the first stat of each buffer's
 *    timeline.svg and trace.pftrace would make (tdatfs_text_whole_sizes()):
 *    a u32 count, a u32 CRC32 of the entries, then per buffer that has the
 *    files, in increasing buffer order, IDX_SIZE_ENTRY bytes (u64 buffer,
 *    u64 timeline size, u64 pftrace size, u64 layout length) and the
 *    trace.pftrace layout (tdatfs_text_pftrace_layout(): opaque here, its
 *    engine checks it), zero-padded to 8 bytes.  It is optional: a file
 *    without it is used as it is, and one whose section is refused
 *    (idx_sizes_decode()) is used without it; either way the sizes are
 *    made as without an index.  idx_sizes_rewrite() puts a section in
 *    place of the one a file has, or has not, writing the file anew a
 *    block at a time; nothing else writes one.
 *  - idx_decode() checks the whole file before it returns any text: every
 *    field, the checksum, every count against the bytes left, and that the
 *    texts are exactly the ones expected, in order.  It allocates nothing
 *    in proportion to a count read from the file.  A refusal comes with a
 *    static reason and a line saying what differs.  It is idx_check()
 *    (what needs the bytes only: kind, length, checksum), which may run
 *    on another thread as soon as the file is read, then
 *    idx_decode_checked() (the rest) on the same, unchanged bytes.
 *  - idx_write() and idx_sizes_rewrite() never leave a partial file under
 *    the index's name: they write a temporary file in the same directory,
 *    sync it and rename it over; on failure the temporary file is removed.
 */
#ifndef TDATFS_INDEX_FILE_H
#define TDATFS_INDEX_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdatfs-text.h"

/*
 * 2: text states of version 3; 3: chunk tables; 4: ctime, data sample CRC;
 * 5: the optional sizes section after the chunk tables; 6: trace.pftrace
 * layouts in it
 */
#define IDX_FORMAT_VERSION	6
#define IDX_MAGIC		"tdatidx"	/* with its NUL: 8 bytes */
#define IDX_SUFFIX		".tdatidx"
#define IDX_VERSION_LEN		24		/* version strings, NUL padded */

/* Where the fields are, for the code and for tests that forge files. */
enum {
	IDX_AT_MAGIC = 0,
	IDX_AT_FORMAT = 8,		/* u32 */
	IDX_AT_MACHINE = 12,		/* u8 order, pointer size, long size, 0 */
	IDX_AT_LENGTH = 16,		/* u64: the whole file, CRC included */
	IDX_AT_PROG = 24,		/* tdatfs version */
	IDX_AT_TEP = IDX_AT_PROG + IDX_VERSION_LEN,	/* libtraceevent's */
	IDX_AT_SIZE = IDX_AT_TEP + IDX_VERSION_LEN,	/* u64 */
	IDX_AT_MTIME = IDX_AT_SIZE + 8,	/* u64 ns */
	IDX_AT_INODE = IDX_AT_MTIME + 8,	/* u64 */
	IDX_AT_CTIME = IDX_AT_INODE + 8,	/* u64 ns */
	IDX_AT_LAYOUT = IDX_AT_CTIME + 8,	/* u32 */
	IDX_AT_SAMPLE = IDX_AT_LAYOUT + 4,	/* u32 */
	IDX_AT_CHECKPOINTS = IDX_AT_SAMPLE + 4,	/* u32 */
	IDX_AT_COUNT = IDX_AT_CHECKPOINTS + 4,	/* u32 texts */
	IDX_HEAD = IDX_AT_COUNT + 8,	/* u32 count, u32 0 */
	IDX_TEXT_HEAD = 24,		/* u8 report, 3 x 0, s32 cpu, u64 buffer, u64 len */
	IDX_TABLES_HEAD = 8,		/* u64 len, before the chunk tables */
	IDX_CRC_LEN = 4,
	IDX_SIZES_HEAD = 8,		/* u32 count, u32 CRC32 of the entries */
	IDX_SIZE_ENTRY = 32,		/* u64 buffer, timeline, pftrace, layout
					 * length; then the layout, padded */
};

/**
 * struct idx_identity - what says an index file is of this trace
 * @size: file size
 * @mtime_ns: modification time in ns
 * @inode: inode number (the device is left out: it changes across boots
 *	and containers)
 * @ctime_ns: status change time in ns: unlike the mtime, no user can set
 *	it (touch -r cannot put it back), and every write moves it, so a
 *	trace rewritten in place is told apart even with its mtime restored
 *	(a chmod or a new link moves it too: the index is then built again)
 * @layout_crc: tdat_layout_crc()
 * @sample_crc: tdat_data_sample_crc(): event data rewritten where the
 *	ctime does not say so (a file system that does not keep it, a copy
 *	of the file's whole status)
 * @max_checkpoints: the engine option (the saved states depend on it)
 */
struct idx_identity {
	uint64_t size;
	uint64_t mtime_ns;
	uint64_t inode;
	uint64_t ctime_ns;
	uint32_t layout_crc;
	uint32_t sample_crc;
	uint32_t max_checkpoints;
};

/**
 * struct idx_refusal - why an index file is not used
 * @why: the reason, static text ("truncated", "bad checksum", ...)
 * @line: the reason with what differs ("another format version (2)")
 */
struct idx_refusal {
	const char *why;
	char line[160];
};

/**
 * struct idx_tables - the chunk tables an index file keeps
 * @p: the parser's bytes (tdat_chunk_tables_save()); in a decoded file
 *	they point into its bytes
 * @len: their size
 */
struct idx_tables {
	const void *p;
	size_t len;
};

/**
 * struct idx_size - one buffer's entry of the sizes section
 * @buffer: buffer index
 * @timeline: its timeline.svg's size
 * @pftrace: its trace.pftrace's size
 * @layout: its trace.pftrace's layout (tdatfs_text_pftrace_layout()); in a
 *	decoded file it points into its bytes; NULL when @layout_len is 0
 * @layout_len: its size
 */
struct idx_size {
	uint64_t buffer;
	uint64_t timeline;
	uint64_t pftrace;
	const void *layout;
	size_t layout_len;
};

/**
 * struct idx_sizes_raw - where a decoded file's sizes section is
 * @at: its offset in the file (where the chunk tables end)
 * @len: its bytes, 0 when the file has none
 */
struct idx_sizes_raw {
	size_t at;
	size_t len;
};

int idx_encode(const struct idx_identity *id, const struct tdatfs_text_state *texts,
	       size_t n, const struct idx_tables *tables, void **buf, size_t *len);
int idx_decode(const void *buf, size_t len, const struct idx_identity *id,
	       const struct tdatfs_text_key *keys, size_t nkeys,
	       struct tdatfs_text_state **texts, struct idx_tables *tables,
	       struct idx_sizes_raw *sizes, struct idx_refusal *no);
int idx_check(const void *buf, size_t len, struct idx_refusal *no);
int idx_decode_checked(const void *buf, size_t len, const struct idx_identity *id,
		       const struct tdatfs_text_key *keys, size_t nkeys,
		       struct tdatfs_text_state **texts, struct idx_tables *tables,
		       struct idx_sizes_raw *sizes, struct idx_refusal *no);
int idx_sizes_decode(const void *buf, const struct idx_sizes_raw *raw,
		     size_t nbuffers, struct idx_size **sizes, size_t *n,
		     struct idx_refusal *no);
int idx_sizes_rewrite(const char *dir, const char *path, size_t len,
		      uint32_t crc, const struct idx_size *s, size_t n,
		      size_t *newlen, uint32_t *newcrc);
int idx_read(const char *path, void **buf, size_t *len);
int idx_path(const char *dir, const char *xdg_cache, const char *home,
	     const char *trace, char **dirp, char **pathp, bool *dflt,
	     const char **why);
int idx_write(const char *dir, bool dflt, const char *path, const void *buf,
	      size_t len);

#endif /* TDATFS_INDEX_FILE_H */
