/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-tree-int.h - internals of the virtual tree, shared by its files:
 * tdatfs-tree.c (node kinds, lookup, stat, read), tdatfs-tree-build.c (the
 * builder), tdatfs-tree-names.c (names during the build) and
 * tdatfs-tree-check.c (the whole-trace check).  Not a public
 * header; the names are prefixed tree_.
 *
 * Invariants:
 *  - Node index i has inode i + TDATFS_TREE_ROOT; index 0 is the root.
 *  - Only the builder changes nodes; children are sorted once, at the end
 *    of the build.
 *  - Names are unique within a directory and at most TREE_NAME_MAX bytes.
 *  - What a node holds depends on its kind alone (one member of @u), and
 *    everything done to a node goes through its kind's operations
 *    (tree_kind_ops()); no code tests a node's name or path.
 *  - Each internal function is documented at its definition.
 *  - Memory a TREE_MEM node points to is owned by the node when @owned is
 *    set, else it lives in the parser's tables or is static.
 */
#ifndef TDATFS_TREE_INT_H
#define TDATFS_TREE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "tdat.h"
#include "tdatfs-tree.h"

/* The longest name: what file systems a tree is copied to accept. */
#define TREE_NAME_MAX	255

enum tree_kind {
	TREE_DIR,		/* a directory: u.dir */
	TREE_MEM,		/* bytes in memory: u.mem */
	TREE_META,		/* a metadata blob: u.meta */
	TREE_EVENT,		/* an event format file: u.event */
	TREE_SECTION,		/* a v7 section's payload: u.section */
	TREE_SECTION_CPU,	/* a CPU's pages in a buffer section: u.cpu */
	TREE_RAW,		/* per_cpu/cpuN/trace_pipe_raw: u.cpu */
	TREE_LATENCY,		/* a latency buffer's stored text: u.cpu */
	TREE_TEXT,		/* decoded event text: u.text */
	TREE_REPORT,		/* every buffer's text merged: no u member */
	TREE_ERRORS,		/* the damage registry, rendered at each read */
	TREE_INDEX,		/* sections/index, rendered when first asked */
	TREE_KIND_COUNT
};

/* How the whole-trace check reads a file of a kind. */
enum tree_check_mode {
	TREE_CHECK_READ,	/* to its end; a failed read is a problem */
	TREE_CHECK_PAGES,	/* EIO: damage the registry lists; next page */
	TREE_CHECK_QUIET,	/* a failed read ends it: the data was checked
				 * through the parser's tables already */
	TREE_CHECK_SKIP,	/* not read: it is the registry itself */
};

struct tree_node {
	char *name;
	uint32_t parent;	/* index of the parent; the root is its own */
	uint8_t kind;		/* enum tree_kind */
	union {
		struct {
			uint32_t *kids;	/* sorted by name after the build */
			uint32_t nkids;
			uint32_t cap;
			uint32_t ndirs;	/* kids that are directories */
			long section;	/* a buffer section's index, or -1 */
		} dir;
		struct {
			const char *data;
			uint64_t size;
			bool owned;
		} mem;
		struct {
			enum tdat_meta which;
			uint64_t size;
		} meta;
		struct {
			size_t event;	/* index of the event format */
			uint64_t size;
		} event;
		struct {
			size_t section;	/* index of the section */
			uint64_t size;
		} section;
		struct {
			size_t buffer;	/* index of the buffer */
			size_t cpu;	/* index into the buffer's cpus */
		} cpu;
		struct {
			size_t buffer;
			long cpu;	/* index into the buffer's cpus; -1: all */
		} text;
	} u;
};

struct tree_kind_ops {
	bool is_dir;
	bool is_text;
	enum tree_check_mode check;
	/* size for stat; 0 with success when not known yet */
	int (*size)(struct tdatfs_tree *t, const struct tree_node *n,
		    uint64_t *size);
	bool (*size_known)(struct tdatfs_tree *t, const struct tree_node *n);
	ssize_t (*read)(struct tdatfs_tree *t, const struct tree_node *n,
			void *buf, size_t len, uint64_t off);
	int (*list)(const struct tdatfs_tree *t, const struct tree_node *n,
		    tdatfs_tree_filler fill, void *ctx);
};

struct tdatfs_tree {
	struct tdat_file *f;
	struct tdatfs_text *text;
	struct tree_node *nodes;
	uint32_t n;
	uint32_t cap;
	struct tree_names *names;	/* during the build only */
	struct timespec time;
	uid_t uid;
	gid_t gid;

	/* sections/index: a buffer's size needs its chunk tables, which a
	 * mount does not read; rendered once, when first asked for */
	pthread_mutex_t index_lock;
	bool index_done;
	char *index;
	size_t index_len;
};

/* A metadata blob and where the tree shows it. */
struct tree_meta_file {
	enum tdat_meta which;
	const char *dir;	/* directory under the root, or NULL */
	const char *name;
	bool in_events;		/* also under events/ */
};

/* The metadata files in the order the root holds them (events/ after the
 * ones marked in_events). */
extern const struct tree_meta_file tree_meta_files[];
extern const size_t tree_meta_count;

/* tree_meta_label(): how messages name a metadata blob */
const char *tree_meta_label(enum tdat_meta which);

/* tree_kind_ops(): the operations of a node's kind */
const struct tree_kind_ops *tree_kind_ops(const struct tree_node *n);

/* The build's names (tdatfs-tree-names.c); documented there. */
char *tree_name_clean(const char *name);
char *tree_name_unique(struct tdatfs_tree *t, uint32_t parent,
		       const char *name);
long tree_name_find(const struct tdatfs_tree *t, uint32_t parent,
		    const char *name);
int tree_names_grow(struct tdatfs_tree *t);
void tree_names_add(struct tdatfs_tree *t, uint32_t idx);
void tree_names_free(struct tdatfs_tree *t);

#endif /* TDATFS_TREE_INT_H */
