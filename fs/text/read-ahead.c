/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/read-ahead.c - stretches of finished texts produced ahead of
 * sequential readers on worker threads (text/read-ahead.h).
 *
 * A job is one stretch of one text: queued, running on a worker, or done
 * (its bytes in a buffer).  Jobs are found by text and start; every field
 * of a job but its buffer while it runs is used under the module's lock.
 * A reader copies from done jobs under the lock (a memcpy), waits on the
 * lock's condition for running ones, and takes queued ones away to
 * produce them itself.  A job is freed once a read copied its last byte,
 * or when it is stale (no recent reader of its text is near it); a
 * running job is then only marked abandoned, and its worker frees it.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tdatfs-text.h"
#include "read-ahead.h"
#include "stream.h"

/* Recent readers remembered (where their last read ended). */
#define NHINTS		8
/* Finished texts whose checkpoints are remembered. */
#define NTEXTS		16
/*
 * How far from a reader's last end a read still counts as the next one:
 * the kernel's readahead sends a few requests at once (up to 1 MiB each,
 * fuse/ops.c), which request threads may serve in any order.
 */
#define SEQ_SLACK	(4u << 20)
/* Text produced ahead of a sequential reader, at most. */
#define AHEAD_WINDOW	(AHEAD_BUDGET / 2)
/*
 * Jobs queued or held, at most: the stretches of a view can be a few
 * hundred bytes each, and jobs are found by a walk of their list.
 */
#define AHEAD_JOBS	64
/*
 * Stretches are joined into one job while it is shorter than
 * JOB_MIN_BYTES, up to JOB_STRETCHES of them: a job handed to a worker
 * and back costs a few context switches and a seek of its mirror.  A
 * view's stretches are a few hundred bytes of text, each made from a
 * full stretch of the text it is cut from; a full text's are 64 KiB at
 * first, and four of them a job took big.dat's cold `cat trace` from
 * 0.45 to 0.37 s on two cores (9,000 voluntary context switches to
 * 2,300), once the jobs' buffers were kept (below).
 */
#define JOB_MIN_BYTES	(256u << 10)
#define JOB_STRETCHES	8
/*
 * Buffers of jobs freed, kept for the next jobs: one of 256 KiB is above
 * glibc's mmap threshold, and each fresh one cost 64 page faults (100,000
 * for big.dat, a third of the gain above).  They count against
 * AHEAD_BUDGET with the jobs held, so memory stays within it: a job
 * queued takes the smallest spare that fits (its room moves from the
 * spares to the job) or counts the room it needs, for which spares that
 * fit no job are freed.
 */
#define SPARE_BUFS	8
/* A waiting reader polls its cancel hook this often. */
#define WAIT_NS		(10 * 1000 * 1000L)

enum job_state {
	JOB_QUEUED,
	JOB_RUNNING,
	JOB_DONE,
};

struct ahead_job {
	struct ahead_job *next;		/* every job, in no order */
	struct ahead_job *qnext;	/* the queue, while JOB_QUEUED */
	struct text_stream *full;
	uint64_t start, end;		/* the stretch */
	char *buf;			/* a spare, or made when it runs */
	size_t cap;			/* @buf's room, counted in held */
	size_t len;			/* bytes produced from @start */
	enum job_state state;
	_Atomic bool abandoned;		/* running, wanted by no one */
};

/* Where a recent reader's last read of a text ended. */
struct ahead_hint {
	struct text_stream *full;	/* NULL: free */
	uint64_t end;
	uint64_t used;			/* LRU tick */
};

/* A finished text: its checkpoints (text_stream_finished()). */
struct ahead_text {
	struct text_stream *full;	/* NULL: free */
	const uint64_t *ckpt;
	size_t n;
	uint64_t size;
	uint64_t used;
};

struct ahead_worker {
	struct text_read_ahead *a;
	pthread_t th;
	struct text_stream *full;	/* the text of @mirror */
	struct text_stream *mirror;
	struct ahead_job *job;		/* the one it runs, for its cancel hook */
	bool forgotten;			/* @full was freed: @mirror is stale */
};

