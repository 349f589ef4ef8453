/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/nodes.c - the nodes of the virtual tree by kind (each kind's size,
 * read and listing), lookup, stat and the public queries.  The builder is
 * tree/build.c, the generated texts are tree/render.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "tdatfs-tree.h"
#include "internal.h"
#include "render.h"

const struct tree_meta_file tree_meta_files[] = {
	{ TDAT_META_HEADER_PAGE, NULL, "header_page", true },
	{ TDAT_META_HEADER_EVENT, NULL, "header_event", true },
	{ TDAT_META_KALLSYMS, NULL, "kallsyms", false },
	{ TDAT_META_PRINTK, NULL, "printk_formats", false },
	{ TDAT_META_CMDLINES, NULL, "saved_cmdlines", false },
	{ TDAT_META_MODULES, NULL, "modules", false },
	{ TDAT_META_BTF, "btf", "vmlinux", false },
};
const size_t tree_meta_count = sizeof(tree_meta_files) /
			       sizeof(tree_meta_files[0]);

/**
 * tree_meta_label() - how messages name a metadata blob
 * @which: the blob
 *
 * Return: its file name in the tree, or its directory when it lives in
 * one ("btf" for btf/vmlinux).
 */
const char *tree_meta_label(enum tdat_meta which)
{
	size_t i;

	for (i = 0; i < tree_meta_count; i++)
		if (tree_meta_files[i].which == which)
			return tree_meta_files[i].dir ? tree_meta_files[i].dir :
			       tree_meta_files[i].name;
	return "metadata";
}

/*
 * The node of inode @ino: a static node, or one of an instance's events/
 * or of a window made into @tmp; NULL for a number outside the tree.
 */
static const struct tree_node *tree_node(const struct tdatfs_tree *t,
					 uint64_t ino, struct tree_node *tmp)
{
	if (ino < TDATFS_TREE_ROOT)
		return NULL;
	if (ino - TDATFS_TREE_ROOT < t->n)
		return &t->nodes[ino - TDATFS_TREE_ROOT];
	if (ino < t->win_first)
		return tree_mirror_node(t, ino, tmp) ? tmp : NULL;
	return tree_window_node(t, ino, tmp) ? tmp : NULL;
}

/* Whether @n is shown: 1, 0, or a negative errno (tree_kind_ops()). */
static int node_shown(const struct tdatfs_tree *t, const struct tree_node *n)
{
	const struct tree_kind_ops *ops = tree_kind_ops(n);

	return ops->shown ? ops->shown(t, n) : 1;
}

/* ---- the kinds ----------------------------------------------------------- */

static bool always_known(struct tdatfs_tree *t, const struct tree_node *n)
{
	(void)t;
	(void)n;
	return true;
}

static bool never_known(struct tdatfs_tree *t, const struct tree_node *n)
{
	(void)t;
	(void)n;
	return false;	/* it grows as damage is found */
}

static int zero_size(struct tdatfs_tree *t, const struct tree_node *n,
		     uint64_t *size)
{
	(void)t;
	(void)n;
	*size = 0;
	return 0;
}

static ssize_t dir_read(struct tdatfs_tree *t, const struct tree_node *n,
			void *buf, size_t len, uint64_t off)
{
	(void)t;
	(void)n;
	(void)buf;
	(void)len;
	(void)off;
	return -EISDIR;
}

/* The kids of @n that are shown; hidden ones (and those whose state
 * cannot be known now) are left out. */
static int dir_list(const struct tdatfs_tree *t, const struct tree_node *n,
		    tdatfs_tree_filler fill, void *ctx)
{
	uint32_t i;
	int ret;

	for (i = 0; i < n->u.dir.nkids; i++) {
		const struct tree_node *k = &t->nodes[n->u.dir.kids[i]];

		if (node_shown(t, k) != 1)
			continue;
		ret = fill(ctx, k->name,
			   (uint64_t)n->u.dir.kids[i] + TDATFS_TREE_ROOT,
			   tree_kind_ops(k)->is_dir);
		if (ret)
			return ret;
	}
	return 0;
}

