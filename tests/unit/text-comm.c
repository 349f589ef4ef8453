/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text-comm.c - the comm model of fs/text/comm.h against a plain
 * emulation of libtraceevent 1.7.1 (a list, a stably sorted array that
 * entries are inserted into, glibc's bisection over it), on random
 * streams with many duplicate pids; then the same streams replayed from
 * every position with only the count a checkpoint keeps, by two cursors
 * in turn; and the same again from a model saved and loaded (replayed).
 * No trace file: the sched formats are parsed from text here.
 *
 * Usage: test-comm
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-common.h"
#include "check.h"
#include "text/comm.h"
#include "text/pack.h"

#define NSTEPS		600
#define NSTREAMS	300
#define MAXENT		(64 + 3 * NSTEPS)


static const char sw_fmt[] =
	"name: sched_switch\nID: 1\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:int prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:28;\tsize:16;\tsigned:1;\n"
	"\tfield:int next_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%d %d\", REC->prev_pid, REC->next_pid\n";
static const char wk_fmt[] =
	"name: sched_wakeup\nID: 2\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%d\", REC->pid\n";

/* One record of a stream: its pid, and the comms its handler registers. */
struct step {
	int id;			/* 1 sched_switch, 2 sched_wakeup, 3 other */
	int pid;
	int rpid[2];
	char rcomm[2][16];
	unsigned char data[48];
};

/* The plain emulation: entries in array order once the array exists. */
struct ref {
	int n;
	bool built;
	int pid[MAXENT];
	const char *comm[MAXENT];
};

static int handler(struct trace_seq *s, struct tep_record *r,
		   struct tep_event *ev, void *ctx)
{
	(void)s, (void)r, (void)ev, (void)ctx;
	return 0;
}

static void ref_register(struct ref *m, int pid, const char *comm)
{
	int i, j;

	if (!m->built) {	/* prepend */
		memmove(&m->pid[1], &m->pid[0], m->n * sizeof(*m->pid));
		memmove(&m->comm[1], &m->comm[0], m->n * sizeof(*m->comm));
		m->pid[0] = pid;
		m->comm[0] = comm;
		m->n++;
		return;
	}
	if (!pid)
		return;
	for (i = 0; i < m->n; i++)
		if (m->pid[i] == pid)
			return;
	for (j = 0; j < m->n && m->pid[j] < pid; j++)
		;
	memmove(&m->pid[j + 1], &m->pid[j], (m->n - j) * sizeof(*m->pid));
	memmove(&m->comm[j + 1], &m->comm[j], (m->n - j) * sizeof(*m->comm));
	m->pid[j] = pid;
	m->comm[j] = comm;
	m->n++;
}

/* cmdline_init(): a stable insertion sort of the list by pid. */
static void ref_build(struct ref *m)
{
	int i, j;

	for (i = 1; i < m->n; i++) {
		int p = m->pid[i];
		const char *c = m->comm[i];

		for (j = i; j > 0 && m->pid[j - 1] > p; j--) {
			m->pid[j] = m->pid[j - 1];
			m->comm[j] = m->comm[j - 1];
		}
		m->pid[j] = p;
		m->comm[j] = c;
	}
	m->built = true;
}

static const char *ref_lookup(struct ref *m, int pid)
{
	size_t l = 0, u;

	if (!pid)
		return "<idle>";
	if (!m->built)
		ref_build(m);
	u = m->n;
	while (l < u) {
		size_t i = (l + u) / 2;

		if (pid < m->pid[i])
			u = i;
		else if (pid > m->pid[i])
			l = i + 1;
		else
			return m->comm[i];
	}
	return "<...>";
}

static void put_i32(unsigned char *p, int v)
{
	memcpy(p, &v, 4);
}

/* A random record; leading ones run as the idle task. */
static void make_step(struct step *s, int k, int lead)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->id = 1 + rand() % 3;
	s->pid = k < lead ? 0 : rand() % 48;
	for (r = 0; r < 2; r++) {
		s->rpid[r] = rand() % 6 ? rand() % 48 : 0;
		snprintf(s->rcomm[r], sizeof(s->rcomm[r]), "r%d.%d", k, r);
	}
	s->data[0] = (unsigned char)s->id;
	put_i32(s->data + 4, s->pid);
	memcpy(s->data + 8, s->rcomm[0], 16);
	put_i32(s->data + 24, s->rpid[0]);
	if (s->id == 1) {
		memcpy(s->data + 28, s->rcomm[1], 16);
		put_i32(s->data + 44, s->rpid[1]);
	}
}