struct text_read_ahead {
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job queued, or stop */
	pthread_cond_t done;		/* a job finished */
	_Atomic bool stop;
	bool started;
	unsigned int nthreads;
	unsigned int running;		/* workers started */
	struct ahead_worker *w;
	struct ahead_job *jobs;
	unsigned int njobs;
	struct ahead_job *qhead, **qtail;
	uint64_t held;			/* room of every job not freed */
	char *spare[SPARE_BUFS];	/* buffers of jobs freed */
	size_t spare_cap[SPARE_BUFS];
	unsigned int nspare;
	uint64_t spare_bytes;		/* their room; held + it <= AHEAD_BUDGET */
	uint64_t tick;
	struct ahead_hint hint[NHINTS];
	struct ahead_text text[NTEXTS];
};

/**
 * text_read_ahead_threads() - how many workers a pool has
 * @a: pool, or NULL
 *
 * For work of the same kind done elsewhere on as many threads (a view's
 * size, text/view-size.h).
 *
 * Return: its workers; 0 for NULL and for a pool of none.
 */
unsigned int text_read_ahead_threads(const struct text_read_ahead *a)
{
	return a ? a->nthreads : 0;
}

/**
 * text_read_ahead_new() - a pool of workers reading ahead
 * @nthreads: workers; 0 for none (every read is the text's own)
 *
 * The workers start at the first read that wants them.
 *
 * Return: the pool (free with text_read_ahead_free()), or NULL with errno set.
 */
struct text_read_ahead *text_read_ahead_new(unsigned int nthreads)
{
	struct text_read_ahead *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->w = calloc(nthreads + 1, sizeof(*a->w));
	if (!a->w) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	a->nthreads = nthreads;
	a->qtail = &a->qhead;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->work, NULL);
	pthread_cond_init(&a->done, NULL);
	return a;
}

/* Memory held ahead stays within the budget; lock held. */
static void budget_check(const struct text_read_ahead *a)
{
	assert(a->held + a->spare_bytes <= AHEAD_BUDGET);
	(void)a;
}

/* Take spare @i off the list; lock held.  Return: its buffer. */
static char *spare_pop(struct text_read_ahead *a, unsigned int i, size_t *cap)
{
	char *buf = a->spare[i];

	*cap = a->spare_cap[i];
	a->spare_bytes -= *cap;
	a->nspare--;
	a->spare[i] = a->spare[a->nspare];
	a->spare_cap[i] = a->spare_cap[a->nspare];
	return buf;
}

/*
 * The spare for a job of @room bytes (the smallest that fits), or
 * a->nspare if none does; lock held.
 */
static unsigned int spare_fit(const struct text_read_ahead *a, size_t room)
{
	unsigned int i, best = a->nspare;

	for (i = 0; i < a->nspare; i++)
		if (a->spare_cap[i] >= room &&
		    (best == a->nspare || a->spare_cap[i] < a->spare_cap[best]))
			best = i;
	return best;
}

/*
 * Free spares until @need more bytes fit in the budget; lock held.
 * Return: whether they fit.
 */
static bool spare_make_room(struct text_read_ahead *a, uint64_t need)
{
	size_t cap;

	while (a->held + a->spare_bytes + need > AHEAD_BUDGET && a->nspare)
		free(spare_pop(a, a->nspare - 1, &cap));
	return a->held + a->spare_bytes + need <= AHEAD_BUDGET;
}

/* Keep @buf of room @cap as a spare if the budget has room, else free it. */
static void spare_give(struct text_read_ahead *a, char *buf, size_t cap)
{
	if (!buf)
		return;
	if (a->nspare == SPARE_BUFS ||
	    a->held + a->spare_bytes + cap > AHEAD_BUDGET) {
		free(buf);
		return;
	}
	a->spare[a->nspare] = buf;
	a->spare_cap[a->nspare++] = cap;
	a->spare_bytes += cap;
	budget_check(a);
}

/* Lock held (or the pool is being freed). */
static void job_free(struct text_read_ahead *a, struct ahead_job *j)
{
	a->held -= j->cap;
	a->njobs--;
	spare_give(a, j->buf, j->cap);
	free(j);
}

