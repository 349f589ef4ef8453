/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs.c - the FUSE daemon: mounts the virtual tree of a trace.dat file
 * read-only through libfuse's low-level API.  The only file that includes
 * a FUSE header; each request is answered by the tree (tdatfs-tree.h).
 *
 * Invariants of the adapter:
 *  - FUSE inode numbers are the tree's inode numbers (TDATFS_TREE_ROOT is
 *    FUSE_ROOT_ID); the tree never changes, so lookups need no counting
 *    and forget is a no-op.
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
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "tdat-config.h"
#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"

_Static_assert(TDATFS_TREE_ROOT == FUSE_ROOT_ID, "tree root is FUSE's root");

/* The tree never changes: names and exact attributes stay valid. */
#define TFS_TIMEOUT		86400.0
/* Largest read the kernel sends with libfuse's default buffers. */
#define TFS_IO_SIZE		(1024 * 1024)
/*
 * Bytes waiting for the storer thread, at most: counted in the daemon's
 * peak memory (SPEC 5), and a dropped store only costs a later read.
 */
#define TFS_STORE_MAX		(4u << 20)
/*
 * Request threads when -o max_threads is not given (libfuse's default is
 * 10): each holds a read buffer of TFS_IO_SIZE and libfuse's own buffer of
 * the same size, and the machines this runs on seldom have more cores.
 */
#define TFS_MAX_THREADS		4

/* fi->fh of an open file: opened with direct_io; its replies are stored. */
#define TFS_FH_DIRECT		1u
#define TFS_FH_STORE		2u

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
	uint64_t count;		/* nodes in the tree */
	_Atomic uint32_t *parent; /* parent of each directory seen, for ".." */
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

static struct tfs *tfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/*
 * One read buffer per request thread, kept between requests: a fresh
 * megabyte per request would be mapped and faulted in every time (and,
 * under AddressSanitizer, pile up in its quarantine).
 */
static pthread_key_t read_buf_key;

struct read_buf {
	size_t size;
	char data[];
};

static void read_buf_free(void *p)
{
	free(p);
}

static char *read_buf_get(size_t size)
{
	struct read_buf *b = pthread_getspecific(read_buf_key);

	if (b && b->size >= size)
		return b->data;
	free(b);
	pthread_setspecific(read_buf_key, NULL);
	b = malloc(sizeof(*b) + (size ? size : 1));
	if (!b)
		return NULL;
	b->size = size;
	if (pthread_setspecific(read_buf_key, b)) {
		free(b);
		return NULL;
	}
	return b->data;
}

/* ---- the storer thread ---------------------------------------------------- */

static void *storer_main(void *arg)
{
	struct tfs *fs = arg;

	pthread_mutex_lock(&fs->lock);
	for (;;) {
		struct tfs_store *s;

		while (!fs->head && !fs->stop)
			pthread_cond_wait(&fs->cond, &fs->lock);
		if (fs->stop)
			break;
		s = fs->head;
		fs->head = s->next;
		if (!fs->head)
			fs->tail = NULL;
		pthread_mutex_unlock(&fs->lock);

		if (!atomic_load(&fs->store_off)) {
			struct fuse_bufvec bv = FUSE_BUFVEC_INIT(s->len);
			int ret;

			bv.buf[0].mem = s->data;
			ret = fuse_lowlevel_notify_store(fs->se, s->ino,
							 s->off, &bv, 0);
			/*
			 * -ENOENT: the kernel has already forgotten the inode,
			 * nothing to keep.  No kernel support or no connection:
			 * give up storing for good.
			 */
			if (ret == -ENOSYS || ret == -ENODEV || ret == -EBADF)
				atomic_store(&fs->store_off, true);
		}
		pthread_mutex_lock(&fs->lock);
		fs->pending -= s->len;
		free(s);
	}
	pthread_mutex_unlock(&fs->lock);
	return NULL;
}

/*
 * Queue a copy of the whole pages of @buf (@len bytes of @ino at @off, just
 * sent to a direct_io reader) for the storer.  @eof: the text ends at
 * @off + @len, so its last partial page can be stored too.
 */
