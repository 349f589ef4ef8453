/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/build.c - the builder of the virtual tree: one node per file
 * the trace holds, from the parser's tables, with the generated texts that
 * tree/render.c returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "internal.h"
#include "render.h"

/* Names are built into fixed buffers; tree_add() cuts them to TREE_NAME_MAX. */
#define NAME_MAX_LEN	256

/*
 * The names an events/ directory keeps for the tree's own files (those of
 * tree_meta_files[] in events/, and summary.tsv, added after the systems):
 * a system of one of these names gets a suffix, the file keeps its name,
 * in the root's events/ and an instance's alike.
 */
static const char *const events_own[] = {
	"header_page", "header_event", "summary.tsv", NULL
};

/* The name options/buffer/ keeps for the top buffer's occurrence. */
static const char *const buffer_own[] = { "top", NULL };

/* A child by its exact name during the build, or -1. */
static long tree_find(const struct tdatfs_tree *t, uint32_t parent,
		      const char *name)
{
	return tree_name_find(t, parent, name);
}

/* A child by the name a wanted name becomes (tree_name_clean()), or -1. */
static long tree_find_wanted(const struct tdatfs_tree *t, uint32_t parent,
			     const char *name)
{
	char *nm = tree_name_clean(name);
	long i = nm ? tree_name_find(t, parent, nm) : -1;

	free(nm);
	return i;
}

/* Room for one more child of @p. */
static int kids_grow(struct tree_node *p)
{
	uint32_t cap;
	void *nk;

	if (p->u.dir.nkids < p->u.dir.cap)
		return 0;
	cap = p->u.dir.cap ? p->u.dir.cap * 2 : 8;
	nk = reallocarray(p->u.dir.kids, cap, sizeof(*p->u.dir.kids));
	if (!nk)
		return -ENOMEM;
	p->u.dir.kids = nk;
	p->u.dir.cap = cap;
	return 0;
}

/**
 * tree_add_avoid() - add a node under a directory, its name not one of some
 * @t: tree being built
 * @parent: index of the parent directory (ignored for the first node, the
 *	root, which is its own parent)
 * @name: wanted name, made a file name by tree_name_unique()
 * @own: names kept for the tree's own files of @parent, which a name from
 *	the trace must not take (NULL-terminated; NULL: none)
 * @kind: enum tree_kind; the caller fills in the node's u member
 * @idx: set to the new node's index
 *
 * Return: 0 or -ENOMEM.
 */
static int tree_add_avoid(struct tdatfs_tree *t, uint32_t parent,
			  const char *name, const char *const *own,
			  enum tree_kind kind, uint32_t *idx)
{
	struct tree_node *n;
	char *nm;

	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		void *nn = reallocarray(t->nodes, cap, sizeof(*t->nodes));

		if (!nn)
			return -ENOMEM;
		t->nodes = nn;
		t->cap = cap;
	}
	nm = t->n ? tree_name_unique(t, parent, name, own) : strdup(name);
	if (!nm)
		return -ENOMEM;
	if (!t->n)
		parent = 0;
	else if (kids_grow(&t->nodes[parent]) || tree_names_grow(t)) {
		free(nm);
		return -ENOMEM;
	}
	n = &t->nodes[t->n];
	memset(n, 0, sizeof(*n));
	n->name = nm;
	n->parent = parent;
	n->kind = kind;
	if (tree_kind_ops(n)->has_kids)
		n->u.dir.section = -1;
	if (t->n) {
		struct tree_node *p = &t->nodes[parent];

		p->u.dir.kids[p->u.dir.nkids++] = t->n;
		p->u.dir.ndirs += tree_kind_ops(n)->is_dir;
		tree_names_add(t, t->n);
	}
	*idx = t->n++;
	return 0;
}

/* tree_add_avoid() of a name that takes none of the tree's own. */
static int tree_add(struct tdatfs_tree *t, uint32_t parent, const char *name,
		    enum tree_kind kind, uint32_t *idx)
{
	return tree_add_avoid(t, parent, name, NULL, kind, idx);
}

