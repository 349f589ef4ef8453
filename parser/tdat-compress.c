/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-compress.c - find a decompressor by the name in the file header.
 */
#include <string.h>

#include "tdat-compress.h"

static const struct tdp_compress_ops *const tdp_compressors[] = {
	&tdp_compress_zstd,
	&tdp_compress_zlib,
};

/**
 * tdp_compress_find() - look up a decompressor by the header's name
 * @name: compression name from the file header; may be NULL
 *
 * The name must match exactly, as trace-cmd compares it.
 *
 * Return: the ops, or NULL for "none", for NULL and for unknown names (the
 * caller tells them apart).
 */
const struct tdp_compress_ops *tdp_compress_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < sizeof(tdp_compressors) / sizeof(tdp_compressors[0]); i++)
		if (!strcmp(tdp_compressors[i]->name, name))
			return tdp_compressors[i];
	return NULL;
}
