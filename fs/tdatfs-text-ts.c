/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdatfs-text-ts.c - the time options of a trace and trace-cmd's
 * timestamp_calc().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatfs-text-ts.h"

struct text_ts {
	int64_t offset;		/* DATE and OFFSET, in nanoseconds */
	uint32_t tsc_mult;	/* TSC2NSEC; 0: none */
	uint32_t tsc_shift;
	bool in_usecs;
};

/* The option bytes as a NUL-terminated string, bounded. */
static void option_string(const struct tdat_option *o, char *dst, size_t len)
{
	size_t n = o->size < len - 1 ? o->size : len - 1;

	memcpy(dst, o->data, n);
	dst[n] = '\0';
}

/* As trace-cmd's extract_trace_clock(): keep usecs for nsec clocks only. */
static void apply_clock(struct text_ts *t, const char *text)
{
	char buf[512], word[128];
	const char *p;
	size_t n;

	snprintf(buf, sizeof(buf), "%s", text);
	for (p = buf; *p; p++) {
		if (*p == '[' && (p == buf || p[-1] == ' '))
			break;
	}
	if (*p != '[')
		return;
	p++;
	while (*p == ']' || *p == '[' || *p == '\t' || *p == '\n' ||
	       *p == '\r' || *p == '\f' || *p == '\v')
		p++;
	n = strcspn(p, "[] \t\n\r\f\v");
	if (!n)
		return;
	if (n >= sizeof(word))
		n = sizeof(word) - 1;
	memcpy(word, p, n);
	word[n] = '\0';

	if (t->tsc_mult)
		return;
	if (strcmp(word, "local") && strcmp(word, "global") &&
	    strcmp(word, "uptime") && strcmp(word, "perf") &&
	    strncmp(word, "mono", 4) && strcmp(word, "tsc2nsec") &&
	    strcmp(word, "tai"))
		t->in_usecs = false;
}

/* DATE, OFFSET, TSC2NSEC and TRACECLOCK, in file order as trace-cmd. */
static void read_time_options(struct text_ts *t, struct tdat_file *f)
{
	size_t i, n = tdat_option_count(f);
	bool have_clock_opt = false;
	char buf[512];

	t->in_usecs = true;
	for (i = 0; i < n; i++) {
		const struct tdat_option *o = tdat_option_get(f, i);

		if (!o)
			continue;
		switch (o->id) {
		case TDAT_OPT_DATE:
			option_string(o, buf, 64);
			/* microseconds, as "0x..." */
			t->offset += (int64_t)((uint64_t)strtoll(buf, NULL, 0) * 1000);
			break;
		case TDAT_OPT_OFFSET:
			option_string(o, buf, 64);
			t->offset += strtoll(buf, NULL, 0);
			break;
		case TDAT_OPT_TSC2NSEC:
			if (o->size < 16)
				break;
			t->tsc_mult = tdat_get32(f, o->data);
			t->tsc_shift = tdat_get32(f, (const char *)o->data + 4);
			t->in_usecs = true;
			break;
		case TDAT_OPT_TRACECLOCK:
			have_clock_opt = true;
			option_string(o, buf, sizeof(buf));
			apply_clock(t, buf);
			break;
		default:
			break;
		}
	}
	/* v6 keeps the clock after the CPU table; read only with the option */
	if (tdat_version(f) < 7 && have_clock_opt && tdat_buffer_count(f)) {
		const struct tdat_buffer *b = tdat_buffer_get(f, 0);

		if (b && b->clock && b->clock[0]) {
			snprintf(buf, sizeof(buf), "[%s]", b->clock);
			apply_clock(t, buf);
		}
	}
}

/* The kernel's mul_u64_u32_shr(), as trace-cmd uses it for TSC2NSEC. */
static uint64_t mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned int shift)
{
	uint64_t al = (uint32_t)a, ah = a >> 32, ret;

	if (shift > 32)
		return (uint64_t)(((unsigned __int128)a * mul) >> (shift > 127 ? 127 : shift));
	ret = (al * mul) >> shift;
	if (ah)
		ret += (ah * mul) << (32 - shift);
	return ret;
}

/**
 * text_ts_new() - the timestamp settings of a trace
 * @f: the trace
 *
 * Return: the settings (free with text_ts_free()), or NULL with errno set.
 */
struct text_ts *text_ts_new(struct tdat_file *f)
{
	struct text_ts *t = calloc(1, sizeof(*t));

	if (t)
		read_time_options(t, f);
	return t;
}

/**
 * text_ts_free() - free the settings; NULL is fine
 * @ts: settings
 */
void text_ts_free(struct text_ts *ts)
{
	free(ts);
}

/**
 * text_ts_calc() - a raw ring-buffer timestamp as trace-cmd shows it
 * @ts: settings
 * @raw: timestamp from kbuffer
 *
 * Return: the timestamp after TSC2NSEC, DATE and OFFSET.
 */
uint64_t text_ts_calc(const struct text_ts *ts, uint64_t raw)
{
	uint64_t v = raw;

	if (ts->tsc_mult)
		v = mul_u64_u32_shr(v, ts->tsc_mult, ts->tsc_shift);
	return v + (uint64_t)ts->offset;
}

/**
 * text_ts_in_usecs() - whether times print as seconds.microseconds
 * @ts: settings
 *
 * Return: true for a nanosecond clock (or TSC2NSEC), false for a counter.
 */
bool text_ts_in_usecs(const struct text_ts *ts)
{
	return ts->in_usecs;
}
