/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/pftrace-head.c - the head of a buffer's trace.pftrace
 * (invariants in text/pftrace-head.h): system_info from the UNAME
 * option, the kernel symbols the records named, the process tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"
#include "pftrace-event.h"
#include "pftrace-head.h"

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort the addresses and drop repeats. */
static void syms_unique(struct text_pf_syms *s)
{
	size_t i, n = 0;

	if (!s->n)
		return;
	qsort(s->a, s->n, sizeof(*s->a), u64_cmp);
	for (i = 0; i < s->n; i++)
		if (!n || s->a[n - 1] != s->a[i])
			s->a[n++] = s->a[i];
	s->n = n;
}

/**
 * text_pf_syms_note() - the kernel function addresses of a record
 * @s: set
 * @addr: the addresses (0: none, not an iid)
 * @n: how many
 *
 * Return: 0 or -ENOMEM.
 */
int text_pf_syms_note(struct text_pf_syms *s, const uint64_t *addr,
		      unsigned int n)
{
	unsigned int i;
	uint64_t *p;
	size_t c;

	for (i = 0; i < n; i++) {
		if (!addr[i])
			continue;
		if (s->n == s->cap) {
			/* the set is small (a trace's functions): sort it
			 * down before it grows */
			syms_unique(s);
			if (s->n * 2 >= s->cap) {
				c = s->cap ? s->cap * 2 : 256;
				p = realloc(s->a, c * sizeof(*p));
				if (!p)
					return -ENOMEM;
				s->a = p;
				s->cap = c;
			}
		}
		s->a[s->n++] = addr[i];
	}
	return 0;
}

/**
 * text_pf_syms_join() - another set's addresses added to @dst's
 * @dst: set, then sorted and each address kept once
 * @src: set; unchanged
 *
 * Return: 0 or -ENOMEM (@dst unchanged).
 */
int text_pf_syms_join(struct text_pf_syms *dst, const struct text_pf_syms *src)
{
	uint64_t *p;

	if (!src->n)
		return 0;
	p = realloc(dst->a, (dst->n + src->n) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memcpy(p + dst->n, src->a, src->n * sizeof(*p));
	dst->a = p;
	dst->n += src->n;
	dst->cap = dst->n;
	syms_unique(dst);
	return 0;
}

/**
 * text_pf_syms_release() - free a set's memory (zeroed after)
 * @s: set, or NULL
 */
void text_pf_syms_release(struct text_pf_syms *s)
{
	if (!s)
		return;
	free(s->a);
	*s = (struct text_pf_syms){ 0 };
}

/*
 * UNAME's words, "sysname nodename release machine" as trace-cmd writes
 * them (a version between release and machine is taken too), each
 * cleaned to UTF-8 and NUL-terminated in @out.
 */
static int uname_get(struct tdat_file *f, struct tdatfs_buf *out,
		     struct tdatfs_pf_utsname *u)
{
	const struct tdat_option *o = NULL;
	const char *p, *end, *w[64], *word[4] = { NULL };
	size_t i, n = tdat_option_count(f), nw = 0, len[4] = { 0 }, at[4];
	int ret = 0;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < n && !o; i++) {
		o = tdat_option_get(f, i);
		if (o && o->id != TDAT_OPT_UNAME)
			o = NULL;
	}
	if (!o)
		return 0;
	p = o->data;
	end = p + o->size;
	/* the option holds its NUL, or not */
	if (memchr(p, '\0', o->size))
		end = memchr(p, '\0', o->size);
	while (nw < 64) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		w[nw++] = p;
		while (p < end && *p != ' ')
			p++;
	}
	if (nw >= 1)
		word[0] = w[0];				/* sysname */
	if (nw >= 5)
		word[1] = w[3];				/* version */
	if (nw >= 3)
		word[2] = w[2];				/* release */
	if (nw >= 4)
		word[3] = w[nw - 1];			/* machine */
	for (i = 0; i < 4; i++) {
		if (!word[i])
			continue;
		/* the version runs to the machine, spaces and all */
		while (word[i] + len[i] < end && word[i][len[i]] != ' ')
			len[i]++;
		if (i == 1)
			len[i] = w[nw - 1] - 1 - word[i];
		at[i] = out->len;
		ret = text_pf_utf8_put(out, word[i], len[i], TEXT_PF_STR_MAX);
		if (!ret)
			ret = tdatfs_buf_put(out, "", 1);
		if (ret < 0)
			return ret;
	}
	u->sysname = word[0] ? out->p + at[0] : NULL;
	u->version = word[1] ? out->p + at[1] : NULL;
	u->release = word[2] ? out->p + at[2] : NULL;
	u->machine = word[3] ? out->p + at[3] : NULL;
	return 0;
}

/* The interned symbols packet of the addresses kallsyms names. */
static int head_syms(struct text_pf_events *m, const uint64_t *syms,
		     size_t nsyms, struct tdatfs_buf *h)
{
	struct tdatfs_pf_symbol *s;
	size_t i, n = 0;
	int ret = 0;

	if (!nsyms)
		return 0;
	s = calloc(nsyms, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; !ret && i < nsyms; i++) {
		ret = text_pf_symbol_name(m, syms[i], &s[n].name, &s[n].len);
		/* an address no symbol holds shows as 0x..., as in trace-cmd */
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		s[n++].iid = syms[i];
	}
	if (!ret && n)
		ret = tdatfs_pf_symbols(h, s, n, true);
	free(s);
	return ret;
}

/**
 * text_pf_head_make() - the head of a buffer's trace.pftrace
 * @f: the trace (its UNAME option)
 * @m: the engine's event maps (the symbols' names)
 * @syms: the kernel function addresses the records named (sorted here)
 * @tree: the process tree the records made
 * @head: set to the bytes (the caller frees them; never NULL on success)
 * @hlen: set to their length
 *
 * Return: 0 or a negative errno (nothing set).
 */
int text_pf_head_make(struct tdat_file *f, struct text_pf_events *m,
		      struct text_pf_syms *syms, const struct text_pf_tree *tree,
		      char **head, size_t *hlen)
{
	struct tdatfs_pf_utsname u;
	struct tdatfs_buf h = { 0 }, words = { 0 };
	int ret = uname_get(f, &words, &u);

	syms_unique(syms);
	/* without UNAME no system_info: an empty one would say nothing */
	if (!ret && (u.sysname || u.release || u.machine))
		ret = tdatfs_pf_system_info(&h, &u);
	tdatfs_buf_release(&words);
	if (!ret)
		ret = head_syms(m, syms->a, syms->n, &h);
	if (!ret)
		ret = text_pf_tree_write(tree, &h);
	if (ret < 0) {
		tdatfs_buf_release(&h);
		return ret;
	}
	*head = h.p ? h.p : calloc(1, 1);
	*hlen = h.len;
	return *head ? 0 : -ENOMEM;
}