/**
 * tree_add_mem() - add an in-memory file
 * @t: tree being built
 * @parent: index of the parent directory
 * @name: as for tree_add()
 * @data: contents
 * @size: bytes in @data
 * @owned: when true the node takes @data (malloc'd) and frees it, also on
 *	failure; when false @data must outlive the tree
 *
 * Return: 0 or -ENOMEM.
 */
static int tree_add_mem(struct tdatfs_tree *t, uint32_t parent,
			const char *name, const void *data, size_t size,
			bool owned)
{
	uint32_t idx;
	int ret;

	ret = tree_add(t, parent, name, TREE_MEM, &idx);
	if (ret) {
		if (owned)
			free((void *)data);
		return ret;
	}
	t->nodes[idx].u.mem.data = data;
	t->nodes[idx].u.mem.size = size;
	t->nodes[idx].u.mem.owned = owned;
	return 0;
}

/*
 * A text render_*() returned (NULL: it failed) as an in-memory file whose
 * name is none of @own (as for tree_add_avoid()).
 */
static int add_text(struct tdatfs_tree *t, uint32_t parent, const char *name,
		    const char *const *own, char *text, size_t len)
{
	uint32_t idx;
	int ret;

	if (!text)
		return -ENOMEM;
	ret = tree_add_avoid(t, parent, name, own, TREE_MEM, &idx);
	if (ret) {
		free(text);
		return ret;
	}
	t->nodes[idx].u.mem.data = text;
	t->nodes[idx].u.mem.size = len;
	t->nodes[idx].u.mem.owned = true;
	return 0;
}

/* A file of CPU data (a kind whose u member is cpu). */
static int add_cpu(struct tdatfs_tree *t, uint32_t parent, const char *name,
		   enum tree_kind kind, size_t b, size_t c)
{
	uint32_t idx;
	int ret = tree_add(t, parent, name, kind, &idx);

	if (!ret) {
		t->nodes[idx].u.cpu.buffer = b;
		t->nodes[idx].u.cpu.cpu = c;
	}
	return ret;
}

static int add_text_file(struct tdatfs_tree *t, uint32_t parent, size_t b,
			 long c)
{
	uint32_t idx;
	int ret = tree_add(t, parent, "trace", TREE_TEXT, &idx);

	if (!ret) {
		t->nodes[idx].u.text.buffer = b;
		t->nodes[idx].u.text.cpu = c;
	}
	return ret;
}

/*
 * The root's report: every buffer's text merged, as trace-cmd report
 * prints it.  Not for a latency trace, whose report is its stored text
 * (the root's trace), not records.
 */
static int add_report(struct tdatfs_tree *t)
{
	size_t i, n = tdat_buffer_count(t->f);
	uint32_t idx;

	for (i = 0; i < n; i++) {
		const struct tdat_buffer *buf = tdat_buffer_get(t->f, i);

		if (buf && buf->latency)
			return 0;
	}
	return tree_add(t, 0, "report", TREE_REPORT, &idx);
}

/*
 * The existing directory of kind @kind that wanted name @name became
 * under @parent, or a new one whose name is none of @own (as for
 * tree_add_avoid()): a name of @own is never looked up, as it belongs to
 * the tree's own file.
 */
static int get_dir_kind(struct tdatfs_tree *t, uint32_t parent,
			const char *name, const char *const *own,
			enum tree_kind kind, uint32_t *idx)
{
	long i = tree_find_wanted(t, parent, name);

	if (i >= 0 && t->nodes[i].kind == kind &&
	    !tree_name_is_own(own, t->nodes[i].name)) {
		*idx = i;
		return 0;
	}
	return tree_add_avoid(t, parent, name, own, kind, idx);
}

/* The existing directory @name under @parent, or a new one. */
static int get_dir(struct tdatfs_tree *t, uint32_t parent, const char *name,
		   uint32_t *idx)
{
	return get_dir_kind(t, parent, name, NULL, TREE_DIR, idx);
}