static void store_later(struct tfs *fs, fuse_ino_t ino, const char *buf,
			uint64_t off, size_t len, bool eof)
{
	uint64_t ps = fs->page_size;
	uint64_t start = (off + ps - 1) / ps * ps;
	uint64_t end = eof ? off + len : (off + len) / ps * ps;
	struct tfs_store *s;

	if (!fs->thread_running || atomic_load(&fs->store_off) ||
	    start >= end)
		return;
	/* Reserve first: a full queue costs no copy. */
	pthread_mutex_lock(&fs->lock);
	if (fs->stop || fs->pending + (end - start) > TFS_STORE_MAX) {
		pthread_mutex_unlock(&fs->lock);
		return;
	}
	fs->pending += end - start;
	pthread_mutex_unlock(&fs->lock);

	s = malloc(sizeof(*s) + (end - start));
	if (!s) {
		pthread_mutex_lock(&fs->lock);
		fs->pending -= end - start;
		pthread_mutex_unlock(&fs->lock);
		return;
	}
	s->next = NULL;
	s->ino = ino;
	s->off = start;
	s->len = end - start;
	memcpy(s->data, buf + (start - off), s->len);

	pthread_mutex_lock(&fs->lock);
	if (fs->stop) {
		fs->pending -= s->len;
		pthread_mutex_unlock(&fs->lock);
		free(s);
		return;
	}
	if (fs->tail)
		fs->tail->next = s;
	else
		fs->head = s;
	fs->tail = s;
	pthread_cond_signal(&fs->cond);
	pthread_mutex_unlock(&fs->lock);
}

static int storer_start(struct tfs *fs)
{
	int ret = pthread_create(&fs->thread, NULL, storer_main, fs);

	if (ret)
		return -ret;
	fs->thread_running = true;
	return 0;
}

/*
 * Stop the storer and free what it had not stored.  A store can wait on a
 * page locked by a read that no thread answers any more (the loop ended on
 * a signal while the file system is still mounted): give it a few seconds,
 * then leave it.  Return: true when the thread is gone.
 */
static bool storer_stop(struct tfs *fs)
{
	struct timespec deadline;
	struct tfs_store *s;
	bool gone = true;

	pthread_mutex_lock(&fs->lock);
	fs->stop = true;
	pthread_cond_broadcast(&fs->cond);
	while ((s = fs->head)) {
		fs->head = s->next;
		fs->pending -= s->len;
		free(s);
	}
	fs->tail = NULL;
	pthread_mutex_unlock(&fs->lock);

	if (fs->thread_running) {
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += 5;
		if (pthread_timedjoin_np(fs->thread, NULL, &deadline)) {
			fprintf(stderr, "tdatfs: a page cache store does not "
				"end; leaving it\n");
			gone = false;
		}
		fs->thread_running = false;
	}
	return gone;
}

/* ---- attributes and names ------------------------------------------------- */

/* Attributes of @ino and how long the kernel may keep them. */
static int tfs_stat(struct tfs *fs, fuse_ino_t ino, struct stat *st,
		    double *timeout)
{
	/* Asked before the size: a size learnt in between only costs a getattr. */
	bool exact = tdatfs_tree_size_known(fs->tree, ino);
	int ret;

	memset(st, 0, sizeof(*st));
	ret = tdatfs_tree_stat(fs->tree, ino, st);
	if (ret)
		return ret;
	/* Tools read st_blksize at a time: as much as one request carries. */
	st->st_blksize = TFS_IO_SIZE;
	*timeout = exact ? TFS_TIMEOUT : 0.0;
	return 0;
}

static void note_parent(struct tfs *fs, fuse_ino_t parent, fuse_ino_t ino)
{
	if (ino < fs->count + TDATFS_TREE_ROOT && ino >= TDATFS_TREE_ROOT &&
	    tdatfs_tree_is_dir(fs->tree, ino))
		atomic_store_explicit(&fs->parent[ino - TDATFS_TREE_ROOT],
				      (uint32_t)parent, memory_order_relaxed);
}

static int tfs_entry(struct tfs *fs, fuse_ino_t parent, fuse_ino_t ino,
		     struct fuse_entry_param *e)
{
	int ret;

