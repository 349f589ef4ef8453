/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-tree-int.h - internals of the virtual tree, shared by
 * tdatfs-tree.c (nodes, lookup, read) and tdatfs-render.c (generated texts
 * and the options/ directory).  Not a public header.
 *
 * Invariants:
 *  - Node index i has inode i + TDATFS_TREE_ROOT; index 0 is the root.
 *  - Only the builder (tdatfs_tree_new() and the functions below) changes
 *    nodes; children are sorted once, at the end of the build.
 *  - A node's @data is owned by the node when @owned is set, else it points
 *    into the parser's tables (valid until tdat_close()).
 */
#ifndef TDATFS_TREE_INT_H
#define TDATFS_TREE_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "tdatfs-tree.h"

enum tdatfs_kind {
	TN_DIR,		/* directory */
	TN_MEM,		/* bytes in memory: @data, @size */
	TN_META,	/* tdat_meta_read(@a) */
	TN_EVENT,	/* tdat_event_read(@a) */
	TN_SECTION,	/* tdat_section_read(@a) */
	TN_RAW,		/* tdat_cpu_read(buffer @a, cpu index @b) */
	TN_TEXT,	/* tdatfs_text_read(buffer @a, cpu index @b or -1) */
	TN_ERRORS,	/* the damage registry, rendered at each read */
	TN_INDEX,	/* sections/index, rendered at its first stat or read */
};

struct tdatfs_node {
	char *name;
	uint32_t parent;	/* index of the parent; the root is its own */
	uint8_t kind;
	bool owned;
	uint32_t a;
	int32_t b;
	uint64_t size;
	const char *data;
	uint32_t *kids;		/* indexes, sorted by name after the build */
	uint32_t nkids;
	uint32_t cap;
};

struct tdatfs_tree {
	struct tdat_file *f;
	struct tdatfs_text *text;
	struct tdatfs_node *nodes;
	uint32_t n;
	uint32_t cap;
	struct timespec time;
	uid_t uid;
	gid_t gid;

	/* sections/index: a buffer's size needs its chunk tables, which a
	 * mount does not read; rendered once, when first asked for */
	pthread_mutex_t index_lock;
	bool index_done;
	int index_err;
	char *index;
	size_t index_len;
};

/**
 * tdatfs_node_add() - add a node under a directory during the build
 * @t: tree being built
 * @parent: index of the parent directory
 * @name: wanted name; a name already taken gets "-2", "-3", ... appended,
 *	'/' is replaced by '_', and "", "." and ".." become "_"
 * @kind: enum tdatfs_kind
 * @idx: set to the new node's index
 *
 * Return: 0 or -ENOMEM.
 */
int tdatfs_node_add(struct tdatfs_tree *t, uint32_t parent, const char *name,
		    enum tdatfs_kind kind, uint32_t *idx);

/**
 * tdatfs_node_add_mem() - add an in-memory file
 * @t: tree being built
 * @parent: index of the parent directory
 * @name: as for tdatfs_node_add()
 * @data: contents
 * @size: bytes in @data
 * @owned: when true the node takes @data (malloc'd) and frees it, also on
 *	failure; when false @data must outlive the tree
 *
 * Return: 0 or -ENOMEM.
 */
int tdatfs_node_add_mem(struct tdatfs_tree *t, uint32_t parent,
			const char *name, const void *data, size_t size,
			bool owned);

/**
 * tdatfs_node_find() - find a child by name during the build (linear)
 * @t: tree being built
 * @parent: directory index
 * @name: child name
 *
 * Return: the child's index, or -1.
 */
long tdatfs_node_find(const struct tdatfs_tree *t, uint32_t parent,
		      const char *name);

/**
 * tdatfs_render_build() - add README, info, options/ and sections/index
 * @t: tree being built, with the rest of the tree already in place (the
 *	README lists what the root holds)
 *
 * Return: 0 or -ENOMEM.
 */
int tdatfs_render_build(struct tdatfs_tree *t);

/**
 * tdatfs_render_index() - the text of sections/index
 * @t: tree
 * @text: set to a malloc'd text (caller frees); NULL when @len is 0
 * @len: set to its length
 *
 * Reads the chunk tables of every compressed buffer (their sizes).
 *
 * Return: 0 or -ENOMEM.
 */
int tdatfs_render_index(struct tdatfs_tree *t, char **text, size_t *len);

/**
 * tdatfs_render_clock() - trace_clock text of a buffer
 * @t: tree being built
 * @clock: the buffer's clock name ("" when unknown)
 * @len: set to the length of the result
 *
 * The TRACECLOCK option's list is shown with @clock bracketed, as a live
 * instance's trace_clock file shows it; without a TRACECLOCK option, or
 * when @clock is not in its list, the result is @clock and a newline.
 *
 * Return: a malloc'd text (caller frees), or NULL (errno ENOENT when @clock
 * is empty, ENOMEM).
 */
char *tdatfs_render_clock(const struct tdatfs_tree *t, const char *clock,
			  size_t *len);

#endif /* TDATFS_TREE_INT_H */
