/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/tep.c - the libtraceevent handle of a trace: made with
 * trace-cmd's settings, fed only text it survives, and locked.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "bytes.h"
#include "format-check.h"
#include "format-limits.h"
#include "kallsyms.h"
#include "tep.h"
#include "width-bound.h"

struct text_tep {
	struct tdat_file *f;
	pthread_mutex_t lock;		/* every call into @tep after setup */
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	/*
	 * kallsyms, taken from @share at the first address lookup (under
	 * @lock); @ksyms is ours to free only when @ksyms_copy says so
	 */
	struct text_kallsyms_share *share;
	struct text_kallsyms *ksyms;
	bool ksyms_read;
	bool ksyms_copy;
	/*
	 * -ENOMEM when the resolver could not load the table (it then
	 * answers NULL, which libtraceevent prints as an address): taken by
	 * text_tep_take_error() under @lock, before the text is used.
	 */
	int resolve_err;
	/*
	 * A format tep_parse_event() failed on for want of memory may be in
	 * the handle as a failed event: no later format is parsed, so the
	 * handle never prints with it (text_tep_parse_format()).
	 */
	bool formats_broken;
	/* the '*' widths of the parsed events, bounded (text/width-bound.h) */
	struct text_width_bound *widths;
	/*
	 * per format index, why it was left out of the handle (enum drop);
	 * written and read under @lock or at setup
	 */
	unsigned char *drops;
};

/* Why a format was left out of the handle: text_tep_report_dropped(). */
enum drop {
	DROP_NONE,
	DROP_REFUSED,		/* text_format_is_sane() */
	DROP_LONG,		/* over TEXT_FORMAT_MAX_LEN */
	DROP_DEEP,		/* over TEXT_FORMAT_MAX_DEPTH */
	DROP_UNPARSED,		/* libtraceevent did not keep it */
};

/*
 * Whether a libtraceevent call that reports failure only as -1 (or not at
 * all) ran out of memory: its allocations set errno, which the caller
 * cleared before the call.  Nothing else in those calls sets ENOMEM.
 */
static bool tep_out_of_memory(void)
{
	return errno == ENOMEM;
}

/*
 * What libtraceevent keeps for the whole process, not per handle: the
 * plugin option lists, and its format parser's tokenizer (the text being
 * parsed and the position in it are globals, as is the buffer a
 * __print_flags value is evaluated into).  Two engines parsing formats
 * at once (the index build's workers) would parse each other's text, and
 * print other text ever after.  Taken after a handle's @lock, never
 * before it.
 */
static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;

/**
 * text_tep_read_meta() - read a whole metadata blob, NUL-terminated
 * @f: trace
 * @which: the blob
 * @buf: set to the malloc()ed text (the caller frees it), NULL when absent
 * @size: set to its size
 *
 * Return: 0 (also for an absent blob) or a negative errno.
 */
int text_tep_read_meta(struct tdat_file *f, enum tdat_meta which, char **buf,
		       uint64_t *size)
{
	uint64_t sz, done = 0;
	char *p;
	int ret;

	*buf = NULL;
	*size = 0;
	ret = tdat_meta_size(f, which, &sz);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	/* the parser bounds blobs by the file or its decompression limit */
	if (sz >= SIZE_MAX)
		return -EFBIG;
	/*
	 * Two NULs: tep_parse_printk_formats() strdup()s from one past the
	 * end of a line without ':', which for the last line is past the
	 * first NUL (found by fuzz/, tests/corpus/crash-tep-printk-*.dat).
	 */
	p = malloc(sz + 2);
	if (!p)
		return -ENOMEM;
	while (done < sz) {
		ssize_t n = tdat_meta_read(f, which, p + done, sz - done, done);

		if (n < 0) {
			free(p);
			return (int)n;
		}
		if (n == 0)
			break;
		done += n;
	}
	p[done] = '\0';
	p[done + 1] = '\0';
	*buf = p;
	*size = done;
	return 0;
}

/*
 * Whether libtraceevent takes the atom @a for a kernel symbol's name
 * (test_for_symbol()): it reads as 0 and does not start with a digit.
 */
static bool atom_is_name(const char *a)
{
	return a && !(a[0] >= '0' && a[0] <= '9') && strtoull(a, NULL, 0) == 0;
}

