/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h - the two assertions of the C unit tests.
 *
 * Invariants:
 *  - CHECK(cond) counts a failed check in the test's own @failures and
 *    goes on, so one run reports every failure; FATAL(cond) ends the test
 *    with status 1 when going on would only crash (a NULL handle).
 *  - Each test file includes this header once and returns non-zero from
 *    main() when @failures is not 0.
 */
#ifndef TDAT_TEST_CHECK_H
#define TDAT_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

#define FATAL(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: FATAL: %s\n", __FILE__, __LINE__, #cond); \
		exit(1); \
	} \
} while (0)

#endif /* TDAT_TEST_CHECK_H */
