/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text/compiled/sched.c - the handlers of the sched plugin compiled:
 * the info text plugin_sched_switch.so of libtraceevent 1.7.1 prints for
 * sched_switch, sched_wakeup and sched_wakeup_new, without printf and
 * without the tep lock; and which plugin a handler comes from.
 *
 * What is reproduced (the handler's text replaces the format's, which is
 * not printed after it):
 *  - sched_switch_handler(): prev's "COMM:PID ", "[PRIO] " of prev_prio,
 *    the letters of prev_state, " ==> ", next's "COMM:PID" and " [PRIO]"
 *    of next_prio;
 *  - sched_wakeup_handler(), of both wakeup events: "COMM:PID", " [PRIO]"
 *    of prio, then " success=%lld" and " CPU:%03llu" (target_cpu) when
 *    the format has those fields and they read;
 *  - a pid, prio, success or target_cpu is tep_read_number_field()'s
 *    value (unsigned, of the field's size): pids, wakeup prio and success
 *    print as "%lld" of it, switch prios as "%d" of it cast to int;
 *  - "COMM:" is "%.*s" of the comm array (up to its size or a NUL) and a
 *    ':', nothing without a comm field (tep_find_any_field());
 *  - prev_state: the value cast to int, for each of its bits 0-7 set the
 *    letter of "SDTtZXxW" at that bit, '|' between them, "R" for none
 *    (1.7.1 has no other table and no '+').
 * The registration of comms the handlers make is the engine's
 * (text_comms_learn()), after the text, as for libtraceevent's printing.
 *
 * Refused (libtraceevent prints the event): a pid, prio or prev_state
 * field missing or of a size tep_read_number_field() does not read (the
 * handler then prints an error text or '!'), a comm field that is not a
 * plain array.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tdatfs-common.h"
#include "bytes.h"
#include "decimal.h"
#include "internal.h"

/**
 * text_compiled_handler_from() - whether an event's handler lives in a plugin
 * @ev: a parsed event with a handler
 * @so: the plugin's file name ("plugin_kmem.so")
 *
 * The plugins register static functions: they are known by their file.
 *
 * Return: true when the handler's code is in a file named @so.
 */
bool text_compiled_handler_from(const struct tep_event *ev, const char *so)
{
	union {
		tep_event_handler_func f;
		void *p;
	} h = { .f = ev->handler };
	const char *base;
	Dl_info info;

	if (!h.p || !dladdr(h.p, &info) || !info.dli_fname)
		return false;
	base = strrchr(info.dli_fname, '/');
	return !strcmp(base ? base + 1 : info.dli_fname, so);
}

/*
 * tep_get_field_val() of @name: true with @f set when the field is there
 * and reads (size 1, 2, 4 or 8); else @f is left empty.
 */
static bool num_field(struct tep_event *ev, const char *name,
		      struct fast_fld *f)
{
	struct tep_format_field *fl = tep_find_field(ev, name);

	f->off = 0;
	f->size = 0;
	if (!fl || fl->offset < 0)
		return false;
	if (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8)
		return false;
	f->off = fl->offset;
	f->size = fl->size;
	return true;
}

/* A comm field, as write_and_save_comm() prints it: false to refuse. */
static bool comm_field(struct tep_event *ev, const char *name,
		       struct fast_fld *f)
{
	struct tep_format_field *fl = tep_find_any_field(ev, name);

	f->off = 0;
	f->size = 0;
	if (!fl)
		return true;
	if (fl->offset < 0 || fl->size <= 0 ||
	    (fl->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE)))
		return false;
	f->off = fl->offset;
	f->size = fl->size;
	return true;
}

static bool compile_switch(struct fast_sched *sc, struct tep_event *ev)
{
	sc->kind = FAST_SCHED_SWITCH;
	return num_field(ev, "prev_pid", &sc->pid) &&
	       comm_field(ev, "prev_comm", &sc->comm) &&
	       num_field(ev, "prev_prio", &sc->prio) &&
	       num_field(ev, "prev_state", &sc->state) &&
	       num_field(ev, "next_pid", &sc->npid) &&
	       comm_field(ev, "next_comm", &sc->ncomm) &&
	       num_field(ev, "next_prio", &sc->nprio);
}

static bool compile_wakeup(struct fast_sched *sc, struct tep_event *ev)
{
	sc->kind = FAST_SCHED_WAKEUP;
	if (!num_field(ev, "pid", &sc->pid) ||
	    !comm_field(ev, "comm", &sc->comm) ||
	    !num_field(ev, "prio", &sc->prio))
		return false;
	/* tep_get_field_val(..., 0): nothing printed when they do not read */
	num_field(ev, "success", &sc->success);
	num_field(ev, "target_cpu", &sc->cpu);
	return true;
}

/**
 * text_compiled_sched_compile() - the sched plugin's handler of an event
 * @fp: the program being made
 * @ev: a parsed event with a handler
 *
 * Return: 1 when @fp now prints the handler's text (and no format), 0
 * when the handler is not the sched plugin's, -1 when it is but this
 * event's fields are not the ones it can print exactly.
 */
int text_compiled_sched_compile(struct text_compiled *fp, struct tep_event *ev)
{
	struct fast_sched *sc = &fp->sched;
	bool sw;

	if (!ev->system || strcmp(ev->system, "sched") || !ev->name)
		return 0;
	/* the plugin registers these by name: which handler is by the name */
	if (!strcmp(ev->name, "sched_switch"))
		sw = true;
	else if (!strcmp(ev->name, "sched_wakeup") ||
		 !strcmp(ev->name, "sched_wakeup_new"))
		sw = false;
	else
		return 0;
	if (!text_compiled_handler_from(ev, "plugin_sched_switch.so"))
		return 0;
	if (!(sw ? compile_switch(sc, ev) : compile_wakeup(sc, ev))) {
		memset(sc, 0, sizeof(*sc));
		return -1;
	}
	return 1;
}