	memset(e, 0, sizeof(*e));
	ret = tfs_stat(fs, ino, &e->attr, &e->attr_timeout);
	if (ret)
		return ret;
	e->ino = ino;
	e->generation = 1;
	e->entry_timeout = TFS_TIMEOUT;
	note_parent(fs, parent, ino);
	return 0;
}

static void tfs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* Let the kernel read ahead in large steps: data comes in chunks. */
	conn->max_readahead = TFS_IO_SIZE;
	/*
	 * The data never changes: a size that grows (a text becoming exact)
	 * must not make the kernel drop the pages stored for it.
	 */
	if (conn->capable & FUSE_CAP_EXPLICIT_INVAL_DATA)
		conn->want |= FUSE_CAP_EXPLICIT_INVAL_DATA;
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

static void tfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct tfs *fs = tfs_of(req);
	struct fuse_entry_param e;
	uint64_t ino;
	int ret;

	ret = tdatfs_tree_child(fs->tree, parent, name, &ino);
	if (ret == -ENOENT) {
		/* A name missing now is missing for good: cache that too. */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = TFS_TIMEOUT;
		fuse_reply_entry(req, &e);
		return;
	}
	if (!ret)
		ret = tfs_entry(fs, parent, ino, &e);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_entry(req, &e);
}

/* Inodes live as long as the tree: nothing to count. */
static void tfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	(void)ino;
	(void)nlookup;
	fuse_reply_none(req);
}

static void tfs_forget_multi(fuse_req_t req, size_t count,
			     struct fuse_forget_data *forgets)
{
	(void)count;
	(void)forgets;
	fuse_reply_none(req);
}

static void tfs_getattr(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi)
{
	struct stat st;
	double timeout;
	int ret;

	(void)fi;
	ret = tfs_stat(tfs_of(req), ino, &st, &timeout);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, timeout);
}

/* ---- directories ------------------------------------------------------------ */

struct dir_ctx {
	struct tfs *fs;
	fuse_req_t req;
	fuse_ino_t dir;
	bool plus;
	char *buf;
	size_t size;
	size_t used;
	off_t skip;		/* entries before the one asked for */
	off_t next;		/* offset of the entry after this one */
	int err;
};

/* One entry: 1 when it does not fit (stop), 0 to go on. */
static int dir_add(struct dir_ctx *c, const char *name, fuse_ino_t ino,
		   bool is_dir)
{
	size_t room = c->size - c->used;
	size_t need;

	c->next++;
	if (c->next <= c->skip)
		return 0;
	if (c->plus) {
		struct fuse_entry_param e;
		int ret;

		/* "." and ".." take no lookup count: plain attributes. */
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			memset(&e, 0, sizeof(e));
			e.attr.st_ino = ino;
			e.attr.st_mode = S_IFDIR | 0555;
		} else {
			ret = tfs_entry(c->fs, c->dir, ino, &e);
			if (ret) {
				c->err = ret;
				return 1;
			}
		}
		need = fuse_add_direntry_plus(c->req, c->buf + c->used, room,
					      name, &e, c->next);
	} else {
		struct stat st;

		memset(&st, 0, sizeof(st));
		st.st_ino = ino;
		st.st_mode = is_dir ? S_IFDIR | 0555 : S_IFREG | 0444;
		need = fuse_add_direntry(c->req, c->buf + c->used, room, name,
					 &st, c->next);
	}
	if (need > room)
		return 1;
	c->used += need;
	return 0;
}

static int dir_fill(void *ctx, const char *name, uint64_t ino, bool is_dir)
{
	return dir_add(ctx, name, ino, is_dir);
}

