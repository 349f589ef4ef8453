/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index/open.c - find a trace's index file and load it, or build the
 * index and keep it (the invariants are in tdatfs-index.h; the file in
 * index/file.c, the build in index/build.c).
 *
 * The public functions defined here are documented in tdatfs-index.h.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tdat.h"
#include "tdatfs-index.h"
#include "tdatfs-text.h"
#include "build.h"
#include "file.h"

/* What one attach knows; @path is NULL when the index lives in memory only. */
struct attach {
	struct tdatfs_text *t;
	struct tdat_file *f;
	const char *trace, *prog;
	const struct tdatfs_index_opts *o;
	struct tdatfs_index_result *res;
	struct idx_identity id;
	struct tdatfs_text_key *keys;
	size_t nkeys;
	char *dir, *path;
	bool dflt;
};

/*
 * An index file read ahead: @path is fixed before the thread starts; the
 * rest is the thread's until it is joined.  @read_r is idx_read()'s
 * result, @check_r idx_check()'s on the bytes read (with @no).
 */
struct tdatfs_index_early {
	pthread_t thread;
	bool joined;
	char *path;
	void *buf;
	size_t len;
	int read_r, check_r;
	struct idx_refusal no;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The trace's identity as opened; Return: 0 or a negative errno. */
static int identify(struct attach *a)
{
	const struct tdatfs_text_opts *to = a->o->text_opts;
	struct stat st;
	int r;

	r = tdat_file_stat(a->f, &st);
	if (r)
		return r;
	a->id.size = (uint64_t)st.st_size;
	a->id.mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
			 (uint64_t)st.st_mtim.tv_nsec;
	a->id.inode = (uint64_t)st.st_ino;
	a->id.ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000ull +
			 (uint64_t)st.st_ctim.tv_nsec;
	a->id.max_checkpoints = to ? to->max_checkpoints : 0;
	/* A trace that grew or shrank since it was opened is not the one read. */
	if (a->id.size != tdat_file_size(a->f))
		return -ESTALE;
	r = tdat_layout_crc(a->f, &a->id.layout_crc);
	return r ? r : tdat_data_sample_crc(a->f, &a->id.sample_crc);
}

static int list_keys(struct attach *a)
{
	size_t n = tdatfs_text_keys(a->t, NULL, 0);

	a->keys = calloc(n ? n : 1, sizeof(*a->keys));
	if (!a->keys)
		return -ENOMEM;
	a->nkeys = tdatfs_text_keys(a->t, a->keys, n);
	return a->nkeys == n ? 0 : -EAGAIN;
}

/* Where the file is; without a place, @why says why and @path stays NULL. */
static int locate(struct attach *a, const char **why)
{
	char *real = realpath(a->trace, NULL);
	int r;

	r = idx_path(a->o->dir, a->o->cache_home, a->o->home,
		     real ? real : a->trace, &a->dir, &a->path, &a->dflt, why);
	free(real);
	return r;
}

/*
 * The streams made from the chunk tables the file kept, so that neither
 * the states' checks nor any read walks the chunk headers across the
 * trace.  Return: 0, -EINVAL when they are refused (@no), -ENOMEM.
 */
static int load_tables(struct attach *a, const struct idx_tables *tables,
		       struct idx_refusal *no)
{
	char err[sizeof(no->line)];
	int r = tdat_chunk_tables_load(a->f, tables->p, tables->len, err, sizeof(err));

	if (r == -EINVAL) {
		no->why = "a chunk table is refused";
		snprintf(no->line, sizeof(no->line), "%s", err);
	}
	return r;
}

/* The CRC that ends a file's bytes: which file was loaded or written. */
static uint32_t get_crc(const void *buf, size_t len)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)buf + len - IDX_CRC_LEN, sizeof(v));
	return v;
}

/* One line saying the sizes section is not used, and why. */
static void sizes_refused(struct attach *a, const char *line)
{
	fprintf(stderr, "%s: %s: index %s: %s; the sizes are made again\n",
		a->prog, a->trace, a->path ? a->path : "(in memory)", line);
}

/*
 * The sizes section of the file's bytes @buf, checked against the
 * trace's buffers, into *@sz (NULL: none or refused, said).
 * Return: 0 or -ENOMEM (a refused section is no error: the sizes are
 * made again, as without an index).
 */
