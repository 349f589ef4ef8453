/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * index/build.c - every text of a trace produced on worker
 * threads, while the calling thread shows progress (invariants in
 * index/build.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-text.h"
#include "build.h"

#define WATCH_NS	50000000L	/* the watcher polls cancel this often */

struct job {
	struct tdatfs_text_key key;
	size_t index;			/* in the caller's key order */
	uint64_t pages;
	bool lead;			/* a merged text that makes its CPUs' */
	bool led;			/* a CPU text its merged one makes */
	unsigned int part;		/* of a split text: 1, 2; 0: none */
	_Atomic uint64_t done;
	void *blob;
	size_t len;
};

struct build {
	struct tdat_file *f;
	struct tdatfs_text *like;	/* the caller's engine: kallsyms shared */
	const struct tdatfs_text_opts *topts;
	struct job *jobs;		/* largest first */
	size_t n;			/* with the second part of a split */
	/* a buffer's texts made in two parts at once, on two engines */
	struct tdatfs_text_split *split;
	struct tdatfs_text *part[2];
	_Atomic size_t next;
	_Atomic bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t running;			/* under @lock */
	int err;			/* the first failure, under @lock */
	size_t err_job;
};

/* ---- workers ------------------------------------------------------------ */

static void build_fail(struct build *b, int err, size_t job)
{
	pthread_mutex_lock(&b->lock);
	if (!b->err) {
		b->err = err;
		b->err_job = job;
	}
	pthread_mutex_unlock(&b->lock);
	atomic_store(&b->stop, true);
}

/* Save the state of @j's text, held to the end of the build. */
static int save_job(struct build *b, struct tdatfs_text *t, struct job *j)
{
	int r = tdatfs_text_state_save(t, &j->key, &j->blob, &j->len);

	/* the cache makes room for it */
	if (!r)
		tdat_cache_charge(b->f, j->len, false);
	return r;
}

/* Save @j's state, and a leader's, the states of the CPU texts it led. */
static int save_led(struct build *b, struct tdatfs_text *t, struct job *j)
{
	int r = save_job(b, t, j);

	for (size_t i = 0; !r && j->lead && i < b->n; i++)
		if (b->jobs[i].led && b->jobs[i].key.buffer == j->key.buffer)
			r = save_job(b, t, &b->jobs[i]);
	return r;
}

/*
 * Produce one text to its end (a leader: with its buffer's CPU texts)
 * and save what that learned, on an engine of the job's own: its stream
 * holds tables as large as the state, which a worker's engine kept for
 * every job it ran would hold beyond what the cache bounds (charges
 * count to half of it).
 */
static int run_job(struct build *b, struct job *j)
{
	struct tdatfs_text *t;
	int r;

	/* the engines of a split are the build's: it joins and saves them */
	if (j->part)
		return tdatfs_text_split_part(b->split, j->part - 1, &b->stop,
					      &j->done);
	t = tdatfs_text_new_like(b->like, b->topts);
	if (!t)
		return errno ? -errno : -ENOMEM;
	/* no one else reads it */
	if (j->lead) {
		r = tdatfs_text_produce_led(t, j->key.buffer, &b->stop, &j->done);
		r = r < 0 ? r : 0;
	} else {
		r = tdatfs_text_produce_sole(t, &j->key, &b->stop, &j->done);
	}
	if (!r)
		r = save_led(b, t, j);
	tdatfs_text_free(t);
	if (!r)
		atomic_store_explicit(&j->done, j->pages, memory_order_relaxed);
	return r;
}

static void *worker(void *arg)
{
	struct build *b = arg;

	while (!atomic_load(&b->stop)) {
		size_t i = atomic_fetch_add(&b->next, 1);
		int r;

		if (i >= b->n)
			break;
		/* made by its leader */
		if (b->jobs[i].led)
			continue;
		r = run_job(b, &b->jobs[i]);
		if (r) {
			build_fail(b, r, i);
			break;
		}
	}
	pthread_mutex_lock(&b->lock);
	b->running--;
	pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* ---- the progress line -------------------------------------------------- */

static uint64_t pages_done(struct build *b)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < b->n; i++)
		sum += atomic_load_explicit(&b->jobs[i].done, memory_order_relaxed);
	return sum;
}