static void tfs_opendir(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi)
{
	struct tfs *fs = tfs_of(req);

	if (!tdatfs_tree_is_dir(fs->tree, ino)) {
		struct stat st;

		fuse_reply_err(req, tdatfs_tree_stat(fs->tree, ino, &st) ?
			       ENOENT : ENOTDIR);
		return;
	}
	/* The listing never changes: let the kernel keep it. */
	fi->cache_readdir = 1;
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

/* Offsets: "." is 0, ".." 1, child i is i + 2; each entry names the next. */
static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       bool plus)
{
	struct tfs *fs = tfs_of(req);
	struct dir_ctx c = {
		.fs = fs, .req = req, .dir = ino, .plus = plus,
		.size = size, .skip = off,
	};
	fuse_ino_t up = ino;
	int ret;

	if (!tdatfs_tree_is_dir(fs->tree, ino)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (size > TFS_IO_SIZE)
		size = c.size = TFS_IO_SIZE;
	c.buf = read_buf_get(size);
	if (!c.buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (ino != TDATFS_TREE_ROOT) {
		up = atomic_load_explicit(&fs->parent[ino - TDATFS_TREE_ROOT],
					  memory_order_relaxed);
		if (!up)
			up = ino;
	}
	ret = dir_add(&c, ".", ino, true);
	if (!ret)
		ret = dir_add(&c, "..", up, true);
	if (!ret)
		ret = tdatfs_tree_readdir(fs->tree, ino, dir_fill, &c);
	if (ret < 0 || (c.err && !c.used))
		fuse_reply_err(req, ret < 0 ? -ret : -c.err);
	else
		fuse_reply_buf(req, c.buf, c.used);
}

static void tfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	(void)fi;
	do_readdir(req, ino, size, off, false);
}

static void tfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			    off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	do_readdir(req, ino, size, off, true);
}

static void tfs_release(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

/* ---- files -------------------------------------------------------------------- */

/* fi->fh: TFS_FH_* flags; the kernel hands it back with each read. */
static void tfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct tfs *fs = tfs_of(req);
	struct stat st;
	int ret;

	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		fuse_reply_err(req, EROFS);
		return;
	}
	ret = tdatfs_tree_stat(fs->tree, ino, &st);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	if (tdatfs_tree_is_dir(fs->tree, ino)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	/*
	 * A decoded text whose size is not known yet reports size 0: bypass
	 * the page cache so reads go on to the real end, and fill the cache
	 * from the replies (store_later()).  Once the size is exact, reads
	 * are served by the page cache.
	 */
	fi->keep_cache = 1;
	fi->noflush = 1;
	fi->fh = 0;
	if (!tdatfs_tree_size_known(fs->tree, ino)) {
		fi->direct_io = 1;
		fi->fh = TFS_FH_DIRECT;
		/* Only a text's bytes are fixed; the errors file grows. */
		if (tdatfs_tree_is_text(fs->tree, ino))
			fi->fh |= TFS_FH_STORE;
	}
	fuse_reply_open(req, fi);
}

static void tfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct tfs *fs = tfs_of(req);
	size_t done = 0;
	bool eof = false;
	char *buf;

	if (off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (size > TFS_IO_SIZE)
		size = TFS_IO_SIZE;
	buf = read_buf_get(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* FUSE takes a short read for end of file: fill the whole request. */
	while (done < size) {
		ssize_t n = tdatfs_tree_read(fs->tree, ino, buf + done,
					     size - done, (uint64_t)off + done);

		if (n < 0) {
			/*
			 * Through the page cache a short read is taken for end
			 * of file and shrinks the size: fail the whole request
			 * (the kernel retries page by page, so the good pages
			 * before the damage still read).  A direct_io reader
			 * gets the good bytes before the error.
			 */
			if (!done || !(fi->fh & TFS_FH_DIRECT)) {
				fuse_reply_err(req, (int)-n);
				return;
			}
			break;
		}
		if (n == 0) {
			eof = true;
			break;
		}
		done += n;
	}
	fuse_reply_buf(req, buf, done);
	if ((fi->fh & TFS_FH_STORE) && done)
		store_later(fs, ino, buf, off, done, eof);
}

static void tfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;

	(void)ino;
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = TFS_IO_SIZE;
	sv.f_frsize = 4096;
	sv.f_files = tdatfs_tree_count(tfs_of(req)->tree);
	sv.f_namemax = 255;
	sv.f_flag = ST_RDONLY;
	fuse_reply_statfs(req, &sv);
}

/* ---- everything that would change the tree: it is a recorded trace ---- */

