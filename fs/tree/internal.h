/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/internal.h - internals of the virtual tree, shared by its files:
 * tree/nodes.c (node kinds, lookup, stat, read), tree/build.c (the
 * builder), tree/names.c (names during the build),
 * tree/views.c (the kinds of the views of SPEC 2.6),
 * tree/windows.c (the time windows made on lookup) and
 * tree/check.c (the whole-trace check).  Not a public
 * header; the names are prefixed tree_.
 *
 * Invariants:
 *  - Node index i has inode i + TDATFS_TREE_ROOT; index 0 is the root.
 *    These static nodes are @n; the nodes of time windows (time/T0-T1/
 *    and what it holds) are not stored: each window looked up gets a
 *    block of TREE_WIN_SLOTS() inodes above the static ones, and
 *    tree_window_node() makes the node of such an inode on demand (into
 *    the caller's struct), from the window table (tree/windows.c).
 *  - An instance's events/ holds its summary.tsv alone as static nodes;
 *    its SYSTEM/ and SYSTEM/EVENT/ directories and their views are the
 *    root's events/SYSTEM/EVENT/ nodes mirrored for its buffer, made on
 *    lookup like the windows' (tree_mirror_node(), tree/views.c): buffer
 *    b owns the TREE_MIRROR_SLOTS inodes per root node in
 *    [@ev_lo, @ev_hi) from the first inode past the static nodes, and
 *    the windows' blocks start after all of them (@win_first).  A
 *    trace's instances then cost nodes in their count, not in their
 *    count times its event formats.
 *  - Only the builder changes the static nodes; children are sorted once,
 *    at the end of the build.  After that only the window table grows
 *    (under its lock); a window, once made, never changes nor goes.
 *  - A node may be hidden: its kind's @shown says so (view files of an
 *    event without records in their buffer; an instance's events/ SYSTEM
 *    and EVENT directories, shown when one of their events has records).  A
 *    hidden node is left out of readdir and is ENOENT to lookup, stat
 *    and read.  Whether a node is shown is known only from the text
 *    engine's event stats (tdatfs_text_event_stats()), never at build.
 *  - The texts rendered when first asked for (sections/index, each
 *    buffer's summary.tsv and time/README) are made outside any lock and
 *    kept, once made, in a struct tree_lazy under @lazy_lock.
 *  - Names are unique within a directory and at most TREE_NAME_MAX bytes.
 *  - What a node holds depends on its kind alone (one member of @u), and
 *    everything done to a node goes through its kind's operations
 *    (tree_kind_ops()); no code tests a node's name or path.
 *  - Each internal function is documented at its definition.
 *  - Memory a TREE_MEM node points to is owned by the node when @owned is
 *    set, else it lives in the parser's tables or is static.
 */
#ifndef TDATFS_TREE_INTERNAL_H
#define TDATFS_TREE_INTERNAL_H

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
	TREE_IEVENTS,		/* an instance's events/: u.dir (its own
				 * files), u.dir.buffer, and the root's
				 * systems mirrored for that buffer */
	TREE_MIRROR,		/* an instance's events/SYSTEM/ or
				 * SYSTEM/EVENT/, made on lookup: u.mirror */
	TREE_TIME,		/* a buffer's time/: u.dir, its README, and
				 * windows looked up by name (u.dir.buffer) */
	TREE_VIEW,		/* a view of a buffer's text: u.view */
	TREE_SUMMARY,		/* events/summary.tsv: u.view.buffer, rendered
				 * when first asked */
	TREE_TIME_README,	/* time/README: u.view.buffer, the same way */
	TREE_WINDOW,		/* a directory of a time window: u.win */
	TREE_KIND_COUNT
};

/* How the whole-trace check reads a file of a kind. */
enum tree_check_mode {
	TREE_CHECK_READ,	/* to its end; a failed read is a problem */
	TREE_CHECK_PAGES,	/* EIO: damage the registry lists; next page */
	TREE_CHECK_QUIET,	/* a failed read ends it: the data was checked
				 * through the parser's tables already */
	TREE_CHECK_SKIP,	/* not read: it is the registry itself */
	TREE_CHECK_VIEW,	/* not read: a view of the texts the check reads
				 * whole (cut from them, or made from their
				 * records and from what producing them
				 * learns), so it holds no data of its own */
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
			uint32_t buffer;	/* TREE_TIME, TREE_IEVENTS:
						 * its buffer */
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
		struct {
			uint32_t buffer;
			int32_t event;	/* event id (event and fields views) */
			int32_t cpu;	/* window: index into the cpus, or -1 */
			uint32_t window; /* window: its index in the table */
			uint8_t what;	/* enum tdatfs_text_view_kind */
		} view;
		struct {
			uint32_t window;	/* index in the window table */
			uint32_t slot;		/* which node of its block */
		} win;
		struct {
			uint32_t buffer;	/* the instance's buffer */
			uint32_t root;		/* the root's events/SYSTEM/
						 * or SYSTEM/EVENT/ node */
		} mirror;
	} u;
};

