/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common/progress.c - the progress line of long work and the signals
 * that stop it (invariants in tdatfs-common.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tdatfs-common.h"

#define SHOW_AFTER	1.0		/* seconds of work before a line */
#define TTY_EVERY	0.2		/* seconds between updates on a terminal */
#define PLAIN_EVERY	2.0		/* and between plain lines */

struct tdatfs_progress {
	struct tdatfs_progress_opts o;
	bool on, tty, shown;
	double start, next;
	int width;			/* of the last line on a terminal */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct tdatfs_progress *tdatfs_progress_new(const struct tdatfs_progress_opts *o)
{
	struct tdatfs_progress *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = *o;
	if (!p->o.unit_bytes)
		p->o.unit_bytes = 1;
	p->tty = isatty(STDERR_FILENO);
	p->on = o->total && (o->always || p->tty);
	p->start = now_s();
	return p;
}

static void show(struct tdatfs_progress *p, uint64_t done, double t, bool last)
{
	const struct tdatfs_progress_opts *o = &p->o;
	double secs = t - p->start;
	double mbs = (double)(done * o->unit_bytes) / 1e6 / secs;
	char line[256], left[48] = "";
	int len;

	if (done > o->total)
		done = o->total;
	if (done && done < o->total)
		snprintf(left, sizeof(left), ", %.0f s left",
			 secs * (double)(o->total - done) / (double)done);
	len = snprintf(line, sizeof(line), "%s: %s: %s: %u%% of %llu %s, %.1f MB/s%s",
		       o->prog, o->trace, o->what,
		       (unsigned int)(done * 100 / o->total),
		       (unsigned long long)o->total, o->unit, mbs, left);
	if (len < 0)
		return;
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;
	if (p->tty) {
		/* Spaces over what a longer line left, then back. */
		fprintf(stderr, "\r%s%*s%s", line, p->width > len ? p->width - len : 0, "",
			last ? "\n" : "");
		p->width = len;
	} else {
		fprintf(stderr, "%s\n", line);
	}
	fflush(stderr);
	p->shown = true;
	p->next = t + (p->tty ? TTY_EVERY : PLAIN_EVERY);
}

void tdatfs_progress_update(struct tdatfs_progress *p, uint64_t done)
{
	double t;

	if (!p || !p->on)
		return;
	t = now_s();
	if (t - p->start >= SHOW_AFTER && t >= p->next)
		show(p, done, t, false);
}

void tdatfs_progress_end(struct tdatfs_progress *p, uint64_t done)
{
	if (p && p->on && p->shown && p->tty)
		show(p, done, now_s(), true);
}

void tdatfs_progress_clear(struct tdatfs_progress *p)
{
	if (!p || !p->on || !p->shown || !p->tty)
		return;
	fprintf(stderr, "\r%*s\r", p->width, "");
	fflush(stderr);
	p->width = 0;
	p->shown = false;
	p->next = 0;
}

void tdatfs_progress_free(struct tdatfs_progress *p)
{
	free(p);
}

/* ---- signals that stop the work ----------------------------------------- */

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define STOP_SIGNALS	(sizeof(stop_signals) / sizeof(stop_signals[0]))

static _Atomic bool *stop_flag;
static volatile sig_atomic_t stop_signal;
static struct sigaction stop_saved[STOP_SIGNALS];

static void stop_work(int sig)
{
	stop_signal = sig;
	if (stop_flag)
		atomic_store(stop_flag, true);
}

void tdatfs_progress_stop_on_signals(_Atomic bool *cancel)
{
	struct sigaction sa = { .sa_handler = stop_work, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	stop_flag = cancel;
	stop_signal = 0;
	for (size_t i = 0; i < STOP_SIGNALS; i++) {
		sigaction(stop_signals[i], NULL, &stop_saved[i]);
		/* Ignored (nohup, a shell's background job): stays so. */
		if (stop_saved[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

int tdatfs_progress_restore(void)
{
	for (size_t i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &stop_saved[i], NULL);
	stop_flag = NULL;
	return stop_signal;
}