static int add_meta(struct tdatfs_tree *t, uint32_t parent,
		    const struct tree_meta_file *m)
{
	uint32_t idx;
	uint64_t size;
	int ret;

	if (tdat_meta_size(t->f, m->which, &size))
		return 0;	/* not in this trace */
	if (m->dir && parent == 0) {
		ret = tree_add(t, 0, m->dir, TREE_DIR, &parent);
		if (ret)
			return ret;
	}
	ret = tree_add(t, parent, m->name, TREE_META, &idx);
	if (!ret) {
		t->nodes[idx].u.meta.which = m->which;
		t->nodes[idx].u.meta.size = size;
	}
	return ret;
}

/* events/SYSTEM/EVENT/{format,id} */
static int add_event(struct tdatfs_tree *t, uint32_t sys, size_t i,
		     const struct tdat_event_format *e)
{
	uint32_t ev, idx;
	char *id;
	int ret, len;

	ret = tree_add(t, sys, e->name, TREE_DIR, &ev);
	if (!ret)
		ret = tree_add(t, ev, "format", TREE_EVENT, &idx);
	if (ret)
		return ret;
	t->ev_dir[i] = ev;	/* for the top buffer's views */
	t->nodes[idx].u.event.event = i;
	t->nodes[idx].u.event.size = e->size;
	len = asprintf(&id, "%d\n", e->id);
	if (len < 0)
		return -ENOMEM;
	return tree_add_mem(t, ev, "id", id, len, true);
}

static int build_events(struct tdatfs_tree *t)
{
	size_t i, n = tdat_event_count(t->f);
	uint32_t events, sys = 0;
	const char *cur = NULL;
	int ret;

	ret = tree_add(t, 0, "events", TREE_DIR, &events);
	for (i = 0; !ret && i < tree_meta_count; i++)
		if (tree_meta_files[i].in_events)
			ret = add_meta(t, events, &tree_meta_files[i]);
	/* the systems and events the instances' events/ mirror */
	t->events = events;
	t->ev_lo = t->n;
	for (i = 0; !ret && i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(t->f, i);

		if (!e)
			continue;
		/* Formats come grouped by system: remember the last one. */
		if (!cur || strcmp(cur, e->system)) {
			ret = get_dir_kind(t, events, e->system, events_own,
					   TREE_DIR, &sys);
			if (ret)
				break;
			cur = e->system;
		}
		ret = add_event(t, sys, i, e);
	}
	t->ev_hi = t->n;
	return ret;
}

/* The name of section @i in sections/: "NN-slug". */
static void section_name(const struct tdat_section *s, size_t i, int width,
			 char *name, size_t len)
{
	const char *desc = s->description;
	char *p;

	if (!desc)
		desc = tdat_option_name(s->id) ? tdat_option_name(s->id) : "unknown";
	snprintf(name, len, "%0*zu-%.*s", width, i, NAME_MAX_LEN, desc);
	for (p = strchr(name, '-') + 1; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' ||
		      *p == '_' || *p == '-'))
			*p = '_';
}

/* The buffer whose data section @i is, or the buffer count. */
static size_t section_buffer(struct tdat_file *f, size_t i)
{
	size_t b, nb = tdat_buffer_count(f);

	for (b = 0; b < nb; b++) {
		const struct tdat_buffer *buf = tdat_buffer_get(f, b);

		if (buf && buf->section >= 0 && (size_t)buf->section == i)
			break;
	}
	return b;
}

static int add_section(struct tdatfs_tree *t, uint32_t dir, size_t i,
		       int width)
{
	const struct tdat_section *s = tdat_section_get(t->f, i);
	const struct tdat_buffer *buf;
	char name[NAME_MAX_LEN + 32];
	uint32_t idx;
	size_t b;
	unsigned int c;
	int ret;

	if (!s)
		return 0;
	section_name(s, i, width, name, sizeof(name));
	b = section_buffer(t->f, i);
	if (b == tdat_buffer_count(t->f)) {
		ret = tree_add(t, dir, name, TREE_SECTION, &idx);
		if (!ret) {
			t->nodes[idx].u.section.section = i;
			t->nodes[idx].u.section.size = s->data_size;
		}
		return ret;
	}
	ret = tree_add(t, dir, name, TREE_DIR, &idx);
	if (!ret)
		t->nodes[idx].u.dir.section = i;	/* for sections/index */
	buf = tdat_buffer_get(t->f, b);
	for (c = 0; !ret && c < buf->ncpus; c++) {
		char cpu[32];

		snprintf(cpu, sizeof(cpu), "cpu%u", buf->cpus[c].cpu);
		ret = add_cpu(t, idx, cpu, TREE_SECTION_CPU, b, c);
	}
	return ret;
}

