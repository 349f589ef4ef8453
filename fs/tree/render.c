/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/render.c - the generated texts of the tree: README, info, every
 * option rendered for options/, sections/index, the trace_clock of
 * instances, and the views' events/summary.tsv and time/README
 * (tree/render.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "render.h"

/* A growing text; after a failed allocation it stays failed (@err). */
struct sbuf {
	char *s;
	size_t len;
	size_t cap;
	bool err;
};

static void sb_add(struct sbuf *b, const void *p, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *s;

		while (cap < b->len + n + 1)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s) {
			b->err = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void __attribute__((format(printf, 2, 3)))
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = true;
		return;
	}
	sb_add(b, s, n);
	free(s);
}

/* The text built in @b as a malloc'd string ("" when empty), or NULL. */
static char *sb_take(struct sbuf *b, size_t *len)
{
	if (b->err) {
		free(b->s);
		errno = ENOMEM;
		return NULL;
	}
	if (!b->s) {
		b->s = strdup("");
		if (!b->s)
			return NULL;
	}
	*len = b->len;
	return b->s;
}

/* ---- options ------------------------------------------------------------ */

/* Reads numbers from option bytes, tracking what is left. */
struct cursor {
	const struct tdat_file *f;
	const unsigned char *p;
	size_t left;
	bool bad;
};

static uint64_t cur_get(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || c->left < n) {
		c->bad = true;
		return 0;
	}
	if (n == 2)
		v = tdat_get16(c->f, c->p);
	else if (n == 4)
		v = tdat_get32(c->f, c->p);
	else
		v = tdat_get64(c->f, c->p);
	c->p += n;
	c->left -= n;
	return v;
}

/* A NUL-terminated string from the option bytes, or NULL. */
static const char *cur_str(struct cursor *c)
{
	const unsigned char *nul;
	const char *s;

	if (c->bad)
		return NULL;
	nul = c->left ? memchr(c->p, '\0', c->left) : NULL;
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	s = (const char *)c->p;
	c->left -= nul + 1 - c->p;
	c->p = nul + 1;
	return s;
}

static bool is_string_option(unsigned int id)
{
	switch (id) {
	case TDAT_OPT_DATE:
	case TDAT_OPT_CPUSTAT:
	case TDAT_OPT_TRACECLOCK:
	case TDAT_OPT_UNAME:
	case TDAT_OPT_HOOK:
	case TDAT_OPT_OFFSET:
	case TDAT_OPT_VERSION:
	case TDAT_OPT_PROCMAPS:
	case TDAT_OPT_LAST_BOOT_INFO:
		return true;
	}
	return false;
}

static void render_buffer(struct sbuf *b, struct cursor *c, bool v7, bool text)
{
	const char *s;
	uint32_t n, i;

	sb_printf(b, "offset: %" PRIu64 "\n", cur_get(c, 8));
	s = cur_str(c);
	if (s)
		sb_printf(b, "name: %s\n", s);
	if (!v7 || c->bad)
		return;
	s = cur_str(c);
	if (s)
		sb_printf(b, "clock: %s\n", s);
	if (text || c->bad)
		return;
	sb_printf(b, "page_size: %" PRIu64 "\n", cur_get(c, 4));
	n = cur_get(c, 4);
	if (c->bad)
		return;
	sb_printf(b, "cpus: %" PRIu32 "\n", n);
	for (i = 0; i < n && !c->bad; i++) {
		uint32_t cpu = cur_get(c, 4);
		uint64_t off = cur_get(c, 8);
		uint64_t size = cur_get(c, 8);

		if (!c->bad)
			sb_printf(b, "cpu%" PRIu32 ": offset %" PRIu64
				  " size %" PRIu64 "\n", cpu, off, size);
	}
}

