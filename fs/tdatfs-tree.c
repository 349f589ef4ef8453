/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-tree.c - nodes of the virtual tree: build, lookup, stat, read.
 * The generated texts are in tdatfs-render.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "tdatfs-tree-int.h"

/* Names are built into fixed buffers; longer ones are cut (never in practice). */
#define NAME_MAX_LEN	256

static struct tdatfs_node *node_of(const struct tdatfs_tree *t, uint64_t ino)
{
	if (ino < TDATFS_TREE_ROOT || ino - TDATFS_TREE_ROOT >= t->n)
		return NULL;
	return &t->nodes[ino - TDATFS_TREE_ROOT];
}

long tdatfs_node_find(const struct tdatfs_tree *t, uint32_t parent,
		      const char *name)
{
	const struct tdatfs_node *p = &t->nodes[parent];
	uint32_t i;

	for (i = 0; i < p->nkids; i++)
		if (!strcmp(t->nodes[p->kids[i]].name, name))
			return p->kids[i];
	return -1;
}

static char *clean_name(const char *name)
{
	char *s, *p;

	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return strdup("_");
	s = strndup(name, NAME_MAX_LEN);
	if (!s)
		return NULL;
	for (p = s; *p; p++)
		if (*p == '/')
			*p = '_';
	return s;
}

static char *unique_name(const struct tdatfs_tree *t, uint32_t parent,
			 const char *name)
{
	char *base = clean_name(name);
	char *s;
	int i;

	if (!base)
		return NULL;
	if (tdatfs_node_find(t, parent, base) < 0)
		return base;
	/* A name taken twice (repeated option, odd event name): number it. */
	for (i = 2; ; i++) {
		if (asprintf(&s, "%s-%d", base, i) < 0) {
			free(base);
			return NULL;
		}
		if (tdatfs_node_find(t, parent, s) < 0)
			break;
		free(s);
	}
	free(base);
	return s;
}

int tdatfs_node_add(struct tdatfs_tree *t, uint32_t parent, const char *name,
		    enum tdatfs_kind kind, uint32_t *idx)
{
	struct tdatfs_node *p, *n;
	char *nm;

	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		void *nn = reallocarray(t->nodes, cap, sizeof(*t->nodes));

		if (!nn)
			return -ENOMEM;
		t->nodes = nn;
		t->cap = cap;
	}
	if (t->n) {
		nm = unique_name(t, parent, name);
	} else {
		nm = strdup(name);
	}
	if (!nm)
		return -ENOMEM;
	if (t->n) {
		p = &t->nodes[parent];
		if (p->nkids == p->cap) {
			uint32_t cap = p->cap ? p->cap * 2 : 8;
			void *nk = reallocarray(p->kids, cap, sizeof(*p->kids));

			if (!nk) {
				free(nm);
				return -ENOMEM;
			}
			p->kids = nk;
			p->cap = cap;
		}
		p->kids[p->nkids++] = t->n;
	}
	n = &t->nodes[t->n];
	memset(n, 0, sizeof(*n));
	n->name = nm;
	n->parent = parent;
	n->kind = kind;
	*idx = t->n++;
	return 0;
}

int tdatfs_node_add_mem(struct tdatfs_tree *t, uint32_t parent,
			const char *name, const void *data, size_t size,
			bool owned)
{
	uint32_t idx;
	int ret;

	ret = tdatfs_node_add(t, parent, name, TN_MEM, &idx);
	if (ret) {
		if (owned)
			free((void *)data);
		return ret;
	}
	t->nodes[idx].data = data;
	t->nodes[idx].size = size;
	t->nodes[idx].owned = owned;
	return 0;
}

static int add_file(struct tdatfs_tree *t, uint32_t parent, const char *name,
		    enum tdatfs_kind kind, uint32_t a, int32_t b, uint64_t size)
{
	uint32_t idx;
	int ret;

	ret = tdatfs_node_add(t, parent, name, kind, &idx);
	if (ret)
		return ret;
	t->nodes[idx].a = a;
	t->nodes[idx].b = b;
	t->nodes[idx].size = size;
	return 0;
}

