/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs.c - the FUSE daemon: mounts the virtual tree of a trace.dat file
 * read-only.  The only file that includes fuse.h; each callback maps a
 * path to a node and calls the tree (tdatfs-tree.h).
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "tdat-config.h"
#include "tdat.h"
#include "tdatfs-tree.h"

static struct tdatfs_tree *tree_of(void)
{
	return fuse_get_context()->private_data;
}

static void *tfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->use_ino = 1;
	cfg->entry_timeout = 1.0;
	/*
	 * A decoded text file reports size 0 until its text has been produced
	 * once, then its exact size.  The high-level API has one attribute
	 * timeout for all files: with any timeout above 0 the kernel would
	 * keep the stale size 0 and a read of a file opened without direct_io
	 * would end at once.  A getattr costs little next to a read.
	 */
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 1.0;
	/* Let the kernel read ahead in large steps: data comes in chunks. */
	conn->max_readahead = 1024 * 1024;
	return fuse_get_context()->private_data;
}

static int tfs_getattr(const char *path, struct stat *st,
		       struct fuse_file_info *fi)
{
	struct tdatfs_tree *t = tree_of();
	uint64_t ino;
	int ret;

	if (fi && fi->fh)
		return tdatfs_tree_stat(t, fi->fh, st);
	ret = tdatfs_tree_lookup(t, path, &ino);
	if (ret)
		return ret;
	return tdatfs_tree_stat(t, ino, st);
}

struct fill_ctx {
	void *buf;
	fuse_fill_dir_t filler;
};

static int fill_one(void *ctx, const char *name, uint64_t ino, bool is_dir)
{
	struct fill_ctx *c = ctx;
	struct stat st = { 0 };

	st.st_ino = ino;
	st.st_mode = is_dir ? S_IFDIR | 0555 : S_IFREG | 0444;
	return c->filler(c->buf, name, &st, 0, 0) ? 1 : 0;
}

static int tfs_readdir(const char *path, void *buf, fuse_fill_dir_t filler,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	struct tdatfs_tree *t = tree_of();
	struct fill_ctx c = { buf, filler };
	uint64_t ino;
	int ret;

	(void)off;
	(void)fi;
	(void)flags;
	ret = tdatfs_tree_lookup(t, path, &ino);
	if (ret)
		return ret;
	if (!tdatfs_tree_is_dir(t, ino))
		return -ENOTDIR;
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	ret = tdatfs_tree_readdir(t, ino, fill_one, &c);
	return ret < 0 ? ret : 0;
}

static int tfs_open(const char *path, struct fuse_file_info *fi)
{
	struct tdatfs_tree *t = tree_of();
	uint64_t ino;
	int ret;

	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
		return -EROFS;
	ret = tdatfs_tree_lookup(t, path, &ino);
	if (ret)
		return ret;
	if (tdatfs_tree_is_dir(t, ino))
		return -EISDIR;
	fi->fh = ino;
	/*
	 * A decoded text whose size is not known yet reports size 0: bypass
	 * the page cache so reads go on to the real end.  Once the size is
	 * exact, the cached pages stay valid (the trace never changes).
	 */
	if (tdatfs_tree_size_known(t, ino))
		fi->keep_cache = 1;
	else
		fi->direct_io = 1;
	return 0;
}

static int tfs_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct tdatfs_tree *t = tree_of();
	uint64_t ino = fi ? fi->fh : 0;
	size_t done = 0;
	int ret;

	if (!ino) {
		ret = tdatfs_tree_lookup(t, path, &ino);
		if (ret)
			return ret;
	}
	if (off < 0)
		return -EINVAL;
	/* FUSE takes a short read for end of file: fill the whole request. */
	while (done < size) {
		ssize_t n = tdatfs_tree_read(t, ino, buf + done, size - done,
					     (uint64_t)off + done);

		if (n < 0)
			return done ? (int)done : (int)n;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

static int tfs_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = 4096;
	sv->f_frsize = 4096;
	sv->f_files = tdatfs_tree_count(tree_of());
	sv->f_namemax = 255;
	sv->f_flag = ST_RDONLY;
	return 0;
}

/* Everything that would change the tree fails: it is a recorded trace. */
static int ro_write(const char *p, const char *b, size_t s, off_t o,
		    struct fuse_file_info *fi)
{
	(void)p; (void)b; (void)s; (void)o; (void)fi;
	return -EROFS;
}

static int ro_create(const char *p, mode_t m, struct fuse_file_info *fi)
{
	(void)p; (void)m; (void)fi;
	return -EROFS;
}

static int ro_mknod(const char *p, mode_t m, dev_t d)
{
	(void)p; (void)m; (void)d;
	return -EROFS;
}

static int ro_mkdir(const char *p, mode_t m)
{
	(void)p; (void)m;
	return -EROFS;
}

static int ro_path(const char *p)
{
	(void)p;
	return -EROFS;
}