static void ro_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	(void)ino; (void)attr; (void)to_set; (void)fi;
	fuse_reply_err(req, EROFS);
}

static void ro_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	(void)parent; (void)name; (void)mode; (void)rdev;
	fuse_reply_err(req, EROFS);
}

static void ro_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	(void)parent; (void)name; (void)mode;
	fuse_reply_err(req, EROFS);
}

static void ro_name(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent; (void)name;
	fuse_reply_err(req, EROFS);
}

static void ro_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	(void)link; (void)parent; (void)name;
	fuse_reply_err(req, EROFS);
}

static void ro_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	(void)parent; (void)name; (void)newparent; (void)newname; (void)flags;
	fuse_reply_err(req, EROFS);
}

static void ro_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		    const char *newname)
{
	(void)ino; (void)newparent; (void)newname;
	fuse_reply_err(req, EROFS);
}

static void ro_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)ino; (void)buf; (void)size; (void)off; (void)fi;
	fuse_reply_err(req, EROFS);
}

static void ro_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	(void)parent; (void)name; (void)mode; (void)fi;
	fuse_reply_err(req, EROFS);
}

static void ro_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	(void)ino; (void)name; (void)value; (void)size; (void)flags;
	fuse_reply_err(req, EROFS);
}

static void ro_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)ino; (void)name;
	fuse_reply_err(req, EROFS);
}

static void ro_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			 off_t len, struct fuse_file_info *fi)
{
	(void)ino; (void)mode; (void)off; (void)len; (void)fi;
	fuse_reply_err(req, EROFS);
}

static const struct fuse_lowlevel_ops tfs_ops = {
	.init		= tfs_init,
	.lookup		= tfs_lookup,
	.forget		= tfs_forget,
	.forget_multi	= tfs_forget_multi,
	.getattr	= tfs_getattr,
	.opendir	= tfs_opendir,
	.readdir	= tfs_readdir,
	.readdirplus	= tfs_readdirplus,
	.releasedir	= tfs_release,
	.open		= tfs_open,
	.read		= tfs_read,
	.release	= tfs_release,
	.statfs		= tfs_statfs,
	.setattr	= ro_setattr,
	.mknod		= ro_mknod,
	.mkdir		= ro_mkdir,
	.unlink		= ro_name,
	.rmdir		= ro_name,
	.symlink	= ro_symlink,
	.rename		= ro_rename,
	.link		= ro_link,
	.write		= ro_write,
	.create		= ro_create,
	.setxattr	= ro_setxattr,
	.removexattr	= ro_removexattr,
	.fallocate	= ro_fallocate,
};

/* ---- command line ------------------------------------------------------- */

struct tfs_opts {
	char *trace;
	char *mountpoint;
	char *cache_size;
	int nonopts;
	bool max_threads;	/* -o max_threads given */
	int tep_only;		/* fuse_opt stores an int, not a bool */
	int eager;
	unsigned int max_checkpoints;
	bool help;
	bool version;
};

enum { KEY_HELP, KEY_VERSION, KEY_MAX_THREADS };

static const struct fuse_opt tfs_opt_spec[] = {
	{ "cache_size=%s", offsetof(struct tfs_opts, cache_size), 0 },
	{ "tep_only", offsetof(struct tfs_opts, tep_only), 1 },
	{ "eager", offsetof(struct tfs_opts, eager), 1 },
	{ "max_checkpoints=%u", offsetof(struct tfs_opts, max_checkpoints), 0 },
	FUSE_OPT_KEY("-h", KEY_HELP),
	FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION),
	FUSE_OPT_KEY("max_threads=", KEY_MAX_THREADS),
	FUSE_OPT_KEY("--version", KEY_VERSION),
	FUSE_OPT_END
};

static int tfs_opt_proc(void *data, const char *arg, int key,
			struct fuse_args *outargs)
{
	struct tfs_opts *o = data;

