/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/engine-states.c - the states of the engine's texts: given by the
 * index (checked whole against the trace, then stashed until each text's
 * stream is made) and taken for it.  The invariants are in
 * text/engine-internal.h; the public functions are documented in
 * tdatfs-text.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text.h"
#include "engine-internal.h"
#include "stream-state.h"
#include "stream.h"

int tdatfs_text_state_save(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			   void **blob, size_t *len)
{
	struct text_stream *st;
	struct text_stash *sh;
	int ret;

	if (!t || !k || !blob || !len)
		return -EINVAL;
	/* the report of one buffer has no state of its own */
	if ((k->report && t->alias >= 0) || (!k->report && !text_eng_key_buffer(t, k)) ||
	    (!k->report && text_eng_cpu_aliased(t, k->buffer, k->cpu)))
		return -ENOENT;
	pthread_mutex_lock(&t->lock);
	sh = text_eng_stash_get(t, k->report ? t->nbuffers : k->buffer, k->cpu, false);
	if (sh && sh->blob) {
		/* loaded, not read yet: the state is what was loaded */
		*blob = malloc(sh->len + 1);
		*len = sh->len;
		if (*blob)
			memcpy(*blob, sh->blob, sh->len);
	}
	pthread_mutex_unlock(&t->lock);
	if (sh && sh->blob)
		return *blob ? 0 : -ENOMEM;
	ret = text_eng_key_stream(t, k, false, &st);
	if (ret < 0)
		return ret == -ENOENT ? ret : -EAGAIN;
	return text_stream_state_save(st, blob, len);
}

/* Check @blob as a state of @k's text (no setup). */
static int state_check(struct tdatfs_text *t, const struct tdatfs_text_key *k,
		       const void *blob, size_t len, uint64_t *size)
{
	struct text_stream_part *parts;
	size_t i, n = 0;
	int ret;

	if (!k->report)
		return text_stream_state_check(t->f, NULL, 0, NULL, k->buffer, k->cpu,
					       blob, len, size);
	ret = text_eng_report_parts(t, &parts, &n);
	if (!ret)
		ret = text_stream_state_check(t->f, parts, n, t->head, 0, -1,
					      blob, len, size);
	for (i = 0; i < n; i++)
		free((char *)parts[i].prefix);
	free(parts);
	return ret;
}

/* Whether the text of @k was read (its stream made); engine lock held. */
static bool key_used(const struct tdatfs_text *t, const struct tdatfs_text_key *k)
{
	if (k->report)
		return t->report;
	return t->streams && t->streams[k->buffer] &&
	       t->streams[k->buffer][k->cpu + 1];
}

/* A state checked, its copy and size, and the stash it goes to. */
struct state_take {
	void *copy;
	uint64_t size;
	struct text_stash *sh;
};

/*
 * Check @s against the trace and, unless @borrow, copy its bytes into @tk
 * (no lock).
 */
static int state_take_check(struct tdatfs_text *t,
			    const struct tdatfs_text_state *s,
			    struct state_take *tk, bool borrow)
{
	const struct tdatfs_text_key *k = &s->key;
	int ret;

	if (!s->blob && s->len)
		return -EINVAL;
	if ((k->report && t->alias >= 0) || (!k->report && !text_eng_key_buffer(t, k)) ||
	    (!k->report && text_eng_cpu_aliased(t, k->buffer, k->cpu)))
		return -ENOENT;
	ret = state_check(t, k, s->blob, s->len, &tk->size);
	if (ret < 0 || borrow)
		return ret;
	tk->copy = malloc(s->len + 1);
	if (!tk->copy)
		return -ENOMEM;
	memcpy(tk->copy, s->blob, s->len);
	return 0;
}

/*
 * Claim every text's stash, each not loaded nor read yet; on an error
 * the ones claimed are let go.  Engine lock held.  Return: 0, -ENOMEM,
 * -EBUSY (*@bad: which).
 */
