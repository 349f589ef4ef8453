/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * identity.c - print what an index file's identity holds of a trace but
 * a stat cannot give a shell: its data sample CRC (tdat_data_sample_crc()),
 * and its ctime in ns beside it, so that a test can forge an index file
 * to match a trace it was not made of (forge-index.py set64/set32) and
 * see what a read does when an index's sizes are not the trace's.
 *
 * usage: index-identity TRACE
 * prints "CTIME_NS SAMPLE_CRC" (decimal) and exits 0, or 1 with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "tdat.h"

int main(int argc, char **argv)
{
	char err[256];
	struct tdat_file *f;
	struct stat st;
	uint32_t crc;

	if (argc != 2) {
		fprintf(stderr, "usage: index-identity TRACE\n");
		return 1;
	}
	f = tdat_open(argv[1], NULL, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "index-identity: %s: %s\n", argv[1], err);
		return 1;
	}
	if (tdat_file_stat(f, &st) || tdat_data_sample_crc(f, &crc)) {
		fprintf(stderr, "index-identity: %s: cannot read it\n", argv[1]);
		tdat_close(f);
		return 1;
	}
	printf("%" PRIu64 " %" PRIu32 "\n",
	       (uint64_t)st.st_ctim.tv_sec * 1000000000u + (uint64_t)st.st_ctim.tv_nsec,
	       crc);
	tdat_close(f);
	return 0;
}
