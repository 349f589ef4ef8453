/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/ftrace-funcgraph.c - funcgraph_entry / funcgraph_exit as trace-cmd's
 * fgraph_ent_handler() and fgraph_ret_handler() print them, with both
 * plugin options (fgraph:tailprint, fgraph:depth) off, as without -O.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "event-table.h"
#include "ftrace-funcgraph.h"
#include "source.h"
#include "tep.h"

/* trace-cmd's TRACE_GRAPH_INDENT */
#define GRAPH_INDENT	2
/*
 * Spaces of indentation at most: trace-cmd writes depth * 2 of them,
 * which a damaged depth makes gigabytes; no real call chain comes near.
 */
#define INDENT_MAX	(1u << 20)

struct text_funcgraph {
	struct text_tep *tt;
	struct text_events *evs;
	bool big_endian;
	int entry_id;		/* -1: no such format in the trace */
	int exit_id;
	/* learned of the parsed formats on first use, under the tep lock */
	bool learned;
	bool fields_ok;
	struct text_num_field ent_func, ent_depth;
	struct text_num_field ex_func, ex_depth, ex_call, ex_ret;
};

/**
 * text_funcgraph_new() - the function_graph formatter of a trace
 * @f: the trace
 * @tt: its libtraceevent handle
 * @evs: its event table; these three must outlive the formatter
 * @big_endian: byte order of the file
 *
 * Only the ids are looked up here (the formats stay unparsed until a
 * record of theirs is met, as the event table wants).
 *
 * Return: the formatter (free with text_funcgraph_free()), or NULL with errno.
 */
struct text_funcgraph *text_funcgraph_new(struct tdat_file *f,
					  struct text_tep *tt,
					  struct text_events *evs,
					  bool big_endian)
{
	struct text_funcgraph *g = calloc(1, sizeof(*g));
	size_t i, n = tdat_event_count(f);

	if (!g)
		return NULL;
	g->tt = tt;
	g->evs = evs;
	g->big_endian = big_endian;
	g->entry_id = -1;
	g->exit_id = -1;
	for (i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(f, i);

		if (!e || strcmp(e->system, "ftrace"))
			continue;
		if (!strcmp(e->name, "funcgraph_entry") && g->entry_id < 0)
			g->entry_id = e->id;
		else if (!strcmp(e->name, "funcgraph_exit") && g->exit_id < 0)
			g->exit_id = e->id;
	}
	return g;
}

/**
 * text_funcgraph_free() - free a formatter; NULL is fine
 * @g: formatter
 */
void text_funcgraph_free(struct text_funcgraph *g)
{
	free(g);
}

/**
 * text_funcgraph_lookahead() - whether an entry's text may depend on records
 * of other CPUs
 * @g: formatter (NULL: none)
 *
 * Return: true when the trace has both funcgraph formats, so the text of
 * one CPU needs a source over every CPU of its buffer.
 */
bool text_funcgraph_lookahead(const struct text_funcgraph *g)
{
	return g && g->entry_id >= 0 && g->exit_id >= 0;
}

/**
 * text_funcgraph_wants() - whether a record's text is made here, looking ahead
 * @g: formatter (NULL: none)
 * @id: the record's event id
 *
 * Return: true for a funcgraph entry or exit when both formats exist.
 */
bool text_funcgraph_wants(const struct text_funcgraph *g, int id)
{
	return text_funcgraph_lookahead(g) &&
	       (id == g->entry_id || id == g->exit_id);
}

/**
 * text_funcgraph_peeks() - whether a record of event @id looks ahead
 * @g: formatter (NULL: none)
 * @id: the record's event id
 *
 * Only an entry peeks at the record after it (to print a leaf on one
 * line); an exit, or any other record, is printed from itself alone.
 *
 * Return: true for a funcgraph entry when both formats exist.
 */
bool text_funcgraph_peeks(const struct text_funcgraph *g, int id)
{
	return text_funcgraph_lookahead(g) && id == g->entry_id;
}

/* The field offsets of both formats, once; under the tep lock. */
static bool learn_locked(struct text_funcgraph *g, struct tep_event *ent,
			 struct tep_event *ex)
{
	if (!g->learned) {
		g->learned = true;
		g->fields_ok = text_num_field_find(ent, "func", &g->ent_func) &&
			       text_num_field_find(ent, "depth", &g->ent_depth) &&
			       text_num_field_find(ex, "func", &g->ex_func) &&
			       text_num_field_find(ex, "depth", &g->ex_depth) &&
			       text_num_field_find(ex, "calltime", &g->ex_call) &&
			       text_num_field_find(ex, "rettime", &g->ex_ret);
	}
	return g->fields_ok;
}

/* A field of a record that holds it (checked by the caller). */
static uint64_t field(const struct text_funcgraph *g, const struct text_rec *r,
		      const struct text_num_field *gf)
{
	return text_num_field_read(gf, g->big_endian, r->data);
}

static int put_spaces(struct tdatfs_buf *out, size_t n)
{
	char *o = tdatfs_buf_reserve(out, n);

	if (!o)
		return -ENOMEM;
	memset(o, ' ', n);
	out->len += n;
	return 0;
}

/* trace-cmd's loop to (int)(depth * TRACE_GRAPH_INDENT). */
static int put_indent(struct tdatfs_buf *out, uint64_t depth)
{
	int n = (int)(depth * GRAPH_INDENT);

	if (n <= 0)
		return 0;
	return put_spaces(out, (unsigned int)n > INDENT_MAX ? INDENT_MAX : (size_t)n);
}

/* The overhead mark: print_graph_overhead(). */
static const char *mark(uint64_t d)
{
	if (d == ~0ull)
		return "  ";
	if (d > 1000000000ull)
		return "$ ";
	if (d > 1000000ull)
		return "# ";
	if (d > 100000ull)
		return "! ";
	if (d > 10000ull)
		return "+ ";
	return "  ";
}