/* The child op of a directory with kids: its kid by name, shown or not. */
static int dir_child(const struct tdatfs_tree *t, const struct tree_node *n,
		     const char *name, size_t len, uint64_t *ino)
{
	long k = tree_kid_find(t, n, name, len);

	if (k < 0)
		return -ENOENT;
	*ino = (uint64_t)k + TDATFS_TREE_ROOT;
	return 0;
}

/* An instance's events/: its own files, else a SYSTEM/ of the root's. */
static int ievents_child(const struct tdatfs_tree *t, const struct tree_node *n,
			 const char *name, size_t len, uint64_t *ino)
{
	if (!dir_child(t, n, name, len, ino))
		return 0;
	return tree_mirror_find(t, n->u.dir.buffer, t->events, name, len, ino);
}

/* An instance's events/ holds the root's SYSTEM/ directories. */
static uint32_t ievents_subdirs(const struct tdatfs_tree *t,
				const struct tree_node *n)
{
	(void)n;
	return t->nodes[t->events].u.dir.ndirs;
}

/* time/: its README, else a window named T0-T1 (made now if new). */
static int time_child(const struct tdatfs_tree *t, const struct tree_node *n,
		      const char *name, size_t len, uint64_t *ino)
{
	if (!dir_child(t, n, name, len, ino))
		return 0;
	return tree_window_find(t, n, (uint32_t)(n - t->nodes), name, len, ino);
}

static int mem_size(struct tdatfs_tree *t, const struct tree_node *n,
		    uint64_t *size)
{
	(void)t;
	*size = n->u.mem.size;
	return 0;
}

static ssize_t mem_read(struct tdatfs_tree *t, const struct tree_node *n,
			void *buf, size_t len, uint64_t off)
{
	(void)t;
	return tree_read_mem(n->u.mem.data, n->u.mem.size, buf, len, off);
}

static int meta_size(struct tdatfs_tree *t, const struct tree_node *n,
		     uint64_t *size)
{
	(void)t;
	*size = n->u.meta.size;
	return 0;
}

static ssize_t meta_read(struct tdatfs_tree *t, const struct tree_node *n,
			 void *buf, size_t len, uint64_t off)
{
	return tdat_meta_read(t->f, n->u.meta.which, buf, len, off);
}

static int event_size(struct tdatfs_tree *t, const struct tree_node *n,
		      uint64_t *size)
{
	(void)t;
	*size = n->u.event.size;
	return 0;
}

static ssize_t event_read(struct tdatfs_tree *t, const struct tree_node *n,
			  void *buf, size_t len, uint64_t off)
{
	return tdat_event_read(t->f, n->u.event.event, buf, len, off);
}

static int section_size(struct tdatfs_tree *t, const struct tree_node *n,
			uint64_t *size)
{
	(void)t;
	*size = n->u.section.size;
	return 0;
}

static ssize_t section_read(struct tdatfs_tree *t, const struct tree_node *n,
			    void *buf, size_t len, uint64_t off)
{
	return tdat_section_read(t->f, n->u.section.section, buf, len, off);
}

static int cpu_size(struct tdatfs_tree *t, const struct tree_node *n,
		    uint64_t *size)
{
	return tdat_cpu_size(t->f, n->u.cpu.buffer, n->u.cpu.cpu, size);
}

static ssize_t cpu_read(struct tdatfs_tree *t, const struct tree_node *n,
			void *buf, size_t len, uint64_t off)
{
	return tdat_cpu_read(t->f, n->u.cpu.buffer, n->u.cpu.cpu, buf, len,
			     off);
}

static int text_size(struct tdatfs_tree *t, const struct tree_node *n,
		     uint64_t *size)
{
	int ret = tdatfs_text_size(t->text, n->u.text.buffer, n->u.text.cpu,
				   size);

	if (ret == -EAGAIN) {
		*size = 0;
		return 0;
	}
	return ret;
}

static bool text_size_known(struct tdatfs_tree *t, const struct tree_node *n)
{
	uint64_t size;

	return tdatfs_text_size(t->text, n->u.text.buffer, n->u.text.cpu,
				&size) == 0;
}

/*
 * Marker lines for damaged data are output only: the text engine records
 * the damage in the parser's registry itself, which the errors file shows.
 */