static uint64_t read_fld(bool big_endian, const unsigned char *data,
			 const struct fast_fld *f)
{
	return text_read_num(big_endian, data + f->off, f->size);
}

/* "%lld" of tep_read_number_field()'s unsigned value of @f */
static char *put_lld(char *o, uint64_t v)
{
	if ((int64_t)v < 0) {
		*o++ = '-';
		v = -v;
	}
	return text_dec_put(o, v, text_dec_digits(v));
}

/* "%d" of the value cast to int */
static char *put_d(char *o, uint64_t v)
{
	return put_lld(o, (uint64_t)(int64_t)(int32_t)(uint32_t)v);
}

/* A byte 0x80 in @w's first zero byte (and maybe in bytes above it). */
static inline uint64_t zero_bytes(uint64_t w)
{
	return (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
}

/*
 * "%.*s" of the comm array @s of @size bytes: up to its first NUL.  The
 * kernel's 16-byte comm is copied whole (the room holds comm.size) and
 * its NUL found a word at a time, where strnlen() and memcpy() would be
 * two calls for a few bytes.
 */
static char *put_comm(char *o, const unsigned char *s, uint32_t size)
{
	uint64_t w[2], z;
	size_t n;

	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && size == 16) {
		memcpy(w, s, 16);
		memcpy(o, w, 16);
		/* on a little-endian host the first byte is the lowest */
		z = zero_bytes(w[0]);
		if (z)
			return o + __builtin_ctzll(z) / 8;
		z = zero_bytes(w[1]);
		return o + (z ? 8 + __builtin_ctzll(z) / 8 : 16);
	}
	n = strnlen((const char *)s, size);
	memcpy(o, s, n);
	return o + n;
}

/* write_and_save_comm() and ':' when there is a comm, then "%lld" */
static char *put_comm_pid(char *o, const struct fast_fld *comm,
			  const struct fast_fld *pid, bool big_endian,
			  const unsigned char *data)
{
	if (comm->size) {
		o = put_comm(o, data + comm->off, comm->size);
		*o++ = ':';
	}
	return put_lld(o, read_fld(big_endian, data, pid));
}

/* write_state(): bits 0-7 of the value cast to int */
static char *put_state(char *o, uint64_t v)
{
	static const char states[] = "SDTtZXxW";
	unsigned int bits = (unsigned int)(int)v, i;
	bool found = false;

	/* no bit or one (running, sleeping...): one letter, no loop */
	if (!(bits & 0xff & ((bits & 0xff) - 1))) {
		*o++ = bits & 0xff ? states[__builtin_ctz(bits & 0xff)] : 'R';
		return o;
	}

	for (i = 0; i < sizeof(states) - 1; i++) {
		if (!(bits & (1u << i)))
			continue;
		if (found)
			*o++ = '|';
		found = true;
		*o++ = states[i];
	}
	if (!found)
		*o++ = 'R';
	return o;
}

static char *put_switch(char *o, const struct fast_sched *sc,
			bool big_endian, const unsigned char *data)
{
	o = put_comm_pid(o, &sc->comm, &sc->pid, big_endian, data);
	*o++ = ' ';
	*o++ = '[';
	o = put_d(o, read_fld(big_endian, data, &sc->prio));
	memcpy(o, "] ", 2);
	o += 2;
	o = put_state(o, read_fld(big_endian, data, &sc->state));
	memcpy(o, " ==> ", 5);
	o += 5;
	o = put_comm_pid(o, &sc->ncomm, &sc->npid, big_endian, data);
	*o++ = ' ';
	*o++ = '[';
	o = put_d(o, read_fld(big_endian, data, &sc->nprio));
	*o++ = ']';
	return o;
}

static char *put_wakeup(char *o, const struct fast_sched *sc,
			bool big_endian, const unsigned char *data)
{
	uint64_t v;

	o = put_comm_pid(o, &sc->comm, &sc->pid, big_endian, data);
	*o++ = ' ';
	*o++ = '[';
	o = put_lld(o, read_fld(big_endian, data, &sc->prio));
	*o++ = ']';
	if (sc->success.size) {
		memcpy(o, " success=", 9);
		o = put_lld(o + 9, read_fld(big_endian, data, &sc->success));
	}
	if (sc->cpu.size) {
		/* "%03llu" */
		v = read_fld(big_endian, data, &sc->cpu);
		memcpy(o, " CPU:", 5);
		o += 5;
		o = text_dec_put(o, v, text_dec_digits(v) < 3 ? 3 :
				 text_dec_digits(v));
	}
	return o;
}

/**
 * text_compiled_sched_info() - the text of a compiled sched handler
 * @fp: a program text_compiled_sched_compile() made
 * @big_endian: byte order of the file
 * @data: the record; all its fixed fields are inside it
 * @out: destination
 *
 * Return: 0 or -ENOMEM.
 * Context: lock-free.
 */
int text_compiled_sched_info(const struct text_compiled *fp, bool big_endian,
			     const unsigned char *data, struct tdatfs_buf *out)
{
	const struct fast_sched *sc = &fp->sched;
	/* two comms, and at most 5 numbers of 20 digits, a sign and text */
	char *o = tdatfs_buf_reserve(out, (size_t)sc->comm.size +
				     sc->ncomm.size + 256);

	if (!o)
		return -ENOMEM;
	if (sc->kind == FAST_SCHED_SWITCH)
		o = put_switch(o, sc, big_endian, data);
	else
		o = put_wakeup(o, sc, big_endian, data);
	out->len = o - out->p;
	return 0;
}
