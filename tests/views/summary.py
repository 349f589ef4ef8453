#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""events/summary.tsv (SPEC 2.6) against the buffer's own `trace`.

For the top buffer and every instance:
  - the header row is `system event id records first_time last_time`;
  - one row per event with records: the same (system, event) pairs as the
    events with a `trace` file, sorted by system, then event (bytes);
  - `records` is the number of records (first lines) the buffer's
    `trace` shows for that event name, `first_time` and `last_time` the
    time columns of its first and last one (viewlib.records(), not
    tdatfs); a name two systems share: the counts add up, the earliest
    first and the latest last are the text's;
  - `id` is the event's events/S/E/id (of the top buffer's events/: the
    trace has one set of formats and ids for all its buffers);
  - the same file without an index (`-o noindex`) and after `tdat index`.
  summary.py TDAT TRACE
"""
import collections
import os
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import viewlib  # noqa: E402

HEADER = ['system', 'event', 'id', 'records', 'first_time', 'last_time']


def check_buffer(t, tdat, prefix, opts):
    path = '/%sevents/summary.tsv' % prefix
    recs = [r for r in viewlib.records(tdat.cat('/%strace' % prefix, opts=opts))
            if r.name is not None]
    count = collections.Counter(r.name for r in recs)
    first, last = {}, {}
    for r in recs:
        first.setdefault(r.name, r.time)
        last[r.name] = r.time
    rows = [ln.split('\t') for ln in
            tdat.cat(path, opts=opts).decode('latin-1').split('\n')]
    if not t.check(rows[-1] == [''], '%s does not end with a newline' % path):
        return 'failed'
    rows.pop()
    if not t.check(rows and rows[0] == HEADER, '%s: header row %r, want %r'
                   % (path, rows[0] if rows else None, HEADER)):
        return 'failed'
    rows = rows[1:]
    if not t.check(all(len(r) == len(HEADER) for r in rows),
                   '%s: rows without %d columns: %r' % (
                       path, len(HEADER), [r for r in rows if len(r) != len(HEADER)][:3])):
        return 'failed'
    keys = [(r[0], r[1]) for r in rows]
    t.check(keys == sorted(keys, key=lambda k: (k[0].encode('latin-1'),
                                                k[1].encode('latin-1'))),
            '%s: not sorted by system, then event' % path)
    t.check(len(set(keys)) == len(keys), '%s: a row twice' % path)
    with_trace = set()
    if tdat.exists('/%sevents' % prefix):
        with_trace = set(tuple(p.split('/')[:2])
                         for p in tdat.ls('/%sevents' % prefix, recursive=True)
                         if p.count('/') == 2 and p.endswith('/trace'))
    t.check(set(keys) == with_trace,
            '%s: rows %s have no trace file, trace files %s no row' % (
                path, sorted(set(keys) - with_trace), sorted(with_trace - set(keys))))
    # ids are the trace's, one set for every buffer: the top events/ has
    # each event's id file
    ids = tdat.cat(*['/events/%s/%s/id' % k for k in keys],
                   opts=opts).decode('latin-1').split() if keys else []
    t.check(ids == [r[2] for r in rows], '%s: id column %s, the id files say %s'
            % (path, [r[2] for r in rows][:10], ids[:10]))
    per_name = collections.defaultdict(list)
    for r in rows:
        per_name[r[1]].append(r)
    t.check(set(per_name) == set(count),
            '%s: events %s have a row and no line in trace, %s lines and no row'
            % (path, sorted(set(per_name) - set(count)), sorted(set(count) - set(per_name))))
    for name, rs in per_name.items():
        if name not in count:
            continue
        n = sum(int(r[3]) if r[3].isdigit() else -1 for r in rs)
        t.check(n == count[name], '%s: %s: %d records, trace has %d' % (
            path, name, n, count[name]))
        firsts = [r[4] for r in rs]
        lasts = [r[5] for r in rs]
        if len(rs) == 1:
            t.check(firsts[0] == first[name] and lasts[0] == last[name],
                    '%s: %s: first/last %s %s, trace has %s %s' % (
                        path, name, firsts[0], lasts[0], first[name], last[name]))
        else:
            t.check(min(firsts, key=viewlib.time_ns) == first[name]
                    and max(lasts, key=viewlib.time_ns) == last[name],
                    '%s: %s (%d systems): first %s last %s, trace has %s %s' % (
                        path, name, len(rs), firsts, lasts, first[name], last[name]))
    return '%d rows' % len(rows)


if __name__ == '__main__':
    viewlib.main('summary', check_buffer)