/* The line the options ask for, or NULL: none (or no memory for one). */
static struct tdatfs_progress *progress_start(const char *trace,
					      const struct tdatfs_index_opts *o,
					      struct tdat_file *f, uint64_t total)
{
	const struct tdatfs_progress_opts po = {
		.prog = o->prog ? o->prog : "tdatfs",
		.trace = trace,
		.what = "indexing",
		.unit = "pages",
		.unit_bytes = tdat_page_size(f),
		.total = total,
		.always = o->progress == TDATFS_PROGRESS_ALWAYS,
	};

	if (o->progress == TDATFS_PROGRESS_NEVER)
		return NULL;
	return tdatfs_progress_new(&po);
}

/* ---- the build ---------------------------------------------------------- */

static int by_pages(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	if (x->pages != y->pages)
		return x->pages > y->pages ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The time of a job in pages' worth: a merged text that makes its CPU
 * texts costs LEAD_COST_PCT percent of it alone.  Under callgrind (the
 * engine's setup included), big.dat takes 6.47 G instructions led
 * against 5.68 G for its merged text alone (114%), field-heavy.dat 1.85
 * G against 1.54 G (120%: many of its records are printed by
 * libtraceevent, and a CPU text formats those again); by the clock,
 * big.dat 0.88-0.95 s against 0.59-0.74 s (doc/PERFORMANCE.md).
 */
#define LEAD_COST_PCT	130

static uint64_t job_cost(const struct job *j, bool lead)
{
	return lead ? j->pages * LEAD_COST_PCT / 100 : j->pages;
}

/* Largest first, as the workers take them. */
static int by_cost(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x != y ? (x > y ? -1 : 1) : 0;
}

/* When @m texts of @cost (sorted here) end on @workers threads taking
 * them largest first, in pages' worth; UINT64_MAX when out of memory. */
static uint64_t lpt(uint64_t *cost, size_t m, unsigned int workers)
{
	uint64_t *load = calloc(workers + 1, sizeof(*load)), end = 0;

	if (!load)
		return UINT64_MAX;
	qsort(cost, m, sizeof(*cost), by_cost);
	for (size_t i = 0; i < m; i++) {
		unsigned int w = 0;

		for (unsigned int k = 1; k < workers; k++)
			if (load[k] < load[w])
				w = k;
		load[w] += cost[i];
		if (load[w] > end)
			end = load[w];
	}
	free(load);
	return end;
}

/*
 * When the texts of @jobs end on @workers threads taking them largest
 * first, in pages' worth, with the merged texts of the buffers that can
 * lead (@can, per job) making their CPU texts when @lead.
 */
static uint64_t makespan(const struct job *jobs, size_t n, const bool *can,
			 bool lead, unsigned int workers)
{
	uint64_t *cost = calloc(n + 1, sizeof(*cost)), end;
	size_t m = 0;

	if (!cost)
		return UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct tdatfs_text_key *k = &jobs[i].key;

		/* a CPU text of a leading buffer costs its leader */
		if (!(lead && !k->report && k->cpu >= 0 && can[i]))
			cost[m++] = job_cost(&jobs[i], lead && can[i]);
	}
	end = lpt(cost, m, workers);
	free(cost);
	return end;
}

/*
 * Whether each buffer that can lead does (tdatfs_text_produce_led()): when its
 * CPU texts made beside its merged text end the build no later than made
 * apart on @workers threads.  Made apart, the two cores of a machine
 * make a buffer's merged text and its CPU texts at once; on one, or
 * beside other texts, leading saves the CPU texts' formatting.
 */
static void plan_lead(struct tdatfs_text *t, struct job *jobs, size_t n,
		      unsigned int workers)
{
	bool *can = calloc(n + 1, sizeof(*can));

	if (!can)
		return;
	for (size_t i = 0; i < n; i++)
		can[i] = !jobs[i].key.report &&
			 tdatfs_text_can_lead(t, jobs[i].key.buffer);
	if (makespan(jobs, n, can, true, workers) <=
	    makespan(jobs, n, can, false, workers)) {
		for (size_t i = 0; i < n; i++) {
			jobs[i].lead = can[i] && jobs[i].key.cpu < 0;
			jobs[i].led = can[i] && jobs[i].key.cpu >= 0;
		}
	}
	free(can);
}

/*
 * Each part of a split text, in percent of the buffer's texts led in a
 * row: the first part takes five eighths of the largest CPU's pages
 * (text/stream-split.c), the second reads those pages' records for their
 * comms first (two fifths of their cost), then makes the rest.
 */
#define SPLIT_PART_PCT	63
/* A merged text of fewer pages is made in a row: its build takes no time
 * worth the second engine and the reading its second part does first. */
#define SPLIT_MIN_PAGES	256

/*
 * The buffer whose texts split in two parts on two threads, when that
 * ends the build sooner than the plan made so far (plan_lead()): the
 * one whose merged text is the largest.  Return: its merged text's job,
 * or -1: no split.
 */
static long plan_split(struct tdatfs_text *t, const struct job *jobs, size_t n,
		       unsigned int workers)
{
	uint64_t *now = calloc(n + 2, sizeof(*now)), *split = calloc(n + 2, sizeof(*split));
	size_t a = 0, m = 0;
	long big = -1;

	for (size_t i = 0; workers > 1 && i < n; i++)
		if (!jobs[i].key.report && jobs[i].key.cpu < 0 &&
		    tdatfs_text_can_lead(t, jobs[i].key.buffer) &&
		    jobs[i].pages >= SPLIT_MIN_PAGES &&
		    (big < 0 || jobs[i].pages > jobs[big].pages))
			big = (long)i;
	for (size_t i = 0; big >= 0 && now && split && i < n; i++) {
		uint64_t c = jobs[i].led ? 0 : job_cost(&jobs[i], jobs[i].lead);

		now[a++] = c;
		if (jobs[i].key.report || jobs[i].key.buffer != jobs[big].key.buffer)
			split[m++] = c;
	}
	if (big >= 0 && now && split) {
		split[m] = job_cost(&jobs[big], true) * SPLIT_PART_PCT / 100;
		split[m + 1] = split[m];
		if (lpt(split, m + 2, workers) >= lpt(now, a, workers))
			big = -1;
	} else {
		big = -1;
	}
	free(now);
	free(split);
	return big;
}

/*
 * Job @i's buffer made in two parts: it leads the first, job @n (room
 * for it made) the second, and each counts its share of the pages.
 */
static void make_split(struct job *jobs, size_t n, size_t i)
{
	struct job *j = &jobs[i], *p2 = &jobs[n];

	for (size_t k = 0; k < n; k++)
		if (!jobs[k].key.report && jobs[k].key.cpu >= 0 &&
		    jobs[k].key.buffer == j->key.buffer) {
			jobs[k].led = true;
			jobs[k].lead = false;
		}
	j->lead = true;
	j->part = 1;
	*p2 = *j;
	p2->part = 2;
	p2->index = SIZE_MAX;
}

/*
 * The jobs, largest first (a leader counting its CPU texts); *@total is
 * their pages.
 */
static struct job *make_jobs(struct tdatfs_text *t, const struct tdatfs_text_key *keys,
			     size_t n, unsigned int workers, uint64_t *total,
			     size_t *njobs)
{
	struct job *jobs = calloc(n + 1, sizeof(*jobs));
	long split;

	if (!jobs)
		return NULL;
	*total = 0;
	for (size_t i = 0; i < n; i++) {
		jobs[i].key = keys[i];
		jobs[i].index = i;
		jobs[i].pages = tdatfs_text_pages(t, &keys[i]);
		*total += jobs[i].pages;
	}
	plan_lead(t, jobs, n, workers);
	split = plan_split(t, jobs, n, workers);
	if (split >= 0)
		make_split(jobs, n, (size_t)split);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; jobs[i].lead && k < n; k++)
			if (jobs[k].led && jobs[k].key.buffer == jobs[i].key.buffer) {
				jobs[i].pages += jobs[k].pages;
				jobs[k].pages = 0;
			}
	*njobs = n;
	if (split >= 0) {
		/* the first part takes its share, the second the rest */
		jobs[n].pages = jobs[split].pages - jobs[split].pages * 5 / 8;
		jobs[split].pages = jobs[split].pages * 5 / 8;
		*njobs = n + 1;
	}
	qsort(jobs, *njobs, sizeof(*jobs), by_pages);
	return jobs;
}

