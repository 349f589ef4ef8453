/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index/build.h - building an index, internal to index/open.c:
 * every text produced on worker threads, with the progress line.
 *
 * Invariants:
 *  - Each worker makes its own engine of the trace on its first text (so
 *    its own libtraceevent handle) and frees it when no text is left; the
 *    caller's engine is only asked for page counts.
 *  - Texts are taken largest first (tdatfs_text_pages()) from one shared
 *    counter, so the longest text does not start last.
 *  - The calling thread only watches: it polls the cancel flag, shows the
 *    progress line (stderr, after a second) and waits for the workers.
 *  - On two threads or more, the buffer with the largest merged text may
 *    be made in two parts at once (tdatfs_text_split_new()), when the
 *    plan says the build ends sooner so: two jobs on two engines the
 *    build holds, joined and saved by the calling thread after the
 *    workers end.
 *  - On success every text's state is saved; on cancel or failure none is
 *    returned and every worker has ended.
 */
#ifndef TDATFS_INDEX_BUILD_H
#define TDATFS_INDEX_BUILD_H

#include <stddef.h>

#include "tdatfs-index.h"
#include "file.h"

int idx_build(struct tdatfs_text *t, struct tdat_file *f, const char *trace,
	      const struct tdatfs_index_opts *o,
	      const struct tdatfs_text_key *keys, size_t n,
	      struct tdatfs_text_state *out);
void idx_texts_free(struct tdatfs_text_state *texts, size_t n);

#endif /* TDATFS_INDEX_BUILD_H */
