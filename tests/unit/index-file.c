/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index-file.c - the index file (fs/index/file.h) on fake
 * states: a round trip; every byte flipped and every truncation refused;
 * forged files of another version, machine or trace refused with the
 * right reason; the sizes section written in place of a file's own,
 * checked against the layout byte by byte, and forged ones refused; where
 * the file lives; the atomic write leaving nothing behind when it fails.
 * And tdat_layout_crc() and tdat_data_sample_crc()
 * on the traces given (copies of them changed in a /tmp directory).
 *
 * usage: test-index-file [TRACE...]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "tdat.h"
#include "check.h"
#include "index/file.h"

static const struct idx_identity ident = {
	.size = 123456, .mtime_ns = 1700000000123456789ull, .inode = 4242,
	.ctime_ns = 1700000000987654321ull, .layout_crc = 0xdeadbeef,
	.sample_crc = 0x5a5a0f0f, .max_checkpoints = 0,
};

static const struct tdatfs_text_key keys[] = {
	{ .buffer = 0, .cpu = -1 },
	{ .buffer = 0, .cpu = 0 },
	{ .buffer = 0, .cpu = 1 },
	{ .report = true },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static uint8_t blob0[40], blob3[7];
/* Chunk tables are the parser's opaque bytes here: any will do. */
static const char tables[] = "chunk tables";

/* A small index of four texts, one of them with an empty state. */
static void make_index(void **buf, size_t *len)
{
	struct tdatfs_text_state t[NKEYS];

	for (size_t i = 0; i < sizeof(blob0); i++)
		blob0[i] = (uint8_t)(i * 7 + 1);
	memcpy(blob3, "report", 7);
	for (size_t i = 0; i < NKEYS; i++)
		t[i] = (struct tdatfs_text_state){ .key = keys[i] };
	t[0].blob = blob0, t[0].len = sizeof(blob0);
	t[1].blob = "cpu0", t[1].len = 4;
	t[3].blob = blob3, t[3].len = sizeof(blob3);
	FATAL(idx_encode(&ident, t, NKEYS,
			 &(struct idx_tables){ .p = tables, .len = sizeof(tables) },
			 buf, len) == 0);
}

/* The file decoded, its sizes section too (of a trace of 2 buffers). */
static int decode(const void *buf, size_t len, struct idx_refusal *no)
{
	struct tdatfs_text_state *t = NULL;
	struct idx_size *sz = NULL;
	struct idx_sizes_raw raw;
	struct idx_tables tb;
	size_t n;
	int r = idx_decode(buf, len, &ident, keys, NKEYS, &t, &tb, &raw, no);

	if (!r)
		r = idx_sizes_decode(buf, &raw, 2, &sz, &n, no);
	free(sz);
	free(t);
	return r;
}

static void test_round_trip(void)
{
	struct idx_refusal no = { 0 };
	struct tdatfs_text_state *t = NULL;
	struct idx_tables tb = { 0 };
	struct idx_sizes_raw raw;
	void *buf;
	size_t len;

	make_index(&buf, &len);
	CHECK(len == IDX_HEAD + IDX_CRC_LEN + NKEYS * IDX_TEXT_HEAD +
	      sizeof(blob0) + 4 + sizeof(blob3) + IDX_TABLES_HEAD + sizeof(tables));
	CHECK(idx_decode(buf, len, &ident, keys, NKEYS, &t, &tb, &raw, &no) == 0);
	FATAL(t);
	CHECK(raw.len == 0);	/* no sizes section */
	CHECK(tb.len == sizeof(tables) && !memcmp(tb.p, tables, sizeof(tables)));
	/* the tables are the file's last bytes before its checksum */
	CHECK((const uint8_t *)tb.p + tb.len == (const uint8_t *)buf + len - IDX_CRC_LEN);
	CHECK(t[0].len == sizeof(blob0) && !memcmp(t[0].blob, blob0, sizeof(blob0)));
	CHECK(t[1].len == 4 && !memcmp(t[1].blob, "cpu0", 4));
	CHECK(t[2].len == 0);
	CHECK(t[3].len == sizeof(blob3) && !memcmp(t[3].blob, "report", 7));
	CHECK(t[3].key.report && !t[0].key.report && t[2].key.cpu == 1);
	free(t);
	free(buf);
}

static void test_damage(void)
{
	struct idx_refusal no;
	uint8_t *p;
	void *buf;
	size_t len, bad = 0;

	make_index(&buf, &len);
	p = buf;
	for (size_t i = 0; i < len; i++)
		for (unsigned int m = 1; m < 256; m <<= 1) {
			p[i] ^= (uint8_t)m;
			if (decode(p, len, &no) != -EINVAL)
				bad++;
			p[i] ^= (uint8_t)m;
		}
	CHECK(bad == 0);
	for (size_t n = 0; n < len; n++) {
		int r = decode(p, n, &no);

		CHECK(r == -EINVAL);
		if (n >= IDX_HEAD + IDX_CRC_LEN)
			CHECK(!strcmp(no.why, "truncated"));
	}
	CHECK(decode(p, len, &no) == 0);
	p = realloc(p, len + 1);
	FATAL(p);
	p[len] = 0;
	CHECK(decode(p, len + 1, &no) == -EINVAL && !strcmp(no.why, "bytes after its end"));
	free(p);
}

/* Change @n bytes at @at to @v, then seal the file again with a good CRC. */
static void forge(uint8_t *p, size_t len, size_t at, const void *v, size_t n)
{
	uint32_t crc;

	memcpy(p + at, v, n);
	crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)(len - IDX_CRC_LEN));
	memcpy(p + len - IDX_CRC_LEN, &crc, sizeof(crc));
}

