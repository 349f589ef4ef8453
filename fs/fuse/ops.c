/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuse/ops.c - the FUSE operations of the daemon (fuse/ops.h), the
 * page cache storer thread and the request threads' read buffers.  The
 * only file besides fuse/main.c that includes a FUSE header.
 */
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "ops.h"

_Static_assert(TDATFS_TREE_ROOT == FUSE_ROOT_ID, "tree root is FUSE's root");

/* Nodes never change nor go (a window, once made, stays): names and
 * exact attributes stay valid. */
#define TFS_TIMEOUT		86400.0
/* Largest read the kernel sends with libfuse's default buffers. */
#define TFS_IO_SIZE		(1024 * 1024)
/*
 * Bytes waiting for the storer thread, at most: counted in the daemon's
 * peak memory (see fuse/tdatfs.1), and a dropped store only costs a later read.
 */
#define TFS_STORE_MAX		(4u << 20)

/* fi->fh of an open file: opened with direct_io; its replies are stored. */
#define TFS_FH_DIRECT		1u
#define TFS_FH_STORE		2u

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

/**
 * tfs_read_bufs_init() - set up the request threads' read buffers
 *
 * Call once before the session runs.
 *
 * Return: 0 or a positive errno (pthread_key_create()).
 */
int tfs_read_bufs_init(void)
{
	return pthread_key_create(&read_buf_key, read_buf_free);
}

/**
 * tfs_read_buf_release() - free the calling thread's read buffer
 *
 * For the main thread after a single-threaded loop (-s), which served the
 * requests itself and gets no thread-exit destructor.
 */
void tfs_read_buf_release(void)
{
	read_buf_free(pthread_getspecific(read_buf_key));
	pthread_setspecific(read_buf_key, NULL);
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

/**
 * tfs_storer_start() - start the thread that stores replies in the page cache
 * @fs: the daemon, with its session set
 *
 * After fuse_daemonize(): threads do not survive its fork.
 *
 * Return: 0 or a negative errno.
 */
int tfs_storer_start(struct tfs *fs)
{
	sigset_t all, old;
	int ret;

	/*
	 * Signals go to the session's threads: libfuse's handler only sets
	 * the exit flag, which a thread blocked here would leave unseen by
	 * the request threads waiting in read() and the loop waiting for
	 * them, so an unmount by SIGTERM, SIGINT or SIGHUP could hang.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&fs->thread, NULL, storer_main, fs);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	fs->thread_running = true;
	return 0;
}

/**
 * tfs_storer_stop() - stop the storer and free what it had not stored
 * @fs: the daemon
 *
 * A store can wait on a page locked by a read that no thread answers any
 * more (the loop ended on a signal while the file system is still
 * mounted): it is given a few seconds, then left.
 *
 * Return: true when the thread is gone (or never ran).
 */
bool tfs_storer_stop(struct tfs *fs)
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

/* The text engine's cancel hook: the reader of @req has gone. */
static bool req_gone(void *req)
{
	return fuse_req_interrupted(req);
}

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

static int tfs_entry(struct tfs *fs, fuse_ino_t ino,
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
		/*
		 * A name missing now is missing for good: cache that too (a
		 * hidden view stays hidden; an error in knowing it, or a
		 * window refused for room, is another errno, not cached).
		 */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = TFS_TIMEOUT;
		fuse_reply_entry(req, &e);
		return;
	}
	/* a size may be made now (a window's trace, a timeline.svg) */
	tdatfs_text_cancel_set(req_gone, req);
	if (!ret)
		ret = tfs_entry(fs, ino, &e);
	tdatfs_text_cancel_set(NULL, NULL);
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
	tdatfs_text_cancel_set(req_gone, req);
	ret = tfs_stat(tfs_of(req), ino, &st, &timeout);
	tdatfs_text_cancel_set(NULL, NULL);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, timeout);
}

/* ---- directories ------------------------------------------------------------ */

struct dir_ctx {
	struct tfs *fs;
	fuse_req_t req;
	bool plus;
	char *buf;
	size_t size;
	size_t used;
	off_t skip;		/* entries before the one asked for */
	off_t next;		/* offset of the entry after this one */
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

		/*
		 * "." and ".." take no lookup count: plain attributes.  So
		 * does a child whose attributes cannot be had now (a view
		 * whose engine fails): listed with node id 0 (no dentry, no
		 * lookup count), so that one file does not fail the whole
		 * listing; a lookup of it gives the error.  And a child whose
		 * size may take a pass over records (a view): its own lookup
		 * pays for it when a stat asks, not a plain `ls`.
		 */
		if (!strcmp(name, ".") || !strcmp(name, "..") ||
		    tdatfs_tree_stat_costly(c->fs->tree, ino) ||
		    tfs_entry(c->fs, ino, &e)) {
			memset(&e, 0, sizeof(e));
			e.attr.st_ino = ino;
			e.attr.st_mode = is_dir ? S_IFDIR | 0555 : S_IFREG | 0444;
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
		.fs = fs, .req = req, .plus = plus,
		.size = size, .skip = off,
	};
	fuse_ino_t up;
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
	up = tdatfs_tree_parent(fs->tree, ino);
	ret = dir_add(&c, ".", ino, true);
	if (!ret)
		ret = dir_add(&c, "..", up, true);
	if (!ret)
		ret = tdatfs_tree_readdir(fs->tree, ino, dir_fill, &c);
	if (ret < 0)
		fuse_reply_err(req, -ret);
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

/*
 * Fill @buf with @size bytes at @off (fewer at the end of the file, *@eof
 * set), in pieces of what the tree reads at a time.  A request whose
 * reader has gone (a signal: the kernel sends FUSE_INTERRUPT, which
 * libfuse records) stops between pieces, and the text engine stops
 * producing text for it, with -EINTR.
 *
 * Return: the bytes read, or a negative errno and *@done the bytes read
 * before it.
 */
static ssize_t read_pieces(struct tfs *fs, fuse_req_t req, fuse_ino_t ino,
			   char *buf, size_t size, off_t off, size_t *done,
			   bool *eof)
{
	ssize_t n = 0;

	*done = 0;
	*eof = false;
	tdatfs_text_cancel_set(req_gone, req);
	while (*done < size) {
		if (fuse_req_interrupted(req)) {
			n = -EINTR;
			break;
		}
		n = tdatfs_tree_read(fs->tree, ino, buf + *done, size - *done,
				     (uint64_t)off + *done);
		if (n <= 0) {
			*eof = !n;
			break;
		}
		*done += n;
	}
	tdatfs_text_cancel_set(NULL, NULL);
	return n < 0 ? n : (ssize_t)*done;
}

static void tfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct tfs *fs = tfs_of(req);
	size_t done;
	bool eof;
	ssize_t n;
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
	n = read_pieces(fs, req, ino, buf, size, off, &done, &eof);
	/*
	 * Through the page cache a short read is taken for end of file and
	 * shrinks the size: fail the whole request (the kernel retries page
	 * by page, so the good pages before the damage still read).  A
	 * direct_io reader gets the good bytes before the error.
	 */
	if (n < 0 && (!done || !(fi->fh & TFS_FH_DIRECT))) {
		/* -ESTALE: the trace shrank under the mount (tdat_cpu_read()) */
		fuse_reply_err(req, n == -ESTALE ? EIO : (int)-n);
		return;
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

const struct fuse_lowlevel_ops tfs_ops = {
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