static int sizes_read(struct attach *a, const void *buf,
		      const struct idx_sizes_raw *raw, struct idx_size **sz,
		      size_t *n)
{
	size_t nb = tdat_buffer_count(a->f);
	struct idx_refusal no = { 0 };
	int r = idx_sizes_decode(buf, raw, nb, sz, n, &no);
	char line[sizeof(no.line)];

	if (r == -EINVAL)
		sizes_refused(a, no.line);
	if (r)
		return r == -EINVAL ? 0 : r;
	for (size_t i = 0; i < *n; i++) {
		const struct idx_size *e = &(*sz)[i];
		const struct tdat_buffer *b = tdat_buffer_get(a->f, (size_t)e->buffer);

		if (b && !b->latency && e->timeline)
			continue;
		snprintf(line, sizeof(line), "sizes section at byte %zu: entry %zu "
			 "(buffer %llu) %s", raw->at, i, (unsigned long long)e->buffer,
			 !b || b->latency ? "names a buffer without the files" :
			 "gives an empty timeline.svg");
		sizes_refused(a, line);
		free(*sz);
		*sz = NULL;
		*n = 0;
		break;
	}
	return 0;
}

/*
 * Give the engine the sizes and layouts read; all of them or none is what
 * a stat sees.
 */
static void sizes_give(struct attach *a, const struct idx_size *sz, size_t n)
{
	size_t i;
	int r = 0;

	if (!sz)
		return;
	for (i = 0; !r && i < n; i++) {
		r = tdatfs_text_whole_sizes_keep(a->t, (size_t)sz[i].buffer,
						 sz[i].timeline, sz[i].pftrace);
		/* a layout refused later costs its first read a pass */
		if (!r && sz[i].layout_len)
			r = tdatfs_text_pftrace_layout_keep(a->t, (size_t)sz[i].buffer,
							    sz[i].layout,
							    sz[i].layout_len);
	}
	if (r) {
		/* a fresh engine takes what passed the checks above */
		fprintf(stderr, "%s: %s: the engine refuses the kept sizes of "
			"buffer %llu: %s\n", a->prog, a->trace,
			(unsigned long long)sz[i - 1].buffer, strerror(-r));
		return;
	}
	a->res->sizes = true;
}

/*
 * Check the file's bytes *@buf (@checked: idx_check() passed them already),
 * then give the caller's engine every state, all checked before any is
 * taken, so that a refused state leaves the engine as it was.  The
 * engine keeps the bytes (*@buf set to NULL) when it takes the states.
 * Return: 0, -EINVAL when the file is refused (@no says why), or another
 * negative errno when the engine cannot take the states (a message says
 * so; the engine is as it was).
 */
static int load_bytes(struct attach *a, void **buf, size_t len,
		      bool checked, struct idx_refusal *no)
{
	struct tdatfs_text_state *x = NULL;
	struct idx_tables tables;
	struct idx_sizes_raw raw;
	struct idx_size *sz = NULL;
	size_t bad = 0, nsz = 0;
	int r;

	if (checked)
		r = idx_decode_checked(*buf, len, &a->id, a->keys, a->nkeys, &x,
				       &tables, &raw, no);
	else
		r = idx_decode(*buf, len, &a->id, a->keys, a->nkeys, &x, &tables,
			       &raw, no);
	if (r)
		return r;
	/* read before the engine owns the bytes; kept once the texts are */
	r = sizes_read(a, *buf, &raw, &sz, &nsz);
	if (!r)
		r = load_tables(a, &tables, no);
	if (!r)
		r = tdatfs_text_states_adopt(a->t, x, a->nkeys, &bad, *buf);
	if (!r) {
		a->res->file_crc = get_crc(*buf, len);
		*buf = NULL;
		sizes_give(a, sz, nsz);
	}
	free(sz);
	if (r == -EINVAL) {
		no->why = "a text's state is refused";
		snprintf(no->line, sizeof(no->line), "the state of text %zu is refused", bad);
	} else if (r) {
		fprintf(stderr, "%s: %s: cannot load the index into the engine (text %zu): %s\n",
			a->prog, a->trace, bad, strerror(-r));
	}
	free(x);
	return r;
}

static void *early_run(void *arg)
{
	struct tdatfs_index_early *e = arg;

	e->read_r = idx_read(e->path, &e->buf, &e->len);
	if (!e->read_r)
		e->check_r = idx_check(e->buf, e->len, &e->no);
	return NULL;
}