/* The existing directory @name under @parent, or a new one. */
static int get_dir(struct tdatfs_tree *t, uint32_t parent, const char *name,
		   uint32_t *idx)
{
	long i = tdatfs_node_find(t, parent, name);

	if (i >= 0 && t->nodes[i].kind == TN_DIR) {
		*idx = i;
		return 0;
	}
	return tdatfs_node_add(t, parent, name, TN_DIR, idx);
}

static int add_meta(struct tdatfs_tree *t, uint32_t parent, const char *name,
		    enum tdat_meta which)
{
	uint64_t size;

	if (tdat_meta_size(t->f, which, &size))
		return 0;	/* not in this trace */
	return add_file(t, parent, name, TN_META, which, 0, size);
}

static int build_events(struct tdatfs_tree *t)
{
	size_t i, n = tdat_event_count(t->f);
	uint32_t events, sys = 0, ev;
	const char *cur = NULL;
	int ret;

	ret = tdatfs_node_add(t, 0, "events", TN_DIR, &events);
	if (ret)
		return ret;
	ret = add_meta(t, events, "header_page", TDAT_META_HEADER_PAGE);
	if (!ret)
		ret = add_meta(t, events, "header_event", TDAT_META_HEADER_EVENT);
	for (i = 0; !ret && i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(t->f, i);
		char *id;
		int len;

		if (!e)
			continue;
		/* Formats come grouped by system: remember the last one. */
		if (!cur || strcmp(cur, e->system)) {
			ret = get_dir(t, events, e->system, &sys);
			if (ret)
				break;
			cur = e->system;
		}
		ret = tdatfs_node_add(t, sys, e->name, TN_DIR, &ev);
		if (ret)
			break;
		ret = add_file(t, ev, "format", TN_EVENT, i, 0, e->size);
		if (ret)
			break;
		len = asprintf(&id, "%d\n", e->id);
		if (len < 0)
			return -ENOMEM;
		ret = tdatfs_node_add_mem(t, ev, "id", id, len, true);
	}
	return ret;
}

static int build_sections(struct tdatfs_tree *t)
{
	size_t i, n = tdat_section_count(t->f), nb = tdat_buffer_count(t->f);
	int width = n > 100 ? snprintf(NULL, 0, "%zu", n - 1) : 2;
	uint32_t dir, sdir;
	int ret;

	if (tdat_version(t->f) < 7)
		return 0;
	ret = tdatfs_node_add(t, 0, "sections", TN_DIR, &dir);
	for (i = 0; !ret && i < n; i++) {
		const struct tdat_section *s = tdat_section_get(t->f, i);
		const char *desc;
		char name[NAME_MAX_LEN + 32], *p;
		size_t b;
		unsigned int c;

		if (!s)
			continue;
		desc = s->description;
		if (!desc)
			desc = tdat_option_name(s->id) ? tdat_option_name(s->id) : "unknown";
		snprintf(name, sizeof(name), "%0*zu-%.*s", width, i,
			 NAME_MAX_LEN, desc);
		for (p = strchr(name, '-') + 1; *p; p++)
			if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
			      (*p >= '0' && *p <= '9') || *p == '.' ||
			      *p == '_' || *p == '-'))
				*p = '_';
		for (b = 0; b < nb; b++) {
			const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);

			if (buf && buf->section >= 0 && (size_t)buf->section == i)
				break;
		}
		if (b == nb) {
			ret = add_file(t, dir, name, TN_SECTION, i, 0,
				       s->data_size);
			continue;
		}
		ret = tdatfs_node_add(t, dir, name, TN_DIR, &sdir);
		if (!ret)
			t->nodes[sdir].a = i;	/* for sections/index */
		for (c = 0; !ret && c < tdat_buffer_get(t->f, b)->ncpus; c++) {
			const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);
			char cpu[32];

			snprintf(cpu, sizeof(cpu), "cpu%u", buf->cpus[c].cpu);
			ret = add_file(t, sdir, cpu, TN_RAW, b, c, 0);
		}
	}
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
		uint32_t inst;
		char *clk;
		size_t len;

		ret = get_dir(t, 0, "instances", &inst);
		if (!ret)
			ret = tdatfs_node_add(t, inst, buf->name, TN_DIR, &base);
		if (ret)
			return ret;
		clk = tdatfs_render_clock(t, buf->clock ? buf->clock : "", &len);
		if (clk)
			ret = tdatfs_node_add_mem(t, base, "trace_clock", clk,
						  len, true);
		else if (errno == ENOMEM)
			ret = -ENOMEM;
		if (ret)
			return ret;
	}
	/* Latency text is shown as it was stored: it already is the text. */
	if (buf->latency)
		return buf->ncpus ? add_file(t, base, "trace", TN_RAW, b, 0, 0) : 0;

	ret = add_file(t, base, "trace", TN_TEXT, b, -1, 0);
	if (!ret)
		ret = get_dir(t, base, "per_cpu", &pcpu);
	for (c = 0; !ret && c < buf->ncpus; c++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%u", buf->cpus[c].cpu);
		ret = get_dir(t, pcpu, name, &cdir);
		if (!ret)
			ret = add_file(t, cdir, "trace", TN_TEXT, b, c, 0);
		if (!ret)
			ret = add_file(t, cdir, "trace_pipe_raw", TN_RAW, b, c, 0);
	}
	return ret;
}

