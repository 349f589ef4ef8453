/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index/place.c - where a trace's index file lives and how it is read
 * whole (invariants in index/file.h; its bytes and atomic write are
 * index/file.c's).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"

#define NAME_KEEP	64	/* bytes of the trace's name kept in the file name */

/**
 * idx_read() - read a whole index file
 * @path: its path
 * @buf: set to its bytes (never more than its size at open); the caller
 *	frees them with free()
 * @len: set to their size
 *
 * Return: 0, -ENOENT when there is none, -EINVAL for something that is
 * not a regular file, -EFBIG for one too large for memory, or the
 * negative errno of open() or read().
 */
int idx_read(const char *path, void **buf, size_t *len)
{
	struct stat st;
	size_t got = 0;
	uint8_t *p;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	if (r) {
		close(fd);
		return r;
	}
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		close(fd);
		return -EFBIG;
	}
	p = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (r) {
		free(p);
		return r;
	}
	*buf = p;
	*len = got;
	return 0;
}

/* 64-bit FNV-1a: names one trace's file among others of the same name. */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

static char *cat_path(const char *a, const char *b)
{
	char *s;

	return asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

/**
 * idx_path() - where a trace's index file lives
 * @dir: the index directory asked for (-o index_dir), or NULL
 * @xdg_cache: $XDG_CACHE_HOME, or NULL (used only when absolute)
 * @home: $HOME, or NULL
 * @trace: the trace's real path (its name and hash name the file)
 * @dirp: set to the directory; the caller frees it
 * @pathp: set to the file, "DIR/NAME-HASH.tdatidx"; the caller frees it
 * @dflt: set when the directory is the default one (made private)
 * @why: set to the reason when there is none (static text)
 *
 * Return: 0, -ENOENT without @dir, $XDG_CACHE_HOME or $HOME, or -ENOMEM.
 */
int idx_path(const char *dir, const char *xdg_cache, const char *home,
	     const char *trace, char **dirp, char **pathp, bool *dflt,
	     const char **why)
{
	const char *base = strrchr(trace, '/');
	char *d = NULL, *name;

	*dflt = !dir || !*dir;
	if (!*dflt)
		d = strdup(dir);
	else if (xdg_cache && xdg_cache[0] == '/')
		d = cat_path(xdg_cache, "tdatfs");
	else if (home && *home)
		d = cat_path(home, ".cache/tdatfs");
	else {
		*why = "neither $XDG_CACHE_HOME nor $HOME is set";
		return -ENOENT;
	}
	if (!d)
		return -ENOMEM;
	base = base ? base + 1 : trace;
	if (asprintf(&name, "%s/%.*s-%016llx%s", d, NAME_KEEP, *base ? base : "trace",
		     (unsigned long long)name_hash(trace), IDX_SUFFIX) < 0) {
		free(d);
		return -ENOMEM;
	}
	*dirp = d;
	*pathp = name;
	return 0;
}
