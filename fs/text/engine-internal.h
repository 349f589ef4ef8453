/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/engine-internal.h - the engine's own insides, shared by its files:
 * text/engine.c (setup, streams, reads), text/engine-states.c (the
 * states the index gives and takes), text/engine-produce.c (texts
 * produced to their end for the index) and text/engine-split.c (a
 * buffer's texts made in two parts, which calls engine-produce.c), which
 * call the first, never the other way.  Nothing else includes it.
 *
 * Invariants:
 *  - The stream table, the stashes and the setup change only under
 *    @lock; a stream, once made, stays until the engine is freed, but on
 *    an engine no other thread uses (tdatfs_text_produce_sole(),
 *    tdatfs_text_produce_led()), where its producer may free it to make
 *    it again (text_eng_stream_forget()).
 *  - A stash holds a checked state (@blob) from its load until its
 *    text's stream is made, which takes it; a text read before any load
 *    gets none (a second load of it is -EBUSY).  @blob is the stash's own
 *    allocation, or a part of the buffer tdatfs_text_states_adopt() took
 *    (@from), which is freed when the last stash that points into it lets
 *    go (its stream took the state, or the engine is freed).  A stash's
 *    @len bytes are charged to the file's chunk cache while it holds
 *    them.
 *  - The report's stash is @rstash, the one of buffer index @nbuffers.
 *  - A split (struct tdatfs_text_split) holds streams of two engines no
 *    other thread uses: each part's streams are used by one thread at a
 *    time, and the join, on the first engine, runs after both parts.
 */
#ifndef TDATFS_TEXT_ENGINE_INTERNAL_H
#define TDATFS_TEXT_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdatfs-text.h"
#include "setup.h"
#include "stream.h"

struct tdat_buffer;
struct text_read_ahead;
struct text_kallsyms_share;

/* Bytes adopted with their states, and how many stashes point into them. */
struct text_shared {
	void *bytes;
	size_t users;
};

/*
 * A state loaded for a text (tdatfs_text_state_load()), kept until the
 * text's stream is made, so that loading sets nothing up.
 */
struct text_stash {
	void *blob;		/* checked bytes, until the stream takes them */
	size_t len;
	struct text_shared *from;	/* NULL: @blob is the stash's own */
	uint64_t size;		/* the text's size, from the state */
	bool loaded;
	int err;		/* <0: the stream made did not take it */
};

struct tdatfs_text {
	struct tdat_file *f;
	struct tdatfs_text_opts opts;
	pthread_mutex_t lock;		/* setup and the stream table */
	bool ready;
	int init_err;			/* <0: setup failed, returned on reads */

	struct text_layers l;		/* built by text_layers_setup() */
	struct text_kallsyms_share *ksyms; /* one reference, for the layers */

	size_t nbuffers;
	struct text_stream ***streams;	/* [buffer][0 merged, 1 + cpu index] */
	struct text_stream *report;	/* every buffer merged */

	/* loaded states: [buffer][0 merged, 1 + cpu index], and the report's */
	struct text_stash **stash;
	struct text_stash rstash;
	/* the buffer whose merged text the report is made of, or -1 */
	long alias;
	char head[32];			/* the report's first line */

	/* reading ahead: the workers */
	struct text_read_ahead *ahead;

	/* what a layer above keeps per engine (text_engine_ext()) */
	void *ext;
	void (*ext_free)(void *ext);
};

/* What a producer produces at a time, between polls of its cancel flag. */
#define TEXT_ENG_PIECE	(256 * 1024)

bool text_eng_cpu_aliased(const struct tdatfs_text *t, size_t buffer, int cpu);
int text_eng_stream_as(struct tdatfs_text *t, size_t buffer, int cpu, bool create,
		       enum text_cpu_read fresh, struct text_stream **out);
void text_eng_stream_forget(struct tdatfs_text *t, size_t buffer, int cpu);
struct text_stash *text_eng_stash_get(struct tdatfs_text *t, size_t buffer,
				      int cpu, bool create);
int text_eng_report_parts(struct tdatfs_text *t, struct text_stream_part **parts,
			  size_t *nparts);
const struct tdat_buffer *text_eng_key_buffer(const struct tdatfs_text *t,
					      const struct tdatfs_text_key *k);
int text_eng_key_stream(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			bool create, struct text_stream **st);
/* text/engine-produce.c, for text/engine-split.c */
int text_eng_produce_to_end(struct text_stream *m, const _Atomic bool *cancel,
			    _Atomic uint64_t *done, uint64_t times);
int text_eng_cpu_streams(struct tdatfs_text *t, size_t buffer, unsigned int n,
			 struct text_stream **cpus);
int text_eng_produce_rest(struct tdatfs_text *t, size_t buffer, unsigned int n,
			  const bool *made, const _Atomic bool *cancel,
			  _Atomic uint64_t *done);

#endif /* TDATFS_TEXT_ENGINE_INTERNAL_H */
