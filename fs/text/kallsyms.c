/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/kallsyms.c - kallsyms read without sscanf() into one sorted
 * array, searched the way libtraceevent searches its own.
 *
 * libtraceevent 1.7.1 reads each line with sscanf(), mallocs a list item
 * and a copy of each name, then sorts an array made from the list; on a
 * 120 k-line kallsyms that is a good part of a short trace's run.  Here a
 * byte scan records (address, name) pairs, copying the names into one
 * block, and a radix sort orders the pairs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "kallsyms.h"

struct ksym_ent {
	unsigned long long addr;
	size_t name;			/* offset of the name in @names */
};

struct text_kallsyms {
	char *names;			/* the names, each NUL-terminated */
	struct ksym_ent *ent;		/* @n sorted entries, then {0, 0} */
	size_t n;
	struct tep_handle *tep;		/* instead, for text we do not parse */
	uint64_t gen;			/* no two tables share it */
};

/* The generations of tables: never reused, so a freed table's memo is stale. */
static _Atomic uint64_t ksym_gens = 1;

/*
 * Each thread's last answers, by address: a table never changes, and a
 * trace's records print the same few call sites again and again (a
 * bisection of tens of thousands of symbols is 4% of the field-heavy
 * trace's index build).  Keyed by the table's generation, not its
 * pointer: a table freed and another made at the same address must miss.
 */
#define KSYM_MEMO	64

struct ksym_memo {
	uint64_t gen;
	unsigned long long addr;
	const char *name;
	unsigned long long start;
};

static __thread struct ksym_memo ksym_memo[KSYM_MEMO];

/* One trace's table for several engines (text/kallsyms.h). */
struct text_kallsyms_share {
	_Atomic unsigned int refs;
	pthread_mutex_t lock;		/* the fields below */
	bool read;			/* @ks (or @foreign) is final */
	bool foreign;			/* the text needs the fallback */
	struct text_kallsyms *ks;		/* NULL: the trace has none */
};

/*
 * Byte classes: WORD for a byte of a name or module word (printable ASCII
 * but the space), and in the low five bits a hex digit's value + 1.
 */
#define WORD 0x20
#define HEX(c, v) [c] = WORD | ((v) + 1)

static const unsigned char byte_class[256] = {
	['!' ... '/'] = WORD,
	HEX('0', 0), HEX('1', 1), HEX('2', 2), HEX('3', 3), HEX('4', 4),
	HEX('5', 5), HEX('6', 6), HEX('7', 7), HEX('8', 8), HEX('9', 9),
	[':' ... '@'] = WORD,
	HEX('A', 10), HEX('B', 11), HEX('C', 12), HEX('D', 13), HEX('E', 14),
	HEX('F', 15),
	['G' ... '`'] = WORD,
	HEX('a', 10), HEX('b', 11), HEX('c', 12), HEX('d', 13), HEX('e', 14),
	HEX('f', 15),
	['g' ... '~'] = WORD,
};

static inline bool word_byte(char c)
{
	return byte_class[(unsigned char)c] & WORD;
}

/*
 * ksym_line() - read one line of kernel-written kallsyms
 * @p: its first byte (not '\n', not NUL)
 * @addr: set to the address
 * @type: set to the type letter
 * @name: where to copy the name to, NUL-terminated
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
			     char *type, char *name)
{
	unsigned long long v = 0;
	const char *start = p, *q;
	unsigned int d;

	while ((d = byte_class[(unsigned char)*p] & 0x1f) && p - start < 16) {
		v = v << 4 | (d - 1);
		p++;
	}
	if (p == start || p[0] != ' ' || !word_byte(p[1]) || p[2] != ' ')
		return NULL;
	*addr = v;
	*type = p[1];
	p += 3;
	q = p;
	while (word_byte(*p))
		*name++ = *p++;
	*name = '\0';
	if (p == q)
		return NULL;
	if (*p == '\t') {
		if (p[1] != '[')
			return NULL;
		p += 2;
		q = p;
		while (word_byte(*p))
			p++;
		if (p == q)
			return NULL;
	}
	return *p == '\n' || *p == '\0' ? p : NULL;
}

/*
 * ksym_scan() - record the entries of kernel-written kallsyms, file order
 * @ks: table whose @ent has room for one entry per line and one more
 * @text: the kallsyms
 * @names: room for every name of @text; gets them, each NUL-terminated
 *
 * Return: the bytes of @names used, or -EINVAL (and @ks->n meaningless)
 * when a line is not in the form ksym_line() reads.
 */
