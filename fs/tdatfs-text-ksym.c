/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-ksym.c - kallsyms read without sscanf() into one sorted
 * array, searched the way libtraceevent searches its own.
 *
 * libtraceevent 1.7.1 reads each line with sscanf(), mallocs a list item
 * and a copy of each name, then sorts an array made from the list; on a
 * 120 k-line kallsyms that is a good part of a short trace's run.  Here a
 * byte scan records (address, name) pairs, the names are packed in place
 * into the text, and a radix sort orders the pairs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-text-ksym.h"

struct ksym_ent {
	unsigned long long addr;
	size_t name;			/* offset of the name in the text */
};

struct text_ksym {
	char *text;			/* the names, each NUL-terminated */
	struct ksym_ent *ent;		/* @n sorted entries, then {0, 0} */
	size_t n;
	struct tep_handle *tep;		/* instead, for text we do not parse */
};

static int hex_digit(unsigned char c)
{
	if ((unsigned int)(c - '0') < 10)
		return c - '0';
	c |= 0x20;
	if ((unsigned int)(c - 'a') < 6)
		return c - 'a' + 10;
	return -1;
}

/* A byte of a name or module word: printable ASCII but the space. */
static bool word_byte(unsigned char c)
{
	return c > ' ' && c <= '~';
}

/*
 * ksym_line() - read one line of kernel-written kallsyms
 * @p: its first byte (not '\n', not NUL)
 * @addr: set to the address
 * @type: set to the type letter
 * @name: set to where the name starts
 *
 * The form is the one sscanf("%16llx %c %n%*s%n%*1[\t][%n%*s%n") in
 * tep_parse_kallsyms() reads to the same address, type, name and module
 * (so its 16-digit limit, one space each side of the type, and a module
 * only after a tab and '['); anything else, which libtraceevent may read
 * some other way, is refused.
 *
 * Return: the end of the line (its '\n' or the text's NUL), or NULL when
 * the line is not in that form.
 */
static const char *ksym_line(const char *p, unsigned long long *addr,
			     char *type, const char **name)
{
	unsigned long long v = 0;
	int digits = 0, d;

	while (digits < 16 && (d = hex_digit(*p)) >= 0) {
		v = v << 4 | (unsigned int)d;
		p++;
		digits++;
	}
	if (!digits || p[0] != ' ' || !word_byte(p[1]) || p[2] != ' ')
		return NULL;
	*addr = v;
	*type = p[1];
	p += 3;
	*name = p;
	while (word_byte(*p))
		p++;
	if (p == *name)
		return NULL;
	if (*p == '\t') {
		const char *mod;

		if (p[1] != '[')
			return NULL;
		p += 2;
		mod = p;
		while (word_byte(*p))
			p++;
		if (p == mod)
			return NULL;
	}
	return *p == '\n' || *p == '\0' ? p : NULL;
}

/*
 * ksym_scan() - record the entries of kernel-written kallsyms, file order
 * @ks: table whose @text is the kallsyms and whose @ent has room for one
 *	entry per line and one more
 *
 * Return: 0, or -EINVAL (and @ks->n meaningless) when a line is not in the
 * form ksym_line() reads.
 */