static int build_root(struct tdatfs_tree *t)
{
	size_t i, n;
	uint32_t idx;
	int ret;

	ret = tdatfs_node_add(t, 0, "", TN_DIR, &idx);
	if (!ret)
		ret = add_meta(t, 0, "header_page", TDAT_META_HEADER_PAGE);
	if (!ret)
		ret = add_meta(t, 0, "header_event", TDAT_META_HEADER_EVENT);
	if (!ret)
		ret = build_events(t);
	if (!ret)
		ret = add_meta(t, 0, "kallsyms", TDAT_META_KALLSYMS);
	if (!ret)
		ret = add_meta(t, 0, "printk_formats", TDAT_META_PRINTK);
	if (!ret)
		ret = add_meta(t, 0, "saved_cmdlines", TDAT_META_CMDLINES);
	if (!ret)
		ret = add_meta(t, 0, "modules", TDAT_META_MODULES);
	if (!ret && !tdat_meta_size(t->f, TDAT_META_BTF, &(uint64_t){0})) {
		ret = tdatfs_node_add(t, 0, "btf", TN_DIR, &idx);
		if (!ret)
			ret = add_meta(t, idx, "vmlinux", TDAT_META_BTF);
	}
	n = tdat_option_count(t->f);
	for (i = 0; !ret && i < n; i++) {
		const struct tdat_option *o = tdat_option_get(t->f, i);
		uint32_t len;

		if (!o || o->id != TDAT_OPT_TRACECLOCK)
			continue;
		len = o->size;
		if (len && !((const char *)o->data)[len - 1])
			len--;
		ret = tdatfs_node_add_mem(t, 0, "trace_clock", o->data, len,
					  false);
		break;
	}
	if (!ret)
		ret = build_sections(t);
	if (!ret)
		ret = add_file(t, 0, "errors", TN_ERRORS, 0, 0, 0);
	n = tdat_buffer_count(t->f);
	for (i = 0; !ret && i < n; i++)
		ret = build_buffer(t, i);
	if (!ret)
		ret = tdatfs_render_build(t);
	return ret;
}

static int cmp_kids(const void *a, const void *b, void *ctx)
{
	const struct tdatfs_tree *t = ctx;

	return strcmp(t->nodes[*(const uint32_t *)a].name,
		      t->nodes[*(const uint32_t *)b].name);
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
	pthread_mutex_init(&t->index_lock, NULL);
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
	ret = build_root(t);
	if (ret)
		goto fail;
	for (i = 0; i < t->n; i++)
		if (t->nodes[i].nkids > 1)
			qsort_r(t->nodes[i].kids, t->nodes[i].nkids,
				sizeof(uint32_t), cmp_kids, t);
	return t;
fail:
	tdatfs_tree_free(t);
	errno = -ret;
	return NULL;
}