static int ro_rename(const char *a, const char *b, unsigned int flags)
{
	(void)a; (void)b; (void)flags;
	return -EROFS;
}

static int ro_two(const char *a, const char *b)
{
	(void)a; (void)b;
	return -EROFS;
}

static int ro_chmod(const char *p, mode_t m, struct fuse_file_info *fi)
{
	(void)p; (void)m; (void)fi;
	return -EROFS;
}

static int ro_chown(const char *p, uid_t u, gid_t g, struct fuse_file_info *fi)
{
	(void)p; (void)u; (void)g; (void)fi;
	return -EROFS;
}

static int ro_truncate(const char *p, off_t s, struct fuse_file_info *fi)
{
	(void)p; (void)s; (void)fi;
	return -EROFS;
}

static int ro_utimens(const char *p, const struct timespec tv[2],
		      struct fuse_file_info *fi)
{
	(void)p; (void)tv; (void)fi;
	return -EROFS;
}

static int ro_setxattr(const char *p, const char *n, const char *v, size_t s,
		       int flags)
{
	(void)p; (void)n; (void)v; (void)s; (void)flags;
	return -EROFS;
}

static int ro_removexattr(const char *p, const char *n)
{
	(void)p; (void)n;
	return -EROFS;
}

static const struct fuse_operations tfs_ops = {
	.init		= tfs_init,
	.getattr	= tfs_getattr,
	.readdir	= tfs_readdir,
	.open		= tfs_open,
	.read		= tfs_read,
	.statfs		= tfs_statfs,
	.write		= ro_write,
	.create		= ro_create,
	.mknod		= ro_mknod,
	.mkdir		= ro_mkdir,
	.unlink		= ro_path,
	.rmdir		= ro_path,
	.rename		= ro_rename,
	.link		= ro_two,
	.symlink	= ro_two,
	.chmod		= ro_chmod,
	.chown		= ro_chown,
	.truncate	= ro_truncate,
	.utimens	= ro_utimens,
	.setxattr	= ro_setxattr,
	.removexattr	= ro_removexattr,
};

/* ---- command line ------------------------------------------------------- */

struct tfs_opts {
	char *trace;
	char *mountpoint;
	char *cache_size;
	int nonopts;
	bool help;
	bool version;
};

enum { KEY_HELP, KEY_VERSION };

static const struct fuse_opt tfs_opt_spec[] = {
	{ "cache_size=%s", offsetof(struct tfs_opts, cache_size), 0 },
	FUSE_OPT_KEY("-h", KEY_HELP),
	FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION),
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

/*
 * Mount, go to the background once the mount is ready, serve until
 * unmounted.  Spelt out instead of fuse_main() to control the exit status.
 */
static int serve(struct fuse_args *args, struct tdatfs_tree *tree)
{
	struct fuse_cmdline_opts co = { 0 };
	struct fuse_session *se;
	struct fuse *fuse;
	int ret = 1;

	if (fuse_parse_cmdline(args, &co))
		return 2;
	if (!co.mountpoint) {
		fprintf(stderr, "tdatfs: no mount point\n");
		return 2;
	}
	fuse = fuse_new(args, &tfs_ops, sizeof(tfs_ops), tree);
	if (!fuse)
		goto out;
	if (fuse_mount(fuse, co.mountpoint))
		goto out_destroy;
	se = fuse_get_session(fuse);
	if (fuse_set_signal_handlers(se))
		goto out_unmount;
	if (fuse_daemonize(co.foreground))
		goto out_signals;
	if (co.singlethread)
		ret = fuse_loop(fuse) ? 1 : 0;
	else
		ret = fuse_loop_mt(fuse, co.clone_fd) ? 1 : 0;
out_signals:
	fuse_remove_signal_handlers(se);
out_unmount:
	fuse_unmount(fuse);
out_destroy:
	fuse_destroy(fuse);
out:
	free(co.mountpoint);
	return ret;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct tdat_open_opts topts = { 0 };
	struct tfs_opts o = { 0 };
	struct tdatfs_tree *tree = NULL;
	struct tdat_file *f = NULL;
	char err[512] = "";
	struct stat st;
	int ret = 2;

	if (fuse_opt_parse(&args, &o, tfs_opt_spec, tfs_opt_proc) == -1)
		goto out;
	if (o.help) {
		usage(stdout, argv[0]);
		printf("FUSE options:\n");
		fuse_cmdline_help();
		fuse_lib_help(&args);
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
	tree = tdatfs_tree_new(f, &st);
	if (!tree) {
		fprintf(stderr, "tdatfs: %s: cannot build the tree: %s\n",
			o.trace, strerror(errno));
		goto out;
	}
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
	ret = serve(&args, tree);
out:
	tdatfs_tree_free(tree);
	tdat_close(f);
	fuse_opt_free_args(&args);
	free(o.trace);
	free(o.mountpoint);
	free(o.cache_size);
	return ret;
}