static unsigned int thread_count(const struct tdatfs_index_opts *o, size_t n)
{
	long cores = o->threads ? (long)o->threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (cores < 1)
		cores = 1;
	if ((size_t)cores > n)
		cores = (long)(n ? n : 1);
	return (unsigned int)cores;
}

/* Wait for the workers, polling cancel and showing progress meanwhile. */
static void watch(struct build *b, struct tdatfs_progress *p, const _Atomic bool *cancel)
{
	struct timespec until;

	pthread_mutex_lock(&b->lock);
	while (b->running) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += WATCH_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&b->cond, &b->lock, &until);
		pthread_mutex_unlock(&b->lock);
		if (cancel && atomic_load(cancel))
			atomic_store(&b->stop, true);
		if (p)
			tdatfs_progress_update(p, pages_done(b));
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
}

/* Start up to @want workers; Return: how many run (0: errno of the first failure). */
static unsigned int start_workers(struct build *b, pthread_t *tids, unsigned int want,
				  int *err)
{
	unsigned int k;

	for (k = 0; k < want; k++) {
		pthread_mutex_lock(&b->lock);
		b->running++;
		pthread_mutex_unlock(&b->lock);
		*err = pthread_create(&tids[k], NULL, worker, b);
		if (*err) {
			pthread_mutex_lock(&b->lock);
			b->running--;
			pthread_mutex_unlock(&b->lock);
			break;
		}
	}
	return k;
}

