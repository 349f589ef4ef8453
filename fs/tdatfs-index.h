/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-index.h - the index of a trace: every decoded text produced once,
 * in parallel, so that each text's size is exact from the first stat and a
 * read anywhere decodes only the pages it covers; kept in a file for the
 * next mount.
 *
 * Invariants:
 *  - An index file belongs to one trace: it is used only when the trace's
 *    identity (size, mtime, inode, ctime, a checksum of the bytes its
 *    layout depends on and one of pieces of its event data) and the index
 *    format version match, and its own checksum holds.  Anything else is ignored with one line saying why, and the
 *    index is built again.  So an index never makes a text differ from
 *    the text made without one; and where event data changed unseen (a
 *    page not sampled, on a file system without a ctime), a text decoded
 *    unlike its kept size fails to read with EIO rather than being cut.
 *  - Building produces every text the engine lists (tdatfs_text_keys()) on
 *    worker threads, each with its own engine of the same trace (so its
 *    own libtraceevent handle, and tdatfs_text_produce_sole(): a CPU's
 *    text is tried from that CPU alone); what they learned is saved,
 *    written to the index file, and loaded into the caller's engine
 *    through the same path as an index read from disk.
 *  - An index file is written atomically: a temporary file in the index
 *    directory, renamed over the old one.  Concurrent builds of one trace
 *    each rename a whole file; none is ever seen half written.  A build
 *    that is cancelled or fails leaves no file behind.
 *  - When the index directory cannot be made or written, the index lives
 *    in memory only (one warning line).  A trace found damaged while
 *    indexing is indexed in memory only too, so that its damage is found
 *    again and listed in errors from the start of every mount.
 *  - The sizes of each buffer's whole timeline.svg and trace.pftrace, and
 *    trace.pftrace's layout (tdatfs_text_pftrace_layout()), are
 *    not part of the build (a mount would be ready later): they are an
 *    optional section of the file, added afterwards by
 *    tdatfs_index_sizes_keep() (tdat index) or on a thread of the lowest
 *    priority once a mount is ready (tdatfs_index_sizes_start(), stopped
 *    on unmount), by rewriting the file atomically only while it is the
 *    one loaded or written.  A section refused by its own checks is said
 *    in one line and ignored, the rest of the index used; a file read
 *    unlike the size kept fails with EIO, as a text does.
 *  - Messages go to stderr, each one line starting with "PROG: TRACE: ".
 */
#ifndef TDATFS_INDEX_H
#define TDATFS_INDEX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdatfs_index_early;
struct tdatfs_index_sizes;
struct tdatfs_text;
struct tdatfs_text_opts;

/**
 * enum tdatfs_index_progress - when to show the progress line
 * @TDATFS_PROGRESS_NEVER: never
 * @TDATFS_PROGRESS_TTY: when stderr is a terminal (updated in place)
 * @TDATFS_PROGRESS_ALWAYS: also when it is not (one plain line now and then)
 *
 * Either way only for a build that has taken over a second.
 */
enum tdatfs_index_progress {
	TDATFS_PROGRESS_NEVER,
	TDATFS_PROGRESS_TTY,
	TDATFS_PROGRESS_ALWAYS,
};

/**
 * struct tdatfs_index_opts - how to find, build and keep an index
 * @prog: program name for messages ("tdatfs", "tdat")
 * @dir: index directory; NULL for the default (@cache_home/tdatfs,
 *	else @home/.cache/tdatfs; neither set: in memory only, with a
 *	warning)
 * @cache_home: $XDG_CACHE_HOME as the front end read it, or NULL
 * @home: $HOME as the front end read it, or NULL
 * @threads: worker threads; 0 for the number of online cores
 * @progress: when to show the progress line
 * @check_only: do not build: load and check the index file only
 *	(tdat index --check); a missing or unusable one is an error
 * @text_opts: switches of the workers' engines, the same as the caller's
 *	engine was made with; NULL for the defaults
 * @cancel: polled while building; once true the build stops with -EINTR;
 *	may be NULL
 * @early: the index file read ahead by tdatfs_index_early_start() for
 *	the same trace and these options, or NULL: its bytes are used when
 *	they are of the file looked for, and checked as a file read then
 */
struct tdatfs_index_opts {
	const char *prog;
	const char *dir;
	const char *cache_home;
	const char *home;
	unsigned int threads;
	enum tdatfs_index_progress progress;
	bool check_only;
	const struct tdatfs_text_opts *text_opts;
	const _Atomic bool *cancel;
	struct tdatfs_index_early *early;
};

/**
 * struct tdatfs_index_result - what tdatfs_index_attach() did
 * @loaded: an index file was loaded
 * @built: the index was built
 * @kept: the index is in a file (loaded, or built and written)
 * @path: the index file's path, "" when there is none; owned by the
 *	result, free with tdatfs_index_result_release()
 * @why: when a file was not used or not kept, why (static text); else NULL
 * @texts: texts indexed
 * @bytes: their total size
 * @file_bytes: size of the index file's contents
 * @seconds: wall time of loading or building
 * @said: the error returned was told already, as the trace's open tells
 *	its own (a check tdat_open() left failed: the trace is refused)
 * @sizes: the file keeps the sizes of each buffer's timeline.svg and
 *	trace.pftrace (and its layout) and the engine took them (or
 *	tdatfs_index_sizes_keep() wrote them)
 * @file_crc: the checksum that ends the file loaded or written: the
 *	sizes are added only to that file
 */
