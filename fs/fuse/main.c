/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuse/main.c - the FUSE daemon's start: command line, opening the trace and
 * building its tree, mounting and serving.  The requests are answered by
 * fuse/ops.c.
 */
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tdat-config.h"
#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-index.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "ops.h"

/*
 * Request threads when -o max_threads is not given (libfuse's default is
 * 10): each holds a read buffer of TFS_IO_SIZE and libfuse's own buffer of
 * the same size, and the machines this runs on seldom have more cores.
 */
#define TFS_MAX_THREADS		4

/* -o threads=N: more than this is a typo, not a machine */
#define TFS_INDEX_THREADS_MAX	1024

/* ---- command line ------------------------------------------------------- */

struct tfs_opts {
	char *trace;
	char *mountpoint;
	char *cache_size;
	char *index_dir;
	char *threads;		/* validated by index_opts() */
	int noindex;
	int nonopts;
	bool foreground;	/* -f or -d: say what the index did */
	bool max_threads;	/* -o max_threads given */
	int tep_only;		/* fuse_opt stores an int, not a bool */
	int eager;
	unsigned int max_checkpoints;
	char *decode_threads;	/* validated by text_opts_get() */
	bool help;
	bool version;
};

enum { KEY_HELP, KEY_VERSION, KEY_MAX_THREADS, KEY_FOREGROUND };

