/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-cursor.h - what the format readers share (internal): the open
 * error message, checked reads of the file, the file's option and stream
 * tables, and a cursor over a metadata payload.
 *
 * Invariants:
 *  - This layer sits on the streams (tdat-stream.h) and tdat-util.h and
 *    under every format reader; it calls none of them, so they depend on
 *    it only downward.
 *  - tdp_fail() keeps the first message of an open: the innermost check
 *    that fails names what is wrong and where, and the callers that pass
 *    its error up cannot overwrite that with something vaguer.
 *  - A cursor never reads outside [0, @end) of its payload: every read
 *    checks the length first and fails with a message instead.
 *  - Messages give file offsets: for a cursor over an uncompressed
 *    payload (@raw) a position maps to @base + pos; in a compressed
 *    section it is told as "offset N of the section at offset M".
 *  - Everything returning int gives 0 or a negative errno; -EINVAL and
 *    -EPROTONOSUPPORT come with the message set, -ENOMEM without.
 */
#ifndef TDAT_CURSOR_H
#define TDAT_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdat-private.h"

/**
 * struct tdp_cur - a parsing position in metadata
 * @f: the file (for endianness and messages)
 * @mem: the payload in memory, or NULL to read through @s
 * @s: the stream read when @mem is NULL
 * @pos: current offset in the payload
 * @end: payload size
 * @raw: payload offsets map to file offsets (@base + pos)
 * @base: file offset of payload byte 0 when @raw
 * @sec_off: file offset of the compressed section when !@raw
 */
struct tdp_cur {
	struct tdat_file *f;
	const uint8_t *mem;
	struct tdp_stream *s;
	uint64_t pos;
	uint64_t end;
	bool raw;
	uint64_t base;
	uint64_t sec_off;
};

/* errors and checked reads of the file */
int tdp_fail(struct tdat_file *f, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tdp_pread_all(struct tdat_file *f, void *buf, size_t len, uint64_t off,
		  const char *what);
int tdp_parse_page_size(struct tdat_file *f, uint32_t v, uint64_t where,
			const char *what);

/* the file's tables */
struct tdp_stream *tdp_stream_own(struct tdat_file *f, enum tdp_stream_kind kind,
				  uint64_t off, uint64_t size);
int tdp_option_add(struct tdat_file *f, uint16_t id, uint32_t size,
		   uint64_t offset, const void *data);
long tdp_find_section(const struct tdat_file *f, uint64_t off);

/* the cursor */
const char *tdp_where(const struct tdp_cur *c, uint64_t pos, char *buf,
		      size_t len);
int tdp_cur_read(struct tdp_cur *c, void *buf, uint64_t len, const char *what);
int tdp_cur_peek(struct tdp_cur *c, void *buf, size_t len);
int tdp_cur_u32(struct tdp_cur *c, uint32_t *v, const char *what);
int tdp_cur_u64(struct tdp_cur *c, uint64_t *v, const char *what);
int tdp_cur_string(struct tdp_cur *c, char **out, const char *what);

#endif /* TDAT_CURSOR_H */
