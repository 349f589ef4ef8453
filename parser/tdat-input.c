/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-input.c - open and close a trace.dat file: the initial header,
 * then the v6 or v7 layout behind it (tdat-input-v6.c, tdat-input-v7.c);
 * and the accessors of what the header and the tables hold.  The top of
 * the reader: nothing in parser/ calls into it.
 *
 * The public functions defined here are documented in tdat.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-cursor.h"

#define DEFAULT_CACHE_SIZE	(64ull << 20)

/* --- the initial header ------------------------------------------------ */

#define HDR_MAGIC_LEN	10	/* 0x17 0x08 0x44 "tracing" */
#define HDR_VERSION_AT	HDR_MAGIC_LEN
#define HDR_VERSION_MAX	64	/* a longer "version" is no version string */
#define HDR_FIXED_LEN	6	/* u8 endianness, u8 long size, u32 page size */
#define HDR_READ	256	/* reaches past both compression strings */
#define HDR_VERSION_TOP	7	/* trace-cmd 3.1's FILE_VERSION_MAX */
#define HDR_OPTIONS_LEN	8	/* v7: u64 offset of the first OPTIONS section */

/*
 * The version string read as trace-cmd 3.1 reads it (tracecmd_alloc_fd()):
 * strtol() in base 10, so leading blanks, a sign and trailing bytes pass
 * and a string without digits ("", written by a 32-bit Android build) is
 * 0; the result, cut to unsigned int, is taken when at most 7.  Below 7
 * the file has the v6 layout.  *@ver is that number.  Return: whether it
 * is read.
 */
static bool version_number(const char *s, unsigned int *ver)
{
	unsigned long v = (unsigned long)strtol(s, NULL, 10);

	if ((unsigned int)v > HDR_VERSION_TOP)
		return false;
	*ver = (unsigned int)v;
	return true;
}

/* Magic, version and the fixed fields; *@end is set to the byte after them. */
static int header_fixed(struct tdat_file *f, const uint8_t *h, size_t n,
			size_t *end)
{
	static const uint8_t magic[HDR_MAGIC_LEN] = { 0x17, 0x08, 0x44, 't', 'r',
						      'a', 'c', 'i', 'n', 'g' };
	const char *nul;
	size_t p, len;
	int r;

	if (memcmp(h, magic, n < 3 ? n : 3))
		return tdp_fail(f, EINVAL, "not a trace.dat file: bad magic at offset 0");
	if (memcmp(h + 3, magic + 3, n < HDR_MAGIC_LEN ? (n > 3 ? n - 3 : 0) : HDR_MAGIC_LEN - 3))
		return tdp_fail(f, EINVAL, "not a trace.dat file: bad magic at offset 3");
	if (n < HDR_MAGIC_LEN)
		return tdp_fail(f, EINVAL, "truncated header at offset %zu", n < 3 ? (size_t)0 : (size_t)3);
	nul = memchr(h + HDR_VERSION_AT, '\0', n - HDR_VERSION_AT < HDR_VERSION_MAX ?
		     n - HDR_VERSION_AT : HDR_VERSION_MAX);
	if (!nul)
		return tdp_fail(f, n < HDR_VERSION_AT + HDR_VERSION_MAX ? EINVAL : EPROTONOSUPPORT,
				n < HDR_VERSION_AT + HDR_VERSION_MAX ? "truncated header at offset 10" :
				"unsupported version (not a short string) at offset 10");
	len = (size_t)(nul - (const char *)(h + HDR_VERSION_AT));
	if (!version_number((const char *)h + HDR_VERSION_AT, &f->version))
		return tdp_fail(f, EPROTONOSUPPORT,
				"unsupported version \"%.*s\" at offset 10 (0 to 7 are read)",
				(int)len, (const char *)h + HDR_VERSION_AT);
	p = HDR_VERSION_AT + len + 1;
	if (n < p + HDR_FIXED_LEN)
		return tdp_fail(f, EINVAL, "truncated header at offset %zu",
				n <= p ? p : (n < p + 2 ? n : p + 2));
	if (h[p] > 1)
		return tdp_fail(f, EINVAL, "bad endianness byte %u at offset %zu",
				h[p], p);
	f->big_endian = h[p] == 1;
	if (h[p + 1] != 4 && h[p + 1] != 8)
		return tdp_fail(f, EINVAL, "bad long size %u at offset %zu",
				h[p + 1], p + 1);
	f->long_size = h[p + 1];
	f->page_size = tdat_get32(f, h + p + 2);
	r = tdp_parse_page_size(f, f->page_size, p + 2, "page size");
	if (r)
		return r;
	*end = p + HDR_FIXED_LEN;
	return 0;
}