struct tdatfs_index_result {
	bool loaded;
	bool built;
	bool kept;
	char *path;
	const char *why;
	size_t texts;
	uint64_t bytes;
	uint64_t file_bytes;
	double seconds;
	bool said;
	bool sizes;
	uint32_t file_crc;
};

/**
 * tdatfs_index_attach() - load a trace's index into an engine, or build it
 * @t: the engine to give the index to; no text of it read yet
 * @f: its trace
 * @trace: the trace's path as given (for messages, identity and the index
 *	file's name)
 * @o: options
 * @res: set to what was done (release with tdatfs_index_result_release());
 *	may be NULL
 *
 * Looks for the trace's index file in the index directory and loads it
 * when it matches; otherwise (saying why, unless there was no file) builds
 * the index on @o->threads workers and writes it, unless @o->check_only.
 *
 * Return: 0, -EINTR when cancelled (nothing written, @t unchanged),
 * -ENOENT or -EINVAL with @o->check_only for a missing or unusable file,
 * or another negative errno (a message said what).
 * Context: call before @t serves reads; not thread-safe with them.
 */
int tdatfs_index_attach(struct tdatfs_text *t, struct tdat_file *f,
			const char *trace, const struct tdatfs_index_opts *o,
			struct tdatfs_index_result *res);

/**
 * tdatfs_index_early_start() - read a trace's index file on a thread of
 * its own while the caller opens the trace
 * @trace: the trace's path, as it will be given to tdatfs_index_attach()
 * @o: the options it will be given (@o->dir, @o->cache_home, @o->home)
 *
 * The thread reads the file and makes the checks that need only its
 * bytes (kind, length, checksum); tdatfs_index_attach() waits for it and
 * makes the rest (the trace's identity, the texts).  Nothing is skipped
 * and no file is written: a missing, unreadable or refused file is found
 * and said by the attach exactly as without it.
 *
 * Return: a handle for @o->early (free with tdatfs_index_early_free()),
 * or NULL when there is no place for an index or no thread (errno set):
 * the attach then reads the file itself.
 */
struct tdatfs_index_early *tdatfs_index_early_start(const char *trace,
						    const struct tdatfs_index_opts *o);

/**
 * tdatfs_index_early_free() - wait for the thread and free what it read
 * @e: handle, or NULL
 */
void tdatfs_index_early_free(struct tdatfs_index_early *e);

/**
 * tdatfs_index_sizes_keep() - size each buffer's timeline.svg and
 * trace.pftrace and keep the sizes (and trace.pftrace's layout) in the
 * index file
 * @t: the engine the index was attached to
 * @f: its trace
 * @trace: the trace's path as given (for messages)
 * @prog: program name for messages
 * @cancel: polled (through the engine's cancel hook); once true the work
 *	stops with -EINTR and nothing is written; may be NULL
 * @res: what tdatfs_index_attach() did; @res->sizes and the file's
 *	length and checksum are updated when the file is rewritten
 *
 * Nothing to do (0) when the index is not in a file or keeps the sizes
 * already.  The sizes are those a first stat makes (the whole picture,
 * the pass over each buffer, whose layout a first read of a remount then
 * takes instead of its own pass), not part of the index build so that a
 * mount is ready as soon; the file is rewritten atomically as it is
 * written, and only when it is still the one @res loaded or wrote
 * (another tdatfs or tdat may have rewritten it meanwhile).  A trace
 * found damaged meanwhile is not given sizes.
 *
 * Return: 0, -EINTR, -ESTALE (the file changed: two mounts of a trace
 * at once each try, one of them finds the other's file), -EIO (damage),
 * or another negative errno; every error but -EINTR and -ESTALE is said
 * in one line.
 * Context: any thread; the engine serves reads meanwhile.
 */
int tdatfs_index_sizes_keep(struct tdatfs_text *t, struct tdat_file *f,
			    const char *trace, const char *prog,
			    const _Atomic bool *cancel,
			    struct tdatfs_index_result *res);

/**
 * tdatfs_index_sizes_start() - tdatfs_index_sizes_keep() on a thread of
 * its own, at the lowest priority
 * @t: as for tdatfs_index_sizes_keep(); must outlive the thread
 * @f: likewise
 * @trace: likewise (copied)
 * @prog: likewise (copied)
 * @res: likewise (copied: the caller's is not updated)
 *
 * For a mount that is ready: a stat asked for meanwhile makes the size
 * as without an index, sharing the pass over trace.pftrace with the
 * thread (one waits for the other's).
 *
 * Return: a handle to stop it with tdatfs_index_sizes_stop(); NULL with
 * errno 0 when there is nothing to do, or with another errno when no
 * thread could be made.
 */
struct tdatfs_index_sizes *tdatfs_index_sizes_start(struct tdatfs_text *t,
						    struct tdat_file *f,
						    const char *trace,
						    const char *prog,
						    const struct tdatfs_index_result *res);

/**
 * tdatfs_index_sizes_stop() - stop the thread, wait for it and free it
 * @j: handle, or NULL
 *
 * Once it returns the thread has ended: no file is half written (the
 * rename is whole or not done) and the engine is no longer used.
 */
void tdatfs_index_sizes_stop(struct tdatfs_index_sizes *j);

/**
 * tdatfs_index_result_release() - free what a result holds; NULL is fine
 * @res: result (the struct itself is the caller's)
 */
void tdatfs_index_result_release(struct tdatfs_index_result *res);

#endif /* TDATFS_INDEX_H */