/* saved_cmdlines with duplicate pids, and the reference fed with it. */
static char *make_saved(struct ref *m)
{
	static char names[64][16];
	char *buf = malloc(64 * 24);
	int i, n = rand() % 40, len = 0;

	for (i = 0; i < n; i++) {
		int pid = rand() % 24;

		snprintf(names[i], sizeof(names[i]), "s%d", i);
		len += sprintf(buf + len, "%d %s\n", pid, names[i]);
		ref_register(m, pid, names[i]);
	}
	buf[len] = '\0';
	return buf;
}

/* One step through the model: the head's lookup, then the handler. */
static const char *model_step(const struct text_comms *cm,
			      struct text_comm_ctx *cc, const struct step *s)
{
	const char *c = text_comm_lookup(cm, cc, s->pid);

	CHECK(c);
	CHECK(text_comms_learn(cm, s->id, cc, s->data) == 0);
	return c;
}

static void ref_step(struct ref *m, const struct step *s, char *got,
		     size_t size)
{
	snprintf(got, size, "%s", ref_lookup(m, s->pid));
	if (s->id == 3)
		return;
	ref_register(m, s->rpid[0], s->rcomm[0]);
	if (s->id == 1)
		ref_register(m, s->rpid[1], s->rcomm[1]);
}

/* Two cursors replay from random positions; each line as first made. */
static void replay(const struct text_comms *cm, struct text_overlay *ov,
		   const struct step *st, char (*want)[16], const size_t *seen)
{
	size_t pos[2], cnt[2];
	int c, round;

	for (c = 0; c < 2; c++) {
		pos[c] = rand() % NSTEPS;
		cnt[c] = seen[pos[c]];
	}
	for (round = 0; round < 2 * NSTEPS; round++) {
		struct text_comm_ctx cc = { .ov = ov, .seen = &cnt[round & 1] };
		size_t *p = &pos[round & 1];
		const char *got;

		if (*p >= NSTEPS)
			continue;
		got = model_step(cm, &cc, &st[*p]);
		if (got && strcmp(got, want[*p])) {
			fprintf(stderr, "replay step %zu: %s, want %s\n", *p,
				got, want[*p]);
			failures++;
		}
		(*p)++;
		CHECK(*p >= NSTEPS || cnt[round & 1] == seen[*p]);
	}
}

/*
 * The model saved and loaded again (text_overlay_save(), _load()): every
 * truncation of its bytes refused, the whole taken, with as many
 * registrations as the stream made.  Return: the loaded model.
 */
static struct text_overlay *saved_again(const struct text_comms *cm,
					const struct text_overlay *ov, size_t nreg)
{
	struct tdatfs_buf b = { 0 };
	struct text_overlay *ov2;
	struct text_unpack u;
	size_t len, n;

	FATAL(text_overlay_save(ov, &b) == 0);
	for (len = 0; len < b.len; len += 1 + len / 8) {
		u = (struct text_unpack){ .p = (unsigned char *)b.p, .left = len };
		CHECK(text_overlay_check(&u, &n) == -EINVAL);
		u = (struct text_unpack){ .p = (unsigned char *)b.p, .left = len };
		ov2 = text_overlay_new();
		FATAL(ov2);
		CHECK(text_overlay_load(ov2, cm, &u) == -EINVAL);
		text_overlay_free(ov2);
	}
	u = (struct text_unpack){ .p = (unsigned char *)b.p, .left = b.len };
	CHECK(text_overlay_check(&u, &n) == 0 && !u.left && n == nreg);
	u = (struct text_unpack){ .p = (unsigned char *)b.p, .left = b.len };
	ov2 = text_overlay_new();
	FATAL(ov2);
	CHECK(text_overlay_load(ov2, cm, &u) == 0 && !u.left);
	tdatfs_buf_release(&b);
	return ov2;
}