static ssize_t text_read(struct tdatfs_tree *t, const struct tree_node *n,
			 void *buf, size_t len, uint64_t off)
{
	return tdatfs_text_read(t->text, n->u.text.buffer, n->u.text.cpu, buf,
				len, off);
}

static int report_size(struct tdatfs_tree *t, const struct tree_node *n,
		       uint64_t *size)
{
	int ret = tdatfs_text_report_size(t->text, size);

	(void)n;
	if (ret == -EAGAIN) {
		*size = 0;
		return 0;
	}
	return ret;
}

static bool report_size_known(struct tdatfs_tree *t, const struct tree_node *n)
{
	uint64_t size;

	(void)n;
	return tdatfs_text_report_size(t->text, &size) == 0;
}

static ssize_t report_read(struct tdatfs_tree *t, const struct tree_node *n,
			   void *buf, size_t len, uint64_t off)
{
	(void)n;
	return tdatfs_text_report_read(t->text, buf, len, off);
}

/*
 * Line @i of the errors file into @line (TDAT_ERROR_WHAT + 160 bytes):
 * registry entry @i, or after the @count listed ones the line counting
 * those not listed.  Return: its length, 0 past the end, -EIO.
 */
static int errors_line(struct tdatfs_tree *t, size_t i, size_t count,
		       uint64_t total, char *line, size_t size)
{
	struct tdat_error e;
	int l;

	if (i < count) {
		if (tdat_error_get(t->f, i, &e))
			return 0;
		l = tdat_error_format(&e, line, size);
	} else if (i == count && total > count) {
		l = snprintf(line, size,
			     "%" PRIu64 " more damaged ranges not listed\n",
			     total - count);
	} else {
		return 0;
	}
	if (l < 0)
		return -EIO;
	if ((size_t)l >= size)
		l = size - 1;
	return l;
}

/*
 * The errors file's size: what has been found so far.  It grows, so it
 * stays never_known() (direct I/O, no attribute caching); a reader that
 * trusts st_size at least gets what was known at its stat.
 */
static int errors_size(struct tdatfs_tree *t, const struct tree_node *n,
		       uint64_t *size)
{
	size_t i, count = tdat_error_count(t->f);
	uint64_t total = tdat_error_total(t->f);
	char line[TDAT_ERROR_WHAT + 160];
	int l;

	(void)n;
	*size = 0;
	for (i = 0; i <= count; i++) {
		l = errors_line(t, i, count, total, line, sizeof(line));
		if (l < 0)
			return l;
		if (!l)
			break;
		*size += l;
	}
	return 0;
}

/*
 * The errors file: every registry entry, one line each, rendered afresh;
 * entries are only appended, so a reader going on from an offset sees the
 * lines it has not read yet.
 */