static ptrdiff_t ksym_scan(struct text_kallsyms *ks, const char *text,
			   char *names)
{
	const char *p = text;
	size_t used = 0;

	ks->n = 0;
	while (*p) {
		unsigned long long addr;
		const char *end;
		char *name = names + used;
		char type;

		if (*p == '\n') {	/* strtok_r() skips empty lines */
			p++;
			continue;
		}
		end = ksym_line(p, &addr, &type, name);
		if (!end)
			return -EINVAL;
		/* libtraceevent's hacks for arm's '$a' names and x86-64's
		 * absolute per-cpu offsets */
		if (name[0] != '$' && type != 'A' && type != 'a') {
			ks->ent[ks->n].addr = addr;
			ks->ent[ks->n].name = used;
			ks->n++;
			used += strlen(name) + 1;
		}
		p = *end ? end + 1 : end;
	}
	return (ptrdiff_t)used;
}

/*
 * ksym_sort() - sort entries by address, keeping the order of equal ones
 * @ent: entries
 * @n: how many
 *
 * A least-significant-digit radix sort on the address bytes, skipping the
 * bytes every entry shares (the top half of kernel addresses): stable, as
 * glibc's merge-sorting qsort() that libtraceevent calls is.
 *
 * Return: 0 or -ENOMEM.
 */
