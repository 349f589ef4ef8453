// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-template.c - the template side of the generator: the formats,
 * kallsyms, printk formats and cmdlines of a recorded trace, read through
 * the parser's public API, and the field layout of records taken from the
 * format text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "gen-trace.h"

/*
 * read_all() - read a whole blob through a tdat reader into a new buffer
 * @f: template handle
 * @read: tdat_meta_read() or tdat_event_read() bound by the caller
 * @which: argument passed through to @read
 * @size: bytes to read
 * @out: set to a malloc'd copy with a NUL after it (caller frees)
 *
 * Return: 0, or a negative errno.
 */
static int read_all(struct tdat_file *f,
		    ssize_t (*read)(struct tdat_file *, size_t, void *, size_t, uint64_t),
		    size_t which, uint64_t size, char **out)
{
	char *p = malloc(size + 1);
	uint64_t done = 0;

	if (!p)
		return -ENOMEM;
	while (done < size) {
		ssize_t n = read(f, which, p + done, size - done, done);

		if (n <= 0) {
			free(p);
			return n < 0 ? (int)n : -EIO;
		}
		done += (uint64_t)n;
	}
	p[size] = '\0';
	*out = p;
	return 0;
}

/* tdat_meta_read() with the index type read_all() wants. */
static ssize_t meta_read(struct tdat_file *f, size_t which, void *buf, size_t len,
			 uint64_t off)
{
	return tdat_meta_read(f, (enum tdat_meta)which, buf, len, off);
}

/*
 * load_meta() - copy one metadata blob; a blob the file lacks is empty
 * Return: 0, or a negative errno.
 */
static int load_meta(struct tdat_file *f, enum tdat_meta which, char **out,
		     size_t *size)
{
	uint64_t n = 0;

	if (tdat_meta_size(f, which, &n) < 0)
		n = 0;
	*size = n;
	return read_all(f, meta_read, which, n, out);
}

/*
 * load_formats() - copy every event format of the template
 * Return: 0, or a negative errno.
 */
