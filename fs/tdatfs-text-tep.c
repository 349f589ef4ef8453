/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-tep.c - the libtraceevent handle of a trace, timestamps, and
 * the formatting of one record exactly as trace-cmd report (3.1.6) does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text-int.h"

/* Plugin option lists in libtraceevent are process-global. */
static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;

/* Read a whole metadata blob, NUL-terminated; *buf NULL when absent. */
static int read_meta(struct tdat_file *f, enum tdat_meta which, char **buf,
		     uint64_t *size)
{
	uint64_t sz, done = 0;
	char *p;
	int ret;

	*buf = NULL;
	*size = 0;
	ret = tdat_meta_size(f, which, &sz);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	/* the parser bounds blobs by the file or its decompression limit */
	if (sz >= SIZE_MAX)
		return -EFBIG;
	/*
	 * Two NULs: tep_parse_printk_formats() strdup()s from one past the
	 * end of a line without ':', which for the last line is past the
	 * first NUL (found by fuzz/, tests/corpus/crash-tep-printk-*.dat).
	 */
	p = malloc(sz + 2);
	if (!p)
		return -ENOMEM;
	while (done < sz) {
		ssize_t n = tdat_meta_read(f, which, p + done, sz - done, done);

		if (n < 0) {
			free(p);
			return (int)n;
		}
		if (n == 0)
			break;
		done += n;
	}
	p[done] = '\0';
	p[done + 1] = '\0';
	*buf = p;
	*size = done;
	return 0;
}

/* Whether @name (@len bytes) is declared by a "field:" line of @fmt. */
static bool format_has_field(const char *fmt, const char *name, size_t len)
{
	const char *p = fmt;

	while ((p = strstr(p, "field:")) != NULL) {
		const char *semi = strchr(p, ';'), *e;

		if (!semi)
			return false;
		e = semi;
		/* "char comm[16];": the name is before the brackets */
		if (e > p && e[-1] == ']')
			while (e > p && *e != '[')
				e--;
		while (e > p && e[-1] == ' ')
			e--;
		if ((size_t)(e - p) >= len && !memcmp(e - len, name, len) &&
		    !text_is_ident(e[-(ptrdiff_t)len - 1]))
			return true;
		p = semi + 1;
	}
	return false;
}

/* Whether *@p starts "TYPE)" for a TYPE with a non-zero size; moves past. */
static bool sizeof_type_known(const char **p)
{
	static const char *const types[] = {
		"u8)", "u16)", "u32)", "u64)", "s8)", "s16)", "s32)", "s64)",
		"char)", "short)", "int)", "long)", "unsigned int)",
		"unsigned long)", "long long)", "unsigned long long)",
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t n = strlen(types[i]);

		if (!strncmp(*p, types[i], n)) {
			*p += n;
			return true;
		}
	}
	return false;
}

/*
 * libtraceevent 1.7.1 evaluates '/' and '%' without a zero check, at parse
 * time in __print_flags/__print_symbolic values and at print time in
 * arguments (fuzz/, tests/corpus/crash-tep-modulo-by-zero.dat).  Accept
 * the print fmt @args (after "print fmt:") only when every divisor outside
 * the quoted strings is a non-zero number or sizeof(<integer type>).
 */
static bool divisors_are_constants(const char *args)
{
	const char *p = args;
	bool quoted = false;

	for (; *p && *p != '\n'; p++) {
		char *end;

		if (*p == '"' && (p == args || p[-1] != '\\'))
			quoted = !quoted;
		if (quoted || (*p != '/' && *p != '%'))
			continue;
		p++;
		while (*p == ' ' || *p == '(')
			p++;
		/* "__get_dynamic_array_len(x) / sizeof(u64)" is in real kernels */
		if (!strncmp(p, "sizeof(", 7)) {
			const char *q = p + 7;

			if (!sizeof_type_known(&q))
				return false;
			p = q - 1;
			continue;
		}
		if (strtoull(p, &end, 0) == 0 || end == p)
			return false;
		p = end - 1;
	}
	return true;
}

