/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/comm-table.h - the sorted array libtraceevent 1.7.1's
 * cmdline_init() makes of a comm list, and what glibc's bsearch() finds
 * in it (doc/trace-cmd-parity.md, section 4).
 *
 * Invariants:
 *  - An array is made once (text_comm_table_build()) from the registrations
 *    before it, stably sorted by pid with the newest of a pid first, and
 *    never changes after: it is read without a lock by every stream
 *    whose model holds it.
 *  - A pid held once has its comm in ->comm; a pid held several times
 *    has NULL there and a run in ->dup, whose entry bsearch() returns
 *    depends only on the entries below and above it (text_comm_table_pick()).
 *  - Every array made in the process has a generation of its own
 *    (->gen, never 0, never reused): text_comm_table_look() caches, per thread,
 *    what the last array it looked in says of the pids looked up, and a
 *    freed array's answers never serve a new one at the same address.
 *  - The comm strings are the caller's (saved_cmdlines, a model's list):
 *    they must outlive the array.
 */
#ifndef TDATFS_TEXT_COMM_TABLE_H
#define TDATFS_TEXT_COMM_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* One registration of a comm. */
struct text_comm_reg {
	int pid;
	size_t seq;		/* order of registration */
	const char *comm;
};

/* A pid with several entries in the array. */
struct text_comm_table_dup {
	int pid;
	size_t below, above;	/* entries of smaller / larger pids */
	size_t n;
	const char **comm;	/* newest first, as the stable sort leaves them */
};

/* The array, one slot per distinct pid. */
struct text_comm_table {
	uint64_t gen;
	size_t n;
	int *pid;		/* sorted */
	const char **comm;	/* NULL for a pid of @dup */
	size_t ndup;
	struct text_comm_table_dup *dup;	/* sorted by pid */
	const char **dcomm;	/* the storage of dup[].comm */
};

/* What an array says of a pid (text_comm_table_look()). */
struct text_comm_table_hit {
	int pid;
	enum { TEXT_CTAB_NONE, TEXT_CTAB_ONCE, TEXT_CTAB_DUP,
	       TEXT_CTAB_ABSENT } kind;
	const char *comm;	/* TEXT_CTAB_ONCE: its only entry */
	size_t dup;		/* TEXT_CTAB_DUP: its run in dup[] */
};

int text_comm_table_build(struct text_comm_table *tb,
			  const struct text_comm_reg *saved, size_t nsaved,
			  const int *pid1, char *const *comm1, size_t n1);
void text_comm_table_release(struct text_comm_table *tb);
const struct text_comm_table_hit *
text_comm_table_look(const struct text_comm_table *tb, int pid);
size_t text_comm_table_pick(size_t below, size_t n, size_t above);

#endif /* TDATFS_TEXT_COMM_TABLE_H */
