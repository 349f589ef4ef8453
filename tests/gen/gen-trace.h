/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-trace.h - the parts of the trace.dat generator (a test helper).
 *
 * Invariants of this module:
 *  - Everything the generated file says about the kernel (header_page,
 *    header_event, event formats, kallsyms, printk formats, saved
 *    cmdlines, page size, long sizes) is copied verbatim from a template
 *    trace read through the parser's public API; only the ring-buffer
 *    pages and the options describing them are made here.
 *  - Records are laid out from the template's format text (field offsets
 *    and sizes), never from compiled-in structs, so 4- and 8-byte-long
 *    kernels need no special case.
 *  - Output is a pure function of (template, scenario, version): no
 *    clock, no randomness, no host data.
 *  - Files are little endian and uncompressed, v6 or v7.
 */
#ifndef GEN_TRACE_H
#define GEN_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; free with gen_buf_free(). */
struct gen_buf {
	uint8_t *p;
	size_t len;
	size_t cap;
};

void gen_put(struct gen_buf *b, const void *p, size_t n);
void gen_put8(struct gen_buf *b, uint8_t v);
void gen_put16(struct gen_buf *b, uint16_t v);
void gen_put32(struct gen_buf *b, uint32_t v);
void gen_put64(struct gen_buf *b, uint64_t v);
void gen_putstr(struct gen_buf *b, const char *s);	/* with its NUL */
void gen_pad(struct gen_buf *b, size_t align);		/* zeros up to align */
void gen_patch32(struct gen_buf *b, size_t off, uint32_t v);
void gen_patch64(struct gen_buf *b, size_t off, uint64_t v);
void gen_buf_free(struct gen_buf *b);

/* One event format copied from the template. */
struct gen_format {
	char *system;
	char *name;
	int id;
	char *text;
	size_t size;
};

/* One text symbol of the template's kallsyms. */
struct gen_sym {
	uint64_t addr;
	uint64_t room;		/* bytes up to the next higher symbol */
	const char *name;	/* points into the template's kallsyms copy */
};

/* A cmdlines entry: a pid the template's saved_cmdlines names. */
struct gen_task {
	int pid;
	char comm[32];
};

/**
 * struct gen_template - what the generated file copies from the template
 * @long_size: user-space long size of the template (file header)
 * @klong: kernel long size (header_page commit)
 * @page_size: ring-buffer page size
 * @data_off: offset of the data in a page (header_page "data")
 * @header_page, @header_event: the header texts and their sizes
 * @formats: every event format of the template, in file order
 * @nformats: entries in @formats
 * @kallsyms, @printk, @cmdlines: the blobs and their sizes
 * @sym_text: a copy of @kallsyms cut into lines, which @syms point into
 * @syms: unique-address text symbols, in kallsyms order
 * @nsyms: entries in @syms
 * @tasks: pids with a comm in saved_cmdlines, in cmdlines order
 * @ntasks: entries in @tasks
 */
struct gen_template {
	unsigned int long_size;
	unsigned int klong;
	uint32_t page_size;
	uint32_t data_off;
	char *header_page;
	size_t header_page_size;
	char *header_event;
	size_t header_event_size;
	struct gen_format *formats;
	size_t nformats;
	char *kallsyms;
	size_t kallsyms_size;
	char *printk;
	size_t printk_size;
	char *cmdlines;
	size_t cmdlines_size;
	char *sym_text;
	struct gen_sym *syms;
	size_t nsyms;
	struct gen_task *tasks;
	size_t ntasks;
};

/**
 * gen_template_load() - read a template trace
 * @t: filled in (free with gen_template_free())
 * @path: the template trace.dat
 *
 * Return: 0, or a negative errno after a message on stderr.
 */
int gen_template_load(struct gen_template *t, const char *path);

/**
 * gen_template_free() - release what gen_template_load() allocated
 * @t: template, or one that failed to load
 */
void gen_template_free(struct gen_template *t);

/**
 * gen_format_find() - an event format by system and name
 * @t: template
 * @system: "ftrace" or an event system
 * @name: event name
 *
 * Return: the format, or NULL when the template lacks it.
 */
const struct gen_format *gen_format_find(const struct gen_template *t,
					 const char *system, const char *name);

/**
 * struct gen_field - where a field of a format lives in the record
 * @offset: byte offset in the record
 * @size: size in bytes (of the whole array for an array)
 * @data_loc: the field is a __data_loc (a u32 of length << 16 | offset)
 */
struct gen_field {
	unsigned int offset;
	unsigned int size;
	bool data_loc;
};

/**
 * gen_field_find() - look a field up in a format's text
 * @fmt: format
 * @name: field name, without any [N]
 * @out: filled in
 *
 * Return: 0, or -ENOENT.
 */
int gen_field_find(const struct gen_format *fmt, const char *name,
		   struct gen_field *out);

/**
 * gen_format_size() - the record size a format implies
 * @fmt: format
 * @klong: kernel long size, the alignment of the struct
 *
 * Return: the end of the last fixed field, rounded up to @klong.
 */
unsigned int gen_format_size(const struct gen_format *fmt, unsigned int klong);

/* A record ready for a page: its CPU, time and payload. */
#define GEN_REC_MAX 512
struct gen_rec {
	unsigned int cpu;
	uint64_t ts;
	const struct gen_format *fmt;
	uint8_t data[GEN_REC_MAX];
	unsigned int len;
	unsigned int klong;	/* kernel long size, of array elements */
	bool new_page;		/* start a new page before this record */
	uint32_t missed;	/* with new_page: events lost before it */
};

/* The records of one generated trace, in the order they were made. */
struct gen_trace {
	const struct gen_template *t;
	struct gen_rec *recs;
	size_t nrecs;
	size_t cap;
	unsigned int ncpus;
	const uint8_t *time_shift;	/* a TIME_SHIFT option's bytes, or NULL */
	uint32_t time_shift_len;
	const char *version_str;	/* the header's version string, or NULL */
};

/**
 * gen_write() - write a trace.dat file
 * @tr: records (each CPU's records in time order)
 * @version: 6 or 7: the layout (the header says @tr->version_str if set)
 * @path: output file
 *
 * Return: 0, or a negative errno after a message on stderr.
 */
int gen_write(const struct gen_trace *tr, unsigned int version, const char *path);

#endif /* GEN_TRACE_H */
