/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common-progress.c - fs/tdatfs-common.h: the line's shape and timing on
 * a file (stderr redirected), and the signals that stop work: caught,
 * remembered, put back, and an ignored one left ignored.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tdatfs-common.h"
#include "check.h"

static void wait_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts))
		;
}

/* Everything written to stderr while @fn runs, in @out. */
static void capture(void (*fn)(void), char *out, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	FATAL(tmp && saved >= 0);
	fflush(stderr);
	FATAL(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	fn();
	fflush(stderr);
	FATAL(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

static const struct tdatfs_progress_opts line_opts = {
	.prog = "prog", .trace = "t.dat", .what = "indexing", .unit = "pages",
	.unit_bytes = 4096, .total = 200, .always = true,
};

static void plain_lines(void)
{
	struct tdatfs_progress *p = tdatfs_progress_new(&line_opts);

	FATAL(p);
	tdatfs_progress_update(p, 10);	/* before a second: nothing */
	wait_s(1.05);
	tdatfs_progress_update(p, 50);
	tdatfs_progress_update(p, 60);	/* too soon after the last */
	tdatfs_progress_end(p, 200);	/* not a terminal: nothing */
	tdatfs_progress_free(p);
}

static void hidden(void)
{
	struct tdatfs_progress_opts o = line_opts;
	struct tdatfs_progress *p;

	o.always = false;		/* stderr is a file: never shown */
	p = tdatfs_progress_new(&o);
	FATAL(p);
	wait_s(1.05);
	tdatfs_progress_update(p, 50);
	tdatfs_progress_end(p, 200);
	tdatfs_progress_free(p);
}

static void test_line(void)
{
	char out[1024];

	capture(plain_lines, out, sizeof(out));
	CHECK(!strncmp(out, "prog: t.dat: indexing: 25% of 200 pages, ", 41));
	CHECK(strstr(out, " MB/s, ") && strstr(out, " s left\n"));
	CHECK(strchr(out, '\n') == out + strlen(out) - 1);	/* one line */
	CHECK(!strchr(out, '\r'));
	capture(hidden, out, sizeof(out));
	CHECK(!*out);
	tdatfs_progress_update(NULL, 1);
	tdatfs_progress_end(NULL, 1);
	tdatfs_progress_free(NULL);
}

static void test_signals(void)
{
	static _Atomic bool cancel;
	struct sigaction sa;

	signal(SIGHUP, SIG_IGN);
	tdatfs_progress_stop_on_signals(&cancel);
	raise(SIGHUP);			/* ignored before: stays ignored */
	CHECK(!atomic_load(&cancel));
	raise(SIGTERM);
	CHECK(atomic_load(&cancel));
	CHECK(tdatfs_progress_restore() == SIGTERM);
	sigaction(SIGTERM, NULL, &sa);
	CHECK(sa.sa_handler == SIG_DFL);
	sigaction(SIGHUP, NULL, &sa);
	CHECK(sa.sa_handler == SIG_IGN);
	/* A second round starts with no signal remembered. */
	atomic_store(&cancel, false);
	tdatfs_progress_stop_on_signals(&cancel);
	CHECK(tdatfs_progress_restore() == 0);
	CHECK(!atomic_load(&cancel));
}

int main(void)
{
	test_line();
	test_signals();
	return failures != 0;
}
