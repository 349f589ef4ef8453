/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree/names.c - the names of the tree's nodes while it is built:
 * how a wanted name becomes a file name (tdatfs(1), THE TREE) and the index
 * of (directory, name) that keeps the build linear in the number of nodes,
 * whatever a hostile trace holds (thousands of equal or long names).
 *
 * The index is an open-addressing hash of node indexes; a second table
 * remembers, per (directory, base name), the next "-N" suffix to try, so
 * that numbering n copies of a name costs O(n) in all.  Both exist only
 * during the build (tree_names_free()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The next suffix of one (directory, base name) that was taken. */
struct tree_suffix {
	char *base;		/* NULL: an empty slot */
	uint32_t parent;
	unsigned long next;
};

struct tree_names {
	uint32_t *slots;	/* node index + 1; 0: empty */
	size_t nslots;		/* a power of two */
	size_t used;
	struct tree_suffix *sfx;
	size_t nsfx;		/* a power of two, or 0 */
	size_t sfx_used;
};

/**
 * tree_name_hash() - the hash of a name in a directory
 * @parent: the directory's index
 * @name: the name
 * @len: its length
 *
 * FNV-1a of @name with @parent, then mixed so that the low bits a table
 * uses depend on every byte and on @parent.
 *
 * Return: the hash.
 */
size_t tree_name_hash(uint32_t parent, const char *name, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 1099511628211ULL;
	}
	h ^= (uint64_t)parent * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h;
}

/**
 * tree_names_free() - drop the build's name index
 * @t: tree; its index may be NULL
 *
 * The nodes keep their names; only the index of them goes.
 */
void tree_names_free(struct tdatfs_tree *t)
{
	struct tree_names *x = t->names;
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nsfx; i++)
		free(x->sfx[i].base);
	free(x->sfx);
	free(x->slots);
	free(x);
	t->names = NULL;
}

/* Put node @idx into a table of @nslots slots (there is room). */
static void slot_put(const struct tdatfs_tree *t, uint32_t *slots,
		     size_t nslots, uint32_t idx)
{
	const struct tree_node *n = &t->nodes[idx];
	size_t h = tree_name_hash(n->parent, n->name, strlen(n->name));

	while (slots[h & (nslots - 1)])
		h++;
	slots[h & (nslots - 1)] = idx + 1;
}

/**
 * tree_names_grow() - make room in the index for one more node
 * @t: tree being built
 *
 * The table is kept at most half full, so that a probe ends soon.
 *
 * Return: 0 or -ENOMEM.
 */
int tree_names_grow(struct tdatfs_tree *t)
{
	struct tree_names *x = t->names;
	size_t i, n;
	uint32_t *s;

	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return -ENOMEM;
		t->names = x;
	}
	if ((x->used + 1) * 2 <= x->nslots)
		return 0;
	n = x->nslots ? x->nslots * 2 : 1024;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < x->nslots; i++)
		if (x->slots[i])
			slot_put(t, s, n, x->slots[i] - 1);
	free(x->slots);
	x->slots = s;
	x->nslots = n;
	return 0;
}

/**
 * tree_names_add() - index a node that was just added
 * @t: tree being built, with room made by tree_names_grow()
 * @idx: the node; its name and parent are set
 */
void tree_names_add(struct tdatfs_tree *t, uint32_t idx)
{
	slot_put(t, t->names->slots, t->names->nslots, idx);
	t->names->used++;
}

/**
 * tree_name_find() - find a child by its exact name during the build
 * @t: tree being built
 * @parent: directory index
 * @name: the child's name as the tree holds it
 *
 * Return: the child's index, or -1.
 */
long tree_name_find(const struct tdatfs_tree *t, uint32_t parent,
		    const char *name)
{
	const struct tree_names *x = t->names;
	size_t h;

	if (!x || !x->nslots)
		return -1;
	for (h = tree_name_hash(parent, name, strlen(name));; h++) {
		uint32_t s = x->slots[h & (x->nslots - 1)];

		if (!s)
			return -1;
		if (t->nodes[s - 1].parent == parent &&
		    !strcmp(t->nodes[s - 1].name, name))
			return s - 1;
	}
}