	(void)outargs;
	switch (key) {
	case KEY_HELP:
		o->help = true;
		return 0;
	case KEY_VERSION:
		o->version = true;
		return 0;
	case KEY_MAX_THREADS:
		o->max_threads = true;
		return 1;	/* for fuse_parse_cmdline() */
	case FUSE_OPT_KEY_NONOPT:
		o->nonopts++;
		if (o->nonopts == 1) {
			o->trace = strdup(arg);
			return o->trace ? 0 : -1;
		}
		if (o->nonopts == 2) {
			o->mountpoint = strdup(arg);
			return o->mountpoint ? 1 : -1;
		}
		return 1;	/* counted and refused below */
	}
	return 1;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [options] TRACE MOUNTPOINT\n"
		"\n"
		"Mount a trace-cmd trace.dat file read-only as plain files.\n"
		"\n"
		"tdatfs options:\n"
		"    -o cache_size=SIZE     memory for decompressed data\n"
		"                           (suffix K, M or G; default 64M)\n"
		"    -h, --help             this help\n"
		"    -V, --version          versions\n"
		"\n"
		"debugging options (the text stays the same):\n"
		"    -o tep_only            every event through libtraceevent\n"
		"    -o eager               parse every event format up front\n"
		"    -o max_checkpoints=N   at most N checkpoints a text (N >= 2)\n"
		"\n"
		"Exit status: 0 after a normal unmount, 1 for a trace that cannot\n"
		"be used or a mount that fails, 2 for a usage error.\n"
		"\n", prog);
}

/* "64M" and friends; 0 for a bad size. */
static uint64_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return 0;
	switch (*end) {
	case 'k': case 'K':
		v = v > UINT64_MAX >> 10 ? 0 : v << 10;
		end++;
		break;
	case 'm': case 'M':
		v = v > UINT64_MAX >> 20 ? 0 : v << 20;
		end++;
		break;
	case 'g': case 'G':
		v = v > UINT64_MAX >> 30 ? 0 : v << 30;
		end++;
		break;
	}
	if (*end == 'i' || *end == 'B' || *end == 'b')
		end += (*end == 'i' && (end[1] == 'B' || end[1] == 'b')) ? 2 : 1;
	return *end ? 0 : v;
}

