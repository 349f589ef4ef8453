/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-tree.h - the virtual file tree of a trace.dat file, shared by the
 * FUSE daemon (tdatfs) and the command-line tool (tdat).
 *
 * Invariants of this module:
 *  - The tree is built once, by tdatfs_tree_new(), from the tables of an
 *    open struct tdat_file: nothing is decompressed and no trace data is
 *    read at build time.  After that the set of static nodes never
 *    changes; the only nodes added later are those of the time windows
 *    (time/T0-T1/ and what it holds), made when a window's name is first
 *    looked up and kept for the life of the tree (at most 65536 windows;
 *    a new name past that is ENOSPC).
 *  - Some static nodes are hidden until trace data says otherwise: an
 *    event's views (events/SYSTEM/EVENT/trace and fields.tsv) exist only
 *    for an event with records in their buffer, and an instance's
 *    events/SYSTEM/ and events/SYSTEM/EVENT/ directories only when they
 *    hold such a view.  Whether they are is asked of the text engine's
 *    event stats at lookup, readdir and stat time (the index has them at
 *    mount; without one the first such call produces the buffer's text);
 *    a hidden node is left out of readdir and is ENOENT to lookup, stat
 *    and read.
 *  - Every node has an inode number (ino), stable for the life of the tree;
 *    the root is TDATFS_TREE_ROOT, the static nodes' inode numbers are
 *    dense from it (tdatfs_tree_count()), and each window gets a block of
 *    numbers above them; the same window name in the same time/ always
 *    gives the same inode.
 *  - Children of a directory are kept sorted by name (strcmp order) and
 *    names are unique within a directory; lookups are binary searches.
 *  - Small generated texts (README, info, event ids, rendered options,
 *    sections/index) live in memory; every other file is read through the
 *    parser (or the text engine) at the offset asked for.
 *  - Every file is 0444 and every directory 0555, owned by the user who
 *    built the tree, with the trace file's mtime as atime, mtime and ctime.
 *  - The root "errors" file is the parser's damage registry rendered at
 *    each read (one line per damaged range found so far, tdat.h); it only
 *    grows, so its size is never "known".  The marker lines the text
 *    engine writes for damaged data are output only: the damage they name
 *    is in the registry (put there by the parser or the text engine).
 *  - All functions may be called from several threads at once once the
 *    tree is built: the static nodes are immutable, the window table and
 *    the views' lazy texts lock, the parser and the text engine lock
 *    internally.
 */
#ifndef TDATFS_TREE_H
#define TDATFS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

struct tdat_file;
struct tdatfs_text_opts;
struct tdatfs_text;
struct tdatfs_tree;

/* Inode number of the root directory (as FUSE expects). */
#define TDATFS_TREE_ROOT	1

/**
 * tdatfs_tree_new() - build the virtual tree of an open trace
 * @f: the trace; must stay open until tdatfs_tree_free() returns
 * @trace_st: stat of the trace file (its mtime becomes the tree's times),
 *	or NULL to use the current time
 * @text_opts: switches for its text engine (tdatfs-text.h), or NULL for
 *	the defaults
 *
 * The tree owns a text engine (tdatfs-text.h) for the decoded text files;
 * the caller keeps ownership of @f.
 *
 * Return: a new tree (free with tdatfs_tree_free()), or NULL with errno set.
 */
struct tdatfs_tree *tdatfs_tree_new(struct tdat_file *f,
				    const struct stat *trace_st,
				    const struct tdatfs_text_opts *text_opts);

/**
 * tdatfs_tree_free() - free a tree and its text engine (not the trace)
 * @t: tree, or NULL
 */
void tdatfs_tree_free(struct tdatfs_tree *t);

/**
 * tdatfs_tree_text() - the tree's text engine
 * @t: tree
 *
 * For the front ends, to give it its index (tdatfs-index.h) before the
 * tree serves reads.
 *
 * Return: the engine, owned by the tree.
 */
struct tdatfs_text *tdatfs_tree_text(struct tdatfs_tree *t);

/**
 * tdatfs_tree_lookup() - find a node by path
 * @t: tree
 * @path: absolute or relative path; empty components, "." and ".." are
 *	handled like a file system would
 * @ino: set to the node found
 *
 * Return: 0, -ENOENT when a component does not exist, -ENOTDIR when a
 * component before the last is a file, or an error of
 * tdatfs_tree_child().
 */
int tdatfs_tree_lookup(const struct tdatfs_tree *t, const char *path,
		       uint64_t *ino);

/**
 * tdatfs_tree_child() - find one child of a directory
 * @t: tree
 * @parent: inode of the directory
 * @name: child name (one component)
 * @ino: set to the child found
 *
 * In a time/ directory, a name T0-T1 that tdatfs_text_time_parse() takes
 * (T0 up to the '-', T1 to the end, T1 > T0) is a window, made when new.
 *
 * Return: 0, -ENOENT (also for a hidden child or a malformed window
 * name), -ENOTDIR when @parent is not a directory, -ENOSPC when a new
 * window would pass the limit, or another negative errno of the text
 * engine (whether a child is hidden comes from its event stats).
 */
int tdatfs_tree_child(const struct tdatfs_tree *t, uint64_t parent,
		      const char *name, uint64_t *ino);

/**
 * tdatfs_tree_parent() - the directory holding a node
 * @t: tree
 * @ino: node (the root is its own parent)
 *
 * Return: the parent's inode, or 0 for a bad inode.
 */
uint64_t tdatfs_tree_parent(const struct tdatfs_tree *t, uint64_t ino);

/**
 * tdatfs_tree_stat() - attributes of a node
 * @t: tree
 * @ino: node
 * @st: filled in (mode, nlink, uid, gid, size, blocks, times, ino)
 *
 * The size of a decoded text file is 0 until its text has been produced to
 * its end (see tdatfs_tree_size_known()), then exact.  A view (an event's
 * trace or fields.tsv, a window's traces) and summary.tsv are exact at
 * the first stat: it computes them.
 *
 * Return: 0, -ENOENT for a bad inode or a hidden node, -EIO when a size
 * cannot be read, or another negative errno of the text engine.
 */
int tdatfs_tree_stat(struct tdatfs_tree *t, uint64_t ino, struct stat *st);

/**
 * tdatfs_tree_size_known() - whether tdatfs_tree_stat() reports the exact size
 * @t: tree
 * @ino: node
 *
 * Decoded text files answer false until their text has been produced
 * once, the errors file always; readers must then read until a read
 * returns 0 (FUSE: open with direct_io).
 *
 * Return: true when the size reported is exact.
 */
bool tdatfs_tree_size_known(struct tdatfs_tree *t, uint64_t ino);

/**
 * tdatfs_tree_is_text() - whether a node is a decoded text file
 * @t: tree
 * @ino: node
 *
 * The bytes of a decoded text at an offset never change once produced
 * (unlike the errors file, which grows).
 *
 * Return: true for a decoded text file, false otherwise or for a bad inode.
 */
bool tdatfs_tree_is_text(const struct tdatfs_tree *t, uint64_t ino);

/**
 * tdatfs_tree_stat_costly() - whether a stat of a node may do real work
 * @t: tree
 * @ino: node
 *
 * A view's exact size (an event's trace or fields.tsv, a window's text, a
 * timeline.svg) may be learnt by a pass over records the first time it is
 * asked: a listing that hands out attributes unasked (FUSE readdirplus)
 * should leave such nodes to their own lookup, so that `ls` stays cheap
 * and `ls -l` pays only for what it shows.
 *
 * Return: true for such a node, false otherwise or for a bad inode.
 */
bool tdatfs_tree_stat_costly(const struct tdatfs_tree *t, uint64_t ino);

/**
 * tdatfs_tree_is_dir() - whether a node is a directory
 * @t: tree
 * @ino: node
 *
 * Return: true for a directory, false for a file or a bad inode.
 */
bool tdatfs_tree_is_dir(const struct tdatfs_tree *t, uint64_t ino);

/**
 * typedef tdatfs_tree_filler - readdir callback
 * @ctx: the caller's context
 * @name: entry name (valid until the tree is freed)
 * @ino: entry inode
 * @is_dir: whether the entry is a directory
 *
 * Return: 0 to go on, non-zero to stop the listing.
 */
typedef int (*tdatfs_tree_filler)(void *ctx, const char *name, uint64_t ino,
				  bool is_dir);

/**
 * tdatfs_tree_readdir() - list a directory, sorted by name
 * @t: tree
 * @ino: directory
 * @fill: called once per child, without "." and ".."
 * @ctx: passed to @fill
 *
 * Hidden children are left out, and so is a child whose being shown
 * cannot be known now (the event stats fail); a time/ directory lists
 * only its README, never a window.
 *
 * Return: 0 when all entries were given, the non-zero value @fill returned
 * when it stopped, -ENOENT for a bad inode or a hidden directory,
 * -ENOTDIR for a file.
 */
int tdatfs_tree_readdir(const struct tdatfs_tree *t, uint64_t ino,
			tdatfs_tree_filler fill, void *ctx);

/**
 * tdatfs_tree_read() - read a file at an offset
 * @t: tree
 * @ino: file
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the file
 *
 * Return: bytes read (short only at end of file, 0 at end), -EISDIR for a
 * directory, -ENOENT for a bad inode, -EIO for damaged data, or another
 * negative errno from the parser or the text engine.
 */
ssize_t tdatfs_tree_read(struct tdatfs_tree *t, uint64_t ino, void *buf,
			 size_t len, uint64_t off);

/**
 * tdatfs_tree_count() - number of nodes
 * @t: tree
 *
 * Return: the number of static nodes; their inodes run from
 * TDATFS_TREE_ROOT to TDATFS_TREE_ROOT + count - 1.  The inodes of time
 * windows come after them.
 */
uint64_t tdatfs_tree_count(const struct tdatfs_tree *t);

/**
 * struct tdatfs_check_opts - how tdatfs_tree_check() reads and reports
 * @out: where each problem is printed, one line each; NULL: not printed
 * @chunk: returns the size of the next read (at most 1 MiB; 0 or more
 *	reads 1 MiB); NULL: always 1 MiB
 * @ctx: passed to @chunk
 * @file_max: bytes read of any one file or stream at most; 0: no bound
 * @total_max: bytes read in all at most (checked before each read); 0: no
 *	bound
 * @progress: called after each read of the tree's files with the work
 *	done so far out of a total, both in bytes of trace data (a text
 *	counts the pages it decodes, estimated while it is read); not
 *	called while the CPU streams are read first; NULL: not called
 * @progress_clear: called before each problem is printed to @out, so
 *	that a progress line drawn in place can make room; NULL: not called
 * @progress_ctx: passed to @progress and @progress_clear
 *
 * `tdat check` gives @out and @progress; the fuzz target bounds the work
 * and varies the read sizes.
 */
struct tdatfs_check_opts {
	FILE *out;
	size_t (*chunk)(void *ctx);
	void *ctx;
	uint64_t file_max;
	uint64_t total_max;
	void (*progress)(void *progress_ctx, uint64_t done, uint64_t total);
	void (*progress_clear)(void *progress_ctx);
	void *progress_ctx;
};

/**
 * tdatfs_tree_check() - read everything a trace holds and list the damage
 * @t: tree
 * @opts: how to read and where to report, or NULL (1 MiB reads, no bounds,
 *	nothing printed)
 *
 * Reads every section that is not a buffer's data, every metadata blob and
 * event format, every CPU stream, then every file of the tree in readdir
 * order (the decoded texts to their end; the errors file not, nor the
 * views of SPEC 2.6, cut from the texts read whole: an event's trace and
 * fields.tsv, summary.tsv, time/README; no window is made), and finally
 * lists each entry of the damage registry.  A problem is a stream that
 * cannot be read or ends early, a file whose read fails (raw CPU data
 * skips a damaged page and goes on; files under sections/ were read
 * through the tables already), or a registry entry.
 *
 * Return: the number of problems (0 for a sound trace), or -ENOMEM.
 */
int tdatfs_tree_check(struct tdatfs_tree *t,
		      const struct tdatfs_check_opts *opts);

#endif /* TDATFS_TREE_H */