static const struct fuse_opt tfs_opt_spec[] = {
	{ "cache_size=%s", offsetof(struct tfs_opts, cache_size), 0 },
	{ "index_dir=%s", offsetof(struct tfs_opts, index_dir), 0 },
	{ "noindex", offsetof(struct tfs_opts, noindex), 1 },
	{ "threads=%s", offsetof(struct tfs_opts, threads), 0 },
	{ "tep_only", offsetof(struct tfs_opts, tep_only), 1 },
	{ "eager", offsetof(struct tfs_opts, eager), 1 },
	{ "max_checkpoints=%u", offsetof(struct tfs_opts, max_checkpoints), 0 },
	{ "decode_threads=%s", offsetof(struct tfs_opts, decode_threads), 0 },
	FUSE_OPT_KEY("-h", KEY_HELP),
	FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION),
	FUSE_OPT_KEY("max_threads=", KEY_MAX_THREADS),
	/* also for fuse_parse_cmdline(), which knows them as well */
	FUSE_OPT_KEY("-f", KEY_FOREGROUND),
	FUSE_OPT_KEY("-d", KEY_FOREGROUND),
	FUSE_OPT_KEY("debug", KEY_FOREGROUND),
	FUSE_OPT_KEY("--version", KEY_VERSION),
	/*
	 * What mount(8) and an fstab line pass on (tdatfs(1), MOUNTING WITH
	 * MOUNT(8) AND FSTAB), which libfuse refuses as unknown: dropped.
	 * "rw" too: mount(8) adds it whenever "ro" is not given, and the
	 * mount is read-only whatever the command line says.
	 */
	FUSE_OPT_KEY("rw", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("defaults", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("auto", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("noauto", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("user", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nouser", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("users", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("owner", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("group", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("_netdev", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nofail", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("comment=", FUSE_OPT_KEY_DISCARD),
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
	case KEY_FOREGROUND:
		o->foreground = true;
		return 1;
	case FUSE_OPT_KEY_OPT:
		/* x-*: util-linux's options for other programs, as comment=. */
		return strncmp(arg, "x-", 2) ? 1 : 0;
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
		"    -o index_dir=DIR       where the index of the trace is kept\n"
		"                           (default $XDG_CACHE_HOME/tdatfs,\n"
		"                           else ~/.cache/tdatfs)\n"
		"    -o noindex             no index: text sizes are 0 until\n"
		"                           read once (streaming, direct I/O)\n"
		"    -o threads=N           threads that build the index\n"
		"                           (default: the number of cores)\n"
		"    -o decode_threads=N    threads that produce a finished text\n"
		"                           ahead of a sequential reader\n"
		"                           (default: one per online CPU; 0: none)\n"
		"    -h, --help             this help\n"
		"    -V, --version          versions\n"
		"\n"
		"debugging options (the text stays the same):\n"
		"    -o tep_only            every event through libtraceevent\n"
		"    -o eager               parse every event format up front\n"
		"    -o max_checkpoints=N   at most N checkpoints a text (N >= 2)\n"
		"\n"
		"Exit status: 0 after an unmount (also by SIGTERM, SIGINT or\n"
		"SIGHUP), 1 for a trace that cannot be used or a mount that\n"
		"fails, 2 for a usage error, 128+N when signal N (Ctrl-C: 130)\n"
		"stopped the index build (nothing mounted).  In the background\n"
		"tdatfs returns once the mount works, or with the failure's\n"
		"status.\n"
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
 * Go to the background the way fuse_daemonize() does, except that the
 * parent stays until the child says the mount works: a byte on the pipe.
 * Without the byte (the child failed, said why on stderr, and ended) it
 * exits with the child's status, so that a mount refused after this point
 * (the INIT handshake) is no exit status 0 with nothing mounted.
 * Return: in the child, the pipe's write end for ready_watch(); -1 if the
 * fork failed (said).  The parent does not return.
 */
static int go_background(void)
{
	int p[2], st, null;
	ssize_t n;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC)) {
		perror("tdatfs: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("tdatfs: fork");
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n == 1)
			_exit(0);
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    WEXITSTATUS(st))
			_exit(WEXITSTATUS(st));
		_exit(1);
	}
	close(p[0]);
	setsid();
	/* stderr stays until the mount works: the reason of a failure. */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	return p[1];
}

/* What ready_watch() owns and frees: it may outlive serve(). */
struct tfs_ready {
	int fd;			/* to go_background()'s parent */
	dev_t before;		/* st_dev of the mount point before the mount */
	char mountpoint[];	/* absolute */
};

/*
 * A stat of the mount's root waits for the INIT handshake and fails only
 * if the kernel refused it or the connection is gone, which end the
 * session loop by themselves: then the parent sees the pipe close and
 * waits for the child's status.  A loop that ended fast may also have
 * unmounted before the stat: then the stat finds the directory beneath,
 * on the device the mount point had before, and that is no mount either.
 */
static void *ready_watch(void *arg)
{
	struct tfs_ready *r = arg;
	struct stat st;
	int null;

	if (stat(r->mountpoint, &st)) {
		fprintf(stderr, "tdatfs: the mount on %s does not work: %s\n",
			r->mountpoint, strerror(errno));
		goto out;
	}
	if (st.st_dev == r->before)
		goto out;	/* unmounted already: the loop says why */
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
	if (write(r->fd, "", 1) != 1)
		perror("tdatfs: cannot tell the parent");
out:
	close(r->fd);
	free(r);
	return NULL;
}

/*
 * Start ready_watch() with every signal blocked, so that a signal to the
 * process reaches the thread that serves; @before is the mount point's
 * st_dev before the mount.  @fd is closed either way (on failure the
 * parent takes that for one).  Return: 0 or -1 (said).
 */
static int start_watch(const char *mountpoint, dev_t before, int fd)
{
	size_t len = strlen(mountpoint) + 1;
	struct tfs_ready *r = malloc(sizeof(*r) + len);
	sigset_t all, old;
	pthread_t t;
	int err = ENOMEM;

	if (r) {
		r->fd = fd;
		r->before = before;
		memcpy(r->mountpoint, mountpoint, len);
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		err = pthread_create(&t, NULL, ready_watch, r);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (err) {
		fprintf(stderr, "tdatfs: no thread: %s\n", strerror(err));
		close(fd);
		free(r);
		return -1;
	}
	pthread_detach(t);
	return 0;
}

/*
 * Mount, go to the background (unless -f), serve until unmounted.
 * Return: the exit status; 0 also for an unmount by SIGTERM, SIGINT or
 * SIGHUP, which the session loop reports as the signal's number.
 */
/*
 * What the index left to do once the mount is ready: the sizes of each
 * buffer's timeline.svg and trace.pftrace, when its file lacks them.
 * Set by attach_index(); the job runs while the mount serves.
 */
static struct {
	struct tdatfs_index_result res;
	struct tdat_file *f;
	const char *trace;
	struct tdatfs_index_sizes *job;
} later;

/* Start sizing on a thread of its own: after the fork, as every thread. */
static void later_start(struct tfs *fs)
{
	if (!later.f)
		return;
	later.job = tdatfs_index_sizes_start(tdatfs_tree_text(fs->tree), later.f,
					     later.trace, "tdatfs", &later.res);
	if (!later.job && errno)
		fprintf(stderr, "tdatfs: %s: no thread to keep the sizes in the "
			"index: %s\n", later.trace, strerror(errno));
}

static int serve(struct fuse_args *args, struct tfs *fs, bool max_threads)
{
	struct fuse_cmdline_opts co = { 0 };
	int ready = -1;
	struct fuse_session *se;
	struct stat pre;
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
	if (stat(co.mountpoint, &pre)) {
		fprintf(stderr, "tdatfs: mount point %s: %s\n", co.mountpoint,
			strerror(errno));
		goto out_destroy;
	}
	if (fuse_session_mount(se, co.mountpoint))
		goto out_destroy;
	/* Before any thread: threads do not survive the fork. */
	if (!co.foreground && (ready = go_background()) < 0)
		goto out_unmount;
	if (chdir("/")) {
		perror("tdatfs: chdir /");
		goto out_unmount;
	}
	if (fuse_set_signal_handlers(se))
		goto out_unmount;
	/* fuse_parse_cmdline() made the mount point absolute. */
	if (ready >= 0 && start_watch(co.mountpoint, pre.st_dev, ready))
		goto out_signals;
	if (tfs_storer_start(fs))
		fprintf(stderr, "tdatfs: no page cache storer thread: %s\n",
			strerror(errno));
	later_start(fs);
	ret = run_loop(se, &co, max_threads) < 0 ? 1 : 0;
	/* unmounted: the sizing stops (nothing half written) */
	tdatfs_index_sizes_stop(later.job);
	later.job = NULL;
	gone = tfs_storer_stop(fs);
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

/* -h and -V: print and return 0; else -1 (go on). */
static int info_only(const struct tfs_opts *o, const char *prog)
{
	if (o->help) {
		usage(stdout, prog);
		printf("FUSE options:\n");
		fuse_cmdline_help();
		fuse_lowlevel_help();
		return 0;
	}
	if (o->version) {
		printf("tdatfs version %s\n", TDAT_VERSION);
		printf("FUSE library version %s\n", fuse_pkgversion());
		return 0;
	}
	return -1;
}

/* -o index_dir, threads into @io.  Return: 0, or 2 (usage). */
static int index_opts(const struct tfs_opts *o, struct tdatfs_index_opts *io)
{
	unsigned long n;
	char *end;

	io->prog = "tdatfs";
	io->dir = o->index_dir;
	/* the environment is read here, in the front end, not in the library */
	io->cache_home = getenv("XDG_CACHE_HOME");
	io->home = getenv("HOME");
	io->progress = TDATFS_PROGRESS_ALWAYS;
	if (o->index_dir && !*o->index_dir) {
		fprintf(stderr, "tdatfs: empty index_dir (want a directory)\n");
		return 2;
	}
	if (!o->threads)
		return 0;
	errno = 0;
	n = strtoul(o->threads, &end, 10);
	if (errno || end == o->threads || *end || *o->threads == '-' ||
	    n < 1 || n > TFS_INDEX_THREADS_MAX) {
		fprintf(stderr, "tdatfs: bad threads '%s' (want a number "
			"from 1 to %d)\n", o->threads, TFS_INDEX_THREADS_MAX);
		return 2;
	}
	io->threads = n;
	return 0;
}

/* The text engine's options into @to.  Return: 0, or 2 (usage). */
static int text_opts_get(const struct tfs_opts *o, struct tdatfs_text_opts *to)
{
	unsigned long n = 0;
	char *end;

	*to = (struct tdatfs_text_opts){
		.tep_only = o->tep_only,
		.eager = o->eager,
		.max_checkpoints = o->max_checkpoints,
	};
	if (!o->decode_threads)
		return 0;
	errno = 0;
	n = strtoul(o->decode_threads, &end, 10);
	if (errno || end == o->decode_threads || *end ||
	    *o->decode_threads == '-' || n > 64) {
		fprintf(stderr, "tdatfs: bad decode_threads '%s' (want a number "
			"from 0 to 64)\n", o->decode_threads);
		return 2;
	}
	to->decode_threads = n ? (int)n : -1;
	return 0;
}

/* The open options from the command line.  Return: 0, or 2 (usage). */
static int open_opts(const struct tfs_opts *o, const char *prog,
		     struct tdat_open_opts *topts, struct tdatfs_index_opts *io)
{
	if (o->nonopts != 2) {
		fprintf(stderr, "%s: need exactly TRACE and MOUNTPOINT "
			"(see %s --help)\n", "tdatfs", prog);
		return 2;
	}
	if (o->cache_size) {
		topts->cache_size = parse_size(o->cache_size);
		if (!topts->cache_size) {
			fprintf(stderr, "tdatfs: bad cache_size '%s' "
				"(want a number with K, M or G)\n",
				o->cache_size);
			return 2;
		}
	}
	return index_opts(o, io);
}

/* Open the trace and build its tree into @fs.  Return: 0 or -1 (said). */
static int open_tree(const struct tfs_opts *o,
		     const struct tdat_open_opts *topts,
		     const struct tdatfs_text_opts *text_opts, struct tfs *fs,
		     struct tdat_file **f)
{
	char err[512] = "";
	struct stat st;
	long ps;

	*f = tdat_open(o->trace, topts, err, sizeof(err));
	if (!*f) {
		fprintf(stderr, "tdatfs: %s: %s\n", o->trace,
			*err ? err : strerror(errno));
		return -1;
	}
	if (stat(o->trace, &st)) {
		fprintf(stderr, "tdatfs: %s: %s\n", o->trace, strerror(errno));
		return -1;
	}
	fs->tree = tdatfs_tree_new(*f, &st, text_opts);
	if (!fs->tree) {
		fprintf(stderr, "tdatfs: %s: cannot build the tree: %s\n",
			o->trace, strerror(errno));
		return -1;
	}
	ps = sysconf(_SC_PAGESIZE);
	fs->page_size = ps > 0 ? (size_t)ps : 4096;
	return 0;
}

/* The mount point must be a directory.  Return: 0 or -1 (said). */
static int check_mountpoint(const char *path)
{
	struct stat mst;

	if (stat(path, &mst)) {
		fprintf(stderr, "tdatfs: mount point %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (!S_ISDIR(mst.st_mode)) {
		fprintf(stderr, "tdatfs: mount point %s: %s\n", path,
			strerror(ENOTDIR));
		return -1;
	}
	return 0;
}

/* ---- the index, before the mount ---------------------------------------- */

/* Set by a signal during the index build, which polls it. */
static _Atomic bool build_cancel;

/* With -f or -d: one line saying where the index came from. */
static void say_index(const char *trace, const struct tdatfs_index_result *r)
{
	if (r->loaded)
		fprintf(stderr, "tdatfs: %s: index loaded from %s (%.2f s%s)\n",
			trace, r->path, r->seconds,
			r->sizes ? ", sizes kept" : "");
	else if (r->kept)
		fprintf(stderr, "tdatfs: %s: index built in %.2f s, kept in "
			"%s\n", trace, r->seconds, r->path);
	else
		fprintf(stderr, "tdatfs: %s: index built in %.2f s, in memory "
			"only: %s\n", trace, r->seconds,
			r->why ? r->why : "not kept");
}

/*
 * Load or build the trace's index into the tree's engine, so that every
 * size is exact before the mount is ready.  SIGINT, SIGTERM or SIGHUP
 * stops a build (the index module leaves no file behind).
 * Return: 0, or the exit status (128 + the signal when stopped by one).
 */
static int attach_index(const struct tfs_opts *o,
			struct tdatfs_index_opts *io, struct tfs *fs,
			struct tdat_file *f)
{
	struct tdatfs_index_result *res = &later.res;
	int err, build_signal;

	io->cancel = &build_cancel;
	/* The signals that unmount a mount stop a build, which has none yet;
	 * the session installs its own handlers later. */
	tdatfs_progress_stop_on_signals(&build_cancel);
	err = tdatfs_index_attach(tdatfs_tree_text(fs->tree), f, o->trace, io,
				  res);
	build_signal = tdatfs_progress_restore();
	/* A signal after the build ended asked to stop all the same. */
	if (err == -EINTR || (!err && build_signal)) {
		fprintf(stderr, "tdatfs: %s: indexing interrupted; nothing "
			"mounted\n", o->trace);
		err = build_signal ? 128 + build_signal : 1;
	} else if (err) {
		if (!res->said)
			fprintf(stderr, "tdatfs: %s: no index (%s); nothing "
				"mounted\n", o->trace, strerror(-err));
		err = 1;
	} else if (o->foreground) {
		say_index(o->trace, res);
	}
	/* sized once the mount is ready, never before it */
	if (!err && res->kept && !res->sizes) {
		later.f = f;
		later.trace = o->trace;
	}
	return err;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct tdat_open_opts topts = { 0 };
	struct tdatfs_index_opts io = { 0 };
	struct tdatfs_text_opts text_opts;
	struct tfs_opts o = { 0 };
	struct tfs fs = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	struct tdat_file *f = NULL;
	int ret = 2;

	/*
	 * Chunks and read buffers are a megabyte or so each.  With glibc's
	 * sliding threshold, the first one freed moves such blocks onto the
	 * per-thread heaps, which keep what was freed: ~20 MiB more peak
	 * RSS on big.dat.  Fix the threshold so they are mapped and unmapped.
	 * (32 KiB would map big.dat's 40 KiB chunks too, ~6 MiB less peak
	 * reading kallsyms after them, but cat of a text took 10% more CPU:
	 * other blocks of that size were mapped and unmapped on every use.)
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	/*
	 * The index build's worker threads each get an arena of their own,
	 * which the request threads take over fragmented: reading every
	 * file of big.dat after a build peaked at 109-128 MiB against 87 MiB
	 * with one arena (the build takes as long either way).
	 */
	mallopt(M_ARENA_MAX, 1);
	if (fuse_opt_parse(&args, &o, tfs_opt_spec, tfs_opt_proc) == -1)
		goto out;
	errno = tfs_read_bufs_init();
	if (errno) {
		perror("tdatfs");
		ret = 1;
		goto out;
	}
	ret = info_only(&o, argv[0]);
	if (ret >= 0)
		goto out;
	ret = open_opts(&o, argv[0], &topts, &io);
	if (ret)
		goto out;
	ret = text_opts_get(&o, &text_opts);
	if (ret)
		goto out;
	io.text_opts = &text_opts;
	ret = 1;
	/* An index file that matches vouches for what the open may leave. */
	topts.defer_checks = !o.noindex;
	/* Read and checksum the index file while the trace is opened. */
	if (!o.noindex)
		io.early = tdatfs_index_early_start(o.trace, &io);
	if (open_tree(&o, &topts, &text_opts, &fs, &f) ||
	    check_mountpoint(o.mountpoint))
		goto out;
	if (!o.noindex) {
		ret = attach_index(&o, &io, &fs, f);
		tdatfs_index_early_free(io.early);
		io.early = NULL;
		if (ret)
			goto out;
		ret = 1;
	}
	if (fuse_opt_add_arg(&args, "-oro,default_permissions,"
			     "fsname=tdatfs,subtype=tdatfs") == -1) {
		fprintf(stderr, "tdatfs: %s\n", strerror(ENOMEM));
		goto out;
	}
	ret = serve(&args, &fs, o.max_threads);
	/* With -s the requests were served on this thread: no destructor. */
	tfs_read_buf_release();
out:
	tdatfs_index_result_release(&later.res);
	tdatfs_index_early_free(io.early);
	tdatfs_tree_free(fs.tree);
	tdat_close(f);
	fuse_opt_free_args(&args);
	free(o.trace);
	free(o.mountpoint);
	free(o.cache_size);
	free(o.index_dir);
	free(o.threads);
	free(o.decode_threads);
	return ret;
}