static int build_sections(struct tdatfs_tree *t)
{
	size_t i, n = tdat_section_count(t->f);
	int width = n > 100 ? snprintf(NULL, 0, "%zu", n - 1) : 2;
	uint32_t dir;
	int ret;

	if (tdat_version(t->f) < 7)
		return 0;
	ret = tree_add(t, 0, "sections", TREE_DIR, &dir);
	for (i = 0; !ret && i < n; i++)
		ret = add_section(t, dir, i, width);
	return ret;
}

/* instances/NAME/ and its trace_clock */
static int add_instance(struct tdatfs_tree *t, const struct tdat_buffer *buf,
			uint32_t *base)
{
	uint32_t inst;
	char *clk;
	size_t len;
	int ret;

	ret = get_dir(t, 0, "instances", &inst);
	if (!ret)
		ret = tree_add(t, inst, buf->name, TREE_DIR, base);
	if (ret)
		return ret;
	clk = render_clock(t->f, buf->clock ? buf->clock : "", &len);
	if (clk)
		return tree_add_mem(t, *base, "trace_clock", clk, len, true);
	return errno == ENOMEM ? -ENOMEM : 0;
}

/* A node whose u member is view, of buffer @b. */
static int add_view(struct tdatfs_tree *t, uint32_t parent, const char *name,
		    enum tree_kind kind, size_t b, uint32_t *idx)
{
	int ret = tree_add(t, parent, name, kind, idx);

	if (!ret)
		t->nodes[*idx].u.view.buffer = b;
	return ret;
}

/* EVENT/trace and EVENT/fields.tsv of event @id in buffer @b */
static int add_event_views(struct tdatfs_tree *t, uint32_t ev, size_t b, int id)
{
	uint32_t idx;
	int ret;

	ret = add_view(t, ev, "trace", TREE_VIEW, b, &idx);
	if (ret)
		return ret;
	t->nodes[idx].u.view.event = id;
	t->nodes[idx].u.view.what = TDATFS_VIEW_EVENT;
	ret = add_view(t, ev, "fields.tsv", TREE_VIEW, b, &idx);
	if (ret)
		return ret;
	t->nodes[idx].u.view.event = id;
	t->nodes[idx].u.view.what = TDATFS_VIEW_FIELDS;
	return 0;
}

/*
 * The views of a buffer with text, under its directory @base: events/
 * (the root's, or a new one for an instance) with summary.tsv and each
 * event's views, and time/ with its README.  @pcpu: its per_cpu/.
 */
static int build_views(struct tdatfs_tree *t, size_t b, uint32_t base,
		       uint32_t pcpu)
{
	size_t i, n = tdat_event_count(t->f);
	uint32_t events, idx;
	long d;
	int ret;

	/* A second buffer without a name shares the first one's files. */
	if (b >= t->nbufs || tree_find(t, base, "time") >= 0)
		return 0;
	t->bufs[b].text = true;
	t->bufs[b].per_cpu = pcpu;
	ret = tree_add(t, base, "time", TREE_TIME, &idx);
	if (ret)
		return ret;
	t->nodes[idx].u.dir.buffer = b;
	ret = add_view(t, idx, "README", TREE_TIME_README, b, &idx);
	if (!ret)
		ret = add_view(t, base, "timeline.svg", TREE_VIEW, b, &idx);
	if (ret)
		return ret;
	t->nodes[idx].u.view.what = TDATFS_VIEW_TIMELINE;
	t->nodes[idx].u.view.cpu = -1;
	t->nodes[idx].u.view.window = TREE_WHOLE;
	ret = add_view(t, base, "trace.pftrace", TREE_VIEW, b, &idx);
	if (ret)
		return ret;
	t->nodes[idx].u.view.what = TDATFS_VIEW_PFTRACE;
	t->nodes[idx].u.view.cpu = -1;
	t->nodes[idx].u.view.window = TREE_WHOLE;
	d = base ? -1 : tree_find(t, 0, "events");
	if (d >= 0) {
		events = d;
	} else {
		/* an instance's: its systems are the root's, mirrored */
		ret = tree_add(t, base, "events", TREE_IEVENTS, &events);
		if (!ret) {
			t->nodes[events].u.dir.buffer = b;
			t->bufs[b].events = events;
		}
	}
	if (!ret)
		ret = add_view(t, events, "summary.tsv", TREE_SUMMARY, b, &idx);
	if (ret || base)
		return ret;
	for (i = 0; !ret && i < n; i++)
		if (t->ev_dir[i])
			ret = add_event_views(t, t->ev_dir[i], b,
					      tdat_event_get(t->f, i)->id);
	return ret;
}