static void expect(size_t at, const void *v, size_t n, const char *why,
		   const char *line)
{
	struct idx_refusal no = { 0 };
	void *buf;
	size_t len;

	make_index(&buf, &len);
	forge(buf, len, at, v, n);
	CHECK(decode(buf, len, &no) == -EINVAL);
	if (!no.why || strcmp(no.why, why) || (line && strcmp(no.line, line)))
		fprintf(stderr, "at %zu: want \"%s\" / \"%s\", got \"%s\" / \"%s\"\n", at,
			why, line ? line : "", no.why ? no.why : "", no.line);
	CHECK(no.why && !strcmp(no.why, why));
	CHECK(!line || !strcmp(no.line, line));
	free(buf);
}

static void test_forged(void)
{
	uint32_t newer = IDX_FORMAT_VERSION + 1, zero = 0, five = 5;
	char newer_line[64];
	uint64_t other = 99;
	uint8_t tag[4] = { 2, 4, 4, 0 };
	char ver[IDX_VERSION_LEN] = "0.0.1";
	struct idx_refusal no = { 0 };
	struct tdatfs_text_key k2[NKEYS];
	void *buf;
	size_t len;

	snprintf(newer_line, sizeof(newer_line), "another format version (%u)",
		 (unsigned int)newer);
	expect(IDX_AT_FORMAT, &newer, 4, "another format version", newer_line);
	expect(IDX_AT_MACHINE, tag, 4, "made on another kind of machine", NULL);
	expect(IDX_AT_PROG, ver, sizeof(ver), "made by another tdatfs", "made by tdatfs 0.0.1");
	expect(IDX_AT_TEP, ver, sizeof(ver), "made with another libtraceevent",
	       "made with libtraceevent 0.0.1");
	expect(IDX_AT_SIZE, &other, 8, "for another trace (size differs)", NULL);
	expect(IDX_AT_INODE, &other, 8, "for another trace (inode differs)", NULL);
	expect(IDX_AT_MTIME, &other, 8, "the trace changed (mtime)", NULL);
	expect(IDX_AT_CTIME, &other, 8, "the trace changed (ctime)", NULL);
	expect(IDX_AT_LAYOUT, &zero, 4, "the trace's layout differs", NULL);
	expect(IDX_AT_SAMPLE, &zero, 4, "the trace's event data differs", NULL);
	expect(IDX_AT_CHECKPOINTS, &five, 4, "made with another max_checkpoints",
	       "made with max_checkpoints=5");
	expect(IDX_AT_COUNT, &five, 4, "for other texts", "for other texts (5, not 4)");
	expect(IDX_AT_MAGIC, "tdatidy", 8, "not an index file", NULL);
	/* A blob length that runs past the end, with a good checksum. */
	other = 1u << 20;
	expect(IDX_HEAD + 16, &other, 8, "malformed", NULL);
	/* Chunk tables longer or shorter than the bytes left. */
	{
		size_t at = IDX_HEAD + NKEYS * IDX_TEXT_HEAD + sizeof(blob0) + 4 +
			    sizeof(blob3);
		uint64_t longer = sizeof(tables) + 1, shorter = sizeof(tables) - 1;

		expect(at, &longer, 8, "malformed", NULL);
		/* the byte left over is a sizes section, refused alone */
		expect(at, &shorter, 8, "malformed sizes", NULL);
	}

	make_index(&buf, &len);
	memcpy(k2, keys, sizeof(k2));
	k2[2].cpu = 2;
	struct tdatfs_text_state *t = NULL;
	struct idx_tables tb;
	struct idx_sizes_raw raw;
	CHECK(idx_decode(buf, len, &ident, k2, NKEYS, &t, &tb, &raw, &no) == -EINVAL);
	CHECK(!strcmp(no.line, "for other texts (text 2 is another one)"));
	CHECK(idx_decode(buf, len, &ident, keys, NKEYS - 1, &t, &tb, &raw, &no) == -EINVAL);
	CHECK(!strcmp(no.why, "for other texts"));
	free(buf);
}

