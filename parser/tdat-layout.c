/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-layout.c - what an index of a trace needs to recognise it again:
 * the file's status as opened, a checksum of the bytes its layout
 * depends on, and one of pieces of its event data.  On top of the
 * reader: it only reads the tables that tdat_open() built and the file
 * bytes they name; trace data is read as stored, never decompressed.
 *
 * The public functions defined here are documented in tdat.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "tdat-private.h"

#define CRC_BLOCK	(256u << 10)	/* bytes read at a time */

/* Fold @len bytes of memory into *@crc; zlib takes at most a uInt at once. */
static void crc_mem(uint32_t *crc, const void *p, size_t len)
{
	const Bytef *b = p;

	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;

		*crc = (uint32_t)crc32(*crc, b, n);
		b += n;
		len -= n;
	}
}

/* Numbers go in as little-endian u64, so the sum is the same on any host. */
static void crc_u64(uint32_t *crc, uint64_t v)
{
	uint64_t le = htole64(v);

	crc_mem(crc, &le, sizeof(le));
}

static void crc_str(uint32_t *crc, const char *s)
{
	crc_mem(crc, s ? s : "", (s ? strlen(s) : 0) + 1);
}

/* Fold the file bytes [@off, @off + @len) into *@crc, @buf as scratch. */
static int crc_file(const struct tdat_file *f, uint32_t *crc, uint8_t *buf,
		    uint64_t off, uint64_t len)
{
	if (off > f->file_size || len > f->file_size - off)
		return -EIO;
	while (len) {
		size_t n = len < CRC_BLOCK ? (size_t)len : CRC_BLOCK, done;
		int r = tdp_pread_full(f->fd, buf, n, off, &done);

		if (r)
			return r;
		crc_mem(crc, buf, n);
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * v6: everything before the first CPU data is layout (header, metadata,
 * options, the top buffer's CPU table); a file without data is all layout.
 */
static int crc_v6(const struct tdat_file *f, uint32_t *crc, uint8_t *buf)
{
	uint64_t first = f->file_size;

	for (size_t b = 0; b < f->nbufs; b++) {
		const struct tdat_buffer *pb = &f->bufs[b].pub;

		for (unsigned int c = 0; c < pb->ncpus; c++)
			if (pb->cpus[c].stored_size && pb->cpus[c].offset < first)
				first = pb->cpus[c].offset;
	}
	return crc_file(f, crc, buf, 0, first);
}

/*
 * v7: the initial header, every section header, and the stored bytes of
 * every section but the buffers' (options, strings, metadata).
 */
static int crc_v7(const struct tdat_file *f, uint32_t *crc, uint8_t *buf)
{
	int r;

	r = crc_file(f, crc, buf, 0, f->nsecs ? f->secs[0].pub.offset : f->file_size);
	for (size_t i = 0; !r && i < f->nsecs; i++) {
		const struct tdat_section *s = &f->secs[i].pub;
		bool data = s->id == TDAT_OPT_BUFFER || s->id == TDAT_OPT_BUFFER_TEXT;

		r = crc_file(f, crc, buf, s->offset,
			     TDP_SECTION_HDR + (data ? 0 : s->size));
	}
	return r;
}

/* Each buffer's description and CPU table, as the reader holds them. */
static void crc_buffers(const struct tdat_file *f, uint32_t *crc)
{
	crc_u64(crc, f->nbufs);
	for (size_t b = 0; b < f->nbufs; b++) {
		const struct tdat_buffer *pb = &f->bufs[b].pub;

		crc_str(crc, pb->name);
		crc_str(crc, pb->clock);
		crc_u64(crc, pb->page_size);
		crc_u64(crc, pb->latency);
		crc_u64(crc, (uint64_t)pb->section);
		crc_u64(crc, pb->ncpus);
		for (unsigned int c = 0; c < pb->ncpus; c++) {
			crc_u64(crc, pb->cpus[c].cpu);
			crc_u64(crc, pb->cpus[c].offset);
			crc_u64(crc, pb->cpus[c].stored_size);
		}
	}
}

int tdat_layout_crc(const struct tdat_file *f, uint32_t *crc)
{
	uint8_t *buf = malloc(CRC_BLOCK);
	uint32_t sum = (uint32_t)crc32(0L, Z_NULL, 0);
	int r;

	if (!buf)
		return -ENOMEM;
	crc_u64(&sum, f->file_size);
	r = f->version < 7 ? crc_v6(f, &sum, buf) : crc_v7(f, &sum, buf);
	free(buf);
	if (r)
		return r;
	crc_buffers(f, &sum);
	*crc = sum;
	return 0;
}

/*
 * The event data sampled: per CPU, SAMPLES_MAX pieces of SAMPLE_BYTES
 * (the first and last bytes of its data and pieces evenly between), fewer
 * when the trace has many CPUs so that all of them stay near
 * SAMPLES_TOTAL (but at least the first and last piece of each).  On
 * big.dat (2 CPUs, 20 MB) that is 16 reads of 4 KiB, 0.08 ms from the
 * page cache (0.3 ms for the 12 CPUs of a public trace), against the
 * 50 ms a remount may take.
 */
#define SAMPLE_BYTES	4096u
#define SAMPLES_MAX	8u
#define SAMPLES_TOTAL	256u

/* Fold @n evenly spaced pieces of [@off, @off + @size) into *@crc. */
static int sample_cpu(const struct tdat_file *f, uint32_t *crc, uint8_t *buf,
		      uint64_t off, uint64_t size, unsigned int n)
{
	uint64_t len, span, last = UINT64_MAX;
	int r = 0;

	/* a CPU's data cut short by the file's end is damage, found elsewhere */
	if (off >= f->file_size)
		return 0;
	if (size > f->file_size - off)
		size = f->file_size - off;
	len = size < SAMPLE_BYTES ? size : SAMPLE_BYTES;
	span = size - len;

	for (unsigned int i = 0; !r && i < n; i++) {
		/* span * i / (n - 1) without overflow: span < 2^64, i < n <= 8 */
		uint64_t at = span / (n - 1) * i + span % (n - 1) * i / (n - 1);

		if (at == last)
			continue;
		last = at;
		r = crc_file(f, crc, buf, off + at, len);
	}
	return r;
}

int tdat_data_sample_crc(const struct tdat_file *f, uint32_t *crc)
{
	uint32_t sum = (uint32_t)crc32(0L, Z_NULL, 0);
	uint64_t ncpus = 0;
	unsigned int n;
	uint8_t *buf;
	int r = 0;

	for (size_t b = 0; b < f->nbufs; b++)
		ncpus += f->bufs[b].pub.ncpus;
	n = ncpus ? (unsigned int)(SAMPLES_TOTAL / ncpus < SAMPLES_MAX ?
				   SAMPLES_TOTAL / ncpus : SAMPLES_MAX) : 0;
	if (n < 2)
		n = 2;
	buf = malloc(SAMPLE_BYTES);
	if (!buf)
		return -ENOMEM;
	for (size_t b = 0; !r && b < f->nbufs; b++) {
		const struct tdat_buffer *pb = &f->bufs[b].pub;

		for (unsigned int c = 0; !r && c < pb->ncpus; c++)
			if (pb->cpus[c].stored_size)
				r = sample_cpu(f, &sum, buf, pb->cpus[c].offset,
					       pb->cpus[c].stored_size, n);
	}
	free(buf);
	if (!r)
		*crc = sum;
	return r;
}

int tdat_file_stat(const struct tdat_file *f, struct stat *st)
{
	return fstat(f->fd, st) < 0 ? -errno : 0;
}
