/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-head.h - the head of a buffer's trace.pftrace
 * (text/pftrace-file.h): the packets before its bundles.
 *
 * Invariants:
 *  - The head is system_info (from the trace's UNAME option; none
 *    without one), then the interned kernel symbols (the addresses a
 *    kallsyms symbol holds, in address order; none when no record named
 *    a kernel function), then the process tree (text_pf_tree_write()).
 *  - It depends only on the trace, the set of addresses and the tree,
 *    never on the order records were read in: a pass made on several
 *    threads gives the same bytes as one made on one.
 *  - A set of addresses (struct text_pf_syms) holds each non-zero
 *    address noted, at least once; it is sorted and each kept once by
 *    text_pf_syms_join() and by the head, and grows with the trace's
 *    distinct functions, not its records.
 */
#ifndef TDATFS_TEXT_PFTRACE_HEAD_H
#define TDATFS_TEXT_PFTRACE_HEAD_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct text_pf_events;
struct text_pf_tree;

/* The kernel function addresses a pass met; zeroed to start. */
struct text_pf_syms {
	uint64_t *a;
	size_t n, cap;
};

int text_pf_syms_note(struct text_pf_syms *s, const uint64_t *addr,
		      unsigned int n);
int text_pf_syms_join(struct text_pf_syms *dst, const struct text_pf_syms *src);
void text_pf_syms_release(struct text_pf_syms *s);
int text_pf_head_make(struct tdat_file *f, struct text_pf_events *m,
		      struct text_pf_syms *syms, const struct text_pf_tree *tree,
		      char **head, size_t *hlen);

#endif /* TDATFS_TEXT_PFTRACE_HEAD_H */