static void render_time_shift(struct sbuf *b, struct cursor *c)
{
	uint32_t n, i, k, cnt;
	uint32_t *counts;

	sb_printf(b, "peer_trace_id: 0x%016" PRIX64 "\n", cur_get(c, 8));
	sb_printf(b, "flags: %" PRIu64 "\n", cur_get(c, 4));
	n = cur_get(c, 4);
	if (c->bad)
		return;
	sb_printf(b, "cpus: %" PRIu32 "\n", n);
	/* Each CPU takes at least 4 bytes: @n is bounded by the option size. */
	if (n > c->left / 4) {
		c->bad = true;
		return;
	}
	counts = calloc(n ? n : 1, sizeof(*counts));
	if (!counts) {
		b->err = true;
		return;
	}
	for (i = 0; i < n && !c->bad; i++) {
		const unsigned char *base;

		cnt = cur_get(c, 4);
		if (c->bad || cnt > c->left / 24) {
			c->bad = true;
			break;
		}
		counts[i] = cnt;
		sb_printf(b, "cpu%" PRIu32 "_count: %" PRIu32 "\n", i, cnt);
		base = c->p;
		for (k = 0; k < cnt; k++) {
			struct cursor e = { c->f, base + 8 * k, 8, false };
			struct cursor o = { c->f, base + 8 * (cnt + k), 8, false };
			struct cursor s = { c->f, base + 8 * (2 * cnt + k), 8, false };

			sb_printf(b, "cpu%" PRIu32 "[%" PRIu32 "]: ts %" PRIu64
				  " offset %" PRId64 " scaling %" PRIu64 "\n",
				  i, k, cur_get(&e, 8), (int64_t)cur_get(&o, 8),
				  cur_get(&s, 8));
		}
		c->p += 24 * (size_t)cnt;
		c->left -= 24 * (size_t)cnt;
	}
	/* The optional fraction bits (written since trace-cmd 2.9). */
	for (i = 0; i < n && !c->bad && c->left; i++)
		for (k = 0; k < counts[i] && c->left >= 8; k++)
			sb_printf(b, "cpu%" PRIu32 "[%" PRIu32 "]_fraction: %"
				  PRIu64 "\n", i, k, cur_get(c, 8));
	free(counts);
}

static void render_guest(struct sbuf *b, struct cursor *c)
{
	const char *name = cur_str(c);
	uint32_t n, i;

	if (name)
		sb_printf(b, "name: %s\n", name);
	sb_printf(b, "trace_id: 0x%016" PRIX64 "\n", cur_get(c, 8));
	n = cur_get(c, 4);
	if (c->bad)
		return;
	sb_printf(b, "cpus: %" PRIu32 "\n", n);
	for (i = 0; i < n && !c->bad; i++) {
		uint32_t cpu = cur_get(c, 4);
		int32_t pid = cur_get(c, 4);

		if (!c->bad)
			sb_printf(b, "cpu%" PRIu32 ": pid %" PRId32 "\n",
				  cpu, pid);
	}
}

static void option_into(const struct tdat_file *f, const struct tdat_option *o,
			struct sbuf *b)
{
	struct cursor c = { f, o->data, o->data ? o->size : 0, false };
	bool v7 = tdat_version(f) >= 7;

	if (is_string_option(o->id)) {
		size_t len = c.left;

		if (len && !c.p[len - 1])
			len--;
		sb_add(b, c.p, len);
		return;
	}
	switch (o->id) {
	case TDAT_OPT_DONE:
		if (c.left)
			sb_printf(b, "next_options: %" PRIu64 "\n",
				  cur_get(&c, 8));
		break;
	case TDAT_OPT_BUFFER:
		render_buffer(b, &c, v7, false);
		break;
	case TDAT_OPT_BUFFER_TEXT:
		render_buffer(b, &c, true, true);
		break;
	case TDAT_OPT_CPUCOUNT:
		sb_printf(b, "cpus: %" PRIu64 "\n", cur_get(&c, 4));
		break;
	case TDAT_OPT_TRACEID:
		sb_printf(b, "trace_id: 0x%016" PRIX64 "\n", cur_get(&c, 8));
		break;
	case TDAT_OPT_TSC2NSEC:
		sb_printf(b, "multiplier: %" PRIu64 "\n", cur_get(&c, 4));
		sb_printf(b, "shift: %" PRIu64 "\n", cur_get(&c, 4));
		sb_printf(b, "offset: %" PRIu64 "\n", cur_get(&c, 8));
		break;
	case TDAT_OPT_TIME_SHIFT:
		render_time_shift(b, &c);
		break;
	case TDAT_OPT_GUEST:
		render_guest(b, &c);
		break;
	case TDAT_OPT_HEADER_INFO:
	case TDAT_OPT_FTRACE_EVENTS:
	case TDAT_OPT_EVENT_FORMATS:
	case TDAT_OPT_KALLSYMS:
	case TDAT_OPT_PRINTK:
	case TDAT_OPT_CMDLINES:
	case TDAT_OPT_BTF_FILE:
	case TDAT_OPT_MODULES_FILE:
		sb_printf(b, "section_offset: %" PRIu64 "\n", cur_get(&c, 8));
		break;
	default:
		/* Unknown ids (and STRINGS, never an option): raw bytes. */
		sb_add(b, c.p, c.left);
		return;
	}
	if (c.bad)
		sb_printf(b, "error: option data too short (%" PRIu32
			  " bytes at offset %" PRIu64 ")\n", o->size, o->offset);
}