/*
 * v7: the compression name and version strings from @p on, then the offset
 * of the first OPTIONS section (*@next); *@after is the byte after it.
 */
static int header_compression(struct tdat_file *f, const uint8_t *h, size_t n,
			      size_t p, uint64_t *next, uint64_t *after)
{
	const char *nul;
	size_t len;

	nul = memchr(h + p, '\0', n - p < sizeof(f->comp_name) ? n - p : sizeof(f->comp_name));
	if (!nul)
		return tdp_fail(f, EINVAL, "truncated header at offset %zu (compression name)", p);
	memcpy(f->comp_name, h + p, (size_t)(nul - (const char *)h) - p + 1);
	len = (size_t)(nul - (const char *)h) + 1;
	nul = memchr(h + len, '\0', n - len < sizeof(f->comp_version) ? n - len : sizeof(f->comp_version));
	if (!nul)
		return tdp_fail(f, EINVAL, "truncated header at offset %zu (compression version)", len);
	memcpy(f->comp_version, h + len, (size_t)(nul - (const char *)h) - len + 1);
	if (strcmp(f->comp_name, "none")) {
		f->ops = tdp_compress_find(f->comp_name);
		if (!f->ops)
			return tdp_fail(f, EPROTONOSUPPORT,
					"unknown compression \"%s\" at offset %zu",
					f->comp_name, p);
		if (f->ops->supported && f->ops->supported(f->comp_version) < 0)
			return tdp_fail(f, EPROTONOSUPPORT,
					"unsupported %s version \"%s\" at offset %zu",
					f->comp_name, f->comp_version, len);
	}
	p = (size_t)(nul - (const char *)h) + 1;
	if (n < p + HDR_OPTIONS_LEN)
		return tdp_fail(f, EINVAL, "truncated header at offset %zu", p);
	f->src.ops = f->ops;
	*next = tdat_get64(f, h + p);
	*after = p + HDR_OPTIONS_LEN;
	return 0;
}

/*
 * The initial header.  v6: *@next and *@after are the offset right after
 * it, where the metadata starts.  v7: *@next is the first OPTIONS section,
 * *@after the first section header.
 */
static int read_initial_header(struct tdat_file *f, uint64_t *next, uint64_t *after)
{
	uint8_t h[HDR_READ];
	size_t n = f->file_size < sizeof(h) ? (size_t)f->file_size : sizeof(h);
	size_t p;
	int r;

	r = tdp_pread_all(f, h, n, 0, "header");
	if (r)
		return r;
	r = header_fixed(f, h, n, &p);
	if (r)
		return r;
	if (f->version < HDR_VERSION_TOP) {
		strcpy(f->comp_name, "none");
		*next = p;
		*after = p;
		return 0;
	}
	return header_compression(f, h, n, p, next, after);
}

