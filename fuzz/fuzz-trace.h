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

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FUZZ_TRACE_H */