/**
 * render_option() - one option as its options/ file shows it
 * @f: trace (for its endianness and version)
 * @o: the option
 * @len: set to the length of the result
 *
 * Text options are shown without their trailing NUL, binary ones as
 * key: value lines, unknown ids as their raw bytes.
 *
 * Return: a malloc'd text, or NULL (errno ENOMEM).
 */
char *render_option(const struct tdat_file *f, const struct tdat_option *o,
		    size_t *len)
{
	struct sbuf b = { 0 };

	option_into(f, o, &b);
	return sb_take(&b, len);
}

/**
 * render_option_repeats() - whether an option id always gets a directory
 * @id: option id
 *
 * Return: true for the ids that occur once per CPU, buffer or guest.
 */
bool render_option_repeats(unsigned int id)
{
	return id == TDAT_OPT_CPUSTAT || id == TDAT_OPT_BUFFER ||
	       id == TDAT_OPT_GUEST;
}

/**
 * render_stat_cpu() - the CPU a CPUSTAT option is about
 * @o: a CPUSTAT option
 *
 * Return: N of its leading "CPU: N" line, or -1 when it has none.
 */
long render_stat_cpu(const struct tdat_option *o)
{
	const char *p = o->data;
	unsigned long v = 0;
	size_t i = 5;

	if (!p || o->size < 6 || memcmp(p, "CPU: ", 5))
		return -1;
	if (p[i] < '0' || p[i] > '9')
		return -1;
	for (; i < o->size && p[i] >= '0' && p[i] <= '9' && v < 1000000; i++)
		v = v * 10 + (p[i] - '0');
	return v;
}

/**
 * render_occurrence_name() - file name of one occurrence of a repeated option
 * @f: trace
 * @o: the option
 * @nth: how many options of its id came before it
 * @prefix: CPUSTAT's instance prefix ("NAME-"), updated by a separator
 * @plen: room in @prefix
 * @name: set to the name; "" for a CPUSTAT separator (folded into the
 *	names of the entries after it)
 * @nlen: room in @name
 *
 * Return: true when @name is a name the trace holds (an instance's in
 * buffer/, a guest's), false when it is one the tree makes ("top", a
 * CPU, a number), so that a name from the trace can be kept from taking
 * one of the tree's own.
 */