static int build_buffer(struct tdatfs_tree *t, size_t b)
{
	const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);
	uint32_t base = 0, pcpu, cdir;
	unsigned int c;
	int ret;

	if (!buf)
		return 0;
	if (buf->name && *buf->name) {
		ret = add_instance(t, buf, &base);
		if (ret)
			return ret;
	}
	/* Latency text is shown as it was stored: it already is the text. */
	if (buf->latency)
		return buf->ncpus ? add_cpu(t, base, "trace", TREE_LATENCY, b, 0) : 0;

	ret = add_text_file(t, base, b, -1);
	if (!ret)
		ret = get_dir(t, base, "per_cpu", &pcpu);
	for (c = 0; !ret && c < buf->ncpus; c++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%u", buf->cpus[c].cpu);
		ret = get_dir(t, pcpu, name, &cdir);
		if (!ret)
			ret = add_text_file(t, cdir, b, c);
		if (!ret)
			ret = add_cpu(t, cdir, "trace_pipe_raw", TREE_RAW, b, c);
	}
	if (!ret)
		ret = build_views(t, b, base, pcpu);
	return ret;
}

/* per_cpu/cpuN/stats under @base: the root, or an instance's directory */
static int add_stats(struct tdatfs_tree *t, uint32_t base,
		     const struct tdat_option *o)
{
	long cpu = render_stat_cpu(o);
	uint32_t pcpu, cdir;
	char name[32];
	size_t len = o->size;
	int ret;

	if (cpu < 0)
		return 0;
	if (len && !((const char *)o->data)[len - 1])
		len--;
	ret = get_dir(t, base, "per_cpu", &pcpu);
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "cpu%ld", cpu);
	ret = get_dir(t, pcpu, name, &cdir);
	if (ret)
		return ret;
	if (tree_find(t, cdir, "stats") >= 0)
		return 0;
	return tree_add_mem(t, cdir, "stats", o->data, len, false);
}

/* The directory of the instance a CPUSTAT separator starts, or -1. */
static long stats_instance(struct tdatfs_tree *t, const struct tdat_option *o)
{
	char name[256];
	long inst;

	if (!render_stat_separator(o, name, sizeof(name)))
		return -1;
	inst = tree_find(t, 0, "instances");
	return inst < 0 ? -1 : tree_find_wanted(t, inst, name);
}

/* What build_options() carries from one option to the next. */
struct opt_state {
	unsigned int *count;	/* options of each id */
	unsigned int *seen;	/* of each id so far */
	char prefix[256];	/* CPUSTAT's instance prefix */
	long stats_base;	/* where CPUSTAT entries go; -1: nowhere */
	uint32_t dir;		/* options/ */
};

/* The file name of @o in options/, or of its directory when it repeats. */
static const char *option_name(const struct tdat_option *o, char *buf,
			       size_t len)
{
	const char *nm = tdat_option_name(o->id);

	if (nm)
		return nm;
	snprintf(buf, len, "unknown-%u", o->id);
	return buf;
}