struct tdat_file *tdat_open(const char *path, const struct tdat_open_opts *opts,
			    char *err, size_t errlen)
{
	struct tdat_file *f;
	uint64_t next = 0, after = 0;
	struct stat st;
	int r;

	if (err && errlen)
		err[0] = '\0';
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = -1;
	f->err = err;
	f->errlen = errlen;
	pthread_mutex_init(&f->lock, NULL);
	r = tdp_errlog_init(f);
	if (r)
		goto fail;
	/* O_NONBLOCK: a FIFO would block the open until a writer came. */
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0) {
		r = -errno;
		tdp_fail(f, -r, "cannot open: %s", strerror(-r));
		goto fail;
	}
	if (fstat(f->fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		r = tdp_fail(f, EINVAL, "not a regular file");
		goto fail;
	}
	r = fcntl(f->fd, F_GETFL);
	if (r < 0 || fcntl(f->fd, F_SETFL, r & ~O_NONBLOCK) < 0) {
		r = -errno;
		goto fail;
	}
	f->file_size = (uint64_t)st.st_size;
	f->defer.wanted = opts && opts->defer_checks;
	f->cache = tdp_cache_new(opts && opts->cache_size ? (size_t)opts->cache_size :
				 (size_t)DEFAULT_CACHE_SIZE);
	if (!f->cache) {
		r = -errno;
		goto fail;
	}
	f->src.fd = f->fd;
	f->src.file_size = f->file_size;
	f->src.cache = f->cache;

	r = read_initial_header(f, &next, &after);
	if (r)
		goto fail;
	f->src.big_endian = f->big_endian;
	f->src.ops = f->ops;
	f->kernel_long_size = f->long_size;
	if (f->version < HDR_VERSION_TOP)
		r = tdp_open_v6(f, next);
	else
		r = tdp_open_v7(f, next, after);
	if (r)
		goto fail;
	r = tdp_buffers_finish(f);
	if (r)
		goto fail;
	f->err = NULL;
	f->errlen = 0;
	return f;
fail:
	r = tdp_meta_finish(f, r);
	if (r == -ENOMEM)
		tdp_fail(f, ENOMEM, "out of memory");
	else if (f->err && f->errlen && !f->err[0])
		tdp_fail(f, -r, "%s", strerror(-r));
	f->err = NULL;
	tdat_close(f);
	errno = -r;
	return NULL;
}

int tdat_finish_checks(struct tdat_file *f, char *err, size_t errlen)
{
	int r;

	if (err && errlen)
		err[0] = '\0';
	f->err = err;
	f->errlen = errlen;
	r = tdp_meta_finish(f, 0);
	if (r == -ENOMEM)
		tdp_fail(f, ENOMEM, "out of memory");
	f->err = NULL;
	f->errlen = 0;
	return r;
}

void tdat_close(struct tdat_file *f)
{
	if (!f)
		return;
	tdp_buffers_free(f);
	for (size_t i = 0; i < f->nfmts; i++)
		free((char *)f->fmts[i].pub.name);
	free(f->fmts);
	for (size_t i = 0; i < f->nsystems; i++)
		free(f->systems[i]);
	free(f->systems);
	for (size_t i = 0; i < f->nopts; i++)
		free((void *)f->opts[i].data);
	free(f->opts);
	for (size_t i = 0; i < f->nstreams; i++)
		tdp_stream_free(f->streams[i]);
	free(f->streams);
	free(f->secs);
	free(f->strings);
	free(f->traceclock);
	tdp_cache_free(f->cache);
	if (f->fd >= 0)
		close(f->fd);
	pthread_mutex_destroy(&f->lock);
	tdp_errlog_free(f);
	free(f);
}

/* --- accessors ------------------------------------------------------------ */

unsigned int tdat_version(const struct tdat_file *f)
{
	return f->version;
}

bool tdat_big_endian(const struct tdat_file *f)
{
	return f->big_endian;
}

unsigned int tdat_long_size(const struct tdat_file *f)
{
	return f->long_size;
}

unsigned int tdat_kernel_long_size(const struct tdat_file *f)
{
	return f->kernel_long_size;
}

uint32_t tdat_page_size(const struct tdat_file *f)
{
	return f->page_size;
}

const char *tdat_compression(const struct tdat_file *f)
{
	return f->comp_name;
}

const char *tdat_compression_version(const struct tdat_file *f)
{
	return f->comp_version;
}

uint64_t tdat_file_size(const struct tdat_file *f)
{
	return f->file_size;
}

unsigned int tdat_cpu_count(const struct tdat_file *f)
{
	return f->cpu_count;
}

size_t tdat_section_count(const struct tdat_file *f)
{
	return f->nsecs;
}

size_t tdat_option_count(const struct tdat_file *f)
{
	return f->nopts;
}

const struct tdat_option *tdat_option_get(const struct tdat_file *f, size_t i)
{
	return i < f->nopts ? &f->opts[i] : NULL;
}

void tdat_cache_charge(struct tdat_file *f, size_t bytes, bool give_back)
{
	if (f)
		tdp_cache_charge(f->cache, bytes, give_back);
}

void tdat_cache_drop(struct tdat_file *f)
{
	if (f)
		tdp_cache_drop(f->cache);
}