/* Mark and duration column: print_graph_overhead() and
 * print_graph_duration(), "  9.999 us   |  " up to "$ 12345678 us |  ". */
static int put_duration(struct tdatfs_buf *out, uint64_t d)
{
	char t[48];
	int len;

	len = snprintf(t, sizeof(t), "%llu", (unsigned long long)(d / 1000));
	if (len < 7)
		len += snprintf(t + len, sizeof(t) - len, ".%03llu",
				(unsigned long long)(d % 1000));
	return tdatfs_buf_printf(out, "%s%s us %*s|  ", mark(d), t,
				 len < 7 ? 7 - len : 0, "");
}

/* The function's name, or its address in hex without 0x. */
static int put_func(struct text_funcgraph *g, struct tdatfs_buf *out,
		    uint64_t addr)
{
	const char *name = tep_find_function(text_tep_handle(g->tt), addr);

	if (name)
		return tdatfs_buf_put(out, name, strlen(name));
	return tdatfs_buf_printf(out, "%llx", (unsigned long long)addr);
}

/* Whether @n is the exit of the entry's call: get_return_for_leaf(). */
static bool is_leaf(const struct text_funcgraph *g,
		    const struct text_event_desc *xd, const struct text_rec *n,
		    int pid, uint64_t func)
{
	int id, npid;

	if (!n || !text_record_type(g->evs, n->data, n->size, &id) ||
	    id != g->exit_id)
		return false;
	if (!text_record_pid(g->evs, n->data, n->size, &npid) || npid != pid)
		return false;
	/* a short exit has no duration to show: not taken */
	if (!text_event_fits(g->evs, xd, n->data, n->size))
		return false;
	return field(g, n, &g->ex_func) == func;
}

/* An entry: a leaf "f();" with its exit's duration, else "f() {". */
static int put_entry(struct text_funcgraph *g, const struct text_event_desc *xd,
		     const struct text_rec *r, const struct text_rec *next,
		     struct text_source *src, struct tdatfs_buf *out)
{
	uint64_t func = field(g, r, &g->ent_func);
	uint64_t depth = field(g, r, &g->ent_depth);
	int pid, ret;

	if (!text_record_pid(g->evs, r->data, r->size, &pid))
		return 1;
	if (is_leaf(g, xd, next, pid, func)) {
		uint64_t d = field(g, next, &g->ex_ret) - field(g, next, &g->ex_call);

		ret = text_source_consume(src, next->cpu);
		if (ret >= 0)
			ret = put_duration(out, d);
		if (ret >= 0)
			ret = put_indent(out, depth);
		if (ret >= 0)
			ret = put_func(g, out, func);
		return ret < 0 ? ret : tdatfs_buf_put(out, "();", 3);
	}
	ret = tdatfs_buf_put(out, "             |  ", 16);
	if (ret >= 0)
		ret = put_indent(out, depth);
	if (ret >= 0)
		ret = put_func(g, out, func);
	return ret < 0 ? ret : tdatfs_buf_put(out, "() {", 4);
}

/* An exit not taken by a leaf: "}" after its duration. */
static int put_exit(struct text_funcgraph *g, const struct text_rec *r,
		    struct tdatfs_buf *out)
{
	uint64_t d = field(g, r, &g->ex_ret) - field(g, r, &g->ex_call);
	int ret = put_duration(out, d);

	if (ret >= 0)
		ret = put_indent(out, field(g, r, &g->ex_depth));
	return ret < 0 ? ret : tdatfs_buf_put(out, "}", 1);
}

/**
 * text_funcgraph_info() - the info text of a funcgraph record
 * @g: formatter (NULL: none)
 * @d: the record's event (published, not a duplicate id)
 * @r: the record, already consumed from @src and known to hold @d's fields
 * @src: where @r came from, for an entry's look-ahead; NULL: nothing follows
 * @out: destination, after the line's head
 *
 * The look-ahead is the record the whole source gives next, whatever its
 * CPU (trace-cmd peeks every CPU of the buffer, also with --cpu N).
 *
 * Return: 0 written, 1 not a record printed here (the caller writes the
 * print format, as trace-cmd does without a funcgraph_exit format), or a
 * negative errno.
 * Context: the caller holds the stream lock, not the tep lock.
 */
int text_funcgraph_info(struct text_funcgraph *g,
			const struct text_event_desc *d,
			const struct text_rec *r, struct text_source *src,
			struct tdatfs_buf *out)
{
	const struct text_event_desc *ed, *xd;
	const struct text_rec *next = NULL;
	bool entry;
	int ret;

	if (!text_funcgraph_lookahead(g) ||
	    (d->ev->id != g->entry_id && d->ev->id != g->exit_id))
		return 1;
	entry = d->ev->id == g->entry_id;
	ed = xd = d;
	ret = text_event_lookup(g->evs, entry ? g->exit_id : g->entry_id,
				entry ? &xd : &ed);
	if (ret < 0)
		return ret;
	if (!ed || !xd || ed->dup || xd->dup)
		return 1;
	if (entry && src) {
		ret = text_source_peek_next(src, &next);
		if (ret < 0)
			return ret;
	}
	text_tep_lock(g->tt);
	if (!learn_locked(g, ed->ev, xd->ev))
		ret = 1;
	else if (entry)
		ret = put_entry(g, xd, r, next, src, out);
	else
		ret = put_exit(g, r, out);
	/* a function printed as hex for want of memory for kallsyms */
	if (ret >= 0 && text_tep_take_error(g->tt) < 0)
		ret = -ENOMEM;
	text_tep_unlock(g->tt);
	return ret;
}
