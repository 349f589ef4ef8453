/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index/file.c - the index file's bytes, checks and atomic write, and
 * its sizes section written anew (invariants in index/file.h; where it
 * lives and its whole read: index/place.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "tdat-config.h"
#include "file.h"

/* ---- bytes ----------------------------------------------------------- */

/* @crc carried on over @len bytes at @p (zlib's crc32() takes a uInt). */
static uLong crc_add(uLong crc, const void *p, size_t len)
{
	const Bytef *b = p;

	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;

		crc = crc32(crc, b, n);
		b += n;
		len -= n;
	}
	return crc;
}

static uint32_t crc_of(const void *p, size_t len)
{
	return (uint32_t)crc_add(crc32(0L, Z_NULL, 0), p, len);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The machine tag: 1 for little-endian, 2 for big; pointer and long sizes. */
static void machine_tag(uint8_t tag[4])
{
	const uint16_t one = 1;

	tag[0] = *(const uint8_t *)&one ? 1 : 2;
	tag[1] = (uint8_t)sizeof(void *);
	tag[2] = (uint8_t)sizeof(long);
	tag[3] = 0;
}

static void put_version(uint8_t *p, const char *v)
{
	memset(p, 0, IDX_VERSION_LEN);
	strncpy((char *)p, v, IDX_VERSION_LEN - 1);
}

/* A text's key as its head in the file stores it (the first 16 bytes). */
static void put_key(uint8_t *p, const struct tdatfs_text_key *k)
{
	memset(p, 0, 16);
	p[0] = k->report;
	put32(p + 4, (uint32_t)(k->report ? -1 : k->cpu));
	put64(p + 8, k->report ? 0 : k->buffer);
}

static void put_head(uint8_t *p, const struct idx_identity *id, size_t n,
		     size_t total)
{
	memcpy(p + IDX_AT_MAGIC, IDX_MAGIC, sizeof(IDX_MAGIC));
	put32(p + IDX_AT_FORMAT, IDX_FORMAT_VERSION);
	machine_tag(p + IDX_AT_MACHINE);
	put64(p + IDX_AT_LENGTH, total);
	put_version(p + IDX_AT_PROG, TDAT_VERSION);
	put_version(p + IDX_AT_TEP, TDAT_TEP_VERSION);
	put64(p + IDX_AT_SIZE, id->size);
	put64(p + IDX_AT_MTIME, id->mtime_ns);
	put64(p + IDX_AT_INODE, id->inode);
	put64(p + IDX_AT_CTIME, id->ctime_ns);
	put32(p + IDX_AT_LAYOUT, id->layout_crc);
	put32(p + IDX_AT_SAMPLE, id->sample_crc);
	put32(p + IDX_AT_CHECKPOINTS, id->max_checkpoints);
	put32(p + IDX_AT_COUNT, (uint32_t)n);
	put32(p + IDX_AT_COUNT + 4, 0);
}

/**
 * idx_encode() - the bytes of an index file
 * @id: the trace's identity
 * @texts: the texts' states, in the order tdatfs_text_keys() lists them
 * @n: entries in @texts
 * @tables: the trace's chunk tables (@tables->len 0: none)
 * @buf: set to the bytes; the caller frees them with free()
 * @len: set to their size
 *
 * Return: 0, -EOVERFLOW for more texts than a u32 counts, or -ENOMEM.
 */
int idx_encode(const struct idx_identity *id, const struct tdatfs_text_state *texts,
	       size_t n, const struct idx_tables *tables, void **buf, size_t *len)
{
	size_t total = IDX_HEAD + IDX_TABLES_HEAD + IDX_CRC_LEN, at = IDX_HEAD;
	uint8_t *p;

	if (n > UINT32_MAX)
		return -EOVERFLOW;
	for (size_t i = 0; i < n; i++) {
		if (texts[i].len > SIZE_MAX - total - IDX_TEXT_HEAD)
			return -ENOMEM;
		total += IDX_TEXT_HEAD + texts[i].len;
	}
	if (tables->len > SIZE_MAX - total)
		return -ENOMEM;
	total += tables->len;
	p = malloc(total);
	if (!p)
		return -ENOMEM;
	put_head(p, id, n, total);
	for (size_t i = 0; i < n; i++) {
		const struct tdatfs_text_state *x = &texts[i];

		put_key(p + at, &x->key);
		put64(p + at + 16, x->len);
		if (x->len)
			memcpy(p + at + IDX_TEXT_HEAD, x->blob, x->len);
		at += IDX_TEXT_HEAD + x->len;
	}
	put64(p + at, tables->len);
	if (tables->len)
		memcpy(p + at + IDX_TABLES_HEAD, tables->p, tables->len);
	at += IDX_TABLES_HEAD + tables->len;
	put32(p + at, crc_of(p, at));
	*buf = p;
	*len = total;
	return 0;
}

/* ---- checks ----------------------------------------------------------- */

/* Refuse with @why, and @fmt... as the line (just @why when NULL). */
static int refuse(struct idx_refusal *no, const char *why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct idx_refusal *no, const char *why, const char *fmt, ...)
{
	va_list ap;

	no->why = why;
	if (!fmt) {
		snprintf(no->line, sizeof(no->line), "%s", why);
		return -EINVAL;
	}
	va_start(ap, fmt);
	vsnprintf(no->line, sizeof(no->line), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A version field as a printable string (at most IDX_VERSION_LEN - 1 bytes). */
static void get_version(char out[IDX_VERSION_LEN], const uint8_t *p)
{
	size_t i;

	for (i = 0; i < IDX_VERSION_LEN - 1 && p[i]; i++)
		out[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	out[i] = '\0';
}

/*
 * Magic, format, machine and length: what a file of another kind fails.
 * @p: the file's first IDX_HEAD bytes (fewer when @len is below that);
 * @len: the file's length.  Return: 0, or -EINVAL (@no says why).
 */
static int head_check(const uint8_t *p, size_t len, struct idx_refusal *no)
{
	uint8_t tag[4];
	uint64_t total;

	if (len >= sizeof(IDX_MAGIC) && memcmp(p, IDX_MAGIC, sizeof(IDX_MAGIC)))
		return refuse(no, "not an index file", NULL);
	if (len < IDX_HEAD + IDX_CRC_LEN)
		return refuse(no, "truncated", "truncated (%zu bytes)", len);
	if (get32(p + IDX_AT_FORMAT) != IDX_FORMAT_VERSION)
		return refuse(no, "another format version",
			      "another format version (%u)", get32(p + IDX_AT_FORMAT));
	machine_tag(tag);
	if (memcmp(p + IDX_AT_MACHINE, tag, sizeof(tag)))
		return refuse(no, "made on another kind of machine",
			      "made on another kind of machine (%s-endian, %u-byte pointers)",
			      p[IDX_AT_MACHINE] == 2 ? "big" : "little",
			      p[IDX_AT_MACHINE + 1]);
	total = get64(p + IDX_AT_LENGTH);
	if (total > len)
		return refuse(no, "truncated", "truncated (%zu of %llu bytes)",
			      len, (unsigned long long)total);
	if (total < len)
		return refuse(no, "bytes after its end",
			      "%llu bytes after its end",
			      (unsigned long long)(len - total));
	return 0;
}

/**
 * idx_check() - the checks of an index file's bytes that need nothing but
 * them: magic, format version, machine, length and checksum
 * @buf: the file's bytes
 * @len: their size
 * @no: set to why, on -EINVAL
 *
 * Return: 0, or -EINVAL for a file refused (@no says why).
 */
int idx_check(const void *buf, size_t len, struct idx_refusal *no)
{
	const uint8_t *p = buf;
	int r = head_check(p, len, no);

	if (r)
		return r;
	if (get32(p + len - IDX_CRC_LEN) != crc_of(p, len - IDX_CRC_LEN))
		return refuse(no, "bad checksum", NULL);
	return 0;
}

/* Who made it and of which trace. */
static int check_origin(const uint8_t *p, const struct idx_identity *id,
			struct idx_refusal *no)
{
	uint8_t want[IDX_VERSION_LEN];
	char got[IDX_VERSION_LEN];

	put_version(want, TDAT_VERSION);
	get_version(got, p + IDX_AT_PROG);
	if (memcmp(p + IDX_AT_PROG, want, IDX_VERSION_LEN))
		return refuse(no, "made by another tdatfs", "made by tdatfs %s", got);
	put_version(want, TDAT_TEP_VERSION);
	get_version(got, p + IDX_AT_TEP);
	if (memcmp(p + IDX_AT_TEP, want, IDX_VERSION_LEN))
		return refuse(no, "made with another libtraceevent",
			      "made with libtraceevent %s", got);
	if (get64(p + IDX_AT_SIZE) != id->size)
		return refuse(no, "for another trace (size differs)", NULL);
	if (get64(p + IDX_AT_INODE) != id->inode)
		return refuse(no, "for another trace (inode differs)", NULL);
	if (get64(p + IDX_AT_MTIME) != id->mtime_ns)
		return refuse(no, "the trace changed (mtime)", NULL);
	if (get64(p + IDX_AT_CTIME) != id->ctime_ns)
		return refuse(no, "the trace changed (ctime)", NULL);
	if (get32(p + IDX_AT_LAYOUT) != id->layout_crc)
		return refuse(no, "the trace's layout differs", NULL);
	if (get32(p + IDX_AT_SAMPLE) != id->sample_crc)
		return refuse(no, "the trace's event data differs", NULL);
	if (get32(p + IDX_AT_CHECKPOINTS) != id->max_checkpoints)
		return refuse(no, "made with another max_checkpoints",
			      "made with max_checkpoints=%u",
			      get32(p + IDX_AT_CHECKPOINTS));
	return 0;
}

/*
 * The texts, into @out (room for @nkeys), each checked against @keys,
 * then the chunk tables that end the file, into @tables.
 */
static int check_texts(const uint8_t *p, size_t len,
		       const struct tdatfs_text_key *keys, size_t nkeys,
		       struct tdatfs_text_state *out, struct idx_tables *tables,
		       struct idx_sizes_raw *sizes, struct idx_refusal *no)
{
	uint64_t tlen;

	size_t at = IDX_HEAD, end = len - IDX_CRC_LEN;

	for (size_t i = 0; i < nkeys; i++) {
		struct tdatfs_text_state *x = &out[i];
		uint8_t want[16];
		uint64_t blen;

		if (end - at < IDX_TEXT_HEAD)
			return refuse(no, "malformed", "malformed (text %zu runs past the end)", i);
		put_key(want, &keys[i]);
		if (memcmp(p + at, want, sizeof(want)))
			return refuse(no, "for other texts",
				      "for other texts (text %zu is another one)", i);
		blen = get64(p + at + 16);
		at += IDX_TEXT_HEAD;
		if (blen > end - at)
			return refuse(no, "malformed", "malformed (text %zu runs past the end)", i);
		x->key = keys[i];
		x->blob = p + at;
		x->len = (size_t)blen;
		at += (size_t)blen;
	}
	if (end - at < IDX_TABLES_HEAD)
		return refuse(no, "malformed", "malformed (no chunk tables)");
	tlen = get64(p + at);
	at += IDX_TABLES_HEAD;
	if (tlen > end - at)
		return refuse(no, "malformed", "malformed (%zu bytes after the texts, "
			      "chunk tables of %llu)", end - at, (unsigned long long)tlen);
	tables->p = p + at;
	tables->len = (size_t)tlen;
	/* what follows is the sizes section, checked apart (optional) */
	sizes->at = at + (size_t)tlen;
	sizes->len = end - sizes->at;
	return 0;
}

/**
 * idx_decode_checked() - idx_decode() of bytes that idx_check() passed
 * @buf: the file's bytes, unchanged since idx_check() passed them
 * @len: their size
 * @id: the trace's identity
 * @keys: the texts expected (tdatfs_text_keys()), in that order
 * @nkeys: entries in @keys
 * @texts: set to @nkeys texts whose blobs point into @buf; the caller
 *	frees the array with free() (not the blobs)
 * @tables: set to the chunk tables, pointing into @buf
 * @sizes: set to where the sizes section is (not checked: that is
 *	idx_sizes_decode()'s, and its refusal is not the file's)
 * @no: set to why, on -EINVAL
 *
 * Checks what idx_check() does not: who made the file, of which trace,
 * and every text in it.
 *
 * Return: 0, -EINVAL for a file refused (@no says why), or -ENOMEM.
 */
int idx_decode_checked(const void *buf, size_t len, const struct idx_identity *id,
		       const struct tdatfs_text_key *keys, size_t nkeys,
		       struct tdatfs_text_state **texts, struct idx_tables *tables,
		       struct idx_sizes_raw *sizes, struct idx_refusal *no)
{
	const uint8_t *p = buf;
	struct tdatfs_text_state *out;
	uint32_t count;
	int r;

	r = check_origin(p, id, no);
	if (r)
		return r;
	count = get32(p + IDX_AT_COUNT);
	if (count != nkeys)
		return refuse(no, "for other texts", "for other texts (%u, not %zu)",
			      count, nkeys);
	if (get32(p + IDX_AT_COUNT + 4))
		return refuse(no, "malformed", "malformed (reserved field)");
	/* Bounded by the bytes: each text takes a head in the file. */
	if (nkeys > (len - IDX_HEAD - IDX_CRC_LEN) / IDX_TEXT_HEAD)
		return refuse(no, "malformed", "malformed (%u texts in %zu bytes)",
			      count, len);
	out = calloc(nkeys ? nkeys : 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	r = check_texts(p, len, keys, nkeys, out, tables, sizes, no);
	if (r) {
		free(out);
		return r;
	}
	*texts = out;
	return 0;
}

/**
 * idx_decode() - check an index file's bytes and find its texts
 * @buf: the file's bytes
 * @len: their size
 * @id: the trace's identity
 * @keys: the texts expected (tdatfs_text_keys()), in that order
 * @nkeys: entries in @keys
 * @texts: set to @nkeys texts whose blobs point into @buf; the caller
 *	frees the array with free() (not the blobs)
 * @tables: set to the chunk tables, pointing into @buf
 * @sizes: set to where the sizes section is (not checked: that is
 *	idx_sizes_decode()'s, and its refusal is not the file's)
 * @no: set to why, on -EINVAL
 *
 * Return: 0, -EINVAL for a file refused (@no says why), or -ENOMEM.
 */
int idx_decode(const void *buf, size_t len, const struct idx_identity *id,
	       const struct tdatfs_text_key *keys, size_t nkeys,
	       struct tdatfs_text_state **texts, struct idx_tables *tables,
	       struct idx_sizes_raw *sizes, struct idx_refusal *no)
{
	int r = idx_check(buf, len, no);

	return r ? r : idx_decode_checked(buf, len, id, keys, nkeys, texts,
					  tables, sizes, no);
}

/* @x rounded up to 8 (a layout's padding). */
static size_t pad8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

/*
 * The @count entries of the sizes section at @p (its head checked) into
 * @out: each within the section, whose end the last one meets exactly.
 * Return: 0, or -EINVAL with @no set.
 */
static int sizes_entries(const uint8_t *p, const struct idx_sizes_raw *raw,
			 uint32_t count, size_t nbuffers, struct idx_size *out,
			 struct idx_refusal *no)
{
	size_t at = IDX_SIZES_HEAD;
	uint64_t l;

	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = p + at;

		if (raw->len - at < IDX_SIZE_ENTRY)
			return refuse(no, "malformed sizes", "malformed sizes section: "
				      "entry %u at byte %zu runs past its end", i,
				      raw->at + at);
		out[i].buffer = get64(e);
		out[i].timeline = get64(e + 8);
		out[i].pftrace = get64(e + 16);
		l = get64(e + 24);
		at += IDX_SIZE_ENTRY;
		if (l > raw->len - at || pad8((size_t)l) > raw->len - at)
			return refuse(no, "malformed sizes", "malformed sizes section: "
				      "entry %u at byte %zu has a layout of %llu bytes "
				      "past its end", i, raw->at + (size_t)(e - p),
				      (unsigned long long)l);
		out[i].layout = l ? p + at : NULL;
		out[i].layout_len = (size_t)l;
		at += pad8((size_t)l);
		if (out[i].buffer >= nbuffers || (i && out[i].buffer <= out[i - 1].buffer))
			return refuse(no, "malformed sizes", "malformed sizes section: "
				      "entry %u at byte %zu names buffer %llu", i,
				      raw->at + (size_t)(e - p),
				      (unsigned long long)out[i].buffer);
	}
	if (at != raw->len)
		return refuse(no, "malformed sizes", "malformed sizes section at byte %zu: "
			      "%zu bytes past its %u entries", raw->at, raw->len - at,
			      count);
	return 0;
}

/**
 * idx_sizes_decode() - check a decoded file's sizes section and read it
 * @buf: the file's bytes, decoded (idx_decode())
 * @raw: where its sizes section is
 * @nbuffers: the trace's buffers (tdat_buffer_count())
 * @sizes: set to the entries (the caller frees them with free()), NULL
 *	when the file has no section
 * @n: set to their count
 * @no: set to why, on -EINVAL; its line names the byte offset
 *
 * Checks the section's length against its entries (each layout within
 * it, the last one ending it), its own checksum, and that the buffers
 * are increasing and below @nbuffers.  What the entries say of each
 * buffer is checked by the engine that takes them
 * (tdatfs_text_whole_sizes_keep(), tdatfs_text_pftrace_layout_keep()).
 *
 * Return: 0, -EINVAL for a section refused, or -ENOMEM.
 */
int idx_sizes_decode(const void *buf, const struct idx_sizes_raw *raw,
		     size_t nbuffers, struct idx_size **sizes, size_t *n,
		     struct idx_refusal *no)
{
	const uint8_t *p = (const uint8_t *)buf + raw->at;
	struct idx_size *out;
	uint32_t count;

	*sizes = NULL;
	*n = 0;
	if (!raw->len)
		return 0;
	if (raw->len < IDX_SIZES_HEAD)
		return refuse(no, "malformed sizes", "malformed sizes section at byte %zu "
			      "(%zu bytes)", raw->at, raw->len);
	count = get32(p);
	if (count > nbuffers || (raw->len - IDX_SIZES_HEAD) / IDX_SIZE_ENTRY < count)
		return refuse(no, "malformed sizes", "malformed sizes section at byte %zu "
			      "(%u entries in %zu bytes, %zu buffers)", raw->at,
			      count, raw->len, nbuffers);
	if (get32(p + 4) != crc_of(p + IDX_SIZES_HEAD, raw->len - IDX_SIZES_HEAD))
		return refuse(no, "bad sizes checksum", "bad checksum of the sizes "
			      "section at byte %zu", raw->at);
	out = calloc(count ? count : 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	if (sizes_entries(p, raw, count, nbuffers, out, no)) {
		free(out);
		return -EINVAL;
	}
	*sizes = out;
	*n = count;
	return 0;
}

/* ---- the file ----------------------------------------------------------- */

/* mkdir -p @dir with @mode for what it makes; an existing one must be a directory. */
static int make_dirs(const char *dir, mode_t mode)
{
	char *p = strdup(dir);
	struct stat st;
	int r = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; ; s++) {
		char c = *s;

		if (c && c != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	if (!r && stat(dir, &st) < 0)
		r = -errno;
	else if (!r && !S_ISDIR(st.st_mode))
		r = -ENOTDIR;
	return r;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A temporary file beside @path in @dir (made when missing, private when
 * @dflt) into *@fd, its name into *@tmp (free() it).  Return: 0 or a
 * negative errno.
 */
static int tmp_open(const char *dir, bool dflt, const char *path, int *fd,
		    char **tmp)
{
	int r = make_dirs(dir, dflt ? 0700 : 0777);

	if (r)
		return r;
	if (asprintf(tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	*fd = mkstemp(*tmp);
	if (*fd < 0) {
		r = -errno;
		free(*tmp);
		return r;
	}
	return 0;
}

/*
 * Sync and close @fd, then rename @tmp over @path unless @r says the
 * writing failed; on any failure @tmp is removed.  Frees @tmp.
 * Return: @r, or the negative errno of the step that failed.
 */
static int tmp_commit(int fd, char *tmp, const char *path, int r)
{
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	free(tmp);
	return r;
}

/**
 * idx_write() - write an index file atomically
 * @dir: its directory, made when missing (mkdir -p)
 * @dflt: @dir is the default one: what is made is private (0700)
 * @path: the file, inside @dir
 * @buf: the bytes (idx_encode())
 * @len: their size
 *
 * A temporary file in @dir is written, synced and renamed over @path, so
 * a reader sees the old file or the new one, whole; two writers at once
 * each rename a whole file.  On failure the temporary file is removed.
 *
 * Return: 0, or the negative errno of the step that failed.
 */
int idx_write(const char *dir, bool dflt, const char *path, const void *buf,
	      size_t len)
{
	char *tmp;
	int fd, r;

	r = tmp_open(dir, dflt, path, &fd, &tmp);
	if (r)
		return r;
	return tmp_commit(fd, tmp, path, write_all(fd, buf, len));
}

/* ---- a new sizes section, streamed ------------------------------------ */

#define COPY_BLOCK	(1u << 20)	/* bytes a rewrite holds of the file */

/* @len bytes at @off of @fd into @p; Return: 0, -ESTALE when it is shorter, -errno. */
static int read_at(int fd, void *p, size_t len, size_t off)
{
	uint8_t *q = p;

	while (len) {
		ssize_t k = pread(fd, q, len, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (!k)
			return -ESTALE;
		q += k;
		off += (size_t)k;
		len -= (size_t)k;
	}
	return 0;
}

/*
 * Where the chunk tables of the file @fd of @len bytes end (where its
 * sizes section is, or its checksum), walking the texts by their lengths:
 * only the heads are read, one by one, after the checks of the file's
 * head (idx_check() but the checksum, which copy_body() checks).
 * Return: 0, -EINVAL for a file refused, or a negative errno of a read.
 */
static int body_end(int fd, size_t len, size_t *at_out)
{
	uint8_t head[IDX_HEAD], h[IDX_TEXT_HEAD];
	struct idx_refusal no;
	size_t at = IDX_HEAD, end = len - IDX_CRC_LEN;
	uint32_t count;
	uint64_t l;
	int r;

	if (len < IDX_HEAD + IDX_CRC_LEN)
		return -EINVAL;
	r = read_at(fd, head, IDX_HEAD, 0);
	if (r || head_check(head, len, &no))
		return r ? r : -EINVAL;
	count = get32(head + IDX_AT_COUNT);
	for (uint32_t i = 0; i <= count; i++) {
		/* the texts' heads, then the chunk tables' */
		size_t hl = i < count ? IDX_TEXT_HEAD : IDX_TABLES_HEAD;

		if (end - at < hl)
			return -EINVAL;
		r = read_at(fd, h, hl, at);
		if (r)
			return r;
		l = get64(i < count ? h + 16 : h);
		at += hl;
		if (l > end - at)
			return -EINVAL;
		at += (size_t)l;
	}
	*at_out = at;
	return 0;
}

/*
 * Copy the first @at bytes of the file @fd (@len bytes, ending with the
 * checksum @crc) to @out, its length field set to @total, reading every
 * byte the checksum covers to check it.  *@now: the CRC32 of the bytes
 * written.  Return: 0, -EINVAL for a bad checksum, or a negative errno.
 */
static int copy_body(int fd, size_t len, size_t at, uint64_t total,
		     uint32_t crc, int out, uLong *now)
{
	uint8_t *blk = malloc(COPY_BLOCK);
	uLong old = crc32(0L, Z_NULL, 0);
	size_t end = len - IDX_CRC_LEN, off = 0;
	int r = blk ? 0 : -ENOMEM;

	*now = old;
	while (!r && off < end) {
		size_t k = end - off < COPY_BLOCK ? end - off : COPY_BLOCK;
		size_t w = off < at ? (at - off < k ? at - off : k) : 0;

		r = read_at(fd, blk, k, off);
		if (r)
			break;
		old = crc32(old, blk, (uInt)k);
		/* the head is in the first block: end >= IDX_HEAD */
		if (!off)
			put64(blk + IDX_AT_LENGTH, total);
		*now = crc32(*now, blk, (uInt)w);
		r = write_all(out, blk, w);
		off += k;
	}
	free(blk);
	if (!r && (uint32_t)old != crc)
		r = -EINVAL;
	return r;
}

/*
 * The length of the sizes section of @s (@n entries) into *@len.
 * Return: 0, or -EOVERFLOW for more entries than its u32 counts or a
 * section (or a layout) past half of what a size_t holds.
 */
static int section_len(const struct idx_size *s, size_t n, size_t *len)
{
	size_t l = IDX_SIZES_HEAD;

	if (n > UINT32_MAX)
		return -EOVERFLOW;
	for (size_t i = 0; i < n; i++) {
		if (s[i].layout_len > SIZE_MAX / 2 ||
		    l > SIZE_MAX / 2 - IDX_SIZE_ENTRY - pad8(s[i].layout_len))
			return -EOVERFLOW;
		l += IDX_SIZE_ENTRY + pad8(s[i].layout_len);
	}
	*len = l;
	return 0;
}

/*
 * Write the sizes section of @s (@n entries, section_len() passed) to
 * @out as index/file.h lays it out, entry by entry, carrying *@crc on
 * over it: a layout is not copied (at 16 times big.dat it is 8.8 MB).
 * Return: 0, or the negative errno of a write.
 */
static int section_write(int out, const struct idx_size *s, size_t n,
			 uLong *crc)
{
	static const uint8_t zero[8];
	uLong body = crc32(0L, Z_NULL, 0);
	uint8_t h[IDX_SIZE_ENTRY];
	int r = 0;

	/* pass 0: the entries' checksum, in the head; pass 1: the writes */
	for (int pass = 0; pass < 2 && !r; pass++) {
		if (pass) {
			put32(h, (uint32_t)n);
			put32(h + 4, (uint32_t)body);
			*crc = crc_add(*crc, h, IDX_SIZES_HEAD);
			r = write_all(out, h, IDX_SIZES_HEAD);
		}
		for (size_t i = 0; i < n && !r; i++) {
			size_t pad = pad8(s[i].layout_len) - s[i].layout_len;
			uLong *c = pass ? crc : &body;

			put64(h, s[i].buffer);
			put64(h + 8, s[i].timeline);
			put64(h + 16, s[i].pftrace);
			put64(h + 24, s[i].layout_len);
			*c = crc_add(*c, h, IDX_SIZE_ENTRY);
			*c = crc_add(*c, s[i].layout, s[i].layout_len);
			*c = crc_add(*c, zero, pad);
			if (pass)
				r = write_all(out, h, IDX_SIZE_ENTRY);
			if (pass && !r)
				r = write_all(out, s[i].layout, s[i].layout_len);
			if (pass && !r)
				r = write_all(out, zero, pad);
		}
	}
	return r;
}

/**
 * idx_sizes_rewrite() - write an index file again with a new sizes section
 * @dir: its directory (there already)
 * @path: the file, inside @dir
 * @len: its length, as loaded or written
 * @crc: its checksum (its last IDX_CRC_LEN bytes), as loaded or written
 * @s: the entries, in increasing buffer order
 * @n: their count
 * @newlen: set to the new file's length
 * @newcrc: set to the new file's checksum
 *
 * The section of @s takes the place of the one the file has, if any;
 * the rest is kept byte for byte, with its length field and checksum
 * made anew.  The new file is written as idx_write() writes one (a
 * temporary file synced and renamed over @path), but copied a block at a
 * time and the section written from @s: what is held is a block, not
 * the file twice and the section (a large trace's index is tens of MiB,
 * its layouts several).  Every byte the old checksum covers is read and
 * checked on the way.
 *
 * Return: 0, -ESTALE when @path is not the file of @len and @crc any
 * more, -EINVAL when it is no sound index file, -EOVERFLOW, -ENOMEM, or
 * the negative errno of a read or write.
 */
int idx_sizes_rewrite(const char *dir, const char *path, size_t len,
		      uint32_t crc, const struct idx_size *s, size_t n,
		      size_t *newlen, uint32_t *newcrc)
{
	uint8_t tail[IDX_CRC_LEN];
	size_t at = 0, slen = 0;
	struct stat st;
	char *tmp = NULL;
	int fd, out, r;
	uLong c = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) < 0 ? -errno : 0;
	if (!r && (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != len ||
		   len < IDX_CRC_LEN))
		r = -ESTALE;
	if (!r)
		r = read_at(fd, tail, IDX_CRC_LEN, len - IDX_CRC_LEN);
	if (!r && get32(tail) != crc)
		r = -ESTALE;
	if (!r)
		r = body_end(fd, len, &at);
	if (!r)
		r = section_len(s, n, &slen);
	if (!r && slen > SIZE_MAX - at - IDX_CRC_LEN)
		r = -EOVERFLOW;
	if (!r)
		r = tmp_open(dir, false, path, &out, &tmp);
	if (!r) {
		r = copy_body(fd, len, at, at + slen + IDX_CRC_LEN, crc, out, &c);
		if (!r)
			r = section_write(out, s, n, &c);
		put32(tail, (uint32_t)c);
		if (!r)
			r = write_all(out, tail, IDX_CRC_LEN);
		r = tmp_commit(out, tmp, path, r);
	}
	close(fd);
	if (!r) {
		*newlen = at + slen + IDX_CRC_LEN;
		*newcrc = get32(tail);
	}
	return r;
}