/* A text rendered when first asked for, kept once made. */
struct tree_lazy {
	bool done;
	char *text;
	size_t len;
};

struct tree_kind_ops {
	bool is_dir;
	bool is_text;
	bool has_kids;		/* the node holds u.dir (kids it owns) */
	enum tree_check_mode check;
	/* 1 shown, 0 hidden, or a negative errno; NULL: always shown */
	int (*shown)(const struct tdatfs_tree *t, const struct tree_node *n);
	/* the child named @len bytes of @name (shown or not); dirs only */
	int (*child)(const struct tdatfs_tree *t, const struct tree_node *n,
		     const char *name, size_t len, uint64_t *ino);
	/* subdirectories, for nlink; NULL: u.dir.ndirs */
	uint32_t (*subdirs)(const struct tdatfs_tree *t,
			    const struct tree_node *n);
	/* size for stat; 0 with success when not known yet */
	int (*size)(struct tdatfs_tree *t, const struct tree_node *n,
		    uint64_t *size);
	bool (*size_known)(struct tdatfs_tree *t, const struct tree_node *n);
	ssize_t (*read)(struct tdatfs_tree *t, const struct tree_node *n,
			void *buf, size_t len, uint64_t off);
	int (*list)(const struct tdatfs_tree *t, const struct tree_node *n,
		    tdatfs_tree_filler fill, void *ctx);
	/* a text rendered when first asked for: where it is kept, and how
	 * it is made (NULL with errno set on failure) */
	struct tree_lazy *(*lazy)(struct tdatfs_tree *t,
				  const struct tree_node *n);
	char *(*render)(struct tdatfs_tree *t, const struct tree_node *n,
			size_t *len);
};

struct tdatfs_tree {
	struct tdat_file *f;
	struct tdatfs_text *text;
	struct tree_node *nodes;
	uint32_t n;
	uint32_t cap;
	struct tree_names *names;	/* during the build only */
	uint32_t *ev_dir;	/* during the build: events/SYSTEM/EVENT/ of
				 * each event format (index), 0 for none */
	struct timespec time;
	uid_t uid;
	gid_t gid;

	/* the texts rendered when first asked for: @index, and those of
	 * @bufs */
	pthread_mutex_t lazy_lock;
	/* sections/index: a buffer's size needs its chunk tables, which a
	 * mount does not read */
	struct tree_lazy index;

	/* per buffer (tdat_buffer_get() order), for the views */
	struct tree_buf *bufs;
	size_t nbufs;
	struct tree_windows *win;	/* the window table */
	uint32_t win_slots;		/* inodes of one window's block */
	uint64_t win_first;		/* the first window's first inode */

	/* what the instances' events/ mirror: the root's events/ and the
	 * nodes its build added (its systems, their events and files) */
	uint32_t events;
	uint32_t ev_lo, ev_hi;
};

/* What the views of one buffer need. */
struct tree_buf {
	bool text;		/* a buffer with decoded text (not latency) */
	uint32_t ncpus;		/* CPUs of its per_cpu/, in name order: */
	const char **cpu_name;	/* their names there ("cpu3"), */
	uint32_t *cpu;		/* their index into the buffer's cpus */
	struct tree_lazy summary;	/* events/summary.tsv */
	struct tree_lazy readme;	/* time/README */
	uint32_t per_cpu;	/* index of its per_cpu/ (during the build) */
	uint32_t events;	/* an instance's events/ (TREE_IEVENTS), or 0 */
};

/* u.view.window of a timeline of the whole buffer (not a window's). */
#define TREE_WHOLE	UINT32_MAX
/* The inodes of one window: its directory, per_cpu/, trace, then a
 * cpuN directory and its trace for each CPU (of the buffer with most),
 * then its timeline.svg and trace.pftrace (TREE_WIN_PIC() and
 * TREE_WIN_PF() of its own buffer's CPUs). */
