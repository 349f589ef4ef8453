/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c - feed files to the fuzz target without libFuzzer, so the
 * regression corpus runs under `meson test` with any compiler.
 *
 * Usage: fuzz-replay FILE_OR_DIR...
 * A directory is read (not recursively) in name order.  The exit status is
 * 0 when every input ran and every valid seed (a name starting "seed-")
 * was opened and its tree built; a crash, a sanitizer report or a leak ends
 * the process, and the last "run NAME" line on stderr names the input.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz-trace.h"

/* Inputs bigger than this are not corpus files: refuse them. */
#define REPLAY_MAX	(64u << 20)

static int replay_file(const char *path)
{
	const char *base;
	uint8_t *data;
	struct stat st;
	size_t n;
	FILE *fp;

	fp = fopen(path, "rb");
	if (!fp || fstat(fileno(fp), &st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (fp)
			fclose(fp);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > REPLAY_MAX) {
		fprintf(stderr, "%s: not a regular file under 64 MiB\n", path);
		fclose(fp);
		return -1;
	}
	data = malloc((size_t)st.st_size + 1);	/* +1: malloc(0) may be NULL */
	if (!data) {
		fclose(fp);
		return -1;
	}
	n = fread(data, 1, (size_t)st.st_size, fp);
	fclose(fp);
	if (n != (size_t)st.st_size) {
		fprintf(stderr, "%s: short read\n", path);
		free(data);
		return -1;
	}
	fprintf(stderr, "run %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(data, n);
	free(data);
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(base, "seed-", 5) && !fuzz_trace_last_ok()) {
		fprintf(stderr, "%s: a valid seed was refused\n", path);
		return -1;
	}
	return 0;
}

static int replay_dir(const char *dir, int *count)
{
	struct dirent **ents;
	char path[4096];
	int n, bad = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			if (replay_file(path))
				bad = -1;
			else
				(*count)++;
		}
		free(ents[i]);
	}
	free(ents);
	return bad;
}

int main(int argc, char **argv)
{
	struct stat st;
	int count = 0, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &count))
				bad = 1;
		} else if (replay_file(argv[i])) {
			bad = 1;
		} else {
			count++;
		}
	}
	printf("%d inputs replayed\n", count);
	/* An empty corpus is a broken test, not a pass. */
	return bad || count == 0;
}