/* The sizes of @buf (a sizes section given), or -EINVAL with @no. */
static int sizes_of(const void *buf, size_t len, size_t nb, struct idx_size **sz,
		    size_t *n, struct idx_refusal *no)
{
	struct tdatfs_text_state *t = NULL;
	struct idx_sizes_raw raw;
	struct idx_tables tb;
	int r = idx_decode(buf, len, &ident, keys, NKEYS, &t, &tb, &raw, no);

	free(t);
	return r ? r : idx_sizes_decode(buf, &raw, nb, sz, n, no);
}

/*
 * A sizes section forged at @at (from the section's start, which is
 * where the file without one, of @base bytes, had its checksum) with @v;
 * @fix: the section's own checksum made again after.
 */
static void expect_sizes(const void *file, size_t flen, size_t base, size_t at,
			 const void *v, size_t n, bool fix, const char *why)
{
	struct idx_refusal no = { 0 };
	struct idx_size *sz = NULL;
	uint8_t *p = malloc(flen), *sec;
	size_t cnt;
	uint32_t crc;

	FATAL(p);
	memcpy(p, file, flen);
	sec = p + base - IDX_CRC_LEN;
	memcpy(sec + at, v, n);
	if (fix) {
		crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), sec + IDX_SIZES_HEAD,
				      (uInt)(p + flen - IDX_CRC_LEN - sec - IDX_SIZES_HEAD));
		memcpy(sec + 4, &crc, sizeof(crc));
	}
	forge(p, flen, 0, p, 0);
	CHECK(sizes_of(p, flen, 2, &sz, &cnt, &no) == -EINVAL);
	CHECK(no.why && !strcmp(no.why, why));
	/* the line names where the section is */
	CHECK(strstr(no.line, "at byte") != NULL);
	free(sz);
	free(p);
}

/* Entries of @dir other than "." and ".." (and the names, on stderr). */
static int entries(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!dp)
		return -1;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

/* Print into a path buffer; a path that does not fit ends the test. */
#define PATHF(buf, ...) FATAL(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

/*
 * @buf (@len bytes) with the sizes section of @s, as idx_sizes_rewrite()
 * writes it over a file of those bytes, into *@out (free() it), *@outlen
 * bytes; the length and checksum it says are the file's.
 * Return: what idx_sizes_rewrite() returns.
 */