bool render_occurrence_name(const struct tdat_file *f,
			    const struct tdat_option *o, unsigned int nth,
			    char *prefix, size_t plen, char *name, size_t nlen)
{
	struct cursor c = { f, o->data, o->data ? o->size : 0, false };
	const char *s;
	long cpu;

	switch (o->id) {
	case TDAT_OPT_CPUSTAT:
		if (c.left > 9 && !memcmp(c.p, "\nBuffer: ", 9)) {
			size_t i = 9;

			while (i < c.left && c.p[i] != '\n' && c.p[i] &&
			       i - 9 < plen - 2)
				i++;
			snprintf(prefix, plen, "%.*s-", (int)(i - 9), c.p + 9);
			name[0] = '\0';
			return false;
		}
		cpu = render_stat_cpu(o);
		if (cpu >= 0) {
			snprintf(name, nlen, "%scpu%ld", prefix, cpu);
			return false;
		}
		snprintf(name, nlen, "%s%u", prefix, nth);
		return false;
	case TDAT_OPT_BUFFER:
	case TDAT_OPT_BUFFER_TEXT:
		cur_get(&c, 8);
		s = cur_str(&c);
		if (s) {
			snprintf(name, nlen, "%s", *s ? s : "top");
			return *s != '\0';
		}
		break;
	case TDAT_OPT_GUEST:
		s = cur_str(&c);
		if (s && *s) {
			snprintf(name, nlen, "%s", s);
			return true;
		}
		break;
	case TDAT_OPT_PROCMAPS:
		if (c.left && c.p[0] >= '0' && c.p[0] <= '9') {
			size_t i = 0;

			while (i < c.left && i < nlen - 1 &&
			       c.p[i] >= '0' && c.p[i] <= '9')
				i++;
			snprintf(name, nlen, "%.*s", (int)i, c.p);
			return false;
		}
		break;
	}
	snprintf(name, nlen, "%u", nth);
	return false;
}

/**
 * render_stat_separator() - the instance a CPUSTAT separator starts
 * @o: a CPUSTAT option
 * @name: set to the instance's name
 * @len: room in @name
 *
 * trace-cmd writes "\nBuffer: NAME\n\n" before the CPUSTAT entries of an
 * instance.
 *
 * Return: true when @o is such a separator and its name fits in @name.
 */
bool render_stat_separator(const struct tdat_option *o, char *name,
			   size_t len)
{
	const char *p = (const char *)o->data + 9;
	size_t n = 0, max;

	if (o->size <= 9 || memcmp(o->data, "\nBuffer: ", 9))
		return false;
	max = o->size - 9;
	while (n < max && p[n] && p[n] != '\n')
		n++;
	if (n >= len)
		return false;
	memcpy(name, p, n);
	name[n] = '\0';
	return true;
}

/* ---- sections/index, info, README -------------------------------------- */

/**
 * render_index() - the text of sections/index
 * @f: trace
 * @e: the entries of sections/, in the order to list them
 * @n: entries in @e
 * @len: set to the length of the result
 *
 * Reads the chunk tables of every compressed buffer (their sizes); an entry
 * whose section cannot be sized is left out.
 *
 * Return: a malloc'd text, or NULL (errno ENOMEM).
 */
char *render_index(struct tdat_file *f, const struct render_index_entry *e,
		   size_t n, size_t *len)
{
	struct sbuf b = { 0 };
	size_t k;

	sb_printf(&b, "entry id flags offset stored_size data_size description\n");
	for (k = 0; k < n; k++) {
		const struct tdat_section *s = tdat_section_get(f, e[k].section);
		uint64_t size;

		if (!s || tdat_section_data_size(f, e[k].section, &size) < 0)
			continue;
		sb_printf(&b, "%s %u 0x%x %" PRIu64 " %" PRIu64 " %" PRIu64
			  " %s\n", e[k].name, s->id, s->flags, s->offset, s->size,
			  size, s->description ? s->description : "");
	}
	return sb_take(&b, len);
}

/**
 * render_info() - the text of info: a key: value summary of the file
 * @f: trace
 * @len: set to the length of the result
 *
 * Return: a malloc'd text, or NULL (errno ENOMEM).
 */