/*
 * Whether @name stands in the print fmt @fmt as a bare word: outside the
 * quoted strings, not a member (after "->" or '.'), not a call.  The
 * atoms of string literals ("handled", "true") look the same in the
 * parsed arguments and are never looked up, so only these can need
 * kallsyms (which is not read for the others).
 */
static bool atom_is_bare(const char *fmt, const char *name)
{
	size_t n = strlen(name);
	bool quoted = false;

	for (size_t i = 0; i < n; i++)
		if (!text_is_ident(name[i]))
			return false;
	if (!n)
		return false;

	for (const char *p = fmt; *p; p++) {
		if (*p == '"' && (p == fmt || p[-1] != '\\'))
			quoted = !quoted;
		if (quoted || strncmp(p, name, n) || text_is_ident(p[n]) ||
		    (p > fmt && (text_is_ident(p[-1]) || p[-1] == '.' ||
				 p[-1] == '>')))
			continue;
		if (p[n] != '(')
			return true;
	}
	return false;
}

/*
 * resolve_atom() - let libtraceevent find the kernel symbol a name atom
 * may stand for.  Where it evaluates the atom as a number, it looks the
 * exact name up in its function list (test_for_symbol()); the engine's
 * handle has none (its addresses resolve through text/kallsyms.h), so
 * the name alone is registered on it, with the address the engine's
 * table gives; address lookups still go to the resolver.  kallsyms is
 * then read at setup, and only for the traces that use such a format
 * (kmem's "vmemmap_base" on 5.x kernels).  Only words that stand bare
 * in the print fmt get here (atom_is_bare()); were one also a string
 * literal elsewhere, registering it is harmless, as only a number's
 * evaluation looks names up.
 */