static int build_init(struct build *b, struct tdat_file *f,
		      const struct tdatfs_index_opts *o)
{
	pthread_condattr_t ca;

	memset(b, 0, sizeof(*b));
	b->f = f;
	b->topts = o->text_opts;
	if (pthread_condattr_init(&ca))
		return -ENOMEM;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&b->lock, NULL);
	return 0;
}

/*
 * The split the plan made started on two engines of the build's: the
 * first part's job, and the second's, run at once.  A text that does not
 * split (too short, damaged where it would) is led in a row by the
 * first part's job alone.
 */
static void split_start(struct build *b)
{
	struct job *p1 = NULL, *p2 = NULL;

	for (size_t i = 0; i < b->n; i++) {
		if (b->jobs[i].part == 1)
			p1 = &b->jobs[i];
		else if (b->jobs[i].part == 2)
			p2 = &b->jobs[i];
	}
	if (!p1 || !p2)
		return;
	b->part[0] = tdatfs_text_new_like(b->like, b->topts);
	b->part[1] = tdatfs_text_new_like(b->like, b->topts);
	if (b->part[0] && b->part[1])
		b->split = tdatfs_text_split_new(b->part[0], b->part[1],
						 p1->key.buffer);
	if (b->split)
		return;
	tdatfs_text_free(b->part[0]);
	tdatfs_text_free(b->part[1]);
	b->part[0] = b->part[1] = NULL;
	p1->part = 0;
	p1->pages += p2->pages;
	/* no job: the workers pass it over, and it has no text */
	p2->part = 0;
	p2->led = true;
	p2->pages = 0;
}

/*
 * The parts of the split joined (or its texts made again in a row) and
 * their states saved from the first part's engine.  Return: 0 or a
 * negative errno.
 */
static int split_end(struct build *b, const _Atomic bool *cancel)
{
	struct job *p1 = NULL;
	int r = 0;

	for (size_t i = 0; i < b->n; i++)
		if (b->jobs[i].part == 1)
			p1 = &b->jobs[i];
	if (b->split && !b->err && !(cancel && atomic_load(cancel))) {
		r = tdatfs_text_split_join(b->split, cancel, NULL);
		if (r >= 0)
			r = save_led(b, b->part[0], p1);
		if (r < 0)
			build_fail(b, r, (size_t)(p1 - b->jobs));
		for (size_t i = 0; r >= 0 && i < b->n; i++)
			if (b->jobs[i].part)
				atomic_store_explicit(&b->jobs[i].done,
						      b->jobs[i].pages,
						      memory_order_relaxed);
	}
	tdatfs_text_split_free(b->split);
	tdatfs_text_free(b->part[0]);
	tdatfs_text_free(b->part[1]);
	b->split = NULL;
	return r < 0 ? r : 0;
}

