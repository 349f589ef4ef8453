// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace.pftrace writer (fs/tdatfs-pftrace.h) without a trace.
 *
 * In C: varint sizes and bytes from protobuf's encoding guide (150 is
 * 96 01), an int32 of -1 on ten bytes, bad field numbers refused, a failed
 * or aborted packet leaving the buffer as it was.
 *
 * Then, for pftrace-wire.sh: each case's packets are written twice into
 * DIR, as N.bin (our bytes) and as N.txt (the same message in protobuf's
 * text format).  The script has protoc encode each N.txt with Perfetto's
 * schema and compares: protoc is the oracle for the bytes, and since the
 * writer's encoding is canonical (minimal lengths, field number order)
 * they must be identical.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdatfs-common.h"
#include "tdatfs-pftrace.h"

static int failures;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,   \
				#cond);                                      \
			failures++;                                          \
		}                                                            \
	} while (0)

static void check_varints(void)
{
	struct tdatfs_buf b = { 0 };
	static const unsigned char v150[] = { 0x08, 0x96, 0x01 };
	static const unsigned char m1[] = { 0x10, 0xff, 0xff, 0xff, 0xff, 0xff,
					    0xff, 0xff, 0xff, 0xff, 0x01 };

	CHECK(tdatfs_pb_varint_size(0) == 1);
	CHECK(tdatfs_pb_varint_size(127) == 1);
	CHECK(tdatfs_pb_varint_size(128) == 2);
	CHECK(tdatfs_pb_varint_size(UINT64_MAX) == 10);
	CHECK(tdatfs_pb_varint(&b, 1, 150) == 0);
	CHECK(b.len == sizeof(v150) && !memcmp(b.p, v150, b.len));
	b.len = 0;
	CHECK(tdatfs_pb_varint(&b, 2, (uint64_t)(int64_t)-1) == 0);
	CHECK(b.len == sizeof(m1) && !memcmp(b.p, m1, b.len));
	b.len = 0;
	CHECK(tdatfs_pb_varint(&b, 0, 1) == -EINVAL);
	CHECK(tdatfs_pb_varint(&b, 1u << 29, 1) == -EINVAL);
	CHECK(tdatfs_pb_bytes(&b, 0, "x", 1) == -EINVAL);
	CHECK(b.len == 0);
	tdatfs_buf_release(&b);
}

/* A bundle whose event has no type is refused; an abort undoes it all. */
static void check_undo(void)
{
	struct tdatfs_buf b = { 0 };
	struct tdatfs_pf_bundle pb;
	struct tdatfs_pf_event e = { .timestamp = 1, .pid = 1, .type = 0 };

	CHECK(tdatfs_buf_put(&b, "ab", 2) == 0);
	CHECK(tdatfs_pf_bundle_begin(&pb, &b, 0, false) == 0);
	CHECK(tdatfs_pf_bundle_event(&pb, &e) == -EINVAL);
	e.type = 2; /* FtraceEvent's pid, not an event */
	CHECK(tdatfs_pf_bundle_event(&pb, &e) == -EINVAL);
	tdatfs_pf_bundle_abort(&pb);
	CHECK(b.len == 2 && !memcmp(b.p, "ab", 2));
	tdatfs_pf_bundle_abort(NULL);
	tdatfs_buf_release(&b);
}

/* Writes @b to DIR/N.bin and @txt to DIR/N.txt. */
static void emit(const char *dir, int n, const struct tdatfs_buf *b,
		 const char *txt)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d.bin", dir, n);
	f = fopen(path, "wb");
	CHECK(f && fwrite(b->p, 1, b->len, f) == b->len && !fclose(f));
	snprintf(path, sizeof(path), "%s/%d.txt", dir, n);
	f = fopen(path, "w");
	CHECK(f && fputs(txt, f) >= 0 && !fclose(f));
}

static void case_system_info(const char *dir)
{
	struct tdatfs_buf b = { 0 };
	struct tdatfs_pf_utsname u = {
		"Linux", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1",
		"6.1.0-18-amd64", "x86_64",
	};
	struct tdatfs_pf_utsname part = { "Linux", NULL, "6.8", "" };

	CHECK(tdatfs_pf_system_info(&b, &u) == 0);
	CHECK(tdatfs_pf_system_info(&b, &part) == 0);
	emit(dir, 1, &b,
	     "packet { system_info { utsname { sysname: \"Linux\" "
	     "version: \"#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1\" "
	     "release: \"6.1.0-18-amd64\" machine: \"x86_64\" } } }\n"
	     "packet { system_info { utsname { sysname: \"Linux\" "
	     "release: \"6.8\" } } }\n");
	tdatfs_buf_release(&b);
}

static void case_symbols_tree(const char *dir)
{
	static const struct tdatfs_pf_symbol s[] = {
		{ 0xffffffff81000000ull, "do_idle", 7 },
		{ 1, "schedule", 8 },
	};
	static const struct tdatfs_pf_process p[] = {
		{ 1, 0, "systemd", 7 }, { 4242, 1, "bash", 4 },
	};
	static const struct tdatfs_pf_thread t[] = {
		{ 4243, 4242 }, { -5, 2 },
	};
	struct tdatfs_buf b = { 0 };

	CHECK(tdatfs_pf_symbols(&b, s, 2, true) == 0);
	CHECK(tdatfs_pf_symbols(&b, s, 1, false) == 0);
	CHECK(tdatfs_pf_process_tree(&b, p, 2, t, 2) == 0);
	CHECK(tdatfs_pf_process_tree(&b, NULL, 0, NULL, 0) == 0);
	emit(dir, 2, &b,
	     "packet { trusted_packet_sequence_id: 1 interned_data { "
	     "kernel_symbols { iid: 18446744071578845184 str: \"do_idle\" } "
	     "kernel_symbols { iid: 1 str: \"schedule\" } } "
	     "sequence_flags: 1 }\n"
	     "packet { trusted_packet_sequence_id: 1 interned_data { "
	     "kernel_symbols { iid: 18446744071578845184 str: \"do_idle\" } } }\n"
	     "packet { process_tree { "
	     "processes { pid: 1 ppid: 0 cmdline: \"systemd\" } "
	     "processes { pid: 4242 ppid: 1 cmdline: \"bash\" } "
	     "threads { tid: 4243 tgid: 4242 } threads { tid: -5 tgid: 2 } } }\n"
	     "packet { process_tree { } }\n");
	tdatfs_buf_release(&b);
}

