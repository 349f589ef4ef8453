/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * open-trace.h - a trace the C unit tests cannot go on without, opened.
 *
 * Invariants:
 *  - Included after check.h (FATAL() ends the test), once per test file.
 *  - open_trace() returns an open trace or ends the test with status 1,
 *    the parser's message on stderr.
 */
#ifndef TDAT_TEST_OPEN_TRACE_H
#define TDAT_TEST_OPEN_TRACE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tdat.h"

static struct tdat_file *open_trace(const char *path)
{
	char err[512] = "";
	struct tdat_file *f = tdat_open(path, NULL, err, sizeof(err));

	if (!f)
		fprintf(stderr, "%s: %s\n", path, *err ? err : strerror(errno));
	FATAL(f);
	return f;
}

#endif /* TDAT_TEST_OPEN_TRACE_H */
