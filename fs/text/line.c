/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/line.c - the report line(s) of one record.
 *
 * The fixed part of a line ("%16s-%-5d [%03d] %5llu.%06llu: %s: " and the
 * padding of the name) is written here without printf; the info text of
 * an event compiled by text/compiled/program.c is written without printf and
 * without the tep lock (the comms a compiled sched handler registers are
 * learned here, as after libtraceevent's printing); every other event
 * goes through libtraceevent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tdatfs-common.h"
#include "comm.h"
#include "compiled.h"
#include "decimal.h"
#include "event-table.h"
#include "ftrace-funcgraph.h"
#include "ftrace-function.h"
#include "line.h"
#include "source.h"
#include "tep.h"
#include "timestamp.h"

/* Room after a copied record: a __data_loc field can point up to 64 KiB
 * past the payload with a length up to 64 KiB; zeroes there keep a bad
 * record from making libtraceevent read outside our memory. */
#define SCRATCH_SLACK	(2 * 65536 + 64)

/* A record may end at the start of its last array (text_fit_check()):
 * libtraceevent's raw printing then reads all of the array from here. */
_Static_assert(SCRATCH_SLACK >= TEXT_FIT_SHORT_MAX,
	       "the slack holds a short last array");

struct text_fmt {
	struct text_tep *tt;
	struct text_events *evs;
	const struct text_comms *cm;
	struct text_funcgraph *graph;	/* owned; NULL until enabled */
	struct text_func *func;		/* owned; NULL until enabled */
	bool big_endian;
	bool in_usecs;
	/* used under the tep lock only */
	struct trace_seq seq;
	unsigned char *scratch;		/* record copy + zeroed slack */
	size_t scratch_size;
};

/**
 * text_fmt_new() - a formatter for the records of a trace
 * @tt: the libtraceevent handle
 * @evs: the event table
 * @cm: the comms
 * @ts: timestamp settings; these four must outlive the formatter
 * @big_endian: byte order of the file
 * @max_page: the largest page size of the trace's buffers
 *
 * Return: the formatter (free with text_fmt_free()), or NULL with errno set.
 */
struct text_fmt *text_fmt_new(struct text_tep *tt, struct text_events *evs,
			      const struct text_comms *cm,
			      const struct text_timestamp *ts, bool big_endian,
			      size_t max_page)
{
	struct text_fmt *fm = calloc(1, sizeof(*fm));

	if (!fm)
		return NULL;
	fm->tt = tt;
	fm->evs = evs;
	fm->cm = cm;
	fm->big_endian = big_endian;
	fm->in_usecs = text_timestamp_in_usecs(ts);
	fm->scratch_size = max_page + SCRATCH_SLACK;
	fm->scratch = calloc(1, fm->scratch_size);
	if (!fm->scratch) {
		free(fm);
		errno = ENOMEM;
		return NULL;
	}
	trace_seq_init(&fm->seq);
	return fm;
}

/**
 * text_fmt_free() - free a formatter; NULL is fine
 * @fm: formatter
 */
void text_fmt_free(struct text_fmt *fm)
{
	if (!fm)
		return;
	trace_seq_destroy(&fm->seq);
	text_funcgraph_free(fm->graph);
	text_func_free(fm->func);
	free(fm->scratch);
	free(fm);
}

/**
 * text_fmt_enable_graph() - print funcgraph records as trace-cmd does
 * @fm: formatter
 * @f: the trace the formatter was made for; must outlive it
 *
 * Context: at setup, before any stream is made.
 * Return: 0 or -ENOMEM.
 */
int text_fmt_enable_graph(struct text_fmt *fm, struct tdat_file *f)
{
	fm->graph = text_funcgraph_new(f, fm->tt, fm->evs, fm->big_endian);
	return fm->graph ? 0 : -ENOMEM;
}

/**
 * text_fmt_enable_func() - print function records from per-stream stacks
 * @fm: formatter
 * @f: the trace (only read now)
 *
 * Return: 0 or -ENOMEM.
 */
int text_fmt_enable_func(struct text_fmt *fm, struct tdat_file *f)
{
	fm->func = text_func_new(f, fm->tt, fm->big_endian);
	return fm->func ? 0 : -ENOMEM;
}

/**
 * text_fmt_func() - the function tracer's formatter
 * @fm: formatter
 *
 * Return: it, or NULL when not enabled; it lives as long as @fm.
 */
struct text_func *text_fmt_func(struct text_fmt *fm)
{
	return fm->func;
}

/**
 * text_fmt_lookahead() - whether a record's text may depend on records of
 * other CPUs of its buffer (a function_graph entry's does)
 * @fm: formatter
 *
 * Return: true when a stream of one CPU must read every CPU for it.
 */
bool text_fmt_lookahead(const struct text_fmt *fm)
{
	return text_funcgraph_lookahead(fm->graph);
}

/**
 * text_fmt_peeks() - whether a record of event @id looks at the records
 * after it (text_funcgraph_peeks())
 * @fm: formatter
 * @id: event id
 *
 * Return: true for a funcgraph entry of a trace with both formats.
 */
bool text_fmt_peeks(const struct text_fmt *fm, int id)
{
	return text_funcgraph_peeks(fm->graph, id);
}

/**
 * text_fmt_cpu_lookahead() - whether one CPU's text must read every CPU
 * @fm: formatter
 * @src: a fresh source over that one CPU; read to its end (or to the
 *	first record that looks ahead) and left there
 *
 * Every trace-cmd trace holds the funcgraph formats, whatever its tracer,
 * but only a funcgraph entry's text depends on the records after it
 * (text_funcgraph_peeks()): a CPU without one prints the same lines from its
 * own records alone, and reading the other CPUs for it is wasted.
 *
 * Return: 1 when the source holds a record that looks ahead, 0 when not,
 * or a negative errno of the reads.
 */
int text_fmt_cpu_lookahead(struct text_fmt *fm, struct text_source *src)
{
	struct tdatfs_buf markers = { 0 };
	const struct text_rec *r;
	int ret, id;

	if (!text_fmt_lookahead(fm))
		return 0;
	for (;;) {
		ret = text_source_peek_index(src, 0, &markers, &r);
		markers.len = 0;
		if (ret < 0 || !r)
			break;
		if (text_fmt_record_id(fm, r, &id) && text_fmt_peeks(fm, id)) {
			ret = 1;
			break;
		}
		ret = text_source_consume_index(src, 0, &markers);
		markers.len = 0;
		if (ret < 0)
			break;
	}
	tdatfs_buf_release(&markers);
	return ret < 0 ? ret : ret == 1;
}

static char *put_chars(char *o, char c, unsigned int n)
{
	memset(o, c, n);
	return o + n;
}

/* printf("%<width>llu") and printf("%0<width>llu") */
static char *put_u64_width(char *o, uint64_t v, unsigned int width, char pad)
{
	unsigned int nd = text_dec_digits(v);

	if (nd < width)
		o = put_chars(o, pad, width - nd);
	return text_dec_put(o, v, nd);
}

/*
 * printf("%5llu", sec): the text of a value alone, so each thread keeps
 * the last one it made.  Lines share their second for thousands of
 * records; which stream asks makes no difference.
 */
static inline __attribute__((always_inline)) char *put_sec(char *o,
							   uint64_t sec)
{
	static __thread uint64_t last = UINT64_MAX;
	static __thread unsigned int len;
	static __thread char txt[8];

	if (sec != last) {
		if (sec >= 100000000)	/* more than eight bytes */
			return put_u64_width(o, sec, 5, ' ');
		len = (unsigned int)(put_u64_width(txt, sec, 5, ' ') - txt);
		last = sec;
	}
	/* all eight: a fixed-size copy; the caller has room past the end */
	memcpy(o, txt, sizeof(txt));
	return o + len;
}

/* printf("%-5d") */
static char *put_pid(char *o, int pid)
{
	uint64_t v = pid < 0 ? -(int64_t)pid : pid;
	unsigned int nd = text_dec_digits(v), len = nd + (pid < 0);

	if (pid < 0)
		*o++ = '-';
	o = text_dec_put(o, v, nd);
	return len < 5 ? put_chars(o, ' ', 5 - len) : o;
}

/* printf("%03d") */
static char *put_cpu(char *o, int cpu)
{
	uint64_t v = cpu < 0 ? -(int64_t)cpu : cpu;
	unsigned int nd = text_dec_digits(v), len = nd + (cpu < 0);

	if (cpu < 0)
		*o++ = '-';
	if (len < 3)
		o = put_chars(o, '0', 3 - len);
	return text_dec_put(o, v, nd);
}

/* Twenty spaces and more: a pad copied whole, then cut by the pointer. */
static const char spaces[32] = "                                ";

/*
 * "%16s-%-5d [%03d]" of a pid on a CPU: its comm looked up, the text
 * written at @o.  Return: the end, or NULL when out of memory.
 */
static char *put_task(int pid, unsigned int cpu, const char *comm, size_t clen,
		      char *o)
{
	if (clen < 16) {
		/* 16 bytes of spaces, the comm over their end */
		memcpy(o, spaces, 16);
		o += 16 - clen;
	}
	memcpy(o, comm, clen);
	o += clen;
	*o++ = '-';
	o = put_pid(o, pid);
	*o++ = ' ';
	*o++ = '[';
	o = put_cpu(o, (int)cpu);
	*o++ = ']';
	return o;
}

/*
 * The head of a line at @o, the start of @out's reserved room of @room
 * bytes, made (the pid's comm looked up) and kept in @h when not NULL.
 * A comm over 16 bytes reserves again, *@o moving with the room.
 * Out of line: put_head() calls it for the few lines whose head changed.
 * Return: the end, or NULL when out of memory.
 */
static __attribute__((noinline)) char *
head_make(const struct text_fmt *t, const struct text_comm_ctx *cc,
	  struct text_head *h, int pid, unsigned int cpu, char **o,
	  size_t room, struct tdatfs_buf *out)
{
	const char *comm;
	size_t clen, len;
	char *end;

	comm = text_comm_lookup(t->cm, cc, pid);
	if (!comm)
		return NULL;
	clen = strlen(comm);
	/* the caller's room is for a comm of 16 */
	if (clen > 16) {
		*o = tdatfs_buf_reserve(out, room + clen);
		if (!*o)
			return NULL;
	}
	end = put_task(pid, cpu, comm, clen, *o);
	len = end - *o;
	if (h && len <= TEXT_HEAD_MAX) {
		memcpy(h->txt, *o, len);
		h->len = (unsigned int)len;
		h->pid = pid;
		h->cpu = cpu;
		h->seen = *cc->seen;
	}
	return end;
}

/*
 * The head of a line at *@o, as head_make(): copied from the position's
 * heads when it made one for the same pid, CPU and visible comms (struct
 * text_heads), which most lines are.  Return: the end, or NULL when out
 * of memory.
 */
static inline __attribute__((always_inline)) char *
put_head(const struct text_fmt *t, const struct text_comm_ctx *cc, int pid,
	 unsigned int cpu, char **o, size_t room, struct tdatfs_buf *out)
{
	struct text_head *h = NULL;

	if (cc->heads) {
		h = &cc->heads->h[cpu % TEXT_HEADS];
		if (h->len && h->pid == pid && h->cpu == cpu &&
		    h->seen == *cc->seen) {
			/* all of it: a fixed-size copy, room was reserved */
			memcpy(*o, h->txt, TEXT_HEAD_MAX);
			return *o + h->len;
		}
	}
	return head_make(t, cc, h, pid, cpu, o, room, out);
}

/*
 * The fixed part, as trace-cmd's "%16s-%-5d [%03d]", " %6.1000d:" (or
 * "%12d:" for a clock not in nanoseconds) and " %s: " with the name
 * padded to 20.  libtraceevent 1.7.1 prints "%5llu.%06llu" of the
 * microseconds for any time, also one under a second (a wrapped one).
 * @tail, when not NULL, is the event's name already padded (struct
 * text_event_desc).  Inlined: every line makes one, and its call frame
 * cost a tenth of it.
 */
static inline __attribute__((always_inline)) int
put_header(const struct text_fmt *t, const struct text_comm_ctx *cc, int pid,
	   unsigned int cpu, uint64_t ts, const char *name, size_t nlen,
	   const char *tail, struct tdatfs_buf *out, size_t *head_end)
{
	char *o, *start;

	/* a head of a comm of 16 (longer ones reserve again), the time,
	 * the name and its pad: 48 + 2 + 24 + 4 + 32 + 20 */
	size_t room = nlen + 160;

	start = tdatfs_buf_reserve(out, room);
	if (!start)
		return -ENOMEM;
	o = put_head(t, cc, pid, cpu, &start, room, out);
	if (!o)
		return -ENOMEM;
	if (head_end)
		*head_end = out->len + (size_t)(o - start);
	if (!t->in_usecs) {
		o = put_u64_width(o, ts, 12, ' ');
	} else {
		/* libtraceevent rounds, wrapping as it does */
		uint64_t us = (ts + 500) / 1000;
		uint64_t sec = us / 1000000;

		*o++ = ' ';
		o = put_sec(o, sec);
		*o++ = '.';
		/* "%06llu" of the rest: six digits, no count needed */
		o = text_dec_put6(o, (uint32_t)(us - sec * 1000000));
	}
	*o++ = ':';
	*o++ = ' ';
	if (tail) {
		/* all of it: a fixed-size copy, room was reserved */
		memcpy(o, tail, TEXT_TAIL_ROOM);
		o += TEXT_TAIL_LEN;
	} else {
		memcpy(o, name, nlen);
		o += nlen;
		*o++ = ':';
		*o++ = ' ';
		if (nlen < 20) {
			memcpy(o, spaces, 20);
			o += 20 - nlen;
		}
	}
	out->len += o - start;
	return 0;
}

/* Append a trace_seq's text: one trailing newline dropped, up to a NUL. */
static int put_seq(const struct trace_seq *s, struct tdatfs_buf *out)
{
	size_t len = s->buffer ? s->len : 0;

	if (len && s->buffer[len - 1] == '\n')
		len--;
	if (len)
		len = strnlen(s->buffer, len);
	return tdatfs_buf_put(out, s->buffer ? s->buffer : "", len);
}

/* The marker line of a record that does not parse; 1: the caller records
 * the damage (text_format_record()). */
static int damaged(const struct text_rec *r, struct tdatfs_buf *out)
{
	int ret = tdatfs_buf_printf(out,
		"[tdatfs: CPU %u: record of %u bytes at offset %llu skipped: damaged data]\n",
		r->cpu, r->size, (unsigned long long)r->offset);

	return ret < 0 ? ret : 1;
}

static void rec_init(struct tep_record *rec, const struct text_rec *r, size_t n,
		     void *data)
{
	memset(rec, 0, sizeof(*rec));
	rec->ts = r->ts;
	rec->cpu = r->cpu;
	rec->missed_events = r->missed;
	rec->size = n;
	rec->record_size = n;
	rec->ref_count = 1;
	rec->data = data;
}

/* The info text of a known event through libtraceevent. */
static int info_slow(struct text_fmt *t, const struct text_rec *r, size_t n,
		     struct tep_event *ev, struct text_comm_ctx *cc,
		     struct tdatfs_buf *out)
{
	struct trace_seq *s = &t->seq;
	struct tep_record rec;
	int ret;

	text_tep_lock(t->tt);
	memcpy(t->scratch, r->data, n);
	rec_init(&rec, r, n, t->scratch);
	trace_seq_reset(s);
	text_tep_print_info(t->tt, s, &rec, ev);
	ret = text_tep_take_error(t->tt);
	if (!ret)
		ret = text_comms_learn(t->cm, ev->id, cc, t->scratch);
	memset(t->scratch, 0, n);
	if (!ret)
		ret = put_seq(s, out);
	text_tep_unlock(t->tt);
	return ret;
}

/*
 * The info text of a compiled event, lock-free; the comms its handler
 * registers (the sched plugin's) learned after it, as info_slow() does.
 */
static int fast_info(struct text_fmt *t, const struct text_event_desc *te,
		     int id, const unsigned char *data, size_t n,
		     struct text_comm_ctx *cc, struct tdatfs_buf *out)
{
	int ret = text_compiled_info(te->fast, t->big_endian, data, n, out);

	if (!ret && text_comms_learns(t->cm, id))
		ret = text_comms_learn(t->cm, id, cc, data);
	return ret;
}

/*
 * Whether every field of @ev lies inside the copy of the record, checked
 * as the event table checks its own (text_fit_check()).
 */
static int slow_fits(struct text_fmt *t, const struct tep_event *ev, size_t n,
		     bool *fits)
{
	struct text_fit fit;

	if (text_fit_init(&fit, ev) < 0)
		return -ENOMEM;
	*fits = text_fit_check(&fit, t->big_endian, t->scratch, n);
	text_fit_release(&fit);
	return 0;
}

/* The header of a record without a format, as libtraceevent prints it. */
static void header_unknown(struct text_fmt *t, struct trace_seq *s,
			   struct tep_record *rec)
{
	struct tep_handle *tep = text_tep_handle(t->tt);

	tep_print_event(tep, s, rec, "%16s-%-5d [%03d]", TEP_PRINT_COMM,
			TEP_PRINT_PID, TEP_PRINT_CPU);
	if (t->in_usecs)
		tep_print_event(tep, s, rec, " %6.1000d:", TEP_PRINT_TIME);
	else
		tep_print_event(tep, s, rec, "%12d:", TEP_PRINT_TIME);
	trace_seq_printf(s, " %s: %.*s", "(NULL)", 14, "                    ");
}

/*
 * A record whose type could not be read here (too short) or whose id has
 * no format: all of it through libtraceevent, as trace-cmd does.
 */
static int format_slow(struct text_fmt *t, const struct text_rec *r, size_t n,
		       struct text_comm_ctx *cc, struct tdatfs_buf *out)
{
	struct tep_handle *tep = text_tep_handle(t->tt);
	struct trace_seq *s = &t->seq;
	struct tep_record rec;
	struct tep_event *ev;
	bool fits = true;
	int ret = 0;

	text_tep_lock(t->tt);
	memcpy(t->scratch, r->data, n);
	rec_init(&rec, r, n, t->scratch);
	trace_seq_reset(s);
	ev = tep_find_event_by_record(tep, &rec);
	if (ev)
		ret = slow_fits(t, ev, n, &fits);
	if (ret < 0 || !fits) {
		memset(t->scratch, 0, n);
		text_tep_unlock(t->tt);
		return ret < 0 ? ret : damaged(r, out);
	}
	if (ev) {
		/* the comm as this stream knows it, not as the handle does */
		ret = put_header(t, cc, tep_data_pid(tep, &rec), r->cpu,
				 r->ts, ev->name, strlen(ev->name), NULL, out, NULL);
		if (ret < 0)
			goto out;
	} else {
		header_unknown(t, s, &rec);
	}
	text_tep_print_info(t->tt, s, &rec, ev);
	ret = text_tep_take_error(t->tt);
	if (!ret && ev)
		ret = text_comms_learn(t->cm, ev->id, cc, t->scratch);
	if (!ret)
		ret = put_seq(s, out);
out:
	memset(t->scratch, 0, n);
	text_tep_unlock(t->tt);
	return ret;
}

/* "CPU:N [... EVENTS DROPPED]" before a record that follows a loss. */
static int put_dropped(const struct text_rec *r, struct tdatfs_buf *out)
{
	if (r->missed > 0)
		return tdatfs_buf_printf(out, "CPU:%d [%lld EVENTS DROPPED]\n",
					 (int)r->cpu, r->missed);
	if (r->missed < 0)
		return tdatfs_buf_printf(out, "CPU:%d [EVENTS DROPPED]\n",
					 (int)r->cpu);
	return 0;
}

/*
 * text_format_record() and text_format_record_parts(), inlined into each:
 * @lp, when not NULL, is told where the line's parts lie.
 */
static inline __attribute__((always_inline)) int
format_record(struct text_fmt *t, const struct text_rec *r,
	      struct text_source *src, struct text_comm_ctx *cc,
	      struct tdatfs_buf *out, struct text_line_parts *lp)
{
	const unsigned char *data = r->data;
	const struct text_event_desc *te = NULL;
	size_t n = r->size, *head_end = NULL;
	int ret, id, pid;

	if (lp) {
		memset(lp, 0, sizeof(*lp));
		lp->start = out->len;
		head_end = &lp->head1;
	}
	if (n > t->scratch_size - SCRATCH_SLACK)
		n = t->scratch_size - SCRATCH_SLACK;
	ret = put_dropped(r, out);
	if (ret < 0)
		return ret;

	/* looked up (so parsed) whenever libtraceevent can read the type */
	if (text_record_type(t->evs, data, n, &id)) {
		ret = text_event_lookup(t->evs, id, &te);
		if (ret < 0)
			return ret;
	}
	if (!te || te->dup || !text_record_pid(t->evs, data, n, &pid)) {
		ret = format_slow(t, r, n, cc, out);
	} else if (!text_event_fits(t->evs, te, data, n)) {
		ret = damaged(r, out);
		/* a function of the record's bytes alone, and no head */
		if (lp) {
			lp->own = true;
			lp->head0 = lp->head1 = lp->start;
			lp->end = out->len;
		}
		return ret;
	} else {
		if (lp)
			lp->head0 = out->len;
		ret = put_header(t, cc, pid, r->cpu, r->ts, te->name, te->name_len,
				 te->tail_len ? te->tail : NULL, out, head_end);
		if (ret < 0)
			return ret;
		/* asked here: a call costs more than its answer */
		ret = 1;
		if (text_funcgraph_wants(t->graph, te->ev->id))
			ret = text_funcgraph_info(t->graph, te, r, src, out);
		if (ret == 1 && text_func_wants(t->func, te->ev->id))
			ret = text_func_info(t->func, te, r, cc->fn, out);
		if (ret == 1 && te->fast && text_event_whole(te, n)) {
			/* neither the call stacks nor the look-ahead read it */
			if (lp && !text_funcgraph_wants(t->graph, id) &&
			    !text_func_wants(t->func, id)) {
				lp->own = true;
				lp->learn = text_comms_learns(t->cm, id);
				lp->pid = pid;
				lp->id = id;
			}
			ret = fast_info(t, te, id, data, n, cc, out);
		} else if (ret == 1) {
			ret = info_slow(t, r, n, te->ev, cc, out);
		}
	}
	if (ret >= 0) {
		int err = tdatfs_buf_put(out, "\n", 1);

		if (err < 0)
			ret = err;
	}
	if (lp)
		lp->end = out->len;
	return ret;
}

/**
 * text_format_record() - append the report line(s) of one record
 * @t: formatter
 * @r: the record
 * @src: the source @r was consumed from, to look at what follows it
 *	(text/source.h); may be NULL when nothing follows
 * @cc: the stream's learned comms
 * @out: destination
 *
 * Same text as trace-cmd's trace_show_data() without options: the
 * dropped-events line, "%16s-%-5d [%03d]", the time, the event name
 * padded to 20, the info; one trailing newline dropped and one added.
 * As trace-cmd prints the sequence with "%.*s", text stops at a NUL.
 *
 * Return: 0, 1 when the record does not parse (a marker line was put
 * instead; the caller records the damage), or -ENOMEM.
 * Context: the caller holds the stream lock; takes the tep lock for
 * events that libtraceevent prints.
 */
int text_format_record(struct text_fmt *t, const struct text_rec *r,
		       struct text_source *src, struct text_comm_ctx *cc,
		       struct tdatfs_buf *out)
{
	return format_record(t, r, src, cc, out, NULL);
}

/**
 * text_format_record_parts() - text_format_record(), telling where the
 * line's parts lie
 * @t: formatter
 * @r: the record
 * @src: as for text_format_record()
 * @cc: likewise
 * @out: likewise
 * @lp: set to where the record's lines lie in @out, and whether all but
 *	their head is a function of the record's bytes alone (struct
 *	text_line_parts)
 *
 * For a text made beside another from the same records, whose line of
 * this record text_format_record_again() then measures.
 *
 * Return: as text_format_record().
 */
int text_format_record_parts(struct text_fmt *t, const struct text_rec *r,
			     struct text_source *src, struct text_comm_ctx *cc,
			     struct tdatfs_buf *out, struct text_line_parts *lp)
{
	return format_record(t, r, src, cc, out, lp);
}

/**
 * text_format_record_again() - the length of a record's line in a second
 * text, from its line in a first one
 * @t: formatter
 * @r: the record, as formatted into the first text
 * @lp: where its line's parts lay there (text_format_record_parts())
 * @cc: the second text's learned comms, call stacks and heads
 * @scratch: room the second line's head, or the line, is made in; its
 *	length is left as it was
 * @len: set to the length of the second text's lines of the record
 *
 * Where all but the head is the record's alone (@lp->own), only the head
 * is made again (its comm as the second text knows it) and the comms
 * the record registers are learned; otherwise the record is formatted
 * again into @scratch, without a source to look ahead in (a text that
 * looks ahead is not made beside another).  Either way @cc ends as
 * text_format_record() of the record would leave it.
 *
 * Return: 0 or a negative errno.
 */
int text_format_record_again(struct text_fmt *t, const struct text_rec *r,
			     const struct text_line_parts *lp,
			     struct text_comm_ctx *cc, struct tdatfs_buf *scratch,
			     size_t *len)
{
	size_t before = scratch->len;
	char *o, *end;
	int ret;

	if (!lp->own) {
		ret = format_record(t, r, NULL, cc, scratch, NULL);
		*len = scratch->len - before;
		scratch->len = before;
		/* 1: damage, recorded by the first text */
		return ret < 0 ? ret : 0;
	}
	*len = lp->end - lp->start - (lp->head1 - lp->head0);
	if (lp->head1 == lp->head0)
		return 0;
	o = tdatfs_buf_reserve(scratch, TEXT_HEAD_MAX);
	if (!o)
		return -ENOMEM;
	end = put_head(t, cc, lp->pid, r->cpu, &o, TEXT_HEAD_MAX, scratch);
	if (!end)
		return -ENOMEM;
	*len += (size_t)(end - o);
	if (lp->learn)
		return text_comms_learn(t->cm, lp->id, cc, r->data);
	return 0;
}

/**
 * text_fmt_record_id() - the event id of a record
 * @fm: formatter
 * @r: the record
 * @id: set to the id
 *
 * Return: 1 with *@id set, 0 for a record whose type does not read (too
 * short), -ENOMEM (the lookup parses a format).
 */
int text_fmt_record_id(struct text_fmt *fm, const struct text_rec *r, int *id)
{
	size_t n = r->size;

	if (n > fm->scratch_size - SCRATCH_SLACK)
		n = fm->scratch_size - SCRATCH_SLACK;
	return text_record_type(fm->evs, r->data, n, id) ? 1 : 0;
}

/**
 * text_fmt_folds() - whether a record of an event may be printed inside
 * another's line
 * @fm: formatter
 * @id: event id
 *
 * A funcgraph exit of a leaf is printed on its entry's line, so the
 * text's account counts it for the entry.
 *
 * Return: true for the events of the function_graph look-ahead.
 */
bool text_fmt_folds(const struct text_fmt *fm, int id)
{
	return text_funcgraph_wants(fm->graph, id);
}

/**
 * text_fmt_in_usecs() - whether times print as seconds and microseconds
 * @fm: formatter
 *
 * Return: true for "SECONDS.MICROS", false for the raw count.
 */
bool text_fmt_in_usecs(const struct text_fmt *fm)
{
	return fm->in_usecs;
}

/**
 * text_fmt_time_key() - a record time as the line prints it
 * @fm: formatter
 * @ts: the record's adjusted timestamp
 *
 * The microseconds put_header() prints (rounded, as libtraceevent does),
 * in nanoseconds; the raw count for a clock that is not in nanoseconds.
 * Keys compare as the printed times do.
 *
 * Return: the key.
 */
uint64_t text_fmt_time_key(const struct text_fmt *fm, uint64_t ts)
{
	return fm->in_usecs ? (ts + 500) / 1000 * 1000 : ts;
}

/**
 * text_fmt_time_put() - a record time as the line prints it, unpadded
 * @fm: formatter
 * @ts: the record's adjusted timestamp
 * @out: destination
 * @len: its room
 *
 * Return: the length written (without the NUL), or -ENOSPC.
 */
int text_fmt_time_put(const struct text_fmt *fm, uint64_t ts, char *out,
		      size_t len)
{
	uint64_t us = (ts + 500) / 1000;
	int n;

	if (!fm->in_usecs)
		n = snprintf(out, len, "%llu", (unsigned long long)ts);
	else
		n = snprintf(out, len, "%llu.%06llu",
			     (unsigned long long)(us / 1000000),
			     (unsigned long long)(us % 1000000));
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* The event of a record this file prints without libtraceevent's help
 * for its line head (NULL: it goes through format_slow()). */
static int plain_event(struct text_fmt *t, const struct text_rec *r, size_t n,
		       const struct text_event_desc **te)
{
	int id, pid, ret;

	*te = NULL;
	if (!text_record_type(t->evs, r->data, n, &id))
		return 0;
	ret = text_event_lookup(t->evs, id, te);
	if (ret < 0)
		return ret;
	if (*te && ((*te)->dup || !text_record_pid(t->evs, r->data, n, &pid)))
		*te = NULL;
	return 0;
}

/**
 * text_learn_record() - what printing a record teaches the stream, alone
 * @fm: formatter
 * @r: the record
 * @id: its event id (text_fmt_record_id()), -1 when it does not read
 * @cc: the stream's learned comms
 *
 * The comm registrations text_format_record() makes for the record,
 * without its text: for a view's records that it does not show, whose
 * stream already holds the whole model (text_comm_ctx.seen moves on).
 *
 * Return: 0 or -ENOMEM.
 * Context: the caller holds the stream lock; lock-free otherwise.
 */
int text_learn_record(struct text_fmt *fm, const struct text_rec *r, int id,
		      struct text_comm_ctx *cc)
{
	const struct text_event_desc *te;
	size_t n = r->size;
	int ret;

	if (!text_comms_learns(fm->cm, id))
		return 0;
	if (n > fm->scratch_size - SCRATCH_SLACK)
		n = fm->scratch_size - SCRATCH_SLACK;
	ret = plain_event(fm, r, n, &te);
	if (ret < 0 || !te || !text_event_fits(fm->evs, te, r->data, n))
		return ret;
	return text_comms_learn(fm->cm, id, cc, r->data);
}

/**
 * text_learn_line() - what printing a record does to a comm model, alone
 * @fm: formatter
 * @r: the record
 * @id: its event id (text_fmt_record_id()), -1 when it does not read
 * @cc: a model, maybe without its array yet
 *
 * text_learn_record() after the lookup of the record's pid that its
 * line's head makes: the first one of a pid other than 0 makes the
 * model's array, as printing the line would.
 *
 * Return: 0 or -ENOMEM.
 * Context: as text_learn_record().
 */
int text_learn_line(struct text_fmt *fm, const struct text_rec *r, int id,
		    struct text_comm_ctx *cc)
{
	int pid;

	/* once the array exists, a lookup changes nothing */
	if (!text_overlay_built(cc->ov) &&
	    text_record_pid(fm->evs, r->data, r->size, &pid) && pid &&
	    !text_comm_lookup(fm->cm, cc, pid))
		return -ENOMEM;
	return text_learn_record(fm, r, id, cc);
}

/* A function record passed over: only its position's stacks change. */
static int skip_call(struct text_fmt *fm, const struct text_rec *r,
		     struct text_comm_ctx *cc)
{
	const struct text_event_desc *te;
	size_t n = r->size;
	int ret;

	if (n > fm->scratch_size - SCRATCH_SLACK)
		n = fm->scratch_size - SCRATCH_SLACK;
	ret = plain_event(fm, r, n, &te);
	if (ret < 0 || !te || !text_event_fits(fm->evs, te, r->data, n))
		return ret;
	ret = text_func_info(fm->func, te, r, cc->fn, NULL);
	return ret < 0 ? ret : 0;
}

/**
 * text_skip_record() - pass over a record as printing it would
 * @fm: formatter
 * @r: the record, consumed from @src
 * @id: its event id (text_fmt_record_id()), -1 when it does not read
 * @src: as for text_format_record()
 * @cc: the stream's learned comms, holding the whole model already
 * @scratch: where the text of a record that must be printed goes
 *
 * A view passes over the records it does not show.  The stream must be
 * left as text_format_record() leaves it: the same comm registrations
 * (text_comm_ctx.seen moves on), the same function call stacks
 * (text_comm_ctx.fn) and the same records consumed.  Records
 * whose text looks ahead (function_graph) are printed into @scratch;
 * those of events that register comms only learn; the rest need
 * nothing.
 *
 * Return: 0, or -ENOMEM.
 * Context: as text_format_record().
 */
int text_skip_record(struct text_fmt *fm, const struct text_rec *r, int id,
		     struct text_source *src, struct text_comm_ctx *cc,
		     struct tdatfs_buf *scratch)
{
	int ret;

	if (text_func_wants(fm->func, id))
		return skip_call(fm, r, cc);
	if (text_funcgraph_wants(fm->graph, id)) {
		scratch->len = 0;
		ret = text_format_record(fm, r, src, cc, scratch);
		scratch->len = 0;
		return ret < 0 ? ret : 0;
	}
	return text_learn_record(fm, r, id, cc);
}

/**
 * text_fmt_share() - what another formatter of the same records may use
 * @fm: formatter
 * @sh: filled in; valid as long as @fm
 */
void text_fmt_share(struct text_fmt *fm, struct text_fmt_share *sh)
{
	sh->tt = fm->tt;
	sh->evs = fm->evs;
	sh->cm = fm->cm;
	sh->big_endian = fm->big_endian;
	sh->in_usecs = fm->in_usecs;
	sh->seq = &fm->seq;
	sh->scratch = fm->scratch;
	sh->scratch_size = fm->scratch_size;
	sh->max_rec = fm->scratch_size - SCRATCH_SLACK;
}