char *render_info(struct tdat_file *f, size_t *len)
{
	struct sbuf b = { 0 };
	size_t i, n = tdat_buffer_count(f);

	sb_printf(&b, "version: %u\n", tdat_version(f));
	sb_printf(&b, "endianness: %s\n",
		  tdat_big_endian(f) ? "big" : "little");
	sb_printf(&b, "long_size: %u\n", tdat_long_size(f));
	sb_printf(&b, "kernel_long_size: %u\n", tdat_kernel_long_size(f));
	sb_printf(&b, "page_size: %" PRIu32 "\n", tdat_page_size(f));
	sb_printf(&b, "compression: %s\n", tdat_compression(f));
	sb_printf(&b, "compression_version: %s\n",
		  tdat_compression_version(f));
	sb_printf(&b, "cpus: %u\n", tdat_cpu_count(f));
	sb_printf(&b, "buffers: %zu\n", n);
	sb_printf(&b, "sections: %zu\n", tdat_section_count(f));
	sb_printf(&b, "options: %zu\n", tdat_option_count(f));
	sb_printf(&b, "event_formats: %zu\n", tdat_event_count(f));
	sb_printf(&b, "file_size: %" PRIu64 "\n", tdat_file_size(f));
	for (i = 0; i < n; i++) {
		const struct tdat_buffer *buf = tdat_buffer_get(f, i);

		if (!buf)
			continue;
		sb_printf(&b, "buffer: %s type=%s clock=%s page_size=%" PRIu32
			  " cpus=%u\n", buf->name && *buf->name ? buf->name : "top",
			  buf->latency ? "latency" : "flyrecord",
			  buf->clock && *buf->clock ? buf->clock : "unknown",
			  buf->page_size, buf->ncpus);
	}
	return sb_take(&b, len);
}

static const char readme_text[] =
"tdatfs - a trace-cmd trace.dat file shown as files (read-only)\n"
"\n"
"Names follow tracefs (/sys/kernel/tracing). Files exist only for what\n"
"this trace holds.\n"
"\n"
"  info                  key: value summary of the file (version, endianness,\n"
"                        long sizes, page size, compression, cpus, buffers...)\n"
"  header_page, header_event   ring-buffer header formats as stored\n"
"  events/SYSTEM/EVENT/format  event format files as stored (ftrace/ too)\n"
"  events/SYSTEM/EVENT/id      the event id, decimal\n"
"  events/SYSTEM/EVENT/trace   the lines of trace for this event's records\n"
"                        (all lines of a multi-line record); only for an\n"
"                        event with records: ls events/*/*/trace lists them\n"
"  events/SYSTEM/EVENT/fields.tsv   its records as a table: time cpu comm\n"
"                        pid, then the event's fields as trace-cmd report -R\n"
"                        prints them; tab-separated, \\t \\n \\\\ escaped\n"
"  events/summary.tsv    system event id records first_time last_time, one\n"
"                        row per event with records, by system then event\n"
"  time/T0-T1/           looked up by name, not listed: trace and\n"
"                        per_cpu/cpuN/trace cut to the records with time t,\n"
"                        as trace prints it, T0 <= t < T1 (seconds, e.g.\n"
"                        time/506.3175-506.32/trace); time/README gives the\n"
"                        first and last record time\n"
"  kallsyms, printk_formats, saved_cmdlines   as stored\n"
"  trace_clock           TRACECLOCK option text as stored\n"
"  trace                 decoded events of the top buffer, as trace-cmd report\n"
"                        prints them (without its cpus= line)\n"
"  trace.pftrace         the buffer's events as a Perfetto protobuf trace:\n"
"                        open it in ui.perfetto.dev or trace_processor_shell\n"
"                        (also in instances/NAME/ and time/T0-T1/)\n"
"  per_cpu/cpuN/trace    the same for one CPU\n"
"  per_cpu/cpuN/trace_pipe_raw   the CPU's ring-buffer pages, decompressed\n"
"  per_cpu/cpuN/stats    CPUSTAT option text of the buffer for CPU N\n"
"  report                the whole trace-cmd report: its cpus= line, then\n"
"                        every buffer's events in time order, each instance\n"
"                        line prefixed by \"NAME: \" (top ones by spaces)\n"
"  instances/NAME/       trace, trace_clock, per_cpu/, events/ (views and\n"
"                        summary.tsv only) and time/ of another buffer;\n"
"                        its trace_clock is the TRACECLOCK list with this\n"
"                        buffer's clock in brackets, or just the clock name\n"
"  btf/vmlinux, modules  BTF and modules files, decompressed, when stored\n"
"  sections/NN-slug      (v7) each section in file order: metadata sections\n"
"                        as their decompressed payload, buffer sections as\n"
"                        directories of cpuN files (= trace_pipe_raw)\n"
"  sections/index        entry id flags offset stored_size data_size description\n"
"\n"
"A latency trace shows its stored text as the trace of its buffer.\n"
"A latency trace has no report file.\n"
"The size of a trace or report file is 0 until its text has been\n"
"produced once (read it to the end); from then on it is exact. Read until\n"
"end of file. (Mounted with its index, every size is exact at once.)\n"
"The views (events/*/*/trace, fields.tsv, summary.tsv, time/) need the\n"
"per-event counts that producing the buffer's trace learns: the index\n"
"has them; without it the first use produces that text once. Their\n"
"sizes are exact from the first stat.\n"
"\n"
"options/ holds one file per option, named in lower case. Options that\n"
"occur more than once (and always cpustat, buffer, guest) are directories\n"
"with one file per occurrence: cpustat/cpuN (instances: NAME-cpuN; the\n"
"\"Buffer: NAME\" separator entries are folded into those names),\n"
"buffer/NAME (top for the top buffer), guest/NAME, procmaps/PID, others\n"
"numbered 0, 1, ... in file order. Unknown ids appear as unknown-ID with\n"
"their raw bytes. Text options are shown without their trailing NUL.\n"
"Binary options are rendered as key: value lines:\n"
"  cpucount      cpus: N\n"
"  traceid       trace_id: 0x%016X\n"
"  tsc2nsec      multiplier: N / shift: N / offset: N\n"
"  buffer        offset: N / name: S / clock: S / page_size: N / cpus: N /\n"
"                cpuID: offset N size N   (one line per CPU; v6: offset, name)\n"
"  buffer_text   offset: N / name: S / clock: S\n"
"  time_shift    peer_trace_id: 0x.. / flags: N / cpus: N / cpuI_count: C /\n"
"                cpuI[k]: ts T offset O scaling S / cpuI[k]_fraction: F\n"
"  guest         name: S / trace_id: 0x.. / cpus: N / cpuID: pid P\n"
"  headers, ftrace_events, event_formats, kallsyms, printk, cmdlines,\n"
"  btf_file, modules_file    section_offset: N\n"
"  done          next_options: N   (v7; empty for the v6 marker)\n"
"A field that does not fit the option data ends the rendering with an\n"
"\"error: option data too short\" line.\n";