/* Take @j off the job list (and the queue); lock held. */
static void job_unlink(struct text_read_ahead *a, struct ahead_job *j)
{
	struct ahead_job **pp;

	for (pp = &a->jobs; *pp; pp = &(*pp)->next) {
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	}
	if (j->state != JOB_QUEUED)
		return;
	for (pp = &a->qhead; *pp; pp = &(*pp)->qnext) {
		if (*pp == j) {
			*pp = j->qnext;
			break;
		}
	}
	if (!a->qhead)
		a->qtail = &a->qhead;
	else if (a->qtail == &j->qnext)
		for (a->qtail = &a->qhead; *a->qtail; a->qtail = &(*a->qtail)->qnext)
			;
}

/* Drop @j: freed, or, while a worker runs it, left to the worker. */
static void job_drop(struct text_read_ahead *a, struct ahead_job *j)
{
	job_unlink(a, j);
	if (j->state == JOB_RUNNING)
		atomic_store(&j->abandoned, true);
	else
		job_free(a, j);
}

/**
 * text_read_ahead_free() - stop the workers and free the pool; NULL is fine
 * @a: pool
 *
 * Running jobs are cancelled; the call returns once every worker ended.
 */
void text_read_ahead_free(struct text_read_ahead *a)
{
	unsigned int i;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	atomic_store(&a->stop, true);
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	for (i = 0; i < a->running; i++)
		pthread_join(a->w[i].th, NULL);
	while (a->jobs)
		job_drop(a, a->jobs);
	for (i = 0; i < a->nthreads; i++)
		text_stream_free(a->w[i].mirror);
	for (i = 0; i < a->nspare; i++)
		free(a->spare[i]);
	pthread_cond_destroy(&a->work);
	pthread_cond_destroy(&a->done);
	pthread_mutex_destroy(&a->lock);
	free(a->w);
	free(a);
}

/* A worker's cancel hook: the pool stops, or no one wants its job. */
static bool worker_cancelled(void *ctx)
{
	struct ahead_worker *w = ctx;

	return atomic_load(&w->a->stop) || atomic_load(&w->job->abandoned);
}

/*
 * The mirror of @j's text for @w, made when it is not the one of the
 * last job (or that text was freed since); lock held, so that a view's
 * stream is not freed while its mirror is made (text_read_ahead_forget()
 * takes the lock).  Return: 0, or a negative errno.
 */
static int mirror_get(struct ahead_worker *w, const struct ahead_job *j)
{
	if (w->mirror && w->full == j->full && !w->forgotten)
		return 0;
	text_stream_free(w->mirror);
	w->forgotten = false;
	w->full = j->full;
	w->mirror = text_stream_new_mirror(j->full);
	return w->mirror ? 0 : -errno;
}

/*
 * Produce @j through @w's mirror of its text.  Return: 0, or the errno of
 * the reads, the bytes made before it in j->len.
 */
static int job_run(struct ahead_worker *w, struct ahead_job *j)
{
	size_t size = j->end - j->start;
	ssize_t r = 0;

	if (!j->buf) {
		j->buf = malloc(j->cap);
		if (!j->buf)
			return -ENOMEM;
	}
	w->job = j;
	tdatfs_text_cancel_set(worker_cancelled, w);
	while (j->len < size) {
		r = text_stream_read(w->mirror, j->buf + j->len, size - j->len,
				     j->start + j->len);
		if (r <= 0)
			break;
		j->len += r;
	}
	tdatfs_text_cancel_set(NULL, NULL);
	return r < 0 ? (int)r : 0;
}