struct tdatfs_index_early *tdatfs_index_early_start(const char *trace,
						    const struct tdatfs_index_opts *o)
{
	struct tdatfs_index_early *e = calloc(1, sizeof(*e));
	char *real = realpath(trace, NULL), *dir = NULL;
	const char *why = NULL;
	bool dflt;
	int r = -ENOMEM;

	if (e)
		r = idx_path(o->dir, o->cache_home, o->home, real ? real : trace,
			     &dir, &e->path, &dflt, &why);
	free(real);
	free(dir);
	if (!r)
		r = -pthread_create(&e->thread, NULL, early_run, e);
	if (r) {
		if (e)
			free(e->path);
		free(e);
		errno = -r;
		return NULL;
	}
	return e;
}

void tdatfs_index_early_free(struct tdatfs_index_early *e)
{
	if (!e)
		return;
	if (!e->joined)
		pthread_join(e->thread, NULL);
	free(e->buf);
	free(e->path);
	free(e);
}

/*
 * The file's bytes: those read ahead when they are of @a->path, else read
 * now.  *@check is 0 when idx_check() passed them, -EINVAL when it refused
 * them (@no says why), 1 when it has not seen them.
 * Return: idx_read()'s result.
 */
static int get_bytes(struct attach *a, void **buf, size_t *len, int *check,
		     struct idx_refusal *no)
{
	struct tdatfs_index_early *e = a->o->early;

	*check = 1;
	if (!e || strcmp(e->path, a->path))
		return idx_read(a->path, buf, len);
	if (!e->joined)
		pthread_join(e->thread, NULL);
	e->joined = true;
	if (e->read_r)
		return e->read_r;
	*buf = e->buf;
	*len = e->len;
	e->buf = NULL;
	*check = e->check_r;
	if (*check)
		*no = e->no;
	return 0;
}

/* Load the file if it is there and matches; Return: 0, -ENOENT, -EINVAL (@no), ... */
static int try_file(struct attach *a, struct idx_refusal *no)
{
	void *buf = NULL;
	size_t len = 0;
	int r, check;

	r = get_bytes(a, &buf, &len, &check, no);
	/* A directory still to be made holds no file either. */
	if (r == -ENOENT || r == -ENOTDIR) {
		r = -ENOENT;
		no->why = "no index file";
		snprintf(no->line, sizeof(no->line), "%s", no->why);
		return r;
	}
	if (r) {
		no->why = "it cannot be read";
		snprintf(no->line, sizeof(no->line), "it cannot be read (%s)",
			 r == -EINVAL ? "not a regular file" : strerror(-r));
		return -EINVAL;
	}
	r = check < 0 ? check : load_bytes(a, &buf, len, !check, no);
	free(buf);
	if (!r) {
		a->res->loaded = true;
		a->res->kept = true;
		a->res->file_bytes = len;
	}
	return r;
}

/* Write the index unless the trace is damaged; says why not when it is not kept. */
static void keep(struct attach *a, const void *buf, size_t len)
{
	int r;

	if (!a->path)
		return;
	if (tdat_error_total(a->f)) {
		a->res->why = "the trace is damaged";
		fprintf(stderr, "%s: %s: damage found while indexing; the index stays in memory\n",
			a->prog, a->trace);
		return;
	}
	r = idx_write(a->dir, a->dflt, a->path, buf, len);
	if (r) {
		a->res->why = "the index directory cannot be written";
		fprintf(stderr, "%s: %s: cannot keep the index in %s: %s; it stays in memory\n",
			a->prog, a->trace, a->dir, strerror(-r));
		return;
	}
	a->res->kept = true;
}

/*
 * Without an index file that matched, nothing vouches for what the open
 * of @a->f left unchecked (tdat_open_opts.defer_checks): check it before
 * the build reads it, and refuse the trace as the open would have.
 */
static int finish_checks(struct attach *a)
{
	char msg[512];
	int r = tdat_finish_checks(a->f, msg, sizeof(msg));

	if (r) {
		fprintf(stderr, "%s: %s: %s\n", a->prog, a->trace,
			*msg ? msg : strerror(-r));
		a->res->said = true;
	}
	return r;
}