static int state_take_claim(struct tdatfs_text *t,
			    const struct tdatfs_text_state *s,
			    struct state_take *tk, size_t n, size_t *bad)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const struct tdatfs_text_key *k = &s[i].key;
		struct text_stash *sh = text_eng_stash_get(t, k->report ? t->nbuffers :
						  k->buffer, k->cpu, true);

		if (!sh)
			ret = -ENOMEM;
		else if (sh->loaded || key_used(t, k))
			ret = -EBUSY;
		else
			sh->loaded = true;	/* a second state of it: busy */
		tk[i].sh = ret ? NULL : sh;
		*bad = i;
	}
	if (ret)
		for (i = 0; i < n && tk[i].sh; i++)
			tk[i].sh->loaded = false;
	return ret;
}

/*
 * Hand the claimed stashes their states: the copies, or with @sh the
 * states in place in @sh->bytes, which then belong to the engine.
 * Engine lock held.  Return: the bytes given, for the chunk cache's
 * charge (stash_drop() gives it back).
 */
static size_t state_take_give(const struct tdatfs_text_state *s,
			      struct state_take *tk, size_t n,
			      struct text_shared *sh)
{
	size_t i, bytes = 0;

	for (i = 0; i < n; i++) {
		struct text_stash *st = tk[i].sh;

		st->from = sh && s[i].blob ? sh : NULL;
		st->blob = sh ? (void *)s[i].blob : tk[i].copy;
		st->len = s[i].len;
		st->size = tk[i].size;
		tk[i].copy = NULL;
		if (st->from)
			sh->users++;
		if (st->blob)
			bytes += st->len;
	}
	if (sh && !sh->users) {
		free(sh->bytes);
		free(sh);
	}
	return bytes;
}

/* Load @s, in place in @sh's bytes when @sh is given (states_adopt). */
static int states_take(struct tdatfs_text *t, const struct tdatfs_text_state *s,
		       size_t n, size_t *bad, struct text_shared *sh)
{
	struct state_take *tk;
	size_t i, dummy;
	int ret = 0;

	if (!bad)
		bad = &dummy;
	if (!t || (!s && n))
		return -EINVAL;
	tk = calloc(n ? n : 1, sizeof(*tk));
	if (!tk)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = state_take_check(t, &s[i], &tk[i], sh != NULL);
		*bad = i;
	}
	if (!ret) {
		size_t given = 0;

		pthread_mutex_lock(&t->lock);
		ret = state_take_claim(t, s, tk, n, bad);
		if (!ret)
			given = state_take_give(s, tk, n, sh);
		/*
		 * Held until each text's first read, beside the cache (16
		 * times big.dat: 25 MB of states): the cache makes room.
		 * Charged under the lock, before a read can take one and
		 * give its charge back.
		 */
		tdat_cache_charge(t->f, given, false);
		pthread_mutex_unlock(&t->lock);
	}
	for (i = 0; i < n; i++)
		free(tk[i].copy);
	free(tk);
	return ret;
}

int tdatfs_text_states_load(struct tdatfs_text *t,
			    const struct tdatfs_text_state *s, size_t n,
			    size_t *bad)
{
	return states_take(t, s, n, bad, NULL);
}

int tdatfs_text_states_adopt(struct tdatfs_text *t,
			     const struct tdatfs_text_state *s, size_t n,
			     size_t *bad, void *bytes)
{
	struct text_shared *sh;
	int ret;

	if (!bytes)
		return -EINVAL;
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return -ENOMEM;
	sh->bytes = bytes;
	ret = states_take(t, s, n, bad, sh);
	if (ret)
		free(sh);	/* @bytes stay the caller's */
	return ret;
}

int tdatfs_text_state_load(struct tdatfs_text *t, const struct tdatfs_text_key *k,
			   const void *blob, size_t len)
{
	struct tdatfs_text_state one;

	if (!k)
		return -EINVAL;
	one.key = *k;
	one.blob = blob;
	one.len = len;
	return tdatfs_text_states_load(t, &one, 1, NULL);
}
