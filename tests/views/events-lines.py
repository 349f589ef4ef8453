#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""events/SYSTEM/EVENT/trace (SPEC 2.6) against the buffer's own `trace`.

For the top buffer and every instance (`instances/NAME/`):
  - the events with a `trace` file (`tdat ls -R events`) are exactly
    those whose name the buffer's `trace` shows on a record's first line,
    and those with a `fields.tsv` are the same;
  - each `events/S/E/trace` is the lines of `trace` that belong to E's
    records, in order (stacks and the rest of multi-line prints with their
    record, a dropped-events line with the record after it), selected by
    viewlib.records() from the text, not by tdatfs;
  - an event name two systems share: each system's file is a subsequence
    of the name's records in text order, and together they hold each of
    them exactly once;
  - the same bytes without an index (`-o noindex`: the engine learns the
    event table from a pass of its own) and after `tdat index` (the table
    loaded from the index).
That `trace` itself is `trace-cmd report` is tested by tests/public and
tests/tools.
  events-lines.py TDAT TRACE
"""
import collections
import os
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import viewlib  # noqa: E402


def event_files(tdat, prefix):
    """{(system, event): set of the file names in its directory}"""
    out = collections.defaultdict(set)
    if not tdat.exists('/%sevents' % prefix):
        return out
    for p in tdat.ls('/%sevents' % prefix, recursive=True):
        parts = p.split('/')
        if len(parts) == 3:
            out[(parts[0], parts[1])].add(parts[2])
    return out


def subsequence(part, whole):
    """The indexes in WHOLE (list of records' bytes) at which PART's
    records appear in order, or None when PART is no subsequence."""
    at = []
    i = 0
    for r in part:
        while i < len(whole) and whole[i] != r:
            i += 1
        if i == len(whole):
            return None
        at.append(i)
        i += 1
    return at


def check_shared(t, tdat, prefix, name, systems, want, opts):
    """A name in several systems: the union of their files is its records."""
    taken = []
    for s in systems:
        path = '/%sevents/%s/%s/trace' % (prefix, s, name)
        got = viewlib.records(tdat.cat(path, opts=opts))
        at = subsequence([r.text() for r in got], want)
        if not t.check(at is not None, '%s: its records are not a subsequence '
                       'of the %s records of trace' % (path, name)):
            return
        taken += at
    t.check(sorted(taken) == list(range(len(want))),
            '%s%s in %s: %d records together, trace has %d (or some twice)'
            % (prefix, name, ', '.join(systems), len(taken), len(want)))


def check_buffer(t, tdat, prefix, opts):
    text = tdat.cat('/%strace' % prefix, opts=opts)
    recs = viewlib.records(text)
    t.check(all(r.name is not None or r.text().startswith(viewlib.UNKNOWN)
                for r in recs),
            '%strace: lines before its first record' % prefix)
    by_name = collections.OrderedDict()
    for r in recs:
        if r.name is not None:
            by_name.setdefault(r.name, []).append(r.text())
    files = event_files(tdat, prefix)
    with_trace = sorted(k for k, v in files.items() if 'trace' in v)
    with_fields = sorted(k for k, v in files.items() if 'fields.tsv' in v)
    names = set(e for _, e in with_trace)
    t.check(names == set(by_name),
            '%sevents/*/*/trace: events %s have a file and no line in trace; '
            'events %s have lines and no file' % (
                prefix, sorted(names - set(by_name)), sorted(set(by_name) - names)))
    t.check(with_fields == with_trace,
            '%sevents: fields.tsv %s, trace %s: not the same events' % (
                prefix, [k for k in with_fields if k not in with_trace],
                [k for k in with_trace if k not in with_fields]))
    systems = collections.defaultdict(list)
    for s, e in with_trace:
        systems[e].append(s)
    single = [(systems[e][0], e) for e in sorted(systems) if len(systems[e]) == 1]
    # every single-system event in one tdat cat, then one at a time only
    # to name the ones that differ
    paths = ['/%sevents/%s/%s/trace' % (prefix, s, e) for s, e in single]
    want = b''.join(b''.join(by_name.get(e, [])) for _, e in single)
    got = tdat.cat(*paths, opts=opts) if paths else b''
    if want == got:
        t.ok()
    else:
        shown = 0
        for (s, e), path in zip(single, paths):
            if t.same('%s (%s)' % (path, opts or 'index'),
                      b''.join(by_name.get(e, [])), tdat.cat(path, opts=opts)):
                continue
            shown += 1
            if shown == 5:
                t.fail('%sevents: more events differ' % prefix)
                break
    for e in sorted(systems):
        if len(systems[e]) > 1:
            check_shared(t, tdat, prefix, e, systems[e], by_name.get(e, []), opts)
    return '%d records of %d events' % (len(recs), len(by_name))


if __name__ == '__main__':
    viewlib.main('events-lines', check_buffer)