/* Build, keep, and load what was built the way a file is loaded. */
static int build(struct attach *a)
{
	struct tdatfs_text_state *x;
	struct idx_refusal no = { 0 };
	void *buf = NULL, *tables = NULL;
	size_t len = 0, tlen = 0;
	int r = finish_checks(a);

	if (r)
		return r;
	x = calloc(a->nkeys ? a->nkeys : 1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	r = idx_build(a->t, a->f, a->trace, a->o, a->keys, a->nkeys, x);
	/*
	 * The chunks the build left are of the trace's end, which nothing
	 * reads next: freed before the index is encoded and loaded beside
	 * the states.  At 16 times big.dat (25 MB of states, 25 MB of
	 * index) tdat index peaked at 88-100 MB without this, past the
	 * bound in some runs, and at 89-93 MB with it.
	 */
	tdat_cache_drop(a->f);
	/* every stream the texts read has its table now */
	if (!r)
		r = tdat_chunk_tables_save(a->f, &tables, &tlen);
	if (!r)
		r = idx_encode(&a->id, x, a->nkeys,
			       &(struct idx_tables){ .p = tables, .len = tlen }, &buf, &len);
	free(tables);
	idx_texts_free(x, a->nkeys);
	free(x);
	/*
	 * The workers' engines and the states are freed: give their pages
	 * back before the sizes are made, or the heap keeps them as free
	 * fragments under what comes next (34 MiB at 16 times big.dat).
	 */
	malloc_trim(0);
	if (r)
		return r;
	a->res->built = true;
	a->res->file_bytes = len;
	keep(a, buf, len);
	r = load_bytes(a, &buf, len, false, &no);
	if (r == -EINVAL) {
		fprintf(stderr, "%s: %s: the index just built is refused: %s\n",
			a->prog, a->trace, no.line);
		r = -EIO;
	}
	free(buf);
	return r;
}

/* The texts' count and total size, once loaded. */
static void count_texts(struct attach *a)
{
	for (size_t i = 0; i < a->nkeys; i++) {
		const struct tdatfs_text_key *k = &a->keys[i];
		uint64_t size = 0;
		int r = k->report ? tdatfs_text_report_size(a->t, &size) :
			tdatfs_text_size(a->t, k->buffer, k->cpu, &size);

		if (!r)
			a->res->bytes += size;
	}
	a->res->texts = a->nkeys;
}

/* Find a place and an identity; without one the index lives in memory. */
static int prepare(struct attach *a, const char **why)
{
	int r = list_keys(a);

	if (r)
		return r;
	r = identify(a);
	if (r) {
		*why = "the trace cannot be identified";
		fprintf(stderr, "%s: %s: cannot identify the trace for its index: %s; it stays in memory\n",
			a->prog, a->trace, strerror(-r));
		return 0;
	}
	r = locate(a, why);
	if (r == -ENOENT && !a->o->check_only)
		fprintf(stderr, "%s: %s: no index directory (%s); the index stays in memory\n",
			a->prog, a->trace, *why);
	return r == -ENOENT ? 0 : r;
}

static int attach(struct attach *a)
{
	struct idx_refusal no = { 0 };
	const char *why = NULL;
	int r, c;

	r = prepare(a, &why);
	if (r)
		return r;
	a->res->why = why;
	if (a->path) {
		a->res->path = strdup(a->path);
		if (!a->res->path)
			return -ENOMEM;
		r = try_file(a, &no);
		if (!r || (r != -ENOENT && r != -EINVAL))
			return r;
		/* No file at all is no reason to tell, unless only checking. */
		a->res->why = r == -ENOENT && !a->o->check_only ? NULL : no.why;
		/* A trace refused is told alone, not as an index to rebuild. */
		c = a->o->check_only ? 0 : finish_checks(a);
		if (c)
			return c;
		if (r == -EINVAL && !a->o->check_only)
			fprintf(stderr, "%s: %s: index %s not used: %s; building it again\n",
				a->prog, a->trace, a->path, no.line);
	}
	if (a->o->check_only)
		return a->path ? r : -ENOENT;
	return build(a);
}

int tdatfs_index_attach(struct tdatfs_text *t, struct tdat_file *f,
			const char *trace, const struct tdatfs_index_opts *o,
			struct tdatfs_index_result *res)
{
	struct tdatfs_index_result mine;
	struct attach a = {
		.t = t, .f = f, .trace = trace, .o = o, .res = res ? res : &mine,
		.prog = o->prog ? o->prog : "tdatfs",
	};
	double start = now_s();
	int r;

	memset(a.res, 0, sizeof(*a.res));
	r = attach(&a);
	if (!r)
		count_texts(&a);
	if (!a.res->path)
		a.res->path = strdup("");
	a.res->seconds = now_s() - start;
	free(a.keys);
	free(a.dir);
	free(a.path);
	if (!res)
		tdatfs_index_result_release(&mine);
	return r;
}

void tdatfs_index_result_release(struct tdatfs_index_result *res)
{
	if (!res)
		return;
	free(res->path);
	res->path = NULL;
}
