/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-trace.h - the fuzz target's entry point, shared by libFuzzer and the
 * corpus replay driver (replay.c).
 *
 * Invariant: LLVMFuzzerTestOneInput() never keeps anything between calls
 * except libtraceevent's log level, and frees all it allocates.
 */
#ifndef FUZZ_TRACE_H
#define FUZZ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * fuzz_trace_last_ok() - whether the last input was opened and its tree built
 *
 * For the replay driver, which requires it of the valid seeds (seed-*), so
 * a parser that refuses everything cannot pass the corpus test.
 *
 * Return: true when the last LLVMFuzzerTestOneInput() call got that far.
 */
bool fuzz_trace_last_ok(void);

#endif /* FUZZ_TRACE_H */