/*
 * libtraceevent 1.7.1 crashes on some malformed formats (a non-ASCII byte
 * in a field type, a __print_symbolic() of a REC->name that is not a
 * field, a divisor that may be zero: fuzz/, tests/corpus/crash-tep-*).
 * Kernel formats are plain ASCII, print only their own fields and divide
 * by constants, so anything else is not handed to tep_parse_event(); the
 * event then prints as one without a format.
 */
static bool format_is_sane(const char *fmt, size_t len)
{
	const char *p;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)fmt[i];

		if ((c < 0x20 && c != '\t' && c != '\n') || c > 0x7e)
			return false;
	}
	p = strstr(fmt, "print fmt:");
	if (p && !divisors_are_constants(p + 10))
		return false;
	while (p && (p = strstr(p, "REC->")) != NULL) {
		size_t n = 0;

		p += 5;
		while (text_is_ident(p[n]))
			n++;
		if (!n || !format_has_field(fmt, p, n))
			return false;
		p += n;
	}
	return true;
}

/**
 * text_tep_parse_format() - hand one event format to libtraceevent
 * @t: engine
 * @i: format index (tdat_event_get())
 * @buf: scratch for the text, grown as needed (the caller frees it)
 * @cap: its size
 *
 * A format that does not parse is left out, as trace-cmd counts it and
 * goes on; so is one format_is_sane() refuses.
 *
 * Return: 0, or a negative errno when the text could not be read.
 * Context: at setup, or with @t->tep_lock held.
 */
int text_tep_parse_format(struct tdatfs_text *t, size_t i, char **buf,
			  size_t *cap)
{
	const struct tdat_event_format *ev = tdat_event_get(t->f, i);
	uint64_t done = 0;

	if (!ev)
		return -ENOENT;
	if (ev->size >= SIZE_MAX)
		return -EFBIG;
	if (ev->size + 1 > *cap) {
		char *p = realloc(*buf, ev->size + 1);

		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = ev->size + 1;
	}
	while (done < ev->size) {
		ssize_t r = tdat_event_read(t->f, i, *buf + done,
					    ev->size - done, done);
		if (r <= 0)
			break;
		done += r;
	}
	(*buf)[done] = '\0';
	if (format_is_sane(*buf, done))
		tep_parse_event(t->tep, *buf, done, ev->system);
	return 0;
}

static int parse_event_formats(struct tdatfs_text *t, bool want_ftrace)
{
	size_t i, n = tdat_event_count(t->f);
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0;

	if (t->lazy)
		return want_ftrace ? 0 : text_events_preload(t);
	for (i = 0; i < n && ret != -ENOMEM; i++) {
		const struct tdat_event_format *ev = tdat_event_get(t->f, i);

		if (ev && (strcmp(ev->system, "ftrace") == 0) == want_ftrace)
			ret = text_tep_parse_format(t, i, &buf, &cap);
	}
	free(buf);
	return ret == -ENOMEM ? ret : 0;
}