#define TREE_WIN_SLOTS(ncpus)	(5 + 2 * (uint64_t)(ncpus))
#define TREE_WIN_PIC(ncpus)	(3 + 2 * (uint64_t)(ncpus))
#define TREE_WIN_PF(ncpus)	(4 + 2 * (uint64_t)(ncpus))
/* Windows a tree makes at most; past that a new name is ENOSPC. */
#define TREE_WIN_MAX		65536
/* The inodes of a root node mirrored in an instance's events/: the
 * directory, then its trace and fields.tsv (for an EVENT directory). */
#define TREE_MIRROR_SLOTS	3

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

/* The build's names (tree/names.c); documented there. */
size_t tree_name_hash(uint32_t parent, const char *name, size_t len);
char *tree_name_clean(const char *name);
char *tree_name_unique(struct tdatfs_tree *t, uint32_t parent,
		       const char *name, const char *const *own);
bool tree_name_is_own(const char *const *own, const char *name);
long tree_name_find(const struct tdatfs_tree *t, uint32_t parent,
		    const char *name);
long tree_kid_find(const struct tdatfs_tree *t, const struct tree_node *p,
		   const char *name, size_t len);
int tree_names_grow(struct tdatfs_tree *t);
void tree_names_add(struct tdatfs_tree *t, uint32_t idx);
void tree_names_free(struct tdatfs_tree *t);

/* The view kinds (tree/views.c); documented there. */
ssize_t tree_read_mem(const char *data, uint64_t size, void *buf, size_t len,
		      uint64_t off);
int tree_event_shown(const struct tdatfs_tree *t, size_t buffer, int id);
int tree_view_shown(const struct tdatfs_tree *t, const struct tree_node *n);
int tree_view_size(struct tdatfs_tree *t, const struct tree_node *n,
		   uint64_t *size);
ssize_t tree_view_read(struct tdatfs_tree *t, const struct tree_node *n,
		       void *buf, size_t len, uint64_t off);
struct tree_lazy *tree_buf_lazy(struct tdatfs_tree *t, const struct tree_node *n);
char *tree_buf_render(struct tdatfs_tree *t, const struct tree_node *n,
		      size_t *len);
void tree_bufs_free(struct tdatfs_tree *t);
uint64_t tree_mirror_inodes(const struct tdatfs_tree *t);
bool tree_mirror_node(const struct tdatfs_tree *t, uint64_t ino,
		      struct tree_node *n);
uint64_t tree_mirror_parent(const struct tdatfs_tree *t, uint64_t ino);
int tree_mirror_find(const struct tdatfs_tree *t, uint32_t buffer,
		     uint32_t dir, const char *name, size_t len, uint64_t *ino);
int tree_mirror_shown(const struct tdatfs_tree *t, const struct tree_node *n);
int tree_mirror_child(const struct tdatfs_tree *t, const struct tree_node *n,
		      const char *name, size_t len, uint64_t *ino);
uint32_t tree_mirror_subdirs(const struct tdatfs_tree *t,
			     const struct tree_node *n);
int tree_mirror_list(const struct tdatfs_tree *t, const struct tree_node *n,
		     tdatfs_tree_filler fill, void *ctx);
int tree_ievents_list(const struct tdatfs_tree *t, const struct tree_node *n,
		      tdatfs_tree_filler fill, void *ctx);

/* The time windows (tree/windows.c); documented there. */
int tree_windows_new(struct tdatfs_tree *t);
void tree_windows_free(struct tdatfs_tree *t);
uint64_t tree_windows_count(const struct tdatfs_tree *t);
int tree_window_find(const struct tdatfs_tree *t, const struct tree_node *dir,
		     uint32_t dir_idx, const char *name, size_t len,
		     uint64_t *ino);
bool tree_window_node(const struct tdatfs_tree *t, uint64_t ino,
		      struct tree_node *n);
uint64_t tree_window_parent(const struct tdatfs_tree *t, uint64_t ino);
uint32_t tree_window_subdirs(const struct tdatfs_tree *t,
			     const struct tree_node *n);
bool tree_window_times(const struct tdatfs_tree *t, uint32_t window,
		       uint64_t *t0, uint64_t *t1);
int tree_window_list(const struct tdatfs_tree *t, const struct tree_node *n,
		     tdatfs_tree_filler fill, void *ctx);
int tree_window_child(const struct tdatfs_tree *t, const struct tree_node *n,
		      const char *name, size_t len, uint64_t *ino);

#endif /* TDATFS_TREE_INTERNAL_H */