static int with_sizes(const void *buf, size_t len, const struct idx_size *s,
		      size_t n, void **out, size_t *outlen)
{
	char top[] = "/tmp/test-index-sizes.XXXXXX", path[300];
	uint32_t crc = 0, ncrc = 0;
	size_t nlen = 0;
	int r;

	FATAL(mkdtemp(top) && len >= IDX_CRC_LEN);
	PATHF(path, "%s/x.tdatidx", top);
	FATAL(idx_write(top, false, path, buf, len) == 0);
	memcpy(&crc, (const uint8_t *)buf + len - IDX_CRC_LEN, sizeof(crc));
	r = idx_sizes_rewrite(top, path, len, crc, s, n, &nlen, &ncrc);
	if (!r) {
		FATAL(idx_read(path, out, outlen) == 0);
		CHECK(*outlen == nlen);
		CHECK(!memcmp(&ncrc, (uint8_t *)*out + nlen - IDX_CRC_LEN, sizeof(ncrc)));
	}
	/* the temporary file renamed or removed */
	CHECK(entries(top) == 1);
	unlink(path);
	CHECK(rmdir(top) == 0);
	return r;
}

static const char layout0[] = "layout of buffer 0";	/* 19 bytes, 5 padded */

/* Entries @got equal to @want, layouts compared by their bytes. */
static bool sizes_equal(const struct idx_size *got, const struct idx_size *want,
			size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (got[i].buffer != want[i].buffer ||
		    got[i].timeline != want[i].timeline ||
		    got[i].pftrace != want[i].pftrace ||
		    got[i].layout_len != want[i].layout_len ||
		    (!got[i].layout) != (!want[i].layout) ||
		    (got[i].layout_len &&
		     memcmp(got[i].layout, want[i].layout, got[i].layout_len)))
			return false;
	return true;
}

/*
 * @got (@glen bytes) is the index file @old (@olen bytes, of a trace of 2
 * buffers) with the sizes section of @s (@n entries, sound) in place of
 * its own, to the byte: what comes before the section is @old's but the
 * length field, which is @glen; then the section: its count and its
 * checksum right (idx_sizes_decode()), the entries @s, each layout
 * zero-padded to 8, the last one ending it; then a good checksum
 * (idx_check()).  The writer is checked against the layout, not against
 * a second encoder of it.
 */
static bool rewritten_from(const void *old, size_t olen, const void *got,
			   size_t glen, const struct idx_size *s, size_t n)
{
	struct tdatfs_text_state *t = NULL;
	struct idx_refusal no = { 0 };
	struct idx_size *sz = NULL;
	struct idx_sizes_raw raw;
	struct idx_tables tb;
	size_t want = IDX_SIZES_HEAD, cnt = 0;
	uint64_t total = glen;
	uint8_t *head;
	bool ok;

	FATAL(idx_decode(old, olen, &ident, keys, NKEYS, &t, &tb, &raw, &no) == 0);
	free(t);
	for (size_t i = 0; i < n; i++)
		want += IDX_SIZE_ENTRY + ((s[i].layout_len + 7) & ~(size_t)7);
	ok = glen == raw.at + want + IDX_CRC_LEN;
	head = malloc(raw.at);
	FATAL(head);
	memcpy(head, old, raw.at);
	memcpy(head + IDX_AT_LENGTH, &total, sizeof(total));
	ok = ok && !memcmp(head, got, raw.at);
	free(head);
	ok = ok && idx_check(got, glen, &no) == 0;
	ok = ok && sizes_of(got, glen, 2, &sz, &cnt, &no) == 0 && cnt == n &&
	     sizes_equal(sz, s, n);
	for (size_t i = 0; ok && i < n; i++) {
		const uint8_t *e = sz[i].layout;

		for (size_t k = sz[i].layout_len; e && k % 8; k++)
			ok = ok && e[k] == 0;
	}
	free(sz);
	return ok;
}