static int ksym_sort(struct ksym_ent *ent, size_t n)
{
	struct ksym_ent *tmp, *src = ent, *dst;
	unsigned long long differ = 0;
	size_t i;
	int d, b;

	if (n < 2)
		return 0;
	for (i = 1; i < n; i++)
		differ |= ent[i].addr ^ ent[0].addr;
	if (!differ)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (d = 0; d < 64; d += 8) {
		size_t pos[256] = { 0 }, sum = 0;
		struct ksym_ent *swap;

		if (!((differ >> d) & 0xff))
			continue;
		for (i = 0; i < n; i++)
			pos[(src[i].addr >> d) & 0xff]++;
		for (b = 0; b < 256; b++) {
			size_t c = pos[b];

			pos[b] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[pos[(src[i].addr >> d) & 0xff]++] = src[i];
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
 * @ks: table to fill in
 * @text: the kallsyms (not changed)
 *
 * libtraceevent prepends each symbol to a list, so after its stable sort
 * equal addresses stand in reverse line order: the entries are reversed
 * before sorting to stand the same way.
 *
 * Return: 0, -EINVAL for text not in the kernel's form, or -ENOMEM.
 */
static int ksym_build(struct text_kallsyms *ks, const char *text)
{
	size_t lines = 1, len, i;
	const char *p, *q;
	ptrdiff_t used;
	char *shrunk;
	int ret;

	for (p = text; (q = strchr(p, '\n')); p = q + 1)
		lines++;
	len = (size_t)(p - text) + strlen(p);
	ks->ent = malloc((lines + 1) * sizeof(*ks->ent));
	ks->names = malloc(len + 1);
	if (!ks->ent || !ks->names)
		return -ENOMEM;
	used = ksym_scan(ks, text, ks->names);
	if (used < 0)
		return (int)used;
	shrunk = realloc(ks->names, used ? (size_t)used : 1);
	if (shrunk)
		ks->names = shrunk;
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
 * text_kallsyms_new() - a lookup table for a kallsyms text
 * @text: the text, NUL-terminated; not kept (the caller frees it)
 *
 * Text not in the kernel's own form is handed to tep_parse_kallsyms() on
 * a handle of the table's own instead (see the header).
 *
 * Return: the table (free with text_kallsyms_free()), or NULL with errno set.
 */
struct text_kallsyms *text_kallsyms_new(const char *text)
{
	struct text_kallsyms *ks;
	int ret;

	if (!text) {
		errno = EINVAL;
		return NULL;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	ks->gen = atomic_fetch_add(&ksym_gens, 1);
	ret = ksym_build(ks, text);
	if (ret == -EINVAL) {
		free(ks->ent);
		free(ks->names);
		ks->ent = NULL;
		ks->names = NULL;
		ks->n = 0;
		ks->tep = tep_alloc();
		ret = ks->tep ? 0 : -ENOMEM;
		/* its allocations set errno; a symbol left out prints as hex */
		errno = 0;
		if (ks->tep && tep_parse_kallsyms(ks->tep, text) < 0 &&
		    errno == ENOMEM)
			ret = -ENOMEM;
	}
	if (ret < 0) {
		text_kallsyms_free(ks);
		errno = -ret;
		return NULL;
	}
	return ks;
}

/**
 * text_kallsyms_free() - free a table; NULL is fine
 * @ks: table
 */
void text_kallsyms_free(struct text_kallsyms *ks)
{
	if (!ks)
		return;
	if (ks->tep)
		tep_free(ks->tep);
	free(ks->ent);
	free(ks->names);
	free(ks);
}

/**
 * text_kallsyms_find() - the symbol holding an address
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
const char *text_kallsyms_find(struct text_kallsyms *ks,
			       unsigned long long addr,
			       unsigned long long *start)
{
	struct ksym_memo *m = &ksym_memo[(addr ^ addr >> 6 ^ addr >> 12) % KSYM_MEMO];
	size_t l = 0, u = ks->n;

	if (ks->tep) {
		const char *name = tep_find_function(ks->tep, addr);

		if (name)
			*start = tep_find_function_address(ks->tep, addr);
		return name;
	}
	if (m->gen != ks->gen || m->addr != addr) {
		m->gen = ks->gen;
		m->addr = addr;
		m->name = NULL;
		while (l < u) {
			size_t idx = (l + u) / 2;
			const struct ksym_ent *e = &ks->ent[idx];

			if (addr == e->addr || (addr > e->addr && addr < e[1].addr)) {
				m->start = e->addr;
				m->name = ks->names + e->name;
				break;
			}
			if (addr < e->addr)
				u = idx;
			else
				l = idx + 1;
		}
	}
	if (m->name)
		*start = m->start;
	return m->name;
}

/**
 * text_kallsyms_address() - the address of a symbol, by its exact name
 * @ks: table
 * @name: the name
 * @addr: set to its address when found
 *
 * libtraceevent's test_for_symbol() (a name in a print argument): the
 * first entry so named in the table's order, which is its func_map's.
 * Called once per name when a format is parsed, so a plain scan.
 *
 * Return: 0, -ENOENT when no entry has the name, or -EOPNOTSUPP for the
 * libtraceevent fallback, whose entries cannot be searched by name.
 */
int text_kallsyms_address(const struct text_kallsyms *ks, const char *name,
			  unsigned long long *addr)
{
	if (ks->tep)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->names + ks->ent[i].name, name)) {
			*addr = ks->ent[i].addr;
			return 0;
		}
	return -ENOENT;
}

/**
 * text_kallsyms_own() - whether our own parser read the table's text
 * @ks: table
 *
 * Return: true for our table, false for the libtraceevent fallback.
 */
bool text_kallsyms_own(const struct text_kallsyms *ks)
{
	return !ks->tep;
}

/**
 * text_kallsyms_share_new() - an empty share, one reference held
 *
 * Return: the share (drop with text_kallsyms_share_free()), or NULL with
 * errno set.
 */
struct text_kallsyms_share *text_kallsyms_share_new(void)
{
	struct text_kallsyms_share *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	atomic_init(&sh->refs, 1);
	pthread_mutex_init(&sh->lock, NULL);
	return sh;
}

/**
 * text_kallsyms_share_ref() - one more reference to a share
 * @sh: share
 *
 * Return: @sh.
 */
struct text_kallsyms_share *
text_kallsyms_share_ref(struct text_kallsyms_share *sh)
{
	atomic_fetch_add_explicit(&sh->refs, 1, memory_order_relaxed);
	return sh;
}

/**
 * text_kallsyms_share_free() - drop a reference; the last frees the share and
 *	its table.  NULL is fine.
 * @sh: share
 */
void text_kallsyms_share_free(struct text_kallsyms_share *sh)
{
	if (!sh || atomic_fetch_sub_explicit(&sh->refs, 1,
					     memory_order_acq_rel) != 1)
		return;
	text_kallsyms_free(sh->ks);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}

/**
 * text_kallsyms_share_get() - the trace's table, made now if no one made it
 * @sh: share
 * @read: reads the kallsyms text, called at most once per table made
 * @arg: for @read
 * @ks: set to the table, NULL when the trace has none
 * @own_copy: set to true when *@ks is the caller's to free (a text our
 *	parser leaves to the fallback: its lookups need the caller's lock,
 *	so it is never shared); false when it belongs to the share
 *
 * Askers on other threads wait while the first one reads and parses.
 *
 * Return: 0, or -ENOMEM (nothing is kept: the next call tries again).
 */
int text_kallsyms_share_get(struct text_kallsyms_share *sh,
			    text_kallsyms_read_fn read, void *arg,
			    struct text_kallsyms **ks, bool *own_copy)
{
	struct text_kallsyms *made = NULL;
	char *text = NULL;
	int ret;

	*ks = NULL;
	*own_copy = false;
	pthread_mutex_lock(&sh->lock);
	if (sh->read && !sh->foreign) {
		*ks = sh->ks;
		pthread_mutex_unlock(&sh->lock);
		return 0;
	}
	ret = read(arg, &text);
	if (!ret && text && *text) {
		made = text_kallsyms_new(text);
		if (!made && errno == ENOMEM)
			ret = -ENOMEM;
	}
	free(text);
	if (ret) {
		pthread_mutex_unlock(&sh->lock);
		return ret;
	}
	sh->read = true;
	if (made && !text_kallsyms_own(made)) {
		sh->foreign = true;
		*own_copy = true;
	} else {
		sh->ks = made;
	}
	*ks = made;
	pthread_mutex_unlock(&sh->lock);
	return 0;
}
