/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli/main.c - the virtual tree of a trace.dat file without FUSE:
 * `tdat ls|cat|check|index TRACE ...`: the command line, its -o options
 * and the dispatch to the commands (commands.c).
 */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-config.h"
#include "tdatfs-index.h"
#include "tdatfs-text.h"
#include "commands.h"

/* -o threads=N: more than this is a typo, not a machine */
#define INDEX_THREADS_MAX	1024

static const char prog[] = "tdat";

/* -o switches and --progress, for every tree opened */
static struct cli_cfg cfg = { .progress = TDATFS_PROGRESS_TTY };

/* -o index_dir=DIR.  Return: 0 or -errno (said). */
static int set_index_dir(const char *dir)
{
	if (!*dir) {
		fprintf(stderr, "%s: empty index_dir (want a directory)\n",
			prog);
		return -EINVAL;
	}
	free(cfg.dir);
	cfg.dir = strdup(dir);
	if (!cfg.dir) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* -o threads=N.  Return: 0 or -EINVAL (said). */
static int set_threads(const char *arg)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || n < 1 ||
	    n > INDEX_THREADS_MAX) {
		fprintf(stderr, "%s: bad threads '%s' (want a number from 1 "
			"to %d)\n", prog, arg, INDEX_THREADS_MAX);
		return -EINVAL;
	}
	cfg.threads = n;
	return 0;
}

/* decode_threads=N: 0 is none (the engine's -1), else 1 to 64. */
static int set_decode_threads(const char *arg, struct tdatfs_text_opts *o)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || n > 64) {
		fprintf(stderr, "%s: bad decode_threads '%s' (want 0 to 64)\n",
			prog, arg);
		return -EINVAL;
	}
	o->decode_threads = n ? (int)n : -1;
	return 0;
}

/*
 * One -o argument: comma-separated tep_only, eager, max_checkpoints=N,
 * decode_threads=N, index_dir=DIR, noindex, threads=N.
 */
static int parse_opts(const char *arg, struct tdatfs_text_opts *o)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long n;

		if (!strcmp(tok, "tep_only")) {
			o->tep_only = true;
		} else if (!strcmp(tok, "eager")) {
			o->eager = true;
		} else if (!strcmp(tok, "noindex")) {
			cfg.off = true;
		} else if (!strncmp(tok, "index_dir=", 10)) {
			ret = set_index_dir(tok + 10);
		} else if (!strncmp(tok, "threads=", 8)) {
			ret = set_threads(tok + 8);
		} else if (!strncmp(tok, "decode_threads=", 15)) {
			ret = set_decode_threads(tok + 15, o);
		} else if (!strncmp(tok, "max_checkpoints=", 16)) {
			errno = 0;
			n = strtoul(tok + 16, &end, 10);
			if (errno || end == tok + 16 || *end || n < 2 ||
			    (unsigned int)n != n) {
				fprintf(stderr, "%s: bad max_checkpoints '%s' "
					"(want a number >= 2)\n", prog, tok + 16);
				ret = -EINVAL;
			}
			o->max_checkpoints = n;
		} else {
			fprintf(stderr, "%s: unknown option '%s'\n", prog, tok);
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret;
}

/* The command after the global options.  Return: the exit status. */
static int run(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("tdat %s\n", TDAT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "ls"))
		return cli_ls(&cfg, argc - 1, argv + 1);
	if (!strcmp(argv[1], "cat"))
		return cli_cat(&cfg, argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cli_check(&cfg, argc - 1, argv + 1);
	if (!strcmp(argv[1], "index"))
		return cli_index(&cfg, argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	cli_usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int ret = 2;

	/*
	 * As the daemon does (fs/fuse/main.c says why): blocks of a
	 * megabyte mapped and unmapped instead of kept on the per-thread
	 * heaps, and one arena, so that the index build's workers leave
	 * no fragmented heaps of their own behind.  tdat index of 16 times
	 * big.dat peaked at 177 MB with glibc's defaults, 123 MB so (1x:
	 * 103 against 85 MB), in the same time.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_ARENA_MAX, 1);
	/*
	 * -o OPTS or -oOPTS, any number of times, and --progress, before
	 * the command
	 */
	while (argc >= 2 && (!strncmp(argv[1], "-o", 2) ||
			     !strcmp(argv[1], "--progress"))) {
		const char *arg = argv[1][2] ? argv[1] + 2 : argv[2];
		int shift = argv[1][2] ? 1 : 2;

		if (!strcmp(argv[1], "--progress")) {
			cfg.progress = TDATFS_PROGRESS_ALWAYS;
			shift = 1;
		} else if (!arg) {
			fprintf(stderr, "%s: -o needs an argument\n", prog);
			cli_usage(stderr);
			goto out;
		} else if (parse_opts(arg, &cfg.text) < 0) {
			goto out;
		}
		argv[shift] = argv[0];
		argc -= shift;
		argv += shift;
	}
	ret = run(argc, argv);
out:
	free(cfg.dir);
	return ret;
}