/* sched_switch typed; a generic event with every kind of value. */
static void case_bundles(const char *dir)
{
	static const struct tdatfs_pf_field sw[] = {
		{ .number = 1, .type = TDATFS_PF_STR, .str = "bash", .len = 4 },
		{ .number = 2, .type = TDATFS_PF_I32, .i = 4242 },
		{ .number = 3, .type = TDATFS_PF_I32, .i = 120 },
		{ .number = 4, .type = TDATFS_PF_I64, .i = 0x100 },
		{ .number = 5, .type = TDATFS_PF_STR, .str = "swapper/0", .len = 9 },
		{ .number = 6, .type = TDATFS_PF_I32, .i = 0 },
		{ .number = 7, .type = TDATFS_PF_I32, .i = -1 },
	};
	static const struct tdatfs_pf_field gen[] = {
		{ .name = "a", .name_len = 1, .type = TDATFS_PF_I32, .i = -7 },
		{ .name = "b", .name_len = 1, .type = TDATFS_PF_I64, .i = INT64_MIN },
		{ .name = "c", .name_len = 1, .type = TDATFS_PF_U32, .u = 0x1ffffffffull },
		{ .name = "d", .name_len = 1, .type = TDATFS_PF_U64, .u = UINT64_MAX },
		{ .name = "e", .name_len = 1, .type = TDATFS_PF_STR, .str = "ARRAY[01, 02]", .len = 13 },
	};
	struct tdatfs_pf_event e1 = { 506317485000ull, 4242, 4, NULL, 0, sw, 7 };
	struct tdatfs_pf_event e2 = { 506317486001ull, 0, TDATFS_PF_GENERIC,
				      "hrtimer_start", 13, gen, 5 };
	struct tdatfs_buf b = { 0 };
	struct tdatfs_pf_bundle pb;

	CHECK(tdatfs_pf_bundle_begin(&pb, &b, 0, false) == 0);
	CHECK(tdatfs_pf_bundle_event(&pb, &e1) == 0);
	CHECK(tdatfs_pf_bundle_event(&pb, &e2) == 0);
	CHECK(tdatfs_pf_bundle_end(&pb) == 0);
	CHECK(tdatfs_pf_bundle_begin(&pb, &b, 3, true) == 0);
	CHECK(tdatfs_pf_bundle_end(&pb) == 0);
	emit(dir, 3, &b,
	     "packet { ftrace_events { cpu: 0 event { timestamp: 506317485000 "
	     "pid: 4242 sched_switch { prev_comm: \"bash\" prev_pid: 4242 "
	     "prev_prio: 120 prev_state: 256 next_comm: \"swapper/0\" "
	     "next_pid: 0 next_prio: -1 } } "
	     "event { timestamp: 506317486001 pid: 0 generic { "
	     "event_name: \"hrtimer_start\" "
	     "field { name: \"a\" int_value: -7 } "
	     "field { name: \"b\" int_value: -9223372036854775808 } "
	     "field { name: \"c\" uint_value: 4294967295 } "
	     "field { name: \"d\" uint_value: 18446744073709551615 } "
	     "field { name: \"e\" str_value: \"ARRAY[01, 02]\" } } } } "
	     "trusted_packet_sequence_id: 1 }\n"
	     "packet { ftrace_events { cpu: 3 lost_events: true } "
	     "trusted_packet_sequence_id: 1 }\n");
	tdatfs_buf_release(&b);
}

/* A bundle past 127 bytes: lengths of two bytes inside lengths. */
static void case_long(const char *dir)
{
	static char text[300];
	struct tdatfs_pf_field f = { .number = 2, .type = TDATFS_PF_STR };
	struct tdatfs_pf_event e = { 1, 1, 3, NULL, 0, &f, 1 };
	struct tdatfs_buf b = { 0 };
	struct tdatfs_pf_bundle pb;
	char txt[1024];

	memset(text, 'x', sizeof(text) - 1);
	f.str = text;
	f.len = strlen(text);
	CHECK(tdatfs_pf_bundle_begin(&pb, &b, 1, false) == 0);
	CHECK(tdatfs_pf_bundle_event(&pb, &e) == 0);
	CHECK(tdatfs_pf_bundle_end(&pb) == 0);
	snprintf(txt, sizeof(txt),
		 "packet { ftrace_events { cpu: 1 event { timestamp: 1 pid: 1 "
		 "print { buf: \"%s\" } } } trusted_packet_sequence_id: 1 }\n",
		 text);
	emit(dir, 4, &b, txt);
	tdatfs_buf_release(&b);
}

int main(int argc, char **argv)
{
	check_varints();
	check_undo();
	if (argc > 1) {
		case_system_info(argv[1]);
		case_symbols_tree(argv[1]);
		case_bundles(argv[1]);
		case_long(argv[1]);
	}
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