/**
 * render_readme() - the text of README
 * @len: set to its length
 *
 * Return: a static text (not to be freed).
 */
const char *render_readme(size_t *len)
{
	*len = sizeof(readme_text) - 1;
	return readme_text;
}

/**
 * render_clock() - trace_clock text of a buffer
 * @f: trace
 * @clock: the buffer's clock name ("" when unknown)
 * @len: set to the length of the result
 *
 * The TRACECLOCK option's list is shown with @clock bracketed, as a live
 * instance's trace_clock file shows it; without a TRACECLOCK option, or
 * when @clock is not in its list, the result is @clock and a newline.
 *
 * Return: a malloc'd text, or NULL (errno ENOENT when @clock is empty,
 * ENOMEM).
 */
char *render_clock(const struct tdat_file *f, const char *clock, size_t *len)
{
	size_t i, n = tdat_option_count(f), clen = strlen(clock);
	const struct tdat_option *o = NULL;
	struct sbuf b = { 0 };
	bool found = false;

	if (!clen) {
		errno = ENOENT;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		o = tdat_option_get(f, i);
		if (o && o->id == TDAT_OPT_TRACECLOCK)
			break;
		o = NULL;
	}
	if (o && o->data) {
		const char *p = o->data, *end = p + o->size;

		while (p < end) {
			const char *w;
			size_t wl;

			while (p < end && (*p == ' ' || *p == '\n' || !*p))
				p++;
			if (p == end)
				break;
			w = p;
			while (p < end && *p != ' ' && *p != '\n' && *p)
				p++;
			wl = p - w;
			if (wl >= 2 && w[0] == '[' && w[wl - 1] == ']') {
				w++;
				wl -= 2;
			}
			if (b.len)
				sb_add(&b, " ", 1);
			if (wl == clen && !memcmp(w, clock, clen)) {
				found = true;
				sb_printf(&b, "[%s]", clock);
			} else {
				sb_add(&b, w, wl);
			}
		}
	}
	if (!found) {
		b.len = 0;
		sb_add(&b, clock, clen);
	}
	sb_add(&b, "\n", 1);
	if (b.err) {
		free(b.s);
		errno = ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.s;
}

/* ---- the views' texts: events/summary.tsv, time/README ------------------ */

/* A format's id and index, to find a format by id. */
struct id_format {
	int id;
	size_t index;
};

static int cmp_id_format(const void *a, const void *b)
{
	const struct id_format *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* One row of summary.tsv, with its event's names. */
struct summary_row {
	const struct tdatfs_text_event_stat *s;
	const char *system;
	const char *event;
};

static int cmp_summary_row(const void *a, const void *b)
{
	const struct summary_row *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	if (!c)
		c = strcmp(x->event, y->event);
	if (!c && x->s->id != y->s->id)
		c = x->s->id < y->s->id ? -1 : 1;
	return c;
}

/* @s into @b as a TSV value: tab, newline and backslash escaped. */
static void sb_tsv(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\t')
			sb_add(b, "\\t", 2);
		else if (*s == '\n')
			sb_add(b, "\\n", 2);
		else if (*s == '\\')
			sb_add(b, "\\\\", 2);
		else
			sb_add(b, s, 1);
	}
}

/* The names of each row's event (the first format of its id; "" for an
 * id without a format). */
static int summary_names(struct tdat_file *f, struct summary_row *r, size_t n)
{
	size_t i, k, nf = tdat_event_count(f), count = 0;
	struct id_format *ids = calloc(nf ? nf : 1, sizeof(*ids));

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < nf; i++)
		if (tdat_event_get(f, i))
			ids[count++] = (struct id_format){
				tdat_event_get(f, i)->id, i };
	qsort(ids, count, sizeof(*ids), cmp_id_format);
	for (k = 0; k < n; k++) {
		struct id_format key = { r[k].s->id, 0 }, *hit;
		size_t lo = 0, hi = count;

		/* the first of its id: a lower bound */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_id_format(&ids[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		hit = lo < count && ids[lo].id == key.id ? &ids[lo] : NULL;
		r[k].system = hit ? tdat_event_get(f, hit->index)->system : "";
		r[k].event = hit ? tdat_event_get(f, hit->index)->name : "";
	}
	free(ids);
	return 0;
}

/* One time of a buffer, formatted, as a value of @b. */
static int sb_time(struct sbuf *b, struct tdatfs_text *t, size_t buffer,
		   uint64_t ts)
{
	char s[64];
	int l = tdatfs_text_time_format(t, buffer, ts, s, sizeof(s));

	if (l < 0)
		return l;
	sb_add(b, s, (size_t)l < sizeof(s) ? (size_t)l : sizeof(s) - 1);
	return 0;
}

/**
 * render_summary() - the text of a buffer's events/summary.tsv
 * @f: trace
 * @t: its text engine
 * @buffer: buffer index
 * @len: set to the length of the result
 *
 * A header row "system event id records first_time last_time"
 * (tab-separated), then one row per event with records in the buffer,
 * sorted by system, then event name (strcmp), then id; times as
 * tdatfs_text_time_format() writes them.  An id without a format has
 * empty names; a tab, newline or backslash in a name is written \t, \n,
 * \\ (as in fields.tsv).  A buffer without records has the header only.
 *
 * Return: a malloc'd text, or NULL with errno set (the stats' error,
 * ENOMEM).
 */
char *render_summary(struct tdat_file *f, struct tdatfs_text *t, size_t buffer,
		     size_t *len)
{
	const struct tdatfs_text_event_stat *s = NULL;
	struct summary_row *r;
	struct sbuf b = { 0 };
	size_t k, n = 0;
	int ret = tdatfs_text_event_stats(t, buffer, &s, &n);

	if (ret == -ENOENT)
		n = 0;
	else if (ret)
		goto fail;
	r = calloc(n ? n : 1, sizeof(*r));
	ret = r ? 0 : -ENOMEM;
	for (k = 0; k < n && r; k++)
		r[k].s = &s[k];
	if (!ret)
		ret = summary_names(f, r, n);
	if (!ret)
		qsort(r, n, sizeof(*r), cmp_summary_row);
	sb_printf(&b, "system\tevent\tid\trecords\tfirst_time\tlast_time\n");
	for (k = 0; !ret && k < n; k++) {
		sb_tsv(&b, r[k].system);
		sb_add(&b, "\t", 1);
		sb_tsv(&b, r[k].event);
		sb_printf(&b, "\t%d\t%" PRIu64 "\t", r[k].s->id, r[k].s->records);
		ret = sb_time(&b, t, buffer, r[k].s->first_ts);
		sb_add(&b, "\t", 1);
		if (!ret)
			ret = sb_time(&b, t, buffer, r[k].s->last_ts);
		sb_add(&b, "\n", 1);
	}
	free(r);
	if (!ret)
		return sb_take(&b, len);
	free(b.s);
fail:
	errno = -ret;
	return NULL;
}

/*
 * @s (a formatted time, digits and at most one '.') plus one unit of its
 * last digit, in place; @size is its room.  Return: false when it does
 * not fit.
 */
static bool time_next(char *s, size_t size)
{
	size_t l = strlen(s), i = l;

	while (i--) {
		if (s[i] == '.')
			continue;
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (s[i] != '9') {
			s[i]++;
			return true;
		}
		s[i] = '0';
	}
	/* every digit carried: a new leading 1 */
	if (l + 2 > size)
		return false;
	memmove(s + 1, s, l + 1);
	s[0] = '1';
	return true;
}

/**
 * render_time_readme() - the text of a buffer's time/README
 * @t: the trace's text engine
 * @buffer: buffer index
 * @len: set to the length of the result
 *
 * How to name a window, the buffer's first and last record time
 * (tdatfs_text_time_range()) and the name of the window that holds every
 * record: from the first time to the last one plus one unit of its last
 * printed digit.
 *
 * Return: a malloc'd text, or NULL with errno set (the stats' error,
 * ENOMEM).
 */
char *render_time_readme(struct tdatfs_text *t, size_t buffer, size_t *len)
{
	char first[64], last[64], next[64];
	uint64_t t0, t1;
	struct sbuf b = { 0 };
	int ret = tdatfs_text_time_range(t, buffer, &t0, &t1), l0 = 0, l1 = 0;

	if (!ret) {
		l0 = tdatfs_text_time_format(t, buffer, t0, first, sizeof(first));
		l1 = tdatfs_text_time_format(t, buffer, t1, last, sizeof(last));
		ret = l0 < 0 ? l0 : l1 < 0 ? l1 : 0;
	}
	if (ret && ret != -ENOENT) {
		errno = -ret;
		return NULL;
	}
	sb_printf(&b,
"time/ - time windows of this buffer's trace\n"
"\n"
"A directory named T0-T1 here is looked up by name (it is not listed).\n"
"It holds trace and per_cpu/cpuN/trace: the lines of this buffer's trace\n"
"and per_cpu/cpuN/trace whose record time t, as the line prints it, has\n"
"T0 <= t < T1 (every line of a record printed on several lines goes by\n"
"that record's time).  T0 and T1 are seconds as trace prints timestamps,\n"
"with at most nine decimals (a trace without a nanosecond clock prints\n"
"raw counts: then T0 and T1 are counts).  A malformed name, or T1 <= T0,\n"
"does not exist.  For example:\n"
"  cat time/506.3175-506.32/trace\n"
"\n");
	if (ret) {
		sb_printf(&b, "This buffer has no records.\n");
		return sb_take(&b, len);
	}
	snprintf(next, sizeof(next), "%s", last);
	sb_printf(&b, "first record: %s\nlast record: %s\n", first, last);
	if (time_next(next, sizeof(next)))
		sb_printf(&b, "every record: %s-%s/\n", first, next);
	return sb_take(&b, len);
}
