/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * commands.h - tdat's commands (commands.c), called by its command line
 * (main.c) once the global options are parsed.
 *
 * Invariants:
 *  - A command gets the words from its own name on (argv[0] is "ls",
 *    "cat", ...), parses its own options, says every error on stderr
 *    with the program's name, the trace and what failed, and returns
 *    the exit status tdat(1) documents (0, 1, 2 for a usage error, 3 for
 *    damage found by check, 128+N when signal N stopped an index build).
 *  - The configuration is the caller's; a command may only raise
 *    @progress (its own --progress), which then holds for later ones.
 */
#ifndef TDATFS_CLI_COMMANDS_H
#define TDATFS_CLI_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#include "tdatfs-index.h"
#include "tdatfs-text.h"

/**
 * struct cli_cfg - the global options, for every tree a command opens
 * @text: the text engine's -o switches
 * @dir: -o index_dir=DIR (owned by the caller), or NULL for the default
 * @off: -o noindex
 * @threads: -o threads=N, 0 for one per core
 * @progress: when an index build or a check shows its progress line
 */
struct cli_cfg {
	struct tdatfs_text_opts text;
	char *dir;
	bool off;
	unsigned int threads;
	enum tdatfs_index_progress progress;
};

void cli_usage(FILE *out);
int cli_ls(struct cli_cfg *cfg, int argc, char **argv);
int cli_cat(struct cli_cfg *cfg, int argc, char **argv);
int cli_check(struct cli_cfg *cfg, int argc, char **argv);
int cli_index(struct cli_cfg *cfg, int argc, char **argv);

#endif /* TDATFS_CLI_COMMANDS_H */