static int load_formats(struct gen_template *t, struct tdat_file *f)
{
	size_t n = tdat_event_count(f);

	t->formats = calloc(n ? n : 1, sizeof(*t->formats));
	if (!t->formats)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct tdat_event_format *e = tdat_event_get(f, i);
		struct gen_format *g = &t->formats[i];
		int ret;

		g->system = strdup(e->system);
		g->name = strdup(e->name);
		g->id = e->id;
		g->size = e->size;
		t->nformats = i + 1;
		if (!g->system || !g->name)
			return -ENOMEM;
		ret = read_all(f, tdat_event_read, i, e->size, &g->text);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * load_syms() - the text symbols that name one address alone
 *
 * libtraceevent resolves an address to the highest symbol at or below it;
 * with two symbols at one address the name it picks depends on its sort,
 * so only addresses with a single symbol are offered to the scenarios.
 * Module symbols are left out: trace-cmd prints them with the module.
 *
 * Return: 0, or a negative errno.
 */
static int load_syms(struct gen_template *t)
{
	size_t cap = 0, nall = 0, keep = 0;
	uint64_t *all = NULL;
	char *line = t->sym_text;

	t->syms = NULL;
	while (line && *line) {
		char *end = strchr(line, '\n');
		char *name, type;
		unsigned long long addr;
		int used = 0;

		if (end)
			*end = '\0';
		if (sscanf(line, "%llx %c %n", &addr, &type, &used) >= 2 && used) {
			name = line + used;
			if (nall == cap) {
				uint64_t *a;
				struct gen_sym *y;

				cap = cap ? cap * 2 : 4096;
				a = realloc(all, cap * sizeof(*all));
				if (a)
					all = a;
				y = realloc(t->syms, cap * sizeof(*t->syms));
				if (y)
					t->syms = y;
				if (!a || !y) {
					free(all);
					return -ENOMEM;	/* t->syms: gen_template_free() */
				}
			}
			all[nall++] = addr;
			if ((type == 't' || type == 'T') && !strchr(name, '\t') &&
			    !strchr(name, ' ') && addr)
				t->syms[t->nsyms++] = (struct gen_sym){ addr, 0, name };
		}
		line = end ? end + 1 : NULL;
	}
	qsort(all, nall, sizeof(*all), cmp_u64);
	for (size_t i = 0; i < t->nsyms; i++) {
		struct gen_sym s = t->syms[i];
		size_t lo = 0, hi = nall;

		while (lo < hi) {	/* first address >= s.addr */
			size_t mid = (lo + hi) / 2;

			if (all[mid] < s.addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo + 1 >= nall || all[lo + 1] == s.addr)
			continue;	/* shared address, or the last one */
		s.room = all[lo + 1] - s.addr;
		t->syms[keep++] = s;
	}
	t->nsyms = keep;
	free(all);
	return 0;
}

/*
 * load_tasks() - the pids saved_cmdlines names, first occurrence each
 * Return: 0, or -ENOMEM.
 */
static int load_tasks(struct gen_template *t)
{
	const char *p = t->cmdlines, *end = t->cmdlines + t->cmdlines_size;

	t->tasks = calloc(16, sizeof(*t->tasks));
	if (!t->tasks)
		return -ENOMEM;
	while (p < end && t->ntasks < 16) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct gen_task k = { 0 };
		size_t i;

		if (sscanf(p, "%d %31s", &k.pid, k.comm) == 2 && k.pid > 0) {
			for (i = 0; i < t->ntasks && t->tasks[i].pid != k.pid; i++)
				;
			if (i == t->ntasks)
				t->tasks[t->ntasks++] = k;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/*
 * find_u() - an unsigned "key:N;" value in a field line
 * Return: 0, or -ENOENT.
 */
static int find_u(const char *line, const char *key, unsigned int *out)
{
	const char *p = strstr(line, key);

	if (!p)
		return -ENOENT;
	*out = (unsigned int)strtoul(p + strlen(key), NULL, 10);
	return 0;
}

int gen_field_find(const struct gen_format *fmt, const char *name,
		   struct gen_field *out)
{
	size_t nlen = strlen(name);
	const char *p = fmt->text;

	while ((p = strstr(p, "field:")) != NULL) {
		const char *semi = strchr(p, ';');
		const char *nl = strchr(p, '\n');
		const char *q;
		char line[512];
		size_t llen;

		if (!semi)
			break;
		llen = (size_t)((nl ? nl : semi) - p);
		if (llen >= sizeof(line))
			llen = sizeof(line) - 1;
		memcpy(line, p, llen);
		line[llen] = '\0';
		/* the name is the last word before ';', before any [N] */
		q = semi;
		while (q > p && q[-1] == ']')
			while (q > p && *--q != '[')
				;
		if (q > p + nlen && !strncmp(q - nlen, name, nlen) &&
		    (q[-(long)nlen - 1] == ' ' || q[-(long)nlen - 1] == '\t' ||
		     q[-(long)nlen - 1] == '*')) {
			if (find_u(line, "offset:", &out->offset) < 0 ||
			    find_u(line, "size:", &out->size) < 0)
				return -ENOENT;
			out->data_loc = strstr(line, "__data_loc") != NULL;
			return 0;
		}
		p = semi;
	}
	return -ENOENT;
}

unsigned int gen_format_size(const struct gen_format *fmt, unsigned int klong)
{
	const char *p = fmt->text;
	unsigned int end = 0;

	while ((p = strstr(p, "offset:")) != NULL) {
		unsigned int off = (unsigned int)strtoul(p + 7, NULL, 10);
		const char *s = strstr(p, "size:");

		if (!s)
			break;
		off += (unsigned int)strtoul(s + 5, NULL, 10);
		if (off > end)
			end = off;
		p = s;
	}
	return (end + klong - 1) / klong * klong;
}

const struct gen_format *gen_format_find(const struct gen_template *t,
					 const char *system, const char *name)
{
	for (size_t i = 0; i < t->nformats; i++)
		if (!strcmp(t->formats[i].system, system) &&
		    !strcmp(t->formats[i].name, name))
			return &t->formats[i];
	return NULL;
}

/*
 * data_offset() - where events start in a page, from header_page
 * Return: the "data" field's offset, or 8 + @klong when it is missing.
 */
static uint32_t data_offset(const struct gen_template *t)
{
	struct gen_format hp = { .text = t->header_page };
	struct gen_field f;

	if (gen_field_find(&hp, "data", &f) == 0)
		return f.offset;
	return 8 + t->klong;
}

int gen_template_load(struct gen_template *t, const char *path)
{
	char err[256] = "";
	struct tdat_file *f;
	int ret;

	memset(t, 0, sizeof(*t));
	f = tdat_open(path, NULL, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "gen-trace: %s: %s\n", path, err[0] ? err : strerror(errno));
		return -errno;
	}
	if (tdat_big_endian(f)) {
		fprintf(stderr, "gen-trace: %s: big-endian templates are not supported\n", path);
		tdat_close(f);
		return -ENOTSUP;
	}
	t->long_size = tdat_long_size(f);
	t->klong = tdat_kernel_long_size(f);
	t->page_size = tdat_page_size(f);
	ret = load_meta(f, TDAT_META_HEADER_PAGE, &t->header_page, &t->header_page_size);
	if (!ret)
		ret = load_meta(f, TDAT_META_HEADER_EVENT, &t->header_event,
				&t->header_event_size);
	if (!ret)
		ret = load_meta(f, TDAT_META_KALLSYMS, &t->kallsyms, &t->kallsyms_size);
	if (!ret)
		ret = load_meta(f, TDAT_META_PRINTK, &t->printk, &t->printk_size);
	if (!ret)
		ret = load_meta(f, TDAT_META_CMDLINES, &t->cmdlines, &t->cmdlines_size);
	if (!ret)
		ret = load_formats(t, f);
	tdat_close(f);
	if (ret < 0) {
		fprintf(stderr, "gen-trace: %s: cannot read the metadata: %s\n", path,
			strerror(-ret));
		return ret;
	}
	t->data_off = data_offset(t);
	/* load_syms() cuts its copy into lines; the blob itself stays intact */
	t->sym_text = malloc(t->kallsyms_size + 1);
	if (!t->sym_text)
		return -ENOMEM;
	memcpy(t->sym_text, t->kallsyms, t->kallsyms_size + 1);
	ret = load_syms(t);
	if (!ret)
		ret = load_tasks(t);
	return ret;
}

void gen_template_free(struct gen_template *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nformats; i++) {
		free(t->formats[i].system);
		free(t->formats[i].name);
		free(t->formats[i].text);
	}
	free(t->formats);
	free(t->header_page);
	free(t->header_event);
	free(t->kallsyms);
	free(t->sym_text);
	free(t->printk);
	free(t->cmdlines);
	free(t->syms);
	free(t->tasks);
	memset(t, 0, sizeof(*t));
}