static void one_stream(struct tep_handle *tep)
{
	static struct step st[NSTEPS];
	static char want[NSTEPS][16];
	static size_t seen[NSTEPS + 1];
	static struct ref m;
	char *saved, got[16];
	struct text_comms *cm;
	struct text_overlay *ov, *ov2;
	struct text_comm_ctx cc = { 0 };
	int k, lead = rand() % 8;

	memset(&m, 0, sizeof(m));
	saved = make_saved(&m);
	cm = text_comms_new(saved);
	ov = text_overlay_new();
	if (!cm || !ov)
		exit(1);
	text_comms_find_events(cm, tep);
	cc.ov = ov;
	cc.seen = &seen[NSTEPS];
	seen[NSTEPS] = 0;
	for (k = 0; k < NSTEPS; k++) {
		make_step(&st[k], k, lead);
		seen[k] = seen[NSTEPS];
		ref_step(&m, &st[k], want[k], sizeof(want[k]));
		snprintf(got, sizeof(got), "%s", model_step(cm, &cc, &st[k]));
		if (strcmp(got, want[k])) {
			fprintf(stderr, "step %d pid %d: %s, want %s\n", k,
				st[k].pid, got, want[k]);
			failures++;
		}
	}
	for (k = 0; k < 20; k++)
		replay(cm, ov, st, want, seen);
	/* a model made again from its bytes looks up as the first did */
	ov2 = saved_again(cm, ov, seen[NSTEPS]);
	for (k = 0; k < 20; k++)
		replay(cm, ov2, st, want, seen);
	text_overlay_free(ov2);
	text_overlay_free(ov);
	text_comms_free(cm);
	free(saved);
}

/*
 * saved_cmdlines lines at the edges of libtraceevent's sscanf("%d
 * %m[^\n]s"): space before the pid, signs, a tab, a comm glued to the
 * digits, a pid cut from a long to an int (a duplicate of 16 then), space
 * inside and after a comm, control bytes (part of the comm), and the
 * list ending at the first line with no comm (libtraceevent then returns
 * -1, having registered the lines before).  The oracle is libtraceevent
 * itself.
 */
static void odd_lines(void)
{
	static const char text[] =
		"  12 lead\n+13\tplus tab\n-14 minus\n15x glued\n"
		"4294967312 cut\n16   spaces  inside  \n17 \x01" "ctl\n"
		"22 \x1c" "fs\n00021 zeros\n18\n19 after\n";
	static const int pids[] = { 12, 13, -14, 15, 16, 17, 22, 21, 18, 19, 20 };
	struct tep_handle *tep = tep_alloc();
	char *mine = strdup(text);
	struct text_comms *cm = mine ? text_comms_new(mine) : NULL;
	size_t i, seen = 0;
	struct text_overlay *ov = text_overlay_new();
	struct text_comm_ctx cc = { .ov = ov, .seen = &seen };

	if (!tep || !cm || !ov) {
		fprintf(stderr, "odd lines: cannot set up\n");
		exit(1);
	}
	CHECK(tep_parse_saved_cmdlines(tep, text) == -1);
	for (i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
		const char *want = tep_data_comm_from_pid(tep, pids[i]);
		const char *got = text_comm_lookup(cm, &cc, pids[i]);

		if (!got || strcmp(got, want)) {
			fprintf(stderr, "odd lines: pid %d: %s, want %s\n",
				pids[i], got ? got : "(null)", want);
			failures++;
		}
	}
	text_overlay_free(ov);
	text_comms_free(cm);
	free(mine);
	tep_free(tep);
}

int main(void)
{
	struct tep_handle *tep = tep_alloc();
	int i;

	if (!tep)
		return 1;
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, sw_fmt, sizeof(sw_fmt) - 1, "sched") ||
	    tep_parse_event(tep, wk_fmt, sizeof(wk_fmt) - 1, "sched") ||
	    tep_register_event_handler(tep, 1, "sched", "sched_switch",
				       handler, NULL) < 0 ||
	    tep_register_event_handler(tep, 2, "sched", "sched_wakeup",
				       handler, NULL) < 0) {
		fprintf(stderr, "cannot parse the sched formats\n");
		return 1;
	}
	odd_lines();
	srand(1);
	for (i = 0; i < NSTREAMS; i++)
		one_stream(tep);
	tep_free(tep);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