static int resolve_atom(struct text_tep *tt, const char *name)
{
	unsigned long long addr;
	struct text_kallsyms *ks;
	int ret;

	ret = text_tep_ksyms(tt, &ks);
	if (ret < 0 || !ks || text_kallsyms_address(ks, name, &addr) < 0)
		return ret;
	errno = 0;
	if (tep_register_function(tt->tep, (char *)name, addr, NULL) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * text_tep_atom_value() - the number a name atom evaluates to, when fixed
 * @tt: handle
 * @name: the atom
 * @val: set to the value
 *
 * libtraceevent evaluates an atom that reads as 0 and does not start
 * with a digit by looking the name up in its function list
 * (test_for_symbol()), where only resolve_atom() puts names, and only
 * names the trace's kallsyms has.  A name kallsyms lacks is therefore
 * found by no lookup, now or after other formats are parsed: its value
 * is 0 for good (kmem's "vmemmap_base" in a trace without that symbol).
 * A name kallsyms has is found or not by which formats were parsed.
 *
 * Return: 0 with *@val set; -EINVAL for an atom that is not a name, or
 * a name whose value is not fixed (kallsyms has it, or cannot say).
 * Context: the tep lock is held.
 */
int text_tep_atom_value(struct text_tep *tt, const char *name, uint64_t *val)
{
	unsigned long long addr;
	struct text_kallsyms *ks;

	if (!atom_is_name(name) || text_tep_ksyms(tt, &ks) < 0)
		return -EINVAL;
	if (ks && text_kallsyms_address(ks, name, &addr) != -ENOENT)
		return -EINVAL;
	*val = 0;
	return 0;
}

/*
 * resolve_atoms() - every name atom of a parsed argument list, depth first
 * (the depth is bounded: text_format_within_limits() passed the format)
 */
static int resolve_atoms(struct text_tep *tt, const char *fmt,
			 struct tep_print_arg *arg)
{
	int ret = 0;

	for (; arg && !ret; arg = arg->next) {
		switch (arg->type) {
		case TEP_PRINT_ATOM:
			if (atom_is_name(arg->atom.atom) &&
			    atom_is_bare(fmt, arg->atom.atom))
				ret = resolve_atom(tt, arg->atom.atom);
			break;
		case TEP_PRINT_TYPE:
			ret = resolve_atoms(tt, fmt, arg->typecast.item);
			break;
		case TEP_PRINT_OP:
			ret = resolve_atoms(tt, fmt, arg->op.left);
			if (!ret)
				ret = resolve_atoms(tt, fmt, arg->op.right);
			break;
		case TEP_PRINT_FLAGS:
			ret = resolve_atoms(tt, fmt, arg->flags.field);
			break;
		case TEP_PRINT_SYMBOL:
			ret = resolve_atoms(tt, fmt, arg->symbol.field);
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			ret = resolve_atoms(tt, fmt, arg->hex.field);
			if (!ret)
				ret = resolve_atoms(tt, fmt, arg->hex.size);
			break;
		case TEP_PRINT_INT_ARRAY:
			ret = resolve_atoms(tt, fmt, arg->int_array.field);
			if (!ret)
				ret = resolve_atoms(tt, fmt, arg->int_array.count);
			if (!ret)
				ret = resolve_atoms(tt, fmt, arg->int_array.el_size);
			break;
		case TEP_PRINT_FUNC:
			ret = resolve_atoms(tt, fmt, arg->func.args);
			break;
		case TEP_PRINT_DYNAMIC_ARRAY:
			ret = resolve_atoms(tt, fmt, arg->dynarray.index);
			break;
		default:
			break;
		}
	}
	return ret;
}

/*
 * Format @i is left out of the handle for @why: its records print as
 * [UNKNOWN EVENT] and have no fields (text_tep_report_dropped() tells the
 * registry when one is met).  A format whose text stops early (@cut) is
 * the parser's to report.  Return: 0.
 */
static int drop(struct text_tep *tt, size_t i, bool cut, enum drop why)
{
	if (!cut)
		tt->drops[i] = why;
	return 0;
}

/**
 * text_tep_parse_format() - hand one event format to libtraceevent
 * @tt: handle
 * @i: format index (tdat_event_get())
 * @buf: scratch for the text, grown as needed (the caller frees it)
 * @cap: its size
 *
 * A format that does not parse is left out, as trace-cmd counts it and
 * goes on; so is one text_format_is_sane() refuses; so is the rest of a format
 * whose text stops reading early (damage the parser reports).  Why a
 * format was left out whole is kept (text_tep_dropped()).  Running
 * out of memory, reading or parsing, is an error: the format left out
 * would print other text.  Kernel symbols named in its print arguments
 * are given to the handle now (resolve_atom()).
 *
 * Return: 0, -ENOMEM, or another negative errno when the text could not
 * be read.
 * Context: at setup, or with the lock held.
 */
int text_tep_parse_format(struct text_tep *tt, size_t i, char **buf,
			  size_t *cap)
{
	const struct tdat_event_format *ev = tdat_event_get(tt->f, i);
	struct tep_event *tev = NULL;
	enum tep_errno err;
	const char *fmt;
	uint64_t done = 0;
	bool oom, cut;

	if (!ev)
		return -ENOENT;
	if (tt->formats_broken)
		return -ENOMEM;
	if (ev->size >= SIZE_MAX)
		return -EFBIG;
	if (ev->size + 1 > *cap) {
		char *p = realloc(*buf, ev->size + 1);

		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = ev->size + 1;
	}
	while (done < ev->size) {
		ssize_t r = tdat_event_read(tt->f, i, *buf + done,
					    ev->size - done, done);
		if (r == -ENOMEM)
			return -ENOMEM;
		if (r <= 0)
			break;
		done += r;
	}
	(*buf)[done] = '\0';
	cut = done < ev->size;
	if (!text_format_is_sane(*buf, done))
		return drop(tt, i, cut, DROP_REFUSED);
	if (done > TEXT_FORMAT_MAX_LEN)
		return drop(tt, i, cut, DROP_LONG);
	if (!text_format_within_limits(*buf, done))
		return drop(tt, i, cut, DROP_DEEP);
	pthread_mutex_lock(&lib_lock);
	errno = 0;
	err = tep_parse_format(tt->tep, &tev, *buf, done, ev->system);
	oom = err != TEP_ERRNO__SUCCESS && tep_out_of_memory();
	pthread_mutex_unlock(&lib_lock);
	if (!oom && !tev)
		return drop(tt, i, cut, DROP_UNPARSED);
	/* an event that failed to parse prints no width */
	if (!oom && err == TEP_ERRNO__SUCCESS && tev &&
	    text_width_bound_event(tev, &tt->widths) < 0)
		oom = true;
	if (oom) {
		tt->formats_broken = true;
		return -ENOMEM;
	}
	fmt = strstr(*buf, "print fmt:");
	return tev && fmt ? resolve_atoms(tt, fmt, tev->print_fmt.args) : 0;
}

/**
 * text_tep_dropped() - whether a format was left out of the handle whole
 * @tt: handle
 * @i: format index
 *
 * Return: true when text_tep_parse_format() of @i left it out (refused,
 * or not kept by libtraceevent), its text read whole.
 * Context: at setup, or with the lock held.
 */
bool text_tep_dropped(const struct text_tep *tt, size_t i)
{
	return i < tdat_event_count(tt->f) && tt->drops[i] != DROP_NONE;
}

/**
 * text_tep_report_dropped() - tell the damage registry a format was left out
 * @tt: handle
 * @i: a format text_tep_dropped() says was
 *
 * For the first record met of its event: what trace-cmd shows as
 * "[UNKNOWN EVENT]" because libtraceevent did not keep the format, or
 * tdatfs shows so because it did not hand it over, is damage the errors
 * file and tdat check name.  A format whose print fmt fails ([FAILED TO
 * PARSE], as the kernels' fs/open_exec) is kept, and is no damage.  The
 * registry being out of memory loses the entry, as for pages.
 *
 * Context: any thread; takes the registry's lock only.
 */
void text_tep_report_dropped(struct text_tep *tt, size_t i)
{
	const char *tail = ": its records print as [UNKNOWN EVENT]";
	char what[TDAT_ERROR_WHAT];

	switch (i < tdat_event_count(tt->f) ? tt->drops[i] : DROP_NONE) {
	case DROP_REFUSED:
		snprintf(what, sizeof(what), "is refused as unsafe for libtraceevent%s",
			 tail);
		break;
	case DROP_LONG:
		snprintf(what, sizeof(what), "is over the %u bytes tdatfs parses%s",
			 TEXT_FORMAT_MAX_LEN, tail);
		break;
	case DROP_DEEP:
		snprintf(what, sizeof(what), "nests deeper than the %d levels tdatfs parses%s",
			 TEXT_FORMAT_MAX_DEPTH, tail);
		break;
	case DROP_UNPARSED:
		snprintf(what, sizeof(what), "does not parse%s", tail);
		break;
	default:
		return;
	}
	tdat_event_mark_damaged(tt->f, i, what);
}

/**
 * text_tep_parse_formats() - hand every format of one kind to the handle
 * @tt: handle
 * @ftrace: the formats of system "ftrace" (true) or all others (false)
 *
 * Return: 0, or -ENOMEM (a format that cannot be read is left out).
 * Context: at setup.
 */
int text_tep_parse_formats(struct text_tep *tt, bool ftrace)
{
	size_t i, n = tdat_event_count(tt->f);
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0;

	for (i = 0; i < n && ret != -ENOMEM; i++) {
		const struct tdat_event_format *ev = tdat_event_get(tt->f, i);

		if (ev && (strcmp(ev->system, "ftrace") == 0) == ftrace)
			ret = text_tep_parse_format(tt, i, &buf, &cap);
	}
	free(buf);
	return ret == -ENOMEM ? ret : 0;
}

/*
 * Drop, in place, the printk_formats lines that libtraceevent 1.7.1 reads
 * outside of: tep_parse_printk_formats() strdup()s from two bytes after the
 * ':' and tep_register_print_string() looks three bytes back from the end
 * of what is left after a leading '"' (fuzz/, tests/corpus/crash-tep-*).
 * Kernel lines ("0x... : \"text\"") all pass.  Like the library, stop at
 * the first NUL.
 */
static void printk_filter(char *buf)
{
	char *in = buf, *out = buf;

	while (*in) {
		char *nl = strchr(in, '\n'), *colon, *fmt;
		size_t len = nl ? (size_t)(nl - in) : strlen(in);
		bool keep;

		colon = memchr(in, ':', len);
		keep = colon && colon != in && (size_t)(colon - in) + 2 <= len;
		if (keep) {
			fmt = colon + 2;
			if (fmt < in + len && *fmt == '"')
				fmt++;
			keep = in + len - fmt >= 3;
		}
		if (keep) {
			memmove(out, in, len);
			out += len;
			*out++ = '\n';
		}
		in += len;
		if (*in)
			in++;
	}
	*out = '\0';
}

/**
 * text_tep_parse_printk() - hand the printk_formats blob to the handle
 * @tt: handle
 *
 * Return: 0 or a negative errno (-ENOMEM also when libtraceevent ran out
 * of memory storing the strings).
 * Context: at setup.
 */
int text_tep_parse_printk(struct text_tep *tt)
{
	uint64_t size;
	char *buf;
	int ret;

	ret = text_tep_read_meta(tt->f, TDAT_META_PRINTK, &buf, &size);
	if (ret < 0 || !buf)
		return ret;
	printk_filter(buf);
	errno = 0;
	if (*buf && tep_parse_printk_formats(tt->tep, buf) < 0 &&
	    tep_out_of_memory())
		ret = -ENOMEM;
	free(buf);
	return ret;
}

/* text_kallsyms_read_fn: the trace's kallsyms; one that does not read is none. */
static int ksym_read(void *arg, char **text)
{
	struct text_tep *tt = arg;
	uint64_t size;
	int ret;

	ret = text_tep_read_meta(tt->f, TDAT_META_KALLSYMS, text, &size);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0 || !size) {
		/* the damage is reported by the parser */
		free(*text);
		*text = NULL;
	}
	return 0;
}

/*
 * Take the trace's kallsyms table from the share, which reads it if no
 * engine did.  One that could not be read or parsed for want of memory is
 * tried again at the next lookup.  Return: 0 or -ENOMEM.
 */
static int ksym_load(struct text_tep *tt)
{
	int ret = text_kallsyms_share_get(tt->share, ksym_read, tt, &tt->ksyms,
					  &tt->ksyms_copy);

	if (!ret)
		tt->ksyms_read = true;
	return ret;
}

/*
 * libtraceevent's function resolver: the symbol holding *@addrp, looked up
 * in the kallsyms table read on the first call, which answers as
 * tep_parse_kallsyms() into the main handle would (text/kallsyms.h).
 * The resolver can only answer a name or none, and none prints as an
 * address: a table that could not be loaded for want of memory leaves
 * -ENOMEM for text_tep_take_error().  Called by libtraceevent, so with
 * the lock held.
 */
static char *ksym_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct text_tep *tt = priv;

	(void)modp;
	if (!tt->ksyms_read && ksym_load(tt) < 0) {
		tt->resolve_err = -ENOMEM;
		return NULL;
	}
	if (!tt->ksyms)
		return NULL;
	return (char *)text_kallsyms_find(tt->ksyms, *addrp, addrp);
}

/**
 * text_tep_file() - the trace a handle was made for
 * @tt: handle
 *
 * Return: the file given to text_tep_new().
 * Context: lock-free (the pointer never changes).
 */
struct tdat_file *text_tep_file(struct text_tep *tt)
{
	return tt->f;
}

/**
 * text_tep_ksyms() - the kallsyms table, read now if it was not yet
 * @tt: handle
 * @ks: set to the table, NULL when the trace has none (or it does not
 *	read): then no address resolves, as in the resolver
 *
 * Return: 0, or -ENOMEM (nothing is kept; the next call tries again).
 * Context: the tep lock is held.  The table lives as long as @tt.
 */
int text_tep_ksyms(struct text_tep *tt, struct text_kallsyms **ks)
{
	*ks = NULL;
	if (!tt->ksyms_read && ksym_load(tt) < 0)
		return -ENOMEM;
	*ks = tt->ksyms;
	return 0;
}

/**
 * text_tep_take_error() - the error the handle's callbacks met since the
 *	last call, and forget it
 * @tt: handle
 *
 * libtraceevent's function resolver cannot fail: when kallsyms could not
 * be loaded for want of memory it answers no symbol and leaves the error
 * here.  Every caller of libtraceevent that prints (or looks a function
 * up) takes it before using the text, under the same lock hold.
 *
 * Return: 0, or -ENOMEM when the text made since holds addresses that
 * should have been symbols.
 * Context: with the lock held.
 */
int text_tep_take_error(struct text_tep *tt)
{
	int ret = tt->resolve_err;

	tt->resolve_err = 0;
	return ret;
}

/**
 * text_tep_parse_header_page() - hand the header_page blob to the handle
 * @tt: handle
 *
 * An empty or absent header_page means the pre-2.6.31 page format.
 *
 * Return: 0 or a negative errno (-ENOMEM also when libtraceevent ran out
 * of memory parsing it).
 * Context: at setup.
 */
int text_tep_parse_header_page(struct text_tep *tt)
{
	uint64_t size;
	char *buf;
	int ret;

	ret = text_tep_read_meta(tt->f, TDAT_META_HEADER_PAGE, &buf, &size);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(&lib_lock);
	errno = 0;
	if (tep_parse_header_page(tt->tep, buf ? buf : (char *)"", size,
				  tdat_long_size(tt->f)) < 0 && tep_out_of_memory())
		ret = -ENOMEM;
	pthread_mutex_unlock(&lib_lock);
	free(buf);
	return ret;
}

/**
 * text_tep_page_fmt() - the page layout the header_page gave the handle
 * @tt: handle, after text_tep_parse_header_page()
 * @pf: filled in
 */
void text_tep_page_fmt(struct text_tep *tt, struct text_page_fmt *pf)
{
	pf->big_endian = tdat_big_endian(tt->f);
	pf->kernel_long = tep_get_header_page_size(tt->tep) == 8 ? 8 : 4;
	pf->old_format = tep_is_old_format(tt->tep);
	pf->ts_ok = tep_get_header_timestamp_size(tt->tep) == 8;
}

/**
 * text_tep_new() - a handle set up as trace-cmd sets up its own
 * @f: the trace; must outlive the handle
 * @share: where its kallsyms table comes from (a reference is taken), so
 *	that engines of one trace parse kallsyms once; NULL for a share of
 *	its own
 *
 * Plugins first (their handlers attach when the formats are parsed),
 * then endianness, long and page size, CPU count and the kallsyms
 * resolver.  No metadata is read yet.
 *
 * Return: the handle (free with text_tep_free()), or NULL with errno set.
 */
struct text_tep *text_tep_new(struct tdat_file *f,
			      struct text_kallsyms_share *share)
{
	struct text_tep *tt = calloc(1, sizeof(*tt));
	bool oom;

	if (!tt)
		return NULL;
	tt->f = f;
	pthread_mutex_init(&tt->lock, NULL);
	tt->drops = calloc(tdat_event_count(f) + 1, 1);
	tt->tep = tep_alloc();
	if (!tt->tep || !tt->drops)
		goto fail;
	pthread_mutex_lock(&lib_lock);
	errno = 0;
	tt->plugins = tep_load_plugins(tt->tep);
	/* a plugin left out for want of memory would print other text */
	oom = tep_out_of_memory();
	pthread_mutex_unlock(&lib_lock);
	if (oom)
		goto fail;

	tep_set_file_bigendian(tt->tep, tdat_big_endian(f) ? TEP_BIG_ENDIAN :
			       TEP_LITTLE_ENDIAN);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	tep_set_local_bigendian(tt->tep, TEP_BIG_ENDIAN);
#else
	tep_set_local_bigendian(tt->tep, TEP_LITTLE_ENDIAN);
#endif
	tep_set_long_size(tt->tep, tdat_long_size(f));
	tep_set_page_size(tt->tep, tdat_page_size(f));
	if (tdat_cpu_count(f))
		tep_set_cpus(tt->tep, tdat_cpu_count(f));
	tt->share = share ? text_kallsyms_share_ref(share) :
			    text_kallsyms_share_new();
	if (!tt->share)
		goto fail;
	if (tep_set_function_resolver(tt->tep, ksym_resolve, tt) < 0)
		goto fail;
	return tt;
fail:
	text_tep_free(tt);
	errno = ENOMEM;
	return NULL;
}

/**
 * text_tep_free() - free a handle and its plugins; NULL is fine
 * @tt: handle
 */
void text_tep_free(struct text_tep *tt)
{
	if (!tt)
		return;
	text_width_bound_undo(tt->widths);
	if (tt->tep) {
		pthread_mutex_lock(&lib_lock);
		tep_unload_plugins(tt->plugins, tt->tep);
		pthread_mutex_unlock(&lib_lock);
		tep_free(tt->tep);
	}
	if (tt->ksyms_copy)
		text_kallsyms_free(tt->ksyms);
	text_kallsyms_share_free(tt->share);
	free(tt->drops);
	pthread_mutex_destroy(&tt->lock);
	free(tt);
}

/**
 * text_tep_handle() - the libtraceevent handle itself
 * @tt: handle
 *
 * Return: the tep_handle; call into it at setup or under text_tep_lock().
 */
struct tep_handle *text_tep_handle(struct text_tep *tt)
{
	return tt->tep;
}

/**
 * text_tep_lock() - take the lock every libtraceevent call needs
 * @tt: handle
 */
void text_tep_lock(struct text_tep *tt)
{
	pthread_mutex_lock(&tt->lock);
}

/**
 * text_tep_unlock() - release text_tep_lock()
 * @tt: handle
 */
void text_tep_unlock(struct text_tep *tt)
{
	pthread_mutex_unlock(&tt->lock);
}

/* Events whose plugin handler keeps state for the whole process. */
static bool handler_is_global(const struct tep_event *ev)
{
	return ev && ev->system && ev->name && strcmp(ev->system, "ftrace") == 0 &&
	       (strcmp(ev->name, "function") == 0 ||
		strcmp(ev->name, "func_repeats") == 0);
}

/**
 * text_tep_field_parsed_string() - the string flag libtraceevent 1.7.1
 *	gives a field when it parses its format
 * @f: field
 *
 * event_read_fields(): field_is_string(), and the old two-byte
 * __data_loc strings.
 *
 * Return: whether the field is a string as parsed.
 */
bool text_tep_field_parsed_string(const struct tep_format_field *f)
{
	if ((f->flags & TEP_FIELD_IS_ARRAY) &&
	    (strstr(f->type, "char") || strstr(f->type, "u8") ||
	     strstr(f->type, "s8")))
		return true;
	return (f->flags & TEP_FIELD_IS_DYNAMIC) && f->size == 2;
}

/**
 * text_tep_field_restore_string() - give a field back the string flag it
 *	was parsed with
 * @f: field
 *
 * libtraceevent's raw printing (print_field_raw()) clears the flag of a
 * string field for good the first time its value is not printable, so
 * that every later record prints it as ARRAY[...]: the text of a record
 * would depend on which records the handle printed before it.  Restored
 * after each such print, every record prints as it alone says.
 */
void text_tep_field_restore_string(struct tep_format_field *f)
{
	if (text_tep_field_parsed_string(f))
		f->flags |= TEP_FIELD_IS_STRING;
}

/**
 * text_tep_print_info() - the info text of a record, as libtraceevent
 * prints it
 * @tt: handle, locked by the caller
 * @s: appended to
 * @rec: the record
 * @ev: its event, or NULL when the handle has none for it
 *
 * The function plugin's handler (ftrace function and func_repeats)
 * indents from call stacks it keeps in globals, which it reallocates:
 * two handles printing such records at once would corrupt them, so they
 * print under the process-wide lock.  An event whose format failed to
 * parse keeps the string flags of its fields (see
 * text_tep_field_restore_string()).
 */
void text_tep_print_info(struct text_tep *tt, struct trace_seq *s,
			 struct tep_record *rec, const struct tep_event *ev)
{
	bool global = handler_is_global(ev);

	if (global)
		pthread_mutex_lock(&lib_lock);
	tep_print_event(tt->tep, s, rec, "%s", TEP_PRINT_INFO);
	if (global)
		pthread_mutex_unlock(&lib_lock);
	/* a failed format prints its fields raw: "[FAILED TO PARSE] f=v" */
	if (ev && (ev->flags & TEP_EVENT_FL_FAILED))
		for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
			text_tep_field_restore_string(f);
}

/**
 * text_tep_parse_cmdlines() - hand the saved_cmdlines text to the handle
 * @tt: handle
 * @buf: the blob's text (not changed)
 *
 * Return: 0, or -ENOMEM when libtraceevent ran out of memory (a comm left
 * out would print as "<...>").
 * Context: at setup.
 */
int text_tep_parse_cmdlines(struct text_tep *tt, const char *buf)
{
	errno = 0;
	tep_parse_saved_cmdlines(tt->tep, buf);
	return tep_out_of_memory() ? -ENOMEM : 0;
}

/**
 * text_tep_sort_comms() - turn the handle's comm list into its table
 * @tt: handle, after the saved_cmdlines were parsed
 *
 * Until its first comm lookup libtraceevent keeps registered comms in a
 * list without looking for duplicates, and nothing here looks a comm up
 * through it: the sched plugins' registration of two comms per
 * sched_switch grew it by 1.2 MB per 3 M events.  One lookup turns it
 * into the sorted table trace-cmd's first printed line makes, which
 * keeps the first comm of each pid.
 *
 * Return: 0, or -ENOMEM when the table could not be made (libtraceevent
 * would then name every pid "<...>").
 * Context: at setup.
 */
int text_tep_sort_comms(struct text_tep *tt)
{
	errno = 0;
	tep_data_comm_from_pid(tt->tep, 1);
	return tep_out_of_memory() ? -ENOMEM : 0;
}