static int comm_cmp(const void *a, const void *b)
{
	const struct text_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* of two lines for one pid the first read wins */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The pid -> comm table, read as tep_parse_saved_cmdlines() reads it
 * (lines "PID COMM", stop at the first bad line; the first entry of a pid
 * wins, as tep_register_comm() does not override).
 */
static int build_comms(struct tdatfs_text *t, char *buf)
{
	char *line, *next = NULL;
	size_t cap = 0, i, j;

	for (line = strtok_r(buf, "\n", &next); line;
	     line = strtok_r(NULL, "\n", &next)) {
		char *comm = NULL;
		int pid, n;

		errno = 0;
		n = sscanf(line, "%d %m[^\n]s", &pid, &comm);
		if (errno || n != 2 || !comm) {
			free(comm);
			break;
		}
		if (t->ncomms == cap) {
			struct text_comm *c;

			cap = cap ? cap * 2 : 256;
			c = realloc(t->comms, cap * sizeof(*c));
			if (!c) {
				free(comm);
				return -ENOMEM;
			}
			t->comms = c;
		}
		t->comms[t->ncomms].pid = pid;
		t->comms[t->ncomms].comm = comm;
		t->comms[t->ncomms].seq = t->ncomms;
		t->ncomms++;
	}
	qsort(t->comms, t->ncomms, sizeof(*t->comms), comm_cmp);
	for (i = 0, j = 0; i < t->ncomms; i++) {
		if (j && t->comms[j - 1].pid == t->comms[i].pid) {
			free(t->comms[i].comm);
			continue;
		}
		t->comms[j++] = t->comms[i];
	}
	t->ncomms = j;
	return 0;
}

static const char *find_comm(const struct tdatfs_text *t, int pid)
{
	size_t lo = 0, hi = t->ncomms;

	if (!pid)
		return "<idle>";
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->comms[mid].pid == pid)
			return t->comms[mid].comm;
		if (t->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "<...>";
}

static bool in_saved(const struct tdatfs_text *t, int pid)
{
	return strcmp(find_comm(t, pid), "<...>") != 0 || !pid;
}

static size_t ov_slot(const struct text_overlay *ov, int pid)
{
	size_t h = ((uint32_t)pid * 2654435761u) & (ov->hcap - 1);

	while (ov->hash[h] && ov->pid[ov->hash[h] - 1] != pid)
		h = (h + 1) & (ov->hcap - 1);
	return h;
}

/* Index of the first registration of @pid, or -1. */
static long ov_find(const struct text_overlay *ov, int pid)
{
	size_t h;

	if (!ov->hcap)
		return -1;
	h = ov_slot(ov, pid);
	return ov->hash[h] ? ov->hash[h] - 1 : -1;
}

static int ov_add(struct text_overlay *ov, int pid, const char *comm, size_t len)
{
	size_t i;

	if (ov->n >= INT32_MAX - 1)
		return -ENOSPC;
	if ((ov->n + 1) * 2 > ov->hcap) {
		size_t cap = ov->hcap ? ov->hcap * 2 : 64;
		int32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -ENOMEM;
		free(ov->hash);
		ov->hash = h;
		ov->hcap = cap;
		for (i = 0; i < ov->n; i++)
			ov->hash[ov_slot(ov, ov->pid[i])] = i + 1;
	}
	if (ov->n == ov->cap) {
		size_t cap = ov->cap ? ov->cap * 2 : 64;
		int *p = realloc(ov->pid, cap * sizeof(*p));
		char **c;

		if (!p)
			return -ENOMEM;
		ov->pid = p;
		c = realloc(ov->comm, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		ov->comm = c;
		ov->cap = cap;
	}
	ov->comm[ov->n] = strndup(comm, len);
	if (!ov->comm[ov->n])
		return -ENOMEM;
	ov->pid[ov->n] = pid;
	ov->hash[ov_slot(ov, pid)] = ov->n + 1;
	ov->n++;
	return 0;
}

/**
 * text_overlay_free() - free the learned comms of a stream
 * @ov: overlay (the struct itself is not freed)
 */
void text_overlay_free(struct text_overlay *ov)
{
	while (ov->n)
		free(ov->comm[--ov->n]);
	free(ov->comm);
	free(ov->pid);
	free(ov->hash);
	memset(ov, 0, sizeof(*ov));
}

/**
 * text_comm_lookup() - the comm trace-cmd shows for a pid at a position
 * @t: engine (set up)
 * @cc: the stream's learned comms and the count visible here, or NULL
 * @pid: pid
 *
 * Return: saved_cmdlines' comm, else a comm learned before this position,
 * else "<...>" ("<idle>" for pid 0).
 * Context: the caller holds the stream lock (for @cc).
 */
const char *text_comm_lookup(const struct tdatfs_text *t,
			     const struct text_comm_ctx *cc, int pid)
{
	const char *c = find_comm(t, pid);
	long i;

	if (strcmp(c, "<...>") || !cc)
		return c;
	i = ov_find(cc->ov, pid);
	if (i >= 0 && (size_t)i < *cc->seen)
		return cc->ov->comm[i];
	return c;
}

/**
 * text_comm_register() - what the plugin's write_and_save_comm() does
 * @t: engine (set up)
 * @cc: the stream's learned comms and the count visible here
 * @pidf: the pid field of the event
 * @commf: the comm field of the event
 * @data: the record
 *
 * Return: 0 or -ENOMEM.
 * Context: the caller holds the stream lock.
 */
int text_comm_register(struct tdatfs_text *t, struct text_comm_ctx *cc,
			 const struct tep_format_field *pidf,
			 const struct tep_format_field *commf,
			 const unsigned char *data)
{
	unsigned long long val;
	long i;
	int pid;

	if (!pidf || !commf || tep_read_number_field((struct tep_format_field *)pidf,
						     data, &val))
		return 0;
	pid = (int)val;
	if (in_saved(t, pid))
		return 0;
	i = ov_find(cc->ov, pid);
	if (i < 0) {
		/* only the stream's frontier meets a pid first */
		if (*cc->seen != cc->ov->n)
			return 0;
		if (ov_add(cc->ov, pid, (const char *)data + commf->offset,
			   commf->size > 0 ? (size_t)commf->size : 0) < 0)
			return -ENOMEM;
		(*cc->seen)++;
	} else if ((size_t)i == *cc->seen) {
		(*cc->seen)++;
	}
	return 0;
}

static void find_comm_events(struct tdatfs_text *t)
{
	struct tep_event *ev;

	t->sw_id = t->wk_id = t->wkn_id = -1;
	ev = tep_find_event_by_name(t->tep, "sched", "sched_switch");
	if (ev && ev->handler) {
		t->sw_id = ev->id;
		t->sw_ppid = tep_find_field(ev, "prev_pid");
		t->sw_pcomm = tep_find_any_field(ev, "prev_comm");
		t->sw_npid = tep_find_field(ev, "next_pid");
		t->sw_ncomm = tep_find_any_field(ev, "next_comm");
	}
	ev = tep_find_event_by_name(t->tep, "sched", "sched_wakeup");
	if (ev && ev->handler) {
		t->wk_id = ev->id;
		t->wk_pid = tep_find_field(ev, "pid");
		t->wk_comm = tep_find_any_field(ev, "comm");
	}
	ev = tep_find_event_by_name(t->tep, "sched", "sched_wakeup_new");
	if (ev && ev->handler) {
		t->wkn_id = ev->id;
		t->wkn_pid = tep_find_field(ev, "pid");
		t->wkn_comm = tep_find_any_field(ev, "comm");
	}
}

/*
 * Drop, in place, the printk_formats lines that libtraceevent 1.7.1 reads
 * outside of: tep_parse_printk_formats() strdup()s from two bytes after the
 * ':' and tep_register_print_string() looks three bytes back from the end
 * of what is left after a leading '"' (fuzz/, tests/corpus/crash-tep-*).
 * Kernel lines ("0x... : \"text\"") all pass.  Like the library, stop at
 * the first NUL.
 */
static void printk_filter(char *buf)
{
	char *in = buf, *out = buf;

	while (*in) {
		char *nl = strchr(in, '\n'), *colon, *fmt;
		size_t len = nl ? (size_t)(nl - in) : strlen(in);
		bool keep;

		colon = memchr(in, ':', len);
		keep = colon && colon != in && (size_t)(colon - in) + 2 <= len;
		if (keep) {
			fmt = colon + 2;
			if (fmt < in + len && *fmt == '"')
				fmt++;
			keep = in + len - fmt >= 3;
		}
		if (keep) {
			memmove(out, in, len);
			out += len;
			*out++ = '\n';
		}
		in += len;
		if (*in)
			in++;
	}
	*out = '\0';
}

/* Where libtraceevent reads common_type and common_pid: the first event's. */
static void find_common_fields(struct tdatfs_text *t)
{
	struct tep_event *ev = tep_get_events_count(t->tep) > 0 ?
			       tep_get_event(t->tep, 0) : NULL;
	struct tep_format_field *fl;

	t->type_size = t->pid_size = 0;
	if (!ev)
		return;
	fl = tep_find_common_field(ev, "common_type");
	if (fl && fl->offset >= 0 && (fl->size == 1 || fl->size == 2 ||
				      fl->size == 4 || fl->size == 8)) {
		t->type_off = fl->offset;
		t->type_size = fl->size;
	}
	fl = tep_find_common_field(ev, "common_pid");
	if (fl && fl->offset >= 0 && (fl->size == 1 || fl->size == 2 ||
				      fl->size == 4 || fl->size == 8)) {
		t->pid_off = fl->offset;
		t->pid_size = fl->size;
	}
}

static int parse_blob(struct tdatfs_text *t, enum tdat_meta which)
{
	uint64_t size;
	char *buf;
	int ret;

	ret = read_meta(t->f, which, &buf, &size);
	if (ret < 0 || !buf)
		return ret;
	switch (which) {
	case TDAT_META_PRINTK:
		printk_filter(buf);
		if (*buf)
			tep_parse_printk_formats(t->tep, buf);
		break;
	case TDAT_META_CMDLINES:
		tep_parse_saved_cmdlines(t->tep, buf);
		ret = build_comms(t, buf);
		break;
	case TDAT_META_HEADER_PAGE:
		tep_parse_header_page(t->tep, buf, size, tdat_long_size(t->f));
		break;
	default:
		break;
	}
	free(buf);
	return ret;
}

/*
 * libtraceevent's function resolver: the symbol holding *@addrp, looked up
 * in a handle that holds kallsyms alone, read on the first call.  The
 * answer is the one tep_parse_kallsyms() into the main handle would give
 * (same parser, same lookup); a kallsyms that cannot be read resolves
 * nothing, the damage being reported by the parser.  Called by
 * libtraceevent, so with @t->tep_lock held.
 */
static char *ksym_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct tdatfs_text *t = priv;
	const char *name;

	(void)modp;
	if (!t->ksyms_read) {
		uint64_t size;
		char *buf;

		t->ksyms_read = true;
		if (read_meta(t->f, TDAT_META_KALLSYMS, &buf, &size) == 0 && buf) {
			t->ksyms = size ? tep_alloc() : NULL;
			if (t->ksyms)
				tep_parse_kallsyms(t->ksyms, buf);
			free(buf);
		}
	}
	if (!t->ksyms)
		return NULL;
	name = tep_find_function(t->ksyms, *addrp);
	if (name)
		*addrp = tep_find_function_address(t->ksyms, *addrp);
	return (char *)name;
}

static int parse_header_page(struct tdatfs_text *t)
{
	uint64_t size;
	char *buf;
	int ret;

	ret = read_meta(t->f, TDAT_META_HEADER_PAGE, &buf, &size);
	if (ret < 0)
		return ret;
	/* an empty header_page means the pre-2.6.31 page format */
	tep_parse_header_page(t->tep, buf ? buf : (char *)"", size,
			      tdat_long_size(t->f));
	free(buf);
	return 0;
}

/* The option bytes as a NUL-terminated string, bounded. */
static void option_string(const struct tdat_option *o, char *dst, size_t len)
{
	size_t n = o->size < len - 1 ? o->size : len - 1;

	memcpy(dst, o->data, n);
	dst[n] = '\0';
}

/* As trace-cmd's extract_trace_clock(): keep usecs for nsec clocks only. */
static void apply_clock(struct tdatfs_text *t, const char *text)
{
	char buf[512], word[128];
	const char *p;
	size_t n;

	snprintf(buf, sizeof(buf), "%s", text);
	for (p = buf; *p; p++) {
		if (*p == '[' && (p == buf || p[-1] == ' '))
			break;
	}
	if (*p != '[')
		return;
	p++;
	while (*p == ']' || *p == '[' || *p == '\t' || *p == '\n' ||
	       *p == '\r' || *p == '\f' || *p == '\v')
		p++;
	n = strcspn(p, "[] \t\n\r\f\v");
	if (!n)
		return;
	if (n >= sizeof(word))
		n = sizeof(word) - 1;
	memcpy(word, p, n);
	word[n] = '\0';

	if (t->tsc_mult)
		return;
	if (strcmp(word, "local") && strcmp(word, "global") &&
	    strcmp(word, "uptime") && strcmp(word, "perf") &&
	    strncmp(word, "mono", 4) && strcmp(word, "tsc2nsec") &&
	    strcmp(word, "tai"))
		t->in_usecs = false;
}

/* DATE, OFFSET, TSC2NSEC and TRACECLOCK, in file order as trace-cmd. */
static void read_time_options(struct tdatfs_text *t)
{
	size_t i, n = tdat_option_count(t->f);
	bool have_clock_opt = false;
	char buf[512];

	t->in_usecs = true;
	for (i = 0; i < n; i++) {
		const struct tdat_option *o = tdat_option_get(t->f, i);

		if (!o)
			continue;
		switch (o->id) {
		case TDAT_OPT_DATE:
			option_string(o, buf, 64);
			/* microseconds, as "0x..." */
			t->ts_offset += (int64_t)((uint64_t)strtoll(buf, NULL, 0) * 1000);
			break;
		case TDAT_OPT_OFFSET:
			option_string(o, buf, 64);
			t->ts_offset += strtoll(buf, NULL, 0);
			break;
		case TDAT_OPT_TSC2NSEC:
			if (o->size < 16)
				break;
			t->tsc_mult = tdat_get32(t->f, o->data);
			t->tsc_shift = tdat_get32(t->f, (const char *)o->data + 4);
			t->in_usecs = true;
			break;
		case TDAT_OPT_TRACECLOCK:
			have_clock_opt = true;
			option_string(o, buf, sizeof(buf));
			apply_clock(t, buf);
			break;
		default:
			break;
		}
	}
	/* v6 keeps the clock after the CPU table; read only with the option */
	if (tdat_version(t->f) < 7 && have_clock_opt && tdat_buffer_count(t->f)) {
		const struct tdat_buffer *b = tdat_buffer_get(t->f, 0);

		if (b && b->clock && b->clock[0]) {
			snprintf(buf, sizeof(buf), "[%s]", b->clock);
			apply_clock(t, buf);
		}
	}
}

/**
 * text_tep_setup() - build the libtraceevent handle of a trace
 * @t: engine; @t->f set
 *
 * Follows trace-cmd's order: plugins first (their handlers attach when
 * the formats are parsed), endianness and long size, then the metadata in
 * the order trace-cmd reads it (v6: file order; v7: the reverse of the
 * option order, as its section list is built by prepending).  Formats are
 * parsed when first met where that prints the same (tdatfs-text-event.c)
 * and kallsyms is read at the first address lookup (ksym_resolve()).
 *
 * Return: 0 or a negative errno.
 * Context: called once, under @t->lock.
 */
int text_tep_setup(struct tdatfs_text *t)
{
	uint32_t max_page = tdat_page_size(t->f);
	size_t i;
	int ret;

	t->tep = tep_alloc();
	if (!t->tep)
		return -ENOMEM;
	pthread_mutex_lock(&plugin_lock);
	t->plugins = tep_load_plugins(t->tep);
	pthread_mutex_unlock(&plugin_lock);

	t->big_endian = tdat_big_endian(t->f);
	tep_set_file_bigendian(t->tep, t->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	tep_set_local_bigendian(t->tep, TEP_BIG_ENDIAN);
#else
	tep_set_local_bigendian(t->tep, TEP_LITTLE_ENDIAN);
#endif
	tep_set_long_size(t->tep, tdat_long_size(t->f));
	tep_set_page_size(t->tep, tdat_page_size(t->f));
	if (tdat_cpu_count(t->f))
		tep_set_cpus(t->tep, tdat_cpu_count(t->f));

	if (tep_set_function_resolver(t->tep, ksym_resolve, t) < 0)
		return -ENOMEM;
	ret = text_events_index(t);
	if (ret < 0)
		return ret;
	if (tdat_version(t->f) >= 7) {
		ret = parse_blob(t, TDAT_META_CMDLINES);
		if (!ret)
			ret = parse_blob(t, TDAT_META_PRINTK);
		if (!ret)
			ret = parse_event_formats(t, false);
		if (!ret)
			ret = parse_event_formats(t, true);
		if (!ret)
			ret = parse_header_page(t);
	} else {
		ret = parse_header_page(t);
		if (!ret)
			ret = parse_event_formats(t, true);
		if (!ret)
			ret = parse_event_formats(t, false);
		if (!ret)
			ret = parse_blob(t, TDAT_META_PRINTK);
		if (!ret)
			ret = parse_blob(t, TDAT_META_CMDLINES);
	}
	if (ret < 0)
		return ret;

	t->kernel_long = tep_get_header_page_size(t->tep) == 8 ? 8 : 4;
	t->klong = t->kernel_long == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4;
	t->kendian = t->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE;
	t->old_format = tep_is_old_format(t->tep);
	t->ts_ok = tep_get_header_timestamp_size(t->tep) == 8;

	read_time_options(t);
	/*
	 * Until its first comm lookup libtraceevent keeps registered comms in
	 * a list without looking for duplicates, and nothing here looks a
	 * comm up through it: the sched plugins' registration of two comms
	 * per sched_switch grew it by 1.2 MB per 3 M events.  One lookup
	 * turns it into the sorted table trace-cmd's first printed line
	 * makes, which keeps the first comm of each pid.
	 */
	tep_data_comm_from_pid(t->tep, 1);
	find_comm_events(t);
	find_common_fields(t);
	ret = text_events_setup(t);
	if (ret < 0)
		return ret;

	for (i = 0; i < tdat_buffer_count(t->f); i++) {
		const struct tdat_buffer *b = tdat_buffer_get(t->f, i);

		if (b && b->page_size > max_page)
			max_page = b->page_size;
	}
	t->scratch_size = (size_t)max_page + SCRATCH_SLACK;
	t->scratch = calloc(1, t->scratch_size);
	if (!t->scratch)
		return -ENOMEM;
	trace_seq_init(&t->seq);
	return 0;
}

/**
 * text_tep_teardown() - free what text_tep_setup() built (also partly)
 * @t: engine
 */
void text_tep_teardown(struct tdatfs_text *t)
{
	text_events_teardown(t);
	if (t->scratch)
		trace_seq_destroy(&t->seq);
	free(t->scratch);
	t->scratch = NULL;
	if (t->tep) {
		pthread_mutex_lock(&plugin_lock);
		tep_unload_plugins(t->plugins, t->tep);
		pthread_mutex_unlock(&plugin_lock);
		tep_free(t->tep);
	}
	if (t->ksyms)
		tep_free(t->ksyms);
	t->ksyms = NULL;
	t->ksyms_read = false;
	t->tep = NULL;
	t->plugins = NULL;
	while (t->ncomms)
		free(t->comms[--t->ncomms].comm);
	free(t->comms);
	t->comms = NULL;
}

/* The kernel's mul_u64_u32_shr(), as trace-cmd uses it for TSC2NSEC. */
static uint64_t mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned int shift)
{
	uint64_t al = (uint32_t)a, ah = a >> 32, ret;

	if (shift > 32)
		return (uint64_t)(((unsigned __int128)a * mul) >> (shift > 127 ? 127 : shift));
	ret = (al * mul) >> shift;
	if (ah)
		ret += (ah * mul) << (32 - shift);
	return ret;
}

/**
 * text_ts_calc() - a raw ring-buffer timestamp as trace-cmd shows it
 * @t: engine (set up)
 * @raw: timestamp from kbuffer
 *
 * Return: the timestamp after TSC2NSEC, DATE and OFFSET.
 */
uint64_t text_ts_calc(const struct tdatfs_text *t, uint64_t raw)
{
	uint64_t ts = raw;

	if (t->tsc_mult)
		ts = mul_u64_u32_shr(ts, t->tsc_mult, t->tsc_shift);
	return ts + (uint64_t)t->ts_offset;
}