void tdatfs_tree_free(struct tdatfs_tree *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->nodes[i].name);
		free(t->nodes[i].kids);
		if (t->nodes[i].owned)
			free((void *)t->nodes[i].data);
	}
	free(t->nodes);
	tdatfs_text_free(t->text);
	free(t->index);
	pthread_mutex_destroy(&t->index_lock);
	free(t);
}

uint64_t tdatfs_tree_count(const struct tdatfs_tree *t)
{
	return t->n;
}

static long find_kid(const struct tdatfs_tree *t, const struct tdatfs_node *p,
		     const char *name, size_t len)
{
	size_t lo = 0, hi = p->nkids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *nm = t->nodes[p->kids[mid]].name;
		int c = strncmp(nm, name, len);

		if (!c && nm[len])
			c = 1;
		if (!c)
			return p->kids[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int tdatfs_tree_child(const struct tdatfs_tree *t, uint64_t parent,
		      const char *name, uint64_t *ino)
{
	const struct tdatfs_node *p = node_of(t, parent);
	long k;

	if (!p)
		return -ENOENT;
	if (p->kind != TN_DIR)
		return -ENOTDIR;
	k = find_kid(t, p, name, strlen(name));
	if (k < 0)
		return -ENOENT;
	*ino = (uint64_t)k + TDATFS_TREE_ROOT;
	return 0;
}

int tdatfs_tree_lookup(const struct tdatfs_tree *t, const char *path,
		       uint64_t *ino)
{
	uint32_t cur = 0;

	while (*path) {
		const char *end;
		size_t len;
		long k;

		while (*path == '/')
			path++;
		if (!*path)
			break;
		end = strchrnul(path, '/');
		len = end - path;
		if (t->nodes[cur].kind != TN_DIR)
			return -ENOTDIR;
		if (len == 1 && path[0] == '.') {
			k = cur;
		} else if (len == 2 && path[0] == '.' && path[1] == '.') {
			k = t->nodes[cur].parent;
		} else {
			k = find_kid(t, &t->nodes[cur], path, len);
			if (k < 0)
				return -ENOENT;
		}
		cur = k;
		path = end;
	}
	*ino = (uint64_t)cur + TDATFS_TREE_ROOT;
	return 0;
}

bool tdatfs_tree_is_dir(const struct tdatfs_tree *t, uint64_t ino)
{
	const struct tdatfs_node *n = node_of(t, ino);

	return n && n->kind == TN_DIR;
}

bool tdatfs_tree_is_text(const struct tdatfs_tree *t, uint64_t ino)
{
	const struct tdatfs_node *n = node_of(t, ino);

	return n && n->kind == TN_TEXT;
}

bool tdatfs_tree_size_known(struct tdatfs_tree *t, uint64_t ino)
{
	const struct tdatfs_node *n = node_of(t, ino);
	uint64_t size;

	if (n && n->kind == TN_ERRORS)
		return false;	/* it grows as damage is found */
	if (!n || n->kind != TN_TEXT)
		return true;
	return tdatfs_text_size(t->text, n->a, n->b, &size) == 0;
}

/* sections/index, rendered once; a failure is retried at the next call. */
static int index_text(struct tdatfs_tree *t, const char **text, size_t *len)
{
	int ret = 0;

	pthread_mutex_lock(&t->index_lock);
	if (!t->index_done) {
		ret = tdatfs_render_index(t, &t->index, &t->index_len);
		t->index_done = ret == 0;
	}
	*text = t->index;
	*len = t->index_len;
	pthread_mutex_unlock(&t->index_lock);
	return ret;
}

static int node_size(struct tdatfs_tree *t, const struct tdatfs_node *n,
		     uint64_t *size)
{
	const char *text;
	size_t len;
	int ret;

	switch (n->kind) {
	case TN_INDEX:
		ret = index_text(t, &text, &len);
		*size = len;
		return ret;
	case TN_RAW:
		return tdat_cpu_size(t->f, n->a, n->b, size);
	case TN_TEXT:
		ret = tdatfs_text_size(t->text, n->a, n->b, size);
		if (ret == -EAGAIN) {
			*size = 0;
			return 0;
		}
		return ret;
	case TN_ERRORS:
		*size = 0;
		return 0;
	default:
		*size = n->size;
		return 0;
	}
}

int tdatfs_tree_stat(struct tdatfs_tree *t, uint64_t ino, struct stat *st)
{
	const struct tdatfs_node *n = node_of(t, ino);
	uint64_t size = 0;
	uint32_t i;
	int ret;

	if (!n)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = t->uid;
	st->st_gid = t->gid;
	st->st_atim = t->time;
	st->st_mtim = t->time;
	st->st_ctim = t->time;
	st->st_blksize = 65536;
	if (n->kind == TN_DIR) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		for (i = 0; i < n->nkids; i++)
			if (t->nodes[n->kids[i]].kind == TN_DIR)
				st->st_nlink++;
		return 0;
	}
	ret = node_size(t, n, &size);
	if (ret)
		return ret;
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = size;
	st->st_blocks = (size + 511) / 512;
	return 0;
}

int tdatfs_tree_readdir(const struct tdatfs_tree *t, uint64_t ino,
			tdatfs_tree_filler fill, void *ctx)
{
	const struct tdatfs_node *n = node_of(t, ino);
	uint32_t i;
	int ret;

	if (!n)
		return -ENOENT;
	if (n->kind != TN_DIR)
		return -ENOTDIR;
	for (i = 0; i < n->nkids; i++) {
		const struct tdatfs_node *k = &t->nodes[n->kids[i]];

		ret = fill(ctx, k->name, (uint64_t)n->kids[i] + TDATFS_TREE_ROOT,
			   k->kind == TN_DIR);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The errors file: every registry entry, one line each, rendered afresh;
 * entries are only appended, so a reader going on from an offset sees the
 * lines it has not read yet.
 */
static ssize_t read_errors(struct tdatfs_tree *t, char *buf, size_t len,
			   uint64_t off)
{
	size_t i, n = tdat_error_count(t->f);
	uint64_t pos = 0, total = tdat_error_total(t->f);
	size_t done = 0;
	struct tdat_error e;
	char line[TDAT_ERROR_WHAT + 160];
	int l;

	for (i = 0; i <= n && done < len; i++) {
		if (i < n) {
			if (tdat_error_get(t->f, i, &e))
				break;
			l = tdat_error_format(&e, line, sizeof(line));
		} else if (total > n) {
			l = snprintf(line, sizeof(line),
				     "%" PRIu64 " more damaged ranges not listed\n",
				     total - n);
		} else {
			break;
		}
		if (l < 0)
			return -EIO;
		if ((size_t)l >= sizeof(line))
			l = sizeof(line) - 1;
		if (off < pos + l) {
			uint64_t in = off > pos ? off - pos : 0;
			size_t k = l - in;

			if (k > len - done)
				k = len - done;
			memcpy(buf + done, line + in, k);
			done += k;
		}
		pos += l;
	}
	return done;
}

/* The buffer's cpus index of CPU number @cpu, or -1. */
static long cpu_index(const struct tdatfs_tree *t, size_t b, unsigned int cpu)
{
	const struct tdat_buffer *buf = tdat_buffer_get(t->f, b);

	for (unsigned int c = 0; buf && c < buf->ncpus; c++)
		if (buf->cpus[c].cpu == cpu)
			return c;
	return -1;
}

/* Record the damage one "[tdatfs: CPU ...]" marker line names. */
static void note_marker(struct tdatfs_tree *t, size_t b, const char *line,
			size_t len)
{
	unsigned int cpu, size;
	unsigned long long off;
	char tmp[160];
	long c;

	if (len >= sizeof(tmp))
		return;
	memcpy(tmp, line, len);
	tmp[len] = '\0';
	/*
	 * A run of damaged pages is in the registry already: the parser notes
	 * the pages that do not read, the text engine the ones that do not
	 * parse (mark_unparsed()).  A bad record inside a good page only
	 * shows here.
	 */
	if (sscanf(tmp, "[tdatfs: CPU %u: record of %u bytes at offset %llu skipped",
		   &cpu, &size, &off) == 3) {
		c = cpu_index(t, b, cpu);
		if (c >= 0 && size)
			tdat_cpu_mark_damaged(t->f, b, c, off, size,
					      "holds a record that does not parse");
	}
}

#define MARKER		"[tdatfs: CPU "
#define MARKER_LEN	(sizeof(MARKER) - 1)
#define MARKER_MAX	160	/* longest marker line, newline included */

/*
 * The text engine turns damaged data into marker lines; list what they
 * name in the damage registry, so that the errors file and tdat check see
 * damage that only the decoder finds (a page that reads but does not
 * parse).  Each marker is noted by the read that holds its first byte; a
 * marker cut by the end of the read is completed with a small read ahead.
 */
static void scan_markers(struct tdatfs_tree *t, const struct tdatfs_node *n,
			 const char *buf, size_t len, uint64_t off)
{
	const char *p = buf, *end = buf + len, *nl;
	char more[MARKER_MAX];
	ssize_t k;

	/* A line started before @off was the previous read's to note. */
	if (off) {
		nl = memchr(p, '\n', len);
		if (!nl)
			return;
		p = nl + 1;
	}
	while (p < end) {
		size_t avail = end - p;

		nl = memchr(p, '\n', avail);
		if (avail >= MARKER_LEN ? !memcmp(p, MARKER, MARKER_LEN) :
		    !memcmp(p, MARKER, avail)) {
			if (nl) {
				note_marker(t, n->a, p, nl - p);
			} else if (avail < MARKER_MAX) {
				memcpy(more, p, avail);
				k = tdatfs_text_read(t->text, n->a, n->b,
						     more + avail,
						     sizeof(more) - avail,
						     off + len);
				if (k > 0) {
					nl = memchr(more, '\n', avail + k);
					if (nl && !memcmp(more, MARKER, MARKER_LEN))
						note_marker(t, n->a, more,
							    nl - more);
				}
				break;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
}

ssize_t tdatfs_tree_read(struct tdatfs_tree *t, uint64_t ino, void *buf,
			 size_t len, uint64_t off)
{
	const struct tdatfs_node *n = node_of(t, ino);
	ssize_t r;

	if (!n)
		return -ENOENT;
	switch (n->kind) {
	case TN_DIR:
		return -EISDIR;
	case TN_MEM:
		if (off >= n->size)
			return 0;
		if (len > n->size - off)
			len = n->size - off;
		memcpy(buf, n->data + off, len);
		return len;
	case TN_INDEX: {
		const char *text;
		size_t size;
		int ret = index_text(t, &text, &size);

		if (ret < 0)
			return ret;
		if (off >= size)
			return 0;
		if (len > size - off)
			len = size - off;
		memcpy(buf, text + off, len);
		return len;
	}
	case TN_META:
		return tdat_meta_read(t->f, n->a, buf, len, off);
	case TN_EVENT:
		return tdat_event_read(t->f, n->a, buf, len, off);
	case TN_SECTION:
		return tdat_section_read(t->f, n->a, buf, len, off);
	case TN_RAW:
		return tdat_cpu_read(t->f, n->a, n->b, buf, len, off);
	case TN_TEXT:
		r = tdatfs_text_read(t->text, n->a, n->b, buf, len, off);
		if (r > 0)
			scan_markers(t, n, buf, r, off);
		return r;
	case TN_ERRORS:
		return read_errors(t, buf, len, off);
	}
	return -EIO;
}