static int add_option(struct tdatfs_tree *t, struct opt_state *s,
		      const struct tdat_option *o)
{
	char oname[32], name[300], *text;
	const char *nm = option_name(o, oname, sizeof(oname));
	uint32_t sub;
	size_t len;
	bool from_trace;
	long d;
	int ret = 0;

	if (o->id == TDAT_OPT_CPUSTAT) {
		if (o->size > 9 && !memcmp(o->data, "\nBuffer: ", 9))
			s->stats_base = stats_instance(t, o);
		else if (s->stats_base >= 0)
			ret = add_stats(t, s->stats_base, o);
		if (ret)
			return ret;
	}
	if (s->count[o->id] == 1 && !render_option_repeats(o->id)) {
		text = render_option(t->f, o, &len);
		return add_text(t, s->dir, nm, NULL, text, len);
	}
	d = tree_find(t, s->dir, nm);
	if (d >= 0) {
		sub = d;
	} else {
		ret = tree_add(t, s->dir, nm, TREE_DIR, &sub);
		if (ret)
			return ret;
	}
	from_trace = render_occurrence_name(t->f, o, s->seen[o->id]++,
					    s->prefix, sizeof(s->prefix),
					    name, sizeof(name));
	if (!name[0])
		return 0;	/* a CPUSTAT separator: folded into names */
	text = render_option(t->f, o, &len);
	return add_text(t, sub, name,
			from_trace && (o->id == TDAT_OPT_BUFFER ||
				       o->id == TDAT_OPT_BUFFER_TEXT) ?
			buffer_own : NULL, text, len);
}

/* options/, and per_cpu/cpuN/stats from the CPUSTAT options */
static int build_options(struct tdatfs_tree *t)
{
	struct opt_state s = { .stats_base = 0 };
	size_t i, n = tdat_option_count(t->f);
	int ret;

	s.count = calloc(65536, sizeof(*s.count));
	s.seen = calloc(65536, sizeof(*s.seen));
	if (!s.count || !s.seen) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct tdat_option *o = tdat_option_get(t->f, i);

		if (o)
			s.count[o->id]++;
	}
	ret = tree_add(t, 0, "options", TREE_DIR, &s.dir);
	for (i = 0; !ret && i < n; i++) {
		const struct tdat_option *o = tdat_option_get(t->f, i);

		if (o)
			ret = add_option(t, &s, o);
	}
out:
	free(s.count);
	free(s.seen);
	return ret;
}

/* The root's trace_clock: the TRACECLOCK option's text as stored. */
static int add_trace_clock(struct tdatfs_tree *t)
{
	size_t i, n = tdat_option_count(t->f);

	for (i = 0; i < n; i++) {
		const struct tdat_option *o = tdat_option_get(t->f, i);
		uint32_t len;

		if (!o || o->id != TDAT_OPT_TRACECLOCK)
			continue;
		len = o->size;
		if (len && !((const char *)o->data)[len - 1])
			len--;
		return tree_add_mem(t, 0, "trace_clock", o->data, len, false);
	}
	return 0;
}

/* options/, sections/index, info and README: the generated texts */
static int build_texts(struct tdatfs_tree *t)
{
	const char *readme;
	uint32_t idx;
	char *text;
	size_t len;
	long d;
	int ret;

	ret = build_options(t);
	d = tree_find(t, 0, "sections");
	if (!ret && d >= 0)
		ret = tree_add(t, (uint32_t)d, "index", TREE_INDEX, &idx);
	if (!ret) {
		text = render_info(t->f, &len);
		ret = add_text(t, 0, "info", NULL, text, len);
	}
	if (!ret) {
		readme = render_readme(&len);
		ret = tree_add_mem(t, 0, "README", readme, len, false);
	}
	return ret;
}

static int build_root(struct tdatfs_tree *t)
{
	size_t i, n;
	uint32_t idx;
	int ret;

	ret = tree_add(t, 0, "", TREE_DIR, &idx);
	for (i = 0; !ret && i < tree_meta_count; i++) {
		ret = add_meta(t, 0, &tree_meta_files[i]);
		/* events/ after the metadata it holds a copy of */
		if (!ret && tree_meta_files[i].in_events &&
		    (i + 1 == tree_meta_count || !tree_meta_files[i + 1].in_events))
			ret = build_events(t);
	}
	if (!ret)
		ret = add_trace_clock(t);
	if (!ret)
		ret = build_sections(t);
	if (!ret)
		ret = tree_add(t, 0, "errors", TREE_ERRORS, &idx);
	n = tdat_buffer_count(t->f);
	for (i = 0; !ret && i < n; i++)
		ret = build_buffer(t, i);
	if (!ret)
		ret = add_report(t);
	if (!ret)
		ret = build_texts(t);
	return ret;
}

