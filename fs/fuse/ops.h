/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuse/ops.h - the FUSE operations of the daemon (fuse/ops.c): each
 * request of libfuse's low-level API answered by the tree (tdatfs-tree.h).
 * Only the daemon includes it; the names are prefixed tfs_.
 *
 * Invariants of the adapter:
 *  - FUSE inode numbers are the tree's inode numbers (TDATFS_TREE_ROOT is
 *    FUSE_ROOT_ID), those of time windows included: a node, once looked
 *    up, lives as long as the tree, so lookups need no counting and
 *    forget is a no-op.  A directory's ".." is the tree's parent
 *    (tdatfs_tree_parent()).
 *  - Names and every attribute whose size is exact are cached by the
 *    kernel for TFS_TIMEOUT; a decoded text whose size is not known yet is
 *    given attribute timeout 0 (its size is 0 until produced), is opened
 *    with direct_io, and is re-stated by the kernel at every stat.
 *  - Every open is keep_cache: the bytes at an offset never change, so
 *    the kernel's page cache is never thrown away by an open.
 *  - While a text is read through direct_io, the whole pages of each
 *    reply are pushed into the kernel page cache of its inode
 *    (fuse_lowlevel_notify_store, which also extends i_size) by the
 *    storer thread, never by a request thread: a store waits on locked
 *    pages, and a page can be locked by a buffered read that only a
 *    request thread can answer (with -s there is one).  Only whole pages,
 *    or a tail that ends at the real end of the text, are stored, so no
 *    page is ever marked up to date with bytes missing.  Pending stores
 *    are bounded (TFS_STORE_MAX); beyond that they are dropped, which
 *    only costs a later read through the daemon.
 */
#ifndef TDATFS_FUSE_OPS_H
#define TDATFS_FUSE_OPS_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 312
#endif

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdatfs_tree;

struct tfs_store {
	struct tfs_store *next;
	fuse_ino_t ino;
	uint64_t off;
	size_t len;
	char data[];		/* the bytes to store */
};

struct tfs {
	struct tdatfs_tree *tree;
	struct fuse_session *se;
	size_t page_size;

	pthread_mutex_t lock;	/* protects the store queue below */
	pthread_cond_t cond;
	struct tfs_store *head, *tail;
	size_t pending;		/* bytes queued */
	bool stop;
	bool thread_running;
	pthread_t thread;
	atomic_bool store_off;	/* the kernel refused a store: stop trying */
};

/* The operations; the session's userdata is the struct tfs. */
extern const struct fuse_lowlevel_ops tfs_ops;

int tfs_read_bufs_init(void);

void tfs_read_buf_release(void);

int tfs_storer_start(struct tfs *fs);

bool tfs_storer_stop(struct tfs *fs);

#endif /* TDATFS_FUSE_OPS_H */