/**
 * tree_kid_find() - a kid of a static directory by name, shown or not
 * @t: tree
 * @p: the directory (its kids are sorted by name at the build's end, so
 *	a lookup is a binary search)
 * @name: the name, not necessarily terminated
 * @len: its length
 *
 * Return: the kid's node index, or -1.
 */
long tree_kid_find(const struct tdatfs_tree *t, const struct tree_node *p,
		   const char *name, size_t len)
{
	size_t lo = 0, hi = p->u.dir.nkids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *nm = t->nodes[p->u.dir.kids[mid]].name;
		int c = strncmp(nm, name, len);

		if (!c && nm[len])
			c = 1;
		if (!c)
			return p->u.dir.kids[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The length of @name cut to at most @max bytes, neither inside a UTF-8
 * character (a lead byte is at most 3 bytes before the cut) nor inside a
 * "%XX" escape (every '%' of a clean name starts one).
 */
static size_t cut_len(const char *name, size_t len, size_t max)
{
	size_t cut = max, back = 0;

	if (len <= max)
		return len;
	while (back < 3 && cut > 1 &&
	       ((unsigned char)name[cut] & 0xc0) == 0x80) {
		cut--;
		back++;
	}
	if (((unsigned char)name[cut] & 0xc0) == 0x80)
		cut = max;
	if (cut >= 1 && name[cut - 1] == '%')
		cut -= 1;
	else if (cut >= 2 && name[cut - 2] == '%')
		cut -= 2;
	return cut;
}

/*
 * The length of the UTF-8 character at @p (@left bytes there) that a
 * name keeps as it is: 1 for a printable ASCII byte, 2 to 4 for a valid
 * sequence of a character from U+00A0 on; 0 for a byte that becomes
 * "%XX": a C0 control, DEL, '%', '/', a C1 control (U+0080 to U+009F,
 * whose two bytes are both escaped) and a byte that starts no valid
 * sequence (overlong, surrogate, past U+10FFFF, cut short, stray).
 */
static size_t kept_len(const unsigned char *p, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (*p < 0x80)
		return *p < 0x20 || *p == 0x7f || *p == '%' || *p == '/' ? 0 : 1;
	if (*p < 0xc2 || *p > 0xf4)
		return 0;
	n = *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : 4;
	if (*p == 0xc2)
		lo = 0xa0;	/* C2 80..C2 9F: the C1 controls */
	else if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (left < n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/**
 * tree_name_clean() - the file name a wanted name becomes
 * @name: wanted name
 *
 * "", "." and ".." become "_"; every byte that a terminal, a shell
 * pipeline or a path would take for something else (kept_len()) becomes
 * "%XX", its value in upper-case hex, so that the result is printable
 * UTF-8 and the wanted name can be read back from it; a name longer than
 * TREE_NAME_MAX bytes is then cut to fit (tdatfs(1), THE TREE).
 *
 * Return: a new string (the caller frees it), or NULL on ENOMEM.
 */
char *tree_name_clean(const char *name)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)name;
	size_t len = strlen(name), i = 0, o = 0;
	char *s;

	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return strdup("_");
	s = malloc(3 * len + 1);
	if (!s)
		return NULL;
	while (i < len) {
		size_t k = kept_len(p + i, len - i);

		if (k) {
			memcpy(s + o, p + i, k);
			o += k;
			i += k;
			continue;
		}
		/* a C1 control: both of its bytes escaped */
		k = p[i] == 0xc2 && i + 1 < len && (p[i + 1] & 0xe0) == 0x80 ? 2 : 1;
		while (k--) {
			s[o++] = '%';
			s[o++] = hex[p[i] >> 4];
			s[o++] = hex[p[i++] & 15];
		}
	}
	s[cut_len(s, o, TREE_NAME_MAX)] = '\0';
	return s;
}

/**
 * tree_name_is_own() - whether a name is one a directory keeps
 * @own: the names a directory keeps for the tree's own files
 *	(NULL-terminated; NULL: none)
 * @name: a file name
 *
 * Return: true when @name is one of @own.
 */
bool tree_name_is_own(const char *const *own, const char *name)
{
	for (; own && *own; own++)
		if (!strcmp(*own, name))
			return true;
	return false;
}

/* Whether @name is free in @parent: no sibling holds it, none is kept. */
static bool name_free(const struct tdatfs_tree *t, uint32_t parent,
		      const char *name, const char *const *own)
{
	return !tree_name_is_own(own, name) && tree_name_find(t, parent, name) < 0;
}

/* Put @e into a suffix table of @n slots (there is room). */
static void sfx_put(struct tree_suffix *tab, size_t n, const struct tree_suffix *e)
{
	size_t h = tree_name_hash(e->parent, e->base, strlen(e->base));

	while (tab[h & (n - 1)].base)
		h++;
	tab[h & (n - 1)] = *e;
}

/* Room for one more suffix entry: the table is kept at most half full. */
static int sfx_grow(struct tree_names *x)
{
	struct tree_suffix *tab;
	size_t i, n;

	if ((x->sfx_used + 1) * 2 <= x->nsfx)
		return 0;
	n = x->nsfx ? x->nsfx * 2 : 64;
	tab = calloc(n, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < x->nsfx; i++)
		if (x->sfx[i].base)
			sfx_put(tab, n, &x->sfx[i]);
	free(x->sfx);
	x->sfx = tab;
	x->nsfx = n;
	return 0;
}

/* The suffix entry of (@parent, @base), made (next: 2) when missing. */
static struct tree_suffix *sfx_get(struct tree_names *x, uint32_t parent,
				   const char *base)
{
	struct tree_suffix e = { .parent = parent, .next = 2 };
	size_t h;

	if (sfx_grow(x))
		return NULL;
	for (h = tree_name_hash(parent, base, strlen(base));; h++) {
		struct tree_suffix *s = &x->sfx[h & (x->nsfx - 1)];

		if (!s->base)
			break;
		if (s->parent == parent && !strcmp(s->base, base))
			return s;
	}
	e.base = strdup(base);
	if (!e.base)
		return NULL;
	sfx_put(x->sfx, x->nsfx, &e);
	x->sfx_used++;
	return sfx_get(x, parent, base);
}

/**
 * tree_name_unique() - the name a new child of a directory gets
 * @t: tree being built
 * @parent: directory index
 * @name: wanted name
 * @own: names the directory keeps for the tree's own files, which may be
 *	added after this child (NULL-terminated; NULL: none)
 *
 * The name is cleaned (tree_name_clean()); when a sibling holds it
 * already, or it is one of @own, the first of "-2", "-3", ... that makes it free is appended,
 * with the name cut further so that the whole stays within TREE_NAME_MAX
 * bytes.  The next number to try is remembered per (directory, name): the
 * numbers below it are all taken, as names are never removed, so the
 * result is the smallest free number and costs O(1) amortized.
 *
 * Return: a new string (the caller frees it), or NULL on ENOMEM.
 */
char *tree_name_unique(struct tdatfs_tree *t, uint32_t parent,
		       const char *name, const char *const *own)
{
	char *base = tree_name_clean(name), *s = NULL;
	struct tree_suffix *e;
	size_t len;

	if (!base || name_free(t, parent, base, own))
		return base;
	len = strlen(base);
	e = t->names ? sfx_get(t->names, parent, base) : NULL;
	while (e) {
		char num[24];
		int n = snprintf(num, sizeof(num), "-%lu", e->next++);

		if (asprintf(&s, "%.*s%s",
			     (int)cut_len(base, len, TREE_NAME_MAX - n), base,
			     num) < 0) {
			s = NULL;
			break;
		}
		if (name_free(t, parent, s, own))
			break;
		free(s);
		s = NULL;
	}
	free(base);
	return s;
}