static ssize_t errors_read(struct tdatfs_tree *t, const struct tree_node *n,
			   void *out, size_t len, uint64_t off)
{
	size_t i, count = tdat_error_count(t->f);
	char *buf = out;
	uint64_t pos = 0, total = tdat_error_total(t->f);
	size_t done = 0;
	char line[TDAT_ERROR_WHAT + 160];
	int l;

	(void)n;
	for (i = 0; i <= count && done < len; i++) {
		l = errors_line(t, i, count, total, line, sizeof(line));
		if (l < 0)
			return l;
		if (!l)
			break;
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

/* sections/index: a row per entry of its directory. */
static struct tree_lazy *index_lazy(struct tdatfs_tree *t,
				    const struct tree_node *n)
{
	(void)n;
	return &t->index;
}

static char *index_render(struct tdatfs_tree *t, const struct tree_node *n,
			  size_t *len)
{
	const struct tree_node *dir = &t->nodes[n->parent];
	struct render_index_entry *e;
	size_t k, count = 0;
	char *text;

	e = calloc(dir->u.dir.nkids ? dir->u.dir.nkids : 1, sizeof(*e));
	if (!e)
		return NULL;
	for (k = 0; k < dir->u.dir.nkids; k++) {
		const struct tree_node *s = &t->nodes[dir->u.dir.kids[k]];

		if (s->kind == TREE_SECTION)
			e[count++] = (struct render_index_entry){
				s->name, s->u.section.section };
		else if (s->kind == TREE_DIR && s->u.dir.section >= 0)
			e[count++] = (struct render_index_entry){
				s->name, (size_t)s->u.dir.section };
	}
	text = render_index(t->f, e, count, len);
	free(e);
	return text;
}

/*
 * The text of a node rendered when first asked for (its kind's @render,
 * kept in its @lazy): made outside the lock, as it may read chunk tables
 * or produce a buffer's text, and kept by the first call to finish; a
 * failure is retried at the next call.
 */
static int lazy_text(struct tdatfs_tree *t, const struct tree_node *n,
		     const char **text, size_t *len)
{
	const struct tree_kind_ops *ops = tree_kind_ops(n);
	struct tree_lazy *l = ops->lazy(t, n);
	char *s;
	size_t sl = 0;

	if (!l)
		return -ENOENT;
	pthread_mutex_lock(&t->lazy_lock);
	if (!l->done) {
		pthread_mutex_unlock(&t->lazy_lock);
		errno = 0;
		s = ops->render(t, n, &sl);
		if (!s)
			return errno ? -errno : -ENOMEM;
		pthread_mutex_lock(&t->lazy_lock);
		if (!l->done) {
			l->text = s;
			l->len = sl;
			l->done = true;
		} else {
			free(s);
		}
	}
	*text = l->text;
	*len = l->len;
	pthread_mutex_unlock(&t->lazy_lock);
	return 0;
}

static int lazy_size(struct tdatfs_tree *t, const struct tree_node *n,
		     uint64_t *size)
{
	const char *text;
	size_t len = 0;
	int ret = lazy_text(t, n, &text, &len);

	*size = len;
	return ret;
}

static ssize_t lazy_read(struct tdatfs_tree *t, const struct tree_node *n,
			 void *buf, size_t len, uint64_t off)
{
	const char *text;
	size_t size;
	int ret = lazy_text(t, n, &text, &size);

	if (ret < 0)
		return ret;
	return tree_read_mem(text, size, buf, len, off);
}

static const struct tree_kind_ops kinds[TREE_KIND_COUNT] = {
	[TREE_DIR] = { .is_dir = true, .has_kids = true,
		.check = TREE_CHECK_READ, .child = dir_child,
		.size = zero_size, .size_known = always_known,
		.read = dir_read, .list = dir_list },
	[TREE_MEM] = { .check = TREE_CHECK_READ, .size = mem_size,
		.size_known = always_known, .read = mem_read },
	[TREE_META] = { .check = TREE_CHECK_READ, .size = meta_size,
		.size_known = always_known, .read = meta_read },
	[TREE_EVENT] = { .check = TREE_CHECK_READ, .size = event_size,
		.size_known = always_known, .read = event_read },
	[TREE_SECTION] = { .check = TREE_CHECK_QUIET, .size = section_size,
		.size_known = always_known, .read = section_read },
	[TREE_SECTION_CPU] = { .check = TREE_CHECK_QUIET, .size = cpu_size,
		.size_known = always_known, .read = cpu_read },
	[TREE_RAW] = { .check = TREE_CHECK_PAGES, .size = cpu_size,
		.size_known = always_known, .read = cpu_read },
	[TREE_LATENCY] = { .check = TREE_CHECK_READ, .size = cpu_size,
		.size_known = always_known, .read = cpu_read },
	[TREE_TEXT] = { .is_text = true, .check = TREE_CHECK_READ,
		.size = text_size, .size_known = text_size_known,
		.read = text_read },
	[TREE_REPORT] = { .is_text = true, .check = TREE_CHECK_READ,
		.size = report_size, .size_known = report_size_known,
		.read = report_read },
	[TREE_ERRORS] = { .check = TREE_CHECK_SKIP, .size = errors_size,
		.size_known = never_known, .read = errors_read },
	[TREE_INDEX] = { .check = TREE_CHECK_QUIET, .size = lazy_size,
		.size_known = always_known, .read = lazy_read,
		.lazy = index_lazy, .render = index_render },
	/* its own files are static kids (check reads them), its SYSTEM/
	 * directories mirrored: they hold views alone */
	[TREE_IEVENTS] = { .is_dir = true, .has_kids = true,
		.check = TREE_CHECK_READ, .child = ievents_child,
		.subdirs = ievents_subdirs, .size = zero_size,
		.size_known = always_known, .read = dir_read,
		.list = tree_ievents_list },
	[TREE_MIRROR] = { .is_dir = true, .check = TREE_CHECK_READ,
		.shown = tree_mirror_shown, .child = tree_mirror_child,
		.subdirs = tree_mirror_subdirs, .size = zero_size,
		.size_known = always_known, .read = dir_read,
		.list = tree_mirror_list },
	[TREE_TIME] = { .is_dir = true, .has_kids = true,
		.check = TREE_CHECK_READ, .child = time_child,
		.size = zero_size, .size_known = always_known,
		.read = dir_read, .list = dir_list },
	/* exact from the first stat: the engine's view sizes are */
	[TREE_VIEW] = { .is_text = true, .check = TREE_CHECK_VIEW,
		.shown = tree_view_shown, .size = tree_view_size,
		.size_known = always_known, .read = tree_view_read },
	[TREE_SUMMARY] = { .check = TREE_CHECK_VIEW, .size = lazy_size,
		.size_known = always_known, .read = lazy_read,
		.lazy = tree_buf_lazy, .render = tree_buf_render },
	[TREE_TIME_README] = { .check = TREE_CHECK_VIEW, .size = lazy_size,
		.size_known = always_known, .read = lazy_read,
		.lazy = tree_buf_lazy, .render = tree_buf_render },
	[TREE_WINDOW] = { .is_dir = true, .check = TREE_CHECK_READ,
		.subdirs = tree_window_subdirs, .child = tree_window_child,
		.size = zero_size, .size_known = always_known,
		.read = dir_read, .list = tree_window_list },
};

/**
 * tree_kind_ops() - the operations of a node's kind
 * @n: node
 *
 * Return: the kind's operations (never NULL).
 */
const struct tree_kind_ops *tree_kind_ops(const struct tree_node *n)
{
	return &kinds[n->kind < TREE_KIND_COUNT ? n->kind : TREE_MEM];
}

/* ---- the public queries -------------------------------------------------- */

void tdatfs_tree_free(struct tdatfs_tree *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		struct tree_node *n = &t->nodes[i];

		free(n->name);
		if (tree_kind_ops(n)->has_kids)
			free(n->u.dir.kids);
		else if (n->kind == TREE_MEM && n->u.mem.owned)
			free((void *)n->u.mem.data);
	}
	free(t->nodes);
	free(t->ev_dir);
	tree_windows_free(t);
	tree_bufs_free(t);
	tdatfs_text_free(t->text);
	free(t->index.text);
	pthread_mutex_destroy(&t->lazy_lock);
	free(t);
}

uint64_t tdatfs_tree_count(const struct tdatfs_tree *t)
{
	return t->n;
}


/*
 * The shown child of directory @p named by @len bytes of @name.  Return:
 * 0, -ENOENT (also for a hidden child), or the error that says whether
 * the child is shown.
 */
static int node_child(const struct tdatfs_tree *t, const struct tree_node *p,
		      const char *name, size_t len, uint64_t *ino)
{
	struct tree_node tmp;
	const struct tree_node *k;
	int ret = tree_kind_ops(p)->child(t, p, name, len, ino);

	if (ret)
		return ret;
	k = tree_node(t, *ino, &tmp);
	if (!k)
		return -ENOENT;
	ret = node_shown(t, k);
	return ret == 1 ? 0 : ret ? ret : -ENOENT;
}

int tdatfs_tree_child(const struct tdatfs_tree *t, uint64_t parent,
		      const char *name, uint64_t *ino)
{
	struct tree_node tmp;
	const struct tree_node *p = tree_node(t, parent, &tmp);

	if (!p)
		return -ENOENT;
	if (!tree_kind_ops(p)->is_dir)
		return -ENOTDIR;
	return node_child(t, p, name, strlen(name), ino);
}

uint64_t tdatfs_tree_parent(const struct tdatfs_tree *t, uint64_t ino)
{
	if (ino < TDATFS_TREE_ROOT)
		return 0;
	if (ino - TDATFS_TREE_ROOT < t->n)
		return (uint64_t)t->nodes[ino - TDATFS_TREE_ROOT].parent +
		       TDATFS_TREE_ROOT;
	if (ino < t->win_first)
		return tree_mirror_parent(t, ino);
	return tree_window_parent(t, ino);
}

int tdatfs_tree_lookup(const struct tdatfs_tree *t, const char *path,
		       uint64_t *ino)
{
	uint64_t cur = TDATFS_TREE_ROOT;

	while (*path) {
		struct tree_node tmp;
		const struct tree_node *n = tree_node(t, cur, &tmp);
		const char *end;
		size_t len;
		int ret;

		while (*path == '/')
			path++;
		if (!*path)
			break;
		end = strchrnul(path, '/');
		len = end - path;
		if (!n)
			return -ENOENT;
		if (!tree_kind_ops(n)->is_dir)
			return -ENOTDIR;
		if (len == 2 && path[0] == '.' && path[1] == '.') {
			cur = tdatfs_tree_parent(t, cur);
		} else if (len != 1 || path[0] != '.') {
			ret = node_child(t, n, path, len, &cur);
			if (ret)
				return ret;
		}
		path = end;
	}
	*ino = cur;
	return 0;
}

/*
 * The node of @ino when it is shown, into @tmp for a window's; NULL with
 * *@err set (-ENOENT for a bad inode or a hidden node) otherwise.
 */
static const struct tree_node *shown_node(const struct tdatfs_tree *t,
					  uint64_t ino, struct tree_node *tmp,
					  int *err)
{
	const struct tree_node *n = tree_node(t, ino, tmp);
	int r = n ? node_shown(t, n) : -ENOENT;

	if (r == 1)
		return n;
	*err = r ? r : -ENOENT;
	return NULL;
}

bool tdatfs_tree_is_dir(const struct tdatfs_tree *t, uint64_t ino)
{
	struct tree_node tmp;
	const struct tree_node *n = tree_node(t, ino, &tmp);

	return n && tree_kind_ops(n)->is_dir;
}

bool tdatfs_tree_is_text(const struct tdatfs_tree *t, uint64_t ino)
{
	struct tree_node tmp;
	const struct tree_node *n = tree_node(t, ino, &tmp);

	return n && tree_kind_ops(n)->is_text;
}

bool tdatfs_tree_stat_costly(const struct tdatfs_tree *t, uint64_t ino)
{
	struct tree_node tmp;
	const struct tree_node *n = tree_node(t, ino, &tmp);

	return n && n->kind == TREE_VIEW;
}

bool tdatfs_tree_size_known(struct tdatfs_tree *t, uint64_t ino)
{
	struct tree_node tmp;
	const struct tree_node *n = tree_node(t, ino, &tmp);

	return !n || tree_kind_ops(n)->size_known(t, n);
}

int tdatfs_tree_stat(struct tdatfs_tree *t, uint64_t ino, struct stat *st)
{
	struct tree_node tmp;
	const struct tree_node *n;
	const struct tree_kind_ops *ops;
	uint64_t size = 0;
	int ret;

	n = shown_node(t, ino, &tmp, &ret);
	if (!n)
		return ret;
	ops = tree_kind_ops(n);
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = t->uid;
	st->st_gid = t->gid;
	st->st_atim = t->time;
	st->st_mtim = t->time;
	st->st_ctim = t->time;
	st->st_blksize = 65536;
	if (ops->is_dir) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2 + (ops->subdirs ? ops->subdirs(t, n) :
				    n->u.dir.ndirs);
		return 0;
	}
	ret = ops->size(t, n, &size);
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
	struct tree_node tmp;
	const struct tree_node *n;
	int ret;

	n = shown_node(t, ino, &tmp, &ret);
	if (!n)
		return ret;
	if (!tree_kind_ops(n)->list)
		return -ENOTDIR;
	return tree_kind_ops(n)->list(t, n, fill, ctx);
}

ssize_t tdatfs_tree_read(struct tdatfs_tree *t, uint64_t ino, void *buf,
			 size_t len, uint64_t off)
{
	struct tree_node tmp;
	const struct tree_node *n;
	int ret;

	n = shown_node(t, ino, &tmp, &ret);
	if (!n)
		return ret;
	return tree_kind_ops(n)->read(t, n, buf, len, off);
}