static void *worker_main(void *arg)
{
	struct ahead_worker *w = arg;
	struct text_read_ahead *a = w->a;
	struct ahead_job *j;
	bool ok;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		if (atomic_load(&a->stop))
			break;
		j = a->qhead;
		if (!j) {
			pthread_cond_wait(&a->work, &a->lock);
			continue;
		}
		a->qhead = j->qnext;
		if (!a->qhead)
			a->qtail = &a->qhead;
		j->state = JOB_RUNNING;
		ok = mirror_get(w, j) == 0;
		pthread_mutex_unlock(&a->lock);
		/* an error leaves the bytes before it: the reader does the rest */
		if (ok)
			job_run(w, j);
		pthread_mutex_lock(&a->lock);
		j->state = JOB_DONE;
		if (atomic_load(&j->abandoned))
			job_free(a, j);
		pthread_cond_broadcast(&a->done);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* Start the workers once; lock held.  Those that do not start are not there. */
static void workers_start(struct text_read_ahead *a)
{
	unsigned int i;

	if (a->started)
		return;
	a->started = true;
	for (i = 0; i < a->nthreads; i++) {
		a->w[i].a = a;
		if (pthread_create(&a->w[i].th, NULL, worker_main, &a->w[i]))
			break;
		/* what ps -L and /proc/PID/task show (the tests look) */
		pthread_setname_np(a->w[i].th, "tdat-ahead");
		a->running++;
	}
}

/* The job of @full holding @off, or NULL; lock held. */
static struct ahead_job *job_find(struct text_read_ahead *a,
				  const struct text_stream *full, uint64_t off)
{
	struct ahead_job *j;

	for (j = a->jobs; j; j = j->next)
		if (j->full == full && j->start <= off && off < j->end)
			return j;
	return NULL;
}

/* The index of the stretch of @tx holding @off (< its size). */
static size_t stretch_of(const struct ahead_text *tx, uint64_t off)
{
	size_t lo = 0, hi = tx->n;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (tx->ckpt[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t stretch_end(const struct ahead_text *tx, size_t k)
{
	return k + 1 < tx->n ? tx->ckpt[k + 1] : tx->size;
}

/*
 * The checkpoints of @full into *@out, remembered: false while it is not
 * finished.  Takes the lock of @full (not ours) the first time.
 */
static bool text_get(struct text_read_ahead *a, struct text_stream *full,
		     struct ahead_text *out)
{
	struct ahead_text *tx, *victim = &a->text[0];
	unsigned int i;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < NTEXTS; i++) {
		tx = &a->text[i];
		if (tx->full == full) {
			tx->used = ++a->tick;
			*out = *tx;
			pthread_mutex_unlock(&a->lock);
			return true;
		}
		if (!tx->full || (victim->full && tx->used < victim->used))
			victim = tx;
	}
	pthread_mutex_unlock(&a->lock);
	out->full = full;
	if (text_stream_finished(full, &out->ckpt, &out->n, &out->size) < 0 ||
	    !out->n)
		return false;
	pthread_mutex_lock(&a->lock);
	out->used = ++a->tick;
	*victim = *out;
	pthread_mutex_unlock(&a->lock);
	return true;
}

/* The reader of @full whose last read ended nearest @off, or NULL. */
static struct ahead_hint *hint_find(struct text_read_ahead *a,
				    const struct text_stream *full, uint64_t off)
{
	struct ahead_hint *best = NULL;
	uint64_t d, bd = 0;
	unsigned int i;

	for (i = 0; i < NHINTS; i++) {
		struct ahead_hint *h = &a->hint[i];

		if (h->full != full)
			continue;
		d = off > h->end ? off - h->end : h->end - off;
		if (d <= SEQ_SLACK && (!best || d < bd)) {
			best = h;
			bd = d;
		}
	}
	return best;
}

/*
 * A read of @full ended at @end: its reader @h moves on, or is new.
 * Return: its hint.
 */
static struct ahead_hint *hint_note(struct text_read_ahead *a,
				    struct ahead_hint *h,
				    struct text_stream *full, uint64_t end)
{
	unsigned int i;

	if (!h) {
		h = &a->hint[0];
		for (i = 1; i < NHINTS && h->full; i++)
			if (!a->hint[i].full || a->hint[i].used < h->used)
				h = &a->hint[i];
		h->full = full;
		h->end = end;
	} else if (end > h->end) {
		h->end = end;
	}
	h->used = ++a->tick;
	return h;
}

/* Whether no reader of its text is near @j any more. */
static bool job_stale(const struct text_read_ahead *a,
		      const struct ahead_job *j)
{
	unsigned int i;

	for (i = 0; i < NHINTS; i++) {
		const struct ahead_hint *h = &a->hint[i];

		if (h->full == j->full && j->end + SEQ_SLACK > h->end &&
		    j->start < h->end + AHEAD_WINDOW + SEQ_SLACK)
			return false;
	}
	return true;
}

/* Drop the stale jobs; lock held. */
static void sweep(struct text_read_ahead *a)
{
	struct ahead_job *j, *next;

	for (j = a->jobs; j; j = next) {
		next = j->next;
		if (job_stale(a, j))
			job_drop(a, j);
	}
}

/*
 * Queue the stretches of @tx that start in [@pos, @to) and have no job,
 * as the budget allows; lock held.
 */
static void queue_range(struct text_read_ahead *a, const struct ahead_text *tx,
			uint64_t pos, uint64_t to)
{
	struct ahead_job *j;
	bool queued = false;
	size_t k;

	if (pos >= tx->size)
		return;
	k = stretch_of(tx, pos);
	/* the reader goes on from its cursor inside this one */
	if (tx->ckpt[k] < pos)
		k++;
	for (; k < tx->n && tx->ckpt[k] < to; k++) {
		uint64_t start = tx->ckpt[k], end = stretch_end(tx, k);
		unsigned int m = 1, s;

		if (job_find(a, tx->full, start))
			continue;
		/* short stretches (a view's) go together, up to a job taken */
		while (m < JOB_STRETCHES && end - start < JOB_MIN_BYTES &&
		       k + 1 < tx->n && tx->ckpt[k + 1] < to &&
		       !job_find(a, tx->full, tx->ckpt[k + 1])) {
			k++;
			m++;
			end = stretch_end(tx, k);
		}
		/* a spare taken moves from spare_bytes to held: no more room */
		s = spare_fit(a, end - start + 1);
		if (a->njobs >= AHEAD_JOBS ||
		    (s == a->nspare && !spare_make_room(a, end - start + 1)))
			break;
		j = calloc(1, sizeof(*j));
		if (!j)
			break;
		if (s < a->nspare)
			j->buf = spare_pop(a, s, &j->cap);
		else
			j->cap = end - start + 1;
		j->full = tx->full;
		j->start = start;
		j->end = end;
		j->state = JOB_QUEUED;
		j->next = a->jobs;
		a->jobs = j;
		*a->qtail = j;
		a->qtail = &j->qnext;
		a->held += j->cap;
		a->njobs++;
		budget_check(a);
		queued = true;
	}
	if (!queued)
		return;
	workers_start(a);
	pthread_cond_broadcast(&a->work);
}

/* The stretches after @pos, as far as a reader is read ahead; lock held. */
static void queue_ahead(struct text_read_ahead *a, const struct ahead_text *tx,
			uint64_t pos)
{
	queue_range(a, tx, pos, pos + AHEAD_WINDOW);
}

/*
 * A read of @full from @off has come to @end: its reader's hint moves on
 * at once, so that a read served out of order beside it does not queue
 * the text it passed.  Lock held.
 */
static void progress(struct text_read_ahead *a, struct text_stream *full,
		     uint64_t off, uint64_t end)
{
	hint_note(a, hint_find(a, full, off), full, end);
}

/* Wait a while for a job to finish; lock held. */
static void wait_done(struct text_read_ahead *a)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += WAIT_NS;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&a->done, &a->lock, &ts);
}

/*
 * Serve [@off, @off + @len) of @tx's text from jobs where they have it,
 * from the text's stream where not.  Lock held (dropped while the stream
 * reads).  Return: bytes, or a negative errno with none.
 */
static ssize_t serve(struct text_read_ahead *a, const struct ahead_text *tx,
		     char *buf, size_t len, uint64_t off, bool span)
{
	struct ahead_job *j;
	size_t done = 0;
	uint64_t end;
	ssize_t r;

	while (done < len && off + done < tx->size) {
		uint64_t pos = off + done;
		size_t k;

		/* the rest of a read of many stretches, as jobs are used */
		if (span && done && a->njobs < AHEAD_JOBS / 2)
			queue_range(a, tx, pos + 1, off + len);
		k = stretch_of(tx, pos);
		end = stretch_end(tx, k);
		j = job_find(a, tx->full, pos);
		if (j && j->state == JOB_RUNNING) {
			if (text_stream_cancelled())
				return -EINTR;
			wait_done(a);
			continue;
		}
		if (j && j->state == JOB_DONE && pos < j->start + j->len) {
			size_t n = j->start + j->len - pos;

			if (n > len - done)
				n = len - done;
			memcpy(buf + done, j->buf + (pos - j->start), n);
			done += n;
			if (pos + n == j->end)
				job_drop(a, j);
			progress(a, tx->full, off, off + done);
			continue;
		}
		/* queued, or stopped short (an error): the rest is ours */
		if (j)
			job_drop(a, j);
		pthread_mutex_unlock(&a->lock);
		r = text_stream_read(tx->full, buf + done,
				     len - done < end - pos ? len - done : end - pos,
				     pos);
		pthread_mutex_lock(&a->lock);
		if (r == -EINTR)
			return r;
		if (r <= 0)
			return done ? (ssize_t)done : r;
		progress(a, tx->full, off, off + done + r);
		done += r;
	}
	return done;
}

/**
 * text_read_ahead_read() - text_stream_read() of a text, helped by the workers
 * @a: pool; NULL: none
 * @full: the text's stream
 * @buf: destination
 * @len: bytes wanted
 * @off: offset in the text
 * @span: the stretches the read spans are made by the workers too (a
 *	view's, short enough that one read spans hundreds of them)
 *
 * Of a finished text, a read that follows a recent one (starts near its
 * end) has the stretches after it queued for the workers.
 *
 * Return: what text_stream_read() of @full returns: bytes read (0 at the
 * end), or a negative errno (-EINTR when this thread's cancel hook says so).
 * Context: takes the pool's lock, and the locks text_stream_read() takes.
 */
ssize_t text_read_ahead_read(struct text_read_ahead *a,
			     struct text_stream *full, char *buf, size_t len,
			     uint64_t off, bool span)
{
	struct ahead_text tx;
	bool seq;
	ssize_t r;

	if (!a || !a->nthreads || !len || !text_get(a, full, &tx) ||
	    off >= tx.size)
		return text_stream_read(full, buf, len, off);
	pthread_mutex_lock(&a->lock);
	seq = hint_find(a, full, off);
	/* the stretches the read spans after its first one */
	if (span)
		queue_range(a, &tx, off + 1, off + len);
	r = serve(a, &tx, buf, len, off, span);
	if (r > 0) {
		struct ahead_hint *h = hint_find(a, full, off + r);

		sweep(a);
		/*
		 * From the furthest end of its reads: the text before it has
		 * been read, or is being read by a request served out of order.
		 */
		if (seq && h)
			queue_ahead(a, &tx, h->end);
	}
	pthread_mutex_unlock(&a->lock);
	return r;
}

/**
 * text_read_ahead_forget() - a text is about to be freed
 * @a: pool; NULL: none
 * @full: the text's stream, still alive
 *
 * Its jobs are dropped (a running one is left to its worker, which frees
 * it), and nothing remembers it any more, so that a stream made later at
 * the same address is not taken for it.
 */
void text_read_ahead_forget(struct text_read_ahead *a, struct text_stream *full)
{
	struct ahead_job *j, *next;
	unsigned int i;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	for (j = a->jobs; j; j = next) {
		next = j->next;
		if (j->full == full)
			job_drop(a, j);
	}
	for (i = 0; i < NHINTS; i++)
		if (a->hint[i].full == full)
			a->hint[i].full = NULL;
	for (i = 0; i < NTEXTS; i++)
		if (a->text[i].full == full)
			a->text[i].full = NULL;
	for (i = 0; i < a->nthreads; i++)
		if (a->w[i].full == full)
			a->w[i].forgotten = true;
	pthread_mutex_unlock(&a->lock);
}