/* What a text is called in a message. */
static void key_name(struct tdat_file *f, const struct tdatfs_text_key *k,
		     char *out, size_t len)
{
	const struct tdat_buffer *b = k->report ? NULL : tdat_buffer_get(f, k->buffer);
	const char *name = b && b->name[0] ? b->name : "top";

	if (k->report)
		snprintf(out, len, "the report");
	else if (k->cpu < 0 || !b || (unsigned int)k->cpu >= b->ncpus)
		snprintf(out, len, "the trace of buffer %s", name);
	else
		snprintf(out, len, "the trace of buffer %s cpu%u", name,
			 b->cpus[k->cpu].cpu);
}

/* Hand the states over in key order, or free them all. */
static int build_finish(struct build *b, const char *prog, const char *trace,
			bool cancelled, struct tdatfs_text_state *out)
{
	int r = cancelled ? -EINTR : b->err;

	if (r && r != -EINTR) {
		char what[128];

		key_name(b->f, &b->jobs[b->err_job].key, what, sizeof(what));
		fprintf(stderr, "%s: %s: cannot index %s: %s\n", prog, trace, what,
			strerror(-r));
	}
	for (size_t i = 0; i < b->n; i++) {
		struct job *j = &b->jobs[i];

		if (j->blob)
			tdat_cache_charge(b->f, j->len, true);
		if (r || j->index == SIZE_MAX) {
			free(j->blob);
			continue;
		}
		out[j->index].key = j->key;
		out[j->index].blob = j->blob;
		out[j->index].len = j->len;
	}
	return r;
}

/**
 * idx_build() - produce every text on worker threads and save their states
 * @t: the caller's engine, only asked for page counts
 * @f: its trace
 * @trace: its path, for messages
 * @o: options: threads, progress, text_opts, cancel, prog
 * @keys: the texts (tdatfs_text_keys())
 * @n: entries in @keys
 * @out: set, on success, to each text's state in @keys order; the blobs
 *	are the caller's (idx_texts_free())
 *
 * Return: 0, -EINTR when *@o->cancel became true, or the negative errno
 * of the first text that failed (a message says which).
 */
int idx_build(struct tdatfs_text *t, struct tdat_file *f, const char *trace,
	      const struct tdatfs_index_opts *o,
	      const struct tdatfs_text_key *keys, size_t n,
	      struct tdatfs_text_state *out)
{
	const char *prog = o->prog ? o->prog : "tdatfs";
	unsigned int want = thread_count(o, n), k;
	struct tdatfs_progress *p;
	struct build b;
	pthread_t *tids;
	uint64_t total = 0;
	int r;

	if (o->cancel && atomic_load(o->cancel))
		return -EINTR;
	r = build_init(&b, f, o);
	if (r)
		return r;
	b.like = t;
	b.jobs = make_jobs(t, keys, n, want, &total, &b.n);
	tids = calloc(want, sizeof(*tids));
	if (!b.jobs || !tids) {
		free(b.jobs);
		free(tids);
		return -ENOMEM;
	}
	split_start(&b);
	p = progress_start(trace, o, f, total);
	k = start_workers(&b, tids, want, &r);
	if (!k) {
		fprintf(stderr, "%s: %s: cannot start a thread to index: %s\n", prog,
			trace, strerror(r));
		b.stop = true;
	}
	watch(&b, p, o->cancel);
	for (unsigned int i = 0; i < k; i++)
		pthread_join(tids[i], NULL);
	split_end(&b, o->cancel);
	if (p)
		tdatfs_progress_end(p, pages_done(&b));
	tdatfs_progress_free(p);
	/* Without a worker there is no state to free, only the error. */
	r = k ? build_finish(&b, prog, trace, o->cancel && atomic_load(o->cancel), out) : -r;
	free(b.jobs);
	free(tids);
	pthread_cond_destroy(&b.cond);
	pthread_mutex_destroy(&b.lock);
	return r;
}

/**
 * idx_texts_free() - free the states idx_build() handed over
 * @texts: the texts, or NULL
 * @n: entries in @texts
 *
 * Frees each blob, not the array.
 */
void idx_texts_free(struct tdatfs_text_state *texts, size_t n)
{
	for (size_t i = 0; texts && i < n; i++) {
		free((void *)texts[i].blob);
		texts[i].blob = NULL;
	}
}
