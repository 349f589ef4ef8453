#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""time/T0-T1/ (SPEC 2.6) against a filter of the full texts.

For the top buffer and every instance (`instances/NAME/time/`):
  - `time/T0-T1/trace` and every `time/T0-T1/per_cpu/cpuN/trace` (one for
    each CPU of the buffer's per_cpu/) hold exactly the records of the
    full `trace` and `per_cpu/cpuN/trace` whose printed time t has
    T0 <= t < T1, compared as decimals, each record with all its lines
    (viewlib.records(), not tdatfs);
  - windows, with bounds as the text prints times: the whole text (first
    time to just past the last), an empty window between two records and
    one past the end, a few records of one CPU (inside one page), windows
    that start at and that stop at a multi-line record, one that starts
    just past one, T0 equal to a time that repeats, T1 just past the last
    time, and T0 in whole seconds ("506-506.3175"); all but the whole
    one span at most SPAN distinct times, so that they stay cheap;
  - `time/` lists only README, which names the first and the last time;
  - malformed names (`abc`, `5-`, `-5`, `5-3`, `5-5`, `1.0000000001-2`,
    the buffer's own last-first and first-first) are ENOENT for `tdat ls`
    and `tdat cat` (status 1, "No such file or directory").
  windows.py TDAT TRACE
"""
import bisect
import collections
import os
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import viewlib  # noqa: E402

MALFORMED = ['abc', '5-', '-5', '5-3', '5-5', '1.0000000001-2']
SPAN = 200   # distinct times in a window other than the whole one


def windows(recs, by_cpu):
    """[(label, T0, T1)] for RECS (the merged text's records) and BY_CPU
    ({cpu: its records}).  Only the first is the whole text; the others
    hold at most about SPAN distinct times, so that reading them stays
    cheap on a large trace."""
    recs = [r for r in recs if r.name is not None]
    if not recs:
        return []
    like = recs[0].time
    step = viewlib.time_step(like)
    ts = sorted(set(r.ns for r in recs))
    fmt = lambda ns: viewlib.time_str(ns, like)  # noqa: E731
    later = lambda ns: ts[min(bisect.bisect_left(ts, ns) + SPAN, len(ts) - 1)]  # noqa: E731
    first, last = ts[0], ts[-1]
    out = [('whole', fmt(first), fmt(last + step)),
           ('past the end', fmt(last + step), fmt(last + 3 * step)),
           ('T1 just past the last', fmt(ts[max(len(ts) - SPAN, 0)]), fmt(last + step))]
    gaps = [(a, b) for a, b in zip(ts, ts[1:]) if b - a >= 2 * step]
    if gaps:
        a, b = gaps[len(gaps) // 2]
        out.append(('empty, between two records', fmt(a + step), fmt(b)))
    cpu = max(by_cpu, key=lambda c: len(by_cpu[c]), default=None)
    if cpu is not None and len(by_cpu[cpu]) >= 8:
        rs = [r.ns for r in by_cpu[cpu] if r.name is not None]
        for k in range(len(rs) // 2, len(rs) - 4):
            if rs[k + 4] > rs[k]:
                out.append(('a few records of cpu%d' % cpu, fmt(rs[k]), fmt(rs[k + 4])))
                break
    multi = sorted(set(r.ns for r in recs if r.multi))
    if multi:
        k = len(multi) // 3
        a = multi[k]
        b = next((m for m in multi[k + 1:] if m > a and m >= later(a)),
                 multi[-1])
        if b > a:
            out.append(('from one multi-line record to another', fmt(a), fmt(b)))
        if later(a) > a + step:
            out.append(('just past a multi-line record', fmt(a + step), fmt(later(a))))
        lo = ts[max(bisect.bisect_left(ts, a) - SPAN, 0)]
        if a > lo:
            out.append(('up to a multi-line record', fmt(lo), fmt(a)))
    seen = collections.Counter(r.ns for r in recs)
    repeated = [n for n in ts if seen[n] > 1]
    if repeated:
        a = repeated[len(repeated) // 2]
        out.append(('T0 a time that repeats, one step', fmt(a), fmt(a + step)))
        if later(a) > a:
            out.append(('T0 a time that repeats, and on', fmt(a), fmt(later(a))))
    if '.' in like:
        out.append(('T0 in whole seconds', str(first // 10**9), fmt(later(first))))
    return out


def cut(recs, t0, t1):
    """The records of RECS with T0 <= time < T1, their bytes"""
    recs = [r for r in recs if r.name is not None]
    if not recs:
        return b''
    seconds = '.' in recs[0].time
    lo, hi = viewlib.time_ns(t0, seconds), viewlib.time_ns(t1, seconds)
    return b''.join(r.text() for r in recs if lo <= r.ns < hi)


def enoent(t, tdat, path):
    """`tdat ls PATH` and `tdat cat PATH/trace` fail with ENOENT"""
    for verb, arg in (('ls', path), ('cat', path + '/trace')):
        p = tdat.run(verb, tdat.trace, arg)
        t.check(p.returncode == 1 and b'No such file or directory' in p.stderr,
                'tdat %s %s: status %d, %r: want ENOENT' % (
                    verb, arg, p.returncode, p.stderr.decode('latin-1').strip()))


def check_buffer(t, tdat, prefix, opts):
    full = viewlib.records(tdat.cat('/%strace' % prefix, opts=opts))
    cpus = sorted(int(d[3:]) for d in tdat.ls('/%sper_cpu' % prefix)
                  if d.startswith('cpu') and
                  tdat.exists('/%sper_cpu/%s/trace' % (prefix, d)))
    by_cpu = {c: viewlib.records(tdat.cat('/%sper_cpu/cpu%d/trace' % (prefix, c),
                                          opts=opts)) for c in cpus}
    tdir = '/%stime' % prefix
    listed = tdat.ls(tdir)
    t.check(listed == ['README'], '%s lists %s, want only README' % (tdir, listed))
    named = [r for r in full if r.name is not None]
    if named:
        readme = tdat.cat(tdir + '/README', opts=opts).decode('latin-1')
        lo = min(named, key=lambda r: r.ns).time
        hi = max(named, key=lambda r: r.ns).time
        t.check(lo in readme and hi in readme,
                '%s/README does not name the first time %s and the last %s'
                % (tdir, lo, hi))
    ws = windows(full, by_cpu)
    # every window's files in one tdat cat; one at a time only to name
    # the ones that differ
    files = []
    for label, t0, t1 in ws:
        d = '%s/%s-%s' % (tdir, t0, t1)
        files.append((label, d + '/trace', cut(full, t0, t1)))
        files += [(label, '%s/per_cpu/cpu%d/trace' % (d, c), cut(by_cpu[c], t0, t1))
                  for c in cpus]
    if files and b''.join(w for _, _, w in files) == tdat.cat(*[p for _, p, _ in files]):
        t.ok()
    else:
        for label, path, want in files:
            t.same('%s (%s)' % (path, label), want, tdat.cat(path))
    bad = list(MALFORMED)
    if named:
        bad += ['%s-%s' % (hi, lo), '%s-%s' % (lo, lo)]
    if opts is None:  # names are looked up the same way with or without an index
        for name in bad:
            enoent(t, tdat, '%s/%s' % (tdir, name))
    return '%d windows over %d CPUs, %d malformed names' % (len(ws), len(cpus), len(bad))


if __name__ == '__main__':
    viewlib.main('windows', check_buffer)