static int ksym_scan(struct text_ksym *ks)
{
	const char *p = ks->text;

	ks->n = 0;
	while (*p) {
		unsigned long long addr;
		const char *name, *end;
		char type;

		if (*p == '\n') {	/* strtok_r() skips empty lines */
			p++;
			continue;
		}
		end = ksym_line(p, &addr, &type, &name);
		if (!end)
			return -EINVAL;
		/* libtraceevent's hacks for arm's '$a' names and x86-64's
		 * absolute per-cpu offsets */
		if (name[0] != '$' && type != 'A' && type != 'a') {
			ks->ent[ks->n].addr = addr;
			ks->ent[ks->n].name = (size_t)(name - ks->text);
			ks->n++;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

/*
 * ksym_pack() - move the recorded names to the front of the text
 * @ent: the entries ksym_scan() recorded, still in file order
 * @n: how many
 * @text: the text; may be moved by the final realloc()
 *
 * Each name goes to or before where it was (every line holds at least
 * "0 T " before its name), so one pass in file order never overwrites a
 * name not yet moved.  The text shrinks to the names.
 */
static void ksym_pack(struct ksym_ent *ent, size_t n, char **text)
{
	char *t = *text, *shrunk;
	size_t i, dst = 0;

	for (i = 0; i < n; i++) {
		const char *src = t + ent[i].name;
		size_t len = 0;

		while (word_byte(src[len]))
			len++;
		memmove(t + dst, src, len);
		t[dst + len] = '\0';
		ent[i].name = dst;
		dst += len + 1;
	}
	shrunk = realloc(t, dst ? dst : 1);
	if (shrunk)
		*text = shrunk;
}

/*
 * ksym_sort() - sort entries by address, keeping the order of equal ones
 * @ent: entries
 * @n: how many
 *
 * A least-significant-digit radix sort on the address bytes, skipping a
 * byte every entry shares (the top half of kernel addresses): stable, as
 * glibc's merge-sorting qsort() that libtraceevent calls is.
 *
 * Return: 0 or -ENOMEM.
 */
static int ksym_sort(struct ksym_ent *ent, size_t n)
{
	size_t cnt[8][256] = { { 0 } };
	struct ksym_ent *tmp, *src = ent, *dst;
	size_t i;
	int d, b;

	if (n < 2)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (i = 0; i < n; i++)
		for (d = 0; d < 8; d++)
			cnt[d][(ent[i].addr >> (8 * d)) & 0xff]++;
	for (d = 0; d < 8; d++) {
		size_t pos[256], sum = 0;
		struct ksym_ent *swap;

		if (cnt[d][(ent[0].addr >> (8 * d)) & 0xff] == n)
			continue;
		for (b = 0; b < 256; b++) {
			pos[b] = sum;
			sum += cnt[d][b];
		}
		for (i = 0; i < n; i++)
			dst[pos[(src[i].addr >> (8 * d)) & 0xff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != ent)
		memcpy(ent, src, n * sizeof(*ent));
	free(tmp);
	return 0;
}

/*
 * ksym_build() - the table from kernel-written kallsyms
 * @ks: table holding the text
 *
 * libtraceevent prepends each symbol to a list, so after its stable sort
 * equal addresses stand in reverse line order: the entries are reversed
 * before sorting to stand the same way.
 *
 * Return: 0, -EINVAL for text not in the kernel's form, or -ENOMEM.
 */
static int ksym_build(struct text_ksym *ks)
{
	size_t lines = 1, i;
	const char *p;
	int ret;

	for (p = ks->text; (p = strchr(p, '\n')); p++)
		lines++;
	ks->ent = malloc((lines + 1) * sizeof(*ks->ent));
	if (!ks->ent)
		return -ENOMEM;
	ret = ksym_scan(ks);
	if (ret < 0)
		return ret;
	ksym_pack(ks->ent, ks->n, &ks->text);
	for (i = 0; i < ks->n / 2; i++) {
		struct ksym_ent e = ks->ent[i];

		ks->ent[i] = ks->ent[ks->n - 1 - i];
		ks->ent[ks->n - 1 - i] = e;
	}
	ret = ksym_sort(ks->ent, ks->n);
	if (ret < 0)
		return ret;
	/* libtraceevent's end record: the last symbol holds no address past it */
	ks->ent[ks->n].addr = 0;
	ks->ent[ks->n].name = 0;
	return 0;
}

/**
 * text_ksym_new() - a lookup table for a kallsyms text
 * @text: the text, malloc()ed and NUL-terminated; the table owns it from
 *	  here on, also when this fails
 *
 * Text not in the kernel's own form is handed to tep_parse_kallsyms() on
 * a handle of the table's own instead (see the header).
 *
 * Return: the table (free with text_ksym_free()), or NULL with errno set.
 */
struct text_ksym *text_ksym_new(char *text)
{
	struct text_ksym *ks;
	int ret;

	if (!text) {
		errno = EINVAL;
		return NULL;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	ks->text = text;
	ret = ksym_build(ks);
	if (ret == -EINVAL) {
		free(ks->ent);
		ks->ent = NULL;
		ks->n = 0;
		ks->tep = tep_alloc();
		if (ks->tep)
			tep_parse_kallsyms(ks->tep, ks->text);
		free(ks->text);
		ks->text = NULL;
		ret = ks->tep ? 0 : -ENOMEM;
	}
	if (ret < 0) {
		text_ksym_free(ks);
		errno = -ret;
		return NULL;
	}
	return ks;
}

/**
 * text_ksym_free() - free a table and its text; NULL is fine
 * @ks: table
 */
void text_ksym_free(struct text_ksym *ks)
{
	if (!ks)
		return;
	if (ks->tep)
		tep_free(ks->tep);
	free(ks->ent);
	free(ks->text);
	free(ks);
}

/**
 * text_ksym_find() - the symbol holding an address
 * @ks: table
 * @addr: the address
 * @start: set to the symbol's address when one is found
 *
 * glibc's bsearch() with libtraceevent's func_bcmp(): an entry matches an
 * address equal to its own, or between its own and the next entry's.
 *
 * Return: the symbol's name (owned by the table), or NULL.
 * Context: no lock for our own table; the fallback handle's lookups
 * change it (its first one sorts), so those need the caller's lock.
 */
const char *text_ksym_find(struct text_ksym *ks, unsigned long long addr,
			   unsigned long long *start)
{
	size_t l = 0, u = ks->n;

	if (ks->tep) {
		const char *name = tep_find_function(ks->tep, addr);

		if (name)
			*start = tep_find_function_address(ks->tep, addr);
		return name;
	}
	while (l < u) {
		size_t idx = (l + u) / 2;
		const struct ksym_ent *e = &ks->ent[idx];

		if (addr == e->addr || (addr > e->addr && addr < e[1].addr)) {
			*start = e->addr;
			return ks->text + e->name;
		}
		if (addr < e->addr)
			u = idx;
		else
			l = idx + 1;
	}
	return NULL;
}

/**
 * text_ksym_own() - whether our own parser read the table's text
 * @ks: table
 *
 * Return: true for our table, false for the libtraceevent fallback.
 */
bool text_ksym_own(const struct text_ksym *ks)
{
	return !ks->tep;
}