static int cmp_kids(const void *a, const void *b, void *ctx)
{
	const struct tdatfs_tree *t = ctx;

	return strcmp(t->nodes[*(const uint32_t *)a].name,
		      t->nodes[*(const uint32_t *)b].name);
}

/*
 * The CPUs of each buffer with text in the order of its per_cpu/ (after
 * the sort): the names and CPU indexes of the windows' per_cpu/.
 */
static int finish_bufs(struct tdatfs_tree *t)
{
	size_t b;
	uint32_t i, k;

	for (b = 0; b < t->nbufs; b++) {
		struct tree_buf *tb = &t->bufs[b];
		const struct tree_node *p = &t->nodes[tb->per_cpu];

		if (!tb->text)
			continue;
		tb->cpu_name = calloc(p->u.dir.nkids + 1, sizeof(*tb->cpu_name));
		tb->cpu = calloc(p->u.dir.nkids + 1, sizeof(*tb->cpu));
		if (!tb->cpu_name || !tb->cpu)
			return -ENOMEM;
		for (i = 0; i < p->u.dir.nkids; i++) {
			const struct tree_node *d = &t->nodes[p->u.dir.kids[i]];

			/* cpuN/ with this buffer's trace (not a stats-only one) */
			for (k = 0; d->kind == TREE_DIR && k < d->u.dir.nkids; k++) {
				const struct tree_node *x =
					&t->nodes[d->u.dir.kids[k]];

				if (x->kind != TREE_TEXT || x->u.text.buffer != b)
					continue;
				tb->cpu_name[tb->ncpus] = d->name;
				tb->cpu[tb->ncpus++] = x->u.text.cpu;
				break;
			}
		}
	}
	return 0;
}

/* The per-buffer table and what the build keeps apart: set up before it. */
static int start_views(struct tdatfs_tree *t)
{
	size_t ne = tdat_event_count(t->f);

	t->nbufs = tdat_buffer_count(t->f);
	t->bufs = calloc(t->nbufs ? t->nbufs : 1, sizeof(*t->bufs));
	t->ev_dir = calloc(ne ? ne : 1, sizeof(*t->ev_dir));
	return t->bufs && t->ev_dir ? 0 : -ENOMEM;
}

struct tdatfs_tree *tdatfs_tree_new(struct tdat_file *f,
				    const struct stat *trace_st,
				    const struct tdatfs_text_opts *text_opts)
{
	struct tdatfs_tree *t;
	uint32_t i;
	int ret;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->f = f;
	pthread_mutex_init(&t->lazy_lock, NULL);
	t->uid = getuid();
	t->gid = getgid();
	if (trace_st)
		t->time = trace_st->st_mtim;
	else
		clock_gettime(CLOCK_REALTIME, &t->time);
	t->text = tdatfs_text_new(f, text_opts);
	if (!t->text) {
		ret = errno ? -errno : -ENOMEM;
		goto fail;
	}
	ret = start_views(t);
	if (!ret)
		ret = build_root(t);
	tree_names_free(t);
	free(t->ev_dir);
	t->ev_dir = NULL;
	if (ret)
		goto fail;
	for (i = 0; i < t->n; i++)
		if (tree_kind_ops(&t->nodes[i])->has_kids &&
		    t->nodes[i].u.dir.nkids > 1)
			qsort_r(t->nodes[i].u.dir.kids, t->nodes[i].u.dir.nkids,
				sizeof(uint32_t), cmp_kids, t);
	ret = finish_bufs(t);
	t->win_first = TDATFS_TREE_ROOT + (uint64_t)t->n + tree_mirror_inodes(t);
	if (!ret)
		ret = tree_windows_new(t);
	if (ret)
		goto fail;
	return t;
fail:
	tdatfs_tree_free(t);
	errno = -ret;
	return NULL;
}

struct tdatfs_text *tdatfs_tree_text(struct tdatfs_tree *t)
{
	return t->text;
}