static void test_sizes(void)
{
	const struct idx_size s[2] = {
		{ 0, 1234, 567890, layout0, sizeof(layout0) },
		{ 1, 99, 0, NULL, 0 },
	};
	struct idx_refusal no = { 0 };
	struct idx_size *sz = NULL;
	void *buf, *with, *again;
	size_t len, wlen, alen, n = 9;
	uint64_t three = 3, big = 1000;
	uint32_t many = 3;

	make_index(&buf, &len);
	FATAL(with_sizes(buf, len, s, 2, &with, &wlen) == 0);
	CHECK(wlen == len + IDX_SIZES_HEAD + 2 * IDX_SIZE_ENTRY + 24);
	/* the rest of the file byte for byte */
	CHECK(!memcmp((uint8_t *)with + IDX_AT_PROG, (uint8_t *)buf + IDX_AT_PROG,
		      len - IDX_CRC_LEN - IDX_AT_PROG));
	CHECK(rewritten_from(buf, len, with, wlen, s, 2));
	CHECK(sizes_of(with, wlen, 2, &sz, &n, &no) == 0);
	CHECK(n == 2 && sz && sizes_equal(sz, s, 2));
	/* a layout is read in place, from the file's bytes */
	CHECK(sz && sz[0].layout > with && (const uint8_t *)sz[0].layout <
	      (const uint8_t *)with + wlen);
	free(sz);
	sz = NULL;
	/* a file without one decodes to none */
	CHECK(sizes_of(buf, len, 2, &sz, &n, &no) == 0 && !sz && !n);
	/* a new section takes the old one's place */
	FATAL(with_sizes(with, wlen, s + 1, 1, &again, &alen) == 0);
	CHECK(alen == len + IDX_SIZES_HEAD + IDX_SIZE_ENTRY);
	CHECK(rewritten_from(with, wlen, again, alen, s + 1, 1));
	CHECK(sizes_of(again, alen, 2, &sz, &n, &no) == 0 && n == 1 &&
	      sizes_equal(sz, s + 1, 1));
	free(sz);
	free(again);
	/* more buffers than the trace has */
	CHECK(sizes_of(with, wlen, 1, &sz, &n, &no) == -EINVAL);
	expect_sizes(with, wlen, len, 0, &many, 4, false, "malformed sizes");
	expect_sizes(with, wlen, len, 4, &many, 4, false, "bad sizes checksum");
	expect_sizes(with, wlen, len, IDX_SIZES_HEAD + IDX_SIZE_ENTRY + 24,
		     &three, 8, false, "bad sizes checksum");
	/* a layout's length past the section, or short of its end, with the
	 * section's checksum made again */
	expect_sizes(with, wlen, len, IDX_SIZES_HEAD + 24, &big, 8, true,
		     "malformed sizes");
	expect_sizes(with, wlen, len, IDX_SIZES_HEAD + 24, &three, 8, true,
		     "malformed sizes");
	/* entries forged with their checksum made again */
	{
		struct idx_size bad[2] = { s[0], s[1] };
		void *b2;
		size_t l2;

		bad[1].buffer = 0;	/* not increasing */
		FATAL(with_sizes(buf, len, bad, 2, &b2, &l2) == 0);
		CHECK(sizes_of(b2, l2, 2, &sz, &n, &no) == -EINVAL);
		CHECK(!strcmp(no.why, "malformed sizes") && strstr(no.line, "entry 1"));
		free(b2);
		bad[1].buffer = 7;	/* no such buffer */
		FATAL(with_sizes(buf, len, bad, 2, &b2, &l2) == 0);
		CHECK(sizes_of(b2, l2, 2, &sz, &n, &no) == -EINVAL);
		free(b2);
	}
	/* not an index file: refused, no temporary file left */
	CHECK(with_sizes("junk", 4, s, 2, &again, &alen) == -EINVAL);
	free(with);
	free(buf);
}

static void test_path(void)
{
	char *d = NULL, *p = NULL, *p2 = NULL;
	const char *why = NULL;
	bool dflt;

	CHECK(idx_path("/x/idx", "/xdg", "/home/u", "/a/b/t.dat", &d, &p, &dflt, &why) == 0);
	CHECK(!dflt && !strcmp(d, "/x/idx"));
	CHECK(p && !strncmp(p, "/x/idx/t.dat-", 13) && strlen(p) == 13 + 16 + strlen(IDX_SUFFIX));
	free(d);
	CHECK(idx_path(NULL, "/xdg", "/home/u", "/a/c/t.dat", &d, &p2, &dflt, &why) == 0);
	CHECK(dflt && !strcmp(d, "/xdg/tdatfs"));
	/* Same name, another directory: another hash. */
	CHECK(strcmp(strrchr(p, '/'), strrchr(p2, '/')));
	free(d), free(p), free(p2);
	CHECK(idx_path("", "rel", "/home/u", "/t.dat", &d, &p, &dflt, &why) == 0);
	CHECK(dflt && !strcmp(d, "/home/u/.cache/tdatfs"));
	free(d), free(p);
	d = p = NULL;
	CHECK(idx_path(NULL, NULL, "", "/t.dat", &d, &p, &dflt, &why) == -ENOENT);
	CHECK(why && !d && !p);
}