static int run_loop(struct fuse_session *se, const struct fuse_cmdline_opts *co,
		    bool max_threads_given)
{
	struct fuse_loop_config *cfg;
	int ret;

	if (co->singlethread)
		return fuse_session_loop(se);
	cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(cfg, co->clone_fd);
	/* UINT_MAX: not given on the command line; keep libfuse's default. */
	if (co->max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(cfg, co->max_idle_threads);
	/* fuse_parse_cmdline() cannot tell its default from a given 10. */
	fuse_loop_cfg_set_max_threads(cfg, max_threads_given ?
				      co->max_threads : TFS_MAX_THREADS);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

/*
 * Mount, go to the background once the mount is ready, serve until
 * unmounted.  Return: the exit status.
 */
static int serve(struct fuse_args *args, struct tfs *fs, bool max_threads)
{
	struct fuse_cmdline_opts co = { 0 };
	struct fuse_session *se;
	bool gone = true;
	int ret = 1;

	if (fuse_parse_cmdline(args, &co))
		return 2;
	if (!co.mountpoint) {
		fprintf(stderr, "tdatfs: no mount point\n");
		return 2;
	}
	se = fuse_session_new(args, &tfs_ops, sizeof(tfs_ops), fs);
	if (!se)
		goto out;
	fs->se = se;
	if (fuse_session_mount(se, co.mountpoint))
		goto out_destroy;
	if (fuse_set_signal_handlers(se))
		goto out_unmount;
	if (fuse_daemonize(co.foreground))
		goto out_signals;
	/* After fuse_daemonize(): threads do not survive its fork. */
	if (storer_start(fs))
		fprintf(stderr, "tdatfs: no page cache storer thread: %s\n",
			strerror(errno));
	ret = run_loop(se, &co, max_threads) ? 1 : 0;
	gone = storer_stop(fs);
out_signals:
	fuse_remove_signal_handlers(se);
out_unmount:
	fuse_session_unmount(se);
	/*
	 * A storer still inside the kernel uses the session and @fs: end the
	 * process here rather than free them under it.
	 */
	if (!gone)
		_exit(ret);
out_destroy:
	fuse_session_destroy(se);
	fs->se = NULL;
out:
	free(co.mountpoint);
	return ret;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct tdat_open_opts topts = { 0 };
	struct tfs_opts o = { 0 };
	struct tdatfs_text_opts text_opts = { 0 };
	struct tfs fs = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	struct tdat_file *f = NULL;
	char err[512] = "";
	struct stat st;
	long ps;
	int ret = 2;

	/*
	 * Chunks and read buffers are a megabyte or so each.  With glibc's
	 * sliding threshold, the first one freed moves such blocks onto the
	 * per-thread heaps, which keep what was freed: ~20 MiB more peak
	 * RSS on big.dat.  Fix the threshold so they are mapped and unmapped.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	if (fuse_opt_parse(&args, &o, tfs_opt_spec, tfs_opt_proc) == -1)
		goto out;
	errno = pthread_key_create(&read_buf_key, read_buf_free);
	if (errno) {
		perror("tdatfs");
		ret = 1;
		goto out;
	}
	if (o.help) {
		usage(stdout, argv[0]);
		printf("FUSE options:\n");
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = 0;
		goto out;
	}
	if (o.version) {
		printf("tdatfs version %s\n", TDAT_VERSION);
		printf("FUSE library version %s\n", fuse_pkgversion());
		ret = 0;
		goto out;
	}
	if (o.nonopts != 2) {
		fprintf(stderr, "%s: need exactly TRACE and MOUNTPOINT "
			"(see %s --help)\n", "tdatfs", argv[0]);
		goto out;
	}
	if (o.cache_size) {
		topts.cache_size = parse_size(o.cache_size);
		if (!topts.cache_size) {
			fprintf(stderr, "tdatfs: bad cache_size '%s' "
				"(want a number with K, M or G)\n",
				o.cache_size);
			goto out;
		}
	}
	ret = 1;
	f = tdat_open(o.trace, &topts, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "tdatfs: %s: %s\n", o.trace,
			*err ? err : strerror(errno));
		goto out;
	}
	if (stat(o.trace, &st)) {
		fprintf(stderr, "tdatfs: %s: %s\n", o.trace, strerror(errno));
		goto out;
	}
	text_opts.tep_only = o.tep_only;
	text_opts.eager = o.eager;
	text_opts.max_checkpoints = o.max_checkpoints;
	fs.tree = tdatfs_tree_new(f, &st, &text_opts);
	if (!fs.tree) {
		fprintf(stderr, "tdatfs: %s: cannot build the tree: %s\n",
			o.trace, strerror(errno));
		goto out;
	}
	fs.count = tdatfs_tree_count(fs.tree);
	fs.parent = calloc(fs.count ? fs.count : 1, sizeof(*fs.parent));
	if (!fs.parent) {
		fprintf(stderr, "tdatfs: %s\n", strerror(ENOMEM));
		goto out;
	}
	ps = sysconf(_SC_PAGESIZE);
	fs.page_size = ps > 0 ? (size_t)ps : 4096;
	{
		struct stat mst;

		if (stat(o.mountpoint, &mst)) {
			fprintf(stderr, "tdatfs: mount point %s: %s\n",
				o.mountpoint, strerror(errno));
			goto out;
		}
		if (!S_ISDIR(mst.st_mode)) {
			fprintf(stderr, "tdatfs: mount point %s: %s\n",
				o.mountpoint, strerror(ENOTDIR));
			goto out;
		}
	}
	if (fuse_opt_add_arg(&args, "-oro,default_permissions,"
			     "fsname=tdatfs,subtype=tdatfs") == -1) {
		fprintf(stderr, "tdatfs: %s\n", strerror(ENOMEM));
		goto out;
	}
	ret = serve(&args, &fs, o.max_threads);
	/* With -s the requests were served on this thread: no destructor. */
	read_buf_free(pthread_getspecific(read_buf_key));
	pthread_setspecific(read_buf_key, NULL);
out:
	free((void *)fs.parent);
	tdatfs_tree_free(fs.tree);
	tdat_close(f);
	fuse_opt_free_args(&args);
	free(o.trace);
	free(o.mountpoint);
	free(o.cache_size);
	return ret;
}
