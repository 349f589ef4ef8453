/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-formats.h - the generator's scenarios, and those of them that edit
 * the template's formats or kallsyms first (gen-formats.c).
 */
#ifndef GEN_FORMATS_H
#define GEN_FORMATS_H

struct gen_ctx;
struct gen_template;

/**
 * struct gen_scenario - one trace the generator can write
 * @name: its name on the command line
 * @make: makes the records
 * @edit: changes the template before any record is made, or NULL
 */
struct gen_scenario {
	const char *name;
	void (*make)(struct gen_ctx *c);
	void (*edit)(struct gen_template *t);
};

/* The scenarios of gen-formats.c, up to one whose @name is NULL. */
extern const struct gen_scenario gen_format_scenarios[];

#endif /* GEN_FORMATS_H */