static void test_write(void)
{
	char top[] = "/tmp/test-index-file.XXXXXX", d[256], path[300], f[300];
	struct stat st;
	void *buf, *back = NULL;
	size_t len, blen = 0;
	int fd;

	FATAL(mkdtemp(top));
	make_index(&buf, &len);
	PATHF(d, "%s/a/b", top);
	PATHF(path, "%s/x.tdatidx", d);
	CHECK(idx_read(path, &back, &blen) == -ENOENT);
	CHECK(idx_write(d, true, path, buf, len) == 0);
	CHECK(stat(d, &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK(idx_read(path, &back, &blen) == 0 && blen == len && !memcmp(back, buf, len));
	free(back);
	/* Over the old one: the same name, one entry. */
	CHECK(idx_write(d, true, path, buf, len / 2) == 0);
	CHECK(idx_read(path, &back, &blen) == 0 && blen == len / 2);
	free(back);
	CHECK(entries(d) == 1);
	CHECK(idx_read(d, &back, &blen) == -EINVAL);

	/* A directory under a regular file cannot be made, even by root. */
	PATHF(f, "%s/file", top);
	fd = open(f, O_CREAT | O_WRONLY, 0600);
	FATAL(fd >= 0);
	close(fd);
	PATHF(d, "%s/sub", f);
	PATHF(path, "%s/x.tdatidx", d);
	CHECK(idx_write(d, false, path, buf, len) == -ENOTDIR);
	CHECK(idx_write(f, false, path, buf, len) == -ENOTDIR);
	CHECK(entries(top) == 2);
	/* A file that cannot be renamed over: a directory in its place. */
	PATHF(d, "%s/c", top);
	PATHF(path, "%s/c/x.tdatidx", top);
	CHECK(mkdir(d, 0700) == 0 && mkdir(path, 0700) == 0);
	PATHF(f, "%s/y", path);
	CHECK(mkdir(f, 0700) == 0);
	CHECK(idx_write(d, false, path, buf, len) < 0);
	CHECK(entries(d) == 1);
	rmdir(f);
	rmdir(path);
	rmdir(d);
	PATHF(path, "%s/a/b/x.tdatidx", top);
	unlink(path);
	PATHF(d, "%s/a/b", top);
	rmdir(d);
	PATHF(d, "%s/a", top);
	rmdir(d);
	PATHF(f, "%s/file", top);
	unlink(f);
	CHECK(rmdir(top) == 0);
	free(buf);
}

/* @path's bytes equal @len bytes at @want, and no other file is in @dir. */
static bool file_is(const char *dir, const char *path, const void *want,
		    size_t len)
{
	void *back = NULL;
	size_t blen = 0;
	bool same = !idx_read(path, &back, &blen) && blen == len &&
		    !memcmp(back, want, len);

	free(back);
	return same && entries(dir) == 1;
}

/*
 * idx_sizes_rewrite() puts a section in place of the file's own
 * (rewritten_from()) over a file of several copy blocks (a state of
 * 2.5 MiB), and leaves a file that is not the one named as it is.
 */
static void test_rewrite(void)
{
	const struct idx_size s[2] = {
		{ 0, 1234, 567890, layout0, sizeof(layout0) },
		{ 1, 99, 0, NULL, 0 },
	};
	char top[] = "/tmp/test-index-rewrite.XXXXXX", path[300];
	struct tdatfs_text_state t[NKEYS];
	size_t big_len = (5u << 20) / 2, len, wlen, alen, nlen = 0;
	uint8_t *big = malloc(big_len);
	void *buf, *with, *again;
	uint32_t crc, ncrc = 0;
	int fd;

	FATAL(big && mkdtemp(top));
	for (size_t i = 0; i < big_len; i++)
		big[i] = (uint8_t)(i * 13 + (i >> 16));
	for (size_t i = 0; i < NKEYS; i++)
		t[i] = (struct tdatfs_text_state){ .key = keys[i] };
	t[0].blob = big, t[0].len = big_len;
	FATAL(idx_encode(&ident, t, NKEYS,
			 &(struct idx_tables){ .p = tables, .len = sizeof(tables) },
			 &buf, &len) == 0);
	PATHF(path, "%s/x.tdatidx", top);
	FATAL(idx_write(top, false, path, buf, len) == 0);
	memcpy(&crc, (uint8_t *)buf + len - IDX_CRC_LEN, sizeof(crc));
	/* another file than the one named: left as it is */
	CHECK(idx_sizes_rewrite(top, path, len, crc ^ 1, s, 2, &nlen, &ncrc) == -ESTALE);
	CHECK(idx_sizes_rewrite(top, path, len - 1, crc, s, 2, &nlen, &ncrc) == -ESTALE);
	CHECK(file_is(top, path, buf, len));
	FATAL(idx_sizes_rewrite(top, path, len, crc, s, 2, &nlen, &ncrc) == 0);
	FATAL(idx_read(path, &with, &wlen) == 0);
	CHECK(nlen == wlen && entries(top) == 1);
	CHECK(!memcmp(&ncrc, (uint8_t *)with + wlen - IDX_CRC_LEN, sizeof(ncrc)));
	CHECK(rewritten_from(buf, len, with, wlen, s, 2));
	/* the section replaced */
	FATAL(idx_sizes_rewrite(top, path, nlen, ncrc, s + 1, 1, &nlen, &ncrc) == 0);
	FATAL(idx_read(path, &again, &alen) == 0);
	CHECK(nlen == alen && entries(top) == 1);
	CHECK(!memcmp(&ncrc, (uint8_t *)again + alen - IDX_CRC_LEN, sizeof(ncrc)));
	CHECK(rewritten_from(with, wlen, again, alen, s + 1, 1));
	/* a byte changed past the first block, the checksum kept: refused */
	fd = open(path, O_WRONLY);
	FATAL(fd >= 0);
	CHECK(pwrite(fd, "?", 1, (off_t)(2u << 20)) == 1);
	close(fd);
	memcpy(&crc, (uint8_t *)again + alen - IDX_CRC_LEN, sizeof(crc));
	CHECK(idx_sizes_rewrite(top, path, alen, crc, s, 2, &nlen, &ncrc) == -EINVAL);
	CHECK(entries(top) == 1);
	unlink(path);
	CHECK(idx_sizes_rewrite(top, path, alen, crc, s, 2, &nlen, &ncrc) == -ENOENT);
	CHECK(rmdir(top) == 0);
	free(again);
	free(with);
	free(buf);
	free(big);
}

/*
 * Two writers of one file at once, each renaming 200 whole files over it,
 * while this process reads it: every read is one writer's whole file.
 */
static void test_two_writers(void)
{
	char top[] = "/tmp/test-index-file.XXXXXX", path[300];
	void *a, *b;
	size_t alen, blen, seen = 0, bad = 0;
	pid_t pid[2];

	FATAL(mkdtemp(top));
	PATHF(path, "%s/x.tdatidx", top);
	make_index(&a, &alen);
	/* Another valid index: a longer first state. */
	struct tdatfs_text_state t[NKEYS] = { { .key = keys[0], .blob = blob0, .len = sizeof(blob0) },
				     { .key = keys[1], .blob = blob0, .len = 33 },
				     { .key = keys[2] }, { .key = keys[3] } };
	FATAL(idx_encode(&ident, t, NKEYS, &(struct idx_tables){ 0 }, &b, &blen) == 0);
	for (int w = 0; w < 2; w++) {
		pid[w] = fork();
		FATAL(pid[w] >= 0);
		if (!pid[w]) {
			for (int i = 0; i < 200; i++)
				if (idx_write(top, false, path, w ? b : a, w ? blen : alen))
					_exit(1);
			_exit(0);
		}
	}
	/* Read until both writers are done. */
	for (int left = 2, st; left; ) {
		struct idx_refusal no;
		void *back;
		size_t len;

		for (int w = 0; w < 2; w++)
			if (pid[w] > 0 && waitpid(pid[w], &st, WNOHANG) == pid[w]) {
				CHECK(WIFEXITED(st) && !WEXITSTATUS(st));
				pid[w] = 0;
				left--;
			}
		if (idx_read(path, &back, &len))
			continue;
		seen++;
		if (decode(back, len, &no) || (len != alen && len != blen))
			bad++;
		free(back);
	}
	CHECK(seen > 0);
	CHECK(bad == 0);
	CHECK(entries(top) == 1);
	fprintf(stderr, "two writers: %zu reads of a whole file, %zu bad\n", seen, bad);
	unlink(path);
	CHECK(rmdir(top) == 0);
	free(a);
	free(b);
}

/* The layout CRC: the same for the same file, another for another one. */
static void test_layout(int n, char **traces)
{
	uint32_t prev = 0;

	for (int i = 0; i < n; i++) {
		char err[256];
		struct tdat_file *f = tdat_open(traces[i], NULL, err, sizeof(err));
		struct tdat_file *g = tdat_open(traces[i], NULL, err, sizeof(err));
		uint32_t a = 0, b = 1;

		FATAL(f && g);
		CHECK(tdat_layout_crc(f, &a) == 0 && tdat_layout_crc(g, &b) == 0);
		CHECK(a == b);
		CHECK(i == 0 || a != prev);
		prev = a;
		tdat_close(f);
		tdat_close(g);
	}
}

/* Copy @from to @to, with the byte at @at (when not UINT64_MAX) changed. */
static void copy_changed(const char *from, const char *to, uint64_t at)
{
	void *buf;
	size_t len;
	int fd;

	FATAL(idx_read(from, &buf, &len) == 0);
	if (at < len)
		((uint8_t *)buf)[at] ^= 0x5a;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FATAL(fd >= 0);
	FATAL(write(fd, buf, len) == (ssize_t)len);
	close(fd);
	free(buf);
}

/* The data sample CRC of a trace, and its layout CRC in *@layout. */
static uint32_t sample_of(const char *path, uint32_t *layout)
{
	char err[256];
	struct tdat_file *f = tdat_open(path, NULL, err, sizeof(err));
	uint32_t crc = 0;

	FATAL(f);
	CHECK(tdat_data_sample_crc(f, &crc) == 0);
	CHECK(tdat_layout_crc(f, layout) == 0);
	tdat_close(f);
	return crc;
}

/*
 * The data sample CRC: the same for the same bytes, another when a byte
 * of the first and of the last sampled piece of a CPU's data changes,
 * while the layout CRC, which reads no event data, stays.
 */
static void test_sample(int n, char **traces)
{
	char top[] = "/tmp/test-index-file.XXXXXX", path[300];

	FATAL(mkdtemp(top));
	PATHF(path, "%s/t.dat", top);
	for (int i = 0; i < n; i++) {
		char err[256];
		struct tdat_file *f = tdat_open(traces[i], NULL, err, sizeof(err));
		const struct tdat_buffer *b;
		uint32_t l0, l1, s0;
		uint64_t at[2];

		FATAL(f);
		b = tdat_buffer_get(f, 0);
		FATAL(b && b->ncpus && b->cpus[0].stored_size > 8192);
		at[0] = b->cpus[0].offset + 100;
		at[1] = b->cpus[0].offset + b->cpus[0].stored_size - 100;
		tdat_close(f);
		copy_changed(traces[i], path, UINT64_MAX);
		s0 = sample_of(path, &l0);
		CHECK(s0 == sample_of(traces[i], &l1) && l0 == l1);
		for (int k = 0; k < 2; k++) {
			copy_changed(traces[i], path, at[k]);
			CHECK(sample_of(path, &l1) != s0);
			CHECK(l1 == l0);
		}
	}
	unlink(path);
	CHECK(rmdir(top) == 0);
}

int main(int argc, char **argv)
{
	test_round_trip();
	test_damage();
	test_forged();
	test_sizes();
	test_path();
	test_write();
	test_rewrite();
	test_two_writers();
	test_layout(argc - 1, argv + 1);
	test_sample(argc - 1, argv + 1);
	if (failures)
		fprintf(stderr, "test-index-file: %d failures\n", failures);
	return failures != 0;
}
