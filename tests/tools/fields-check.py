#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fields-check.py - fields.tsv rows against trace-cmd report (SPEC 2.6).

Usage:
  fields-check.py [OPTIONS] --trace TRACE ROWS
  fields-check.py [OPTIONS] --raw RAW --report REPORT ROWS
Options: --event NAME, --instances N1,N2 [--buffer NAME], --strict,
  --show-known N.

ROWS is a file in the fields.tsv format: a header row ("time", "cpu",
"comm", "pid", then the event's field names), then one row per record.
It may hold several blocks, each starting with its own header row (a dump
of the records of every event in trace order, one block per run of
records of one event): a row whose first column is "time" starts a block.

The oracle is trace-cmd (3.1.6): RAW is the output of
`trace-cmd report -R -t TRACE`, REPORT the output of `trace-cmd report -t
TRACE`; with --trace both are made here by running trace-cmd (for a zlib
trace give its .twin.dat, see ../shared/traces/public/README.md).
With --event NAME only the records of the event called NAME in the report
lines are compared (ROWS is then that event's fields.tsv); without it
ROWS must hold every record of the trace, in report order.

For the i-th row and the i-th record of RAW:
  - time, cpu and pid are those of the RAW line (time without its
    padding, cpu as a plain number);
  - " " + the row's fields joined as "FIELD=VALUE" with single spaces
    (values unescaped: \\t, \\n, \\\\) is the info text of the RAW record,
    which is everything after "NAME: " and the padding of the name to 20
    characters, its continuation lines included;
  - comm is the comm of the record's line in REPORT, where it has one
    (with -R trace-cmd runs no event handler, so the comms the sched
    plugin learns are not in RAW; a function_graph exit folded into its
    entry's line in REPORT has no line of its own and no comm check).
For a trace with instances, --instances names them all (as in the
report's "NAME: " prefixes): the records compared are then those of the
top buffer, or with --buffer NAME those of instance NAME (ROWS made from
instances/NAME/).

Two ways trace-cmd's -R text depends on more than the record are told
apart as known differences (see known() below): a string field shown as
ARRAY[...] because an earlier record cleared libtraceevent's string flag,
and the bytes of a last array past the record's page (trace-cmd's memory
after its page).  They are listed (--show-known N) and counted, and fail
the check only with --strict.

Report lines are read by their head "COMM-PID [CPU] TIME: NAME: ": a
comm may hold '-' and end in one, a pid is taken as not negative, and
NAME is the event's name alone, so --event cannot tell two systems'
events of one name apart.

Exit 0 when every row matches (known differences aside) and the counts
agree, 1 otherwise (the first mismatches are printed), 2 on bad usage.

Examples:
  tdat cat TRACE events/sched/sched_switch/fields.tsv > ss.tsv
  fields-check.py --event sched_switch --trace TRACE ss.tsv
  fields-check.py --trace public/NAME.twin.dat rows-of-NAME.dat.tsv
"""
import argparse
import re
import subprocess
import sys

HEAD = re.compile(r'^(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s*'
                  r'(?P<time>\d+(?:\.\d+)?):\s(?P<name>.*?):\s(?P<rest>.*)$',
                  re.S)
DROPPED = re.compile(r'^CPU:\d+ \[(\d+ )?EVENTS DROPPED\]$')


def buffer_lines(text, buffer, instances):
    """The lines of one buffer of a report of several (trace-cmd puts
    "NAME: " right-aligned before an instance's lines, as many spaces
    before the top buffer's); continuation lines go with the line before.
    """
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if not instances:
        return lines
    pre = re.compile(r'^ *(%s): ' % '|'.join(map(re.escape, instances)))
    out = []
    keep = False
    for line in lines:
        m = pre.match(line)
        if m:
            keep = m.group(1) == buffer
            if keep:
                line = line[m.end():]
        elif HEAD.match(line):
            keep = buffer is None
        if keep:
            out.append(line)
    return out


def records(lines):
    """The records of a report: (comm, pid, cpu, time, name, info)."""
    out = []
    cur = None
    for i, line in enumerate(lines):
        if i == 0 and line.startswith('cpus='):
            continue
        m = HEAD.match(line)
        if m:
            cur = [m.group('comm').lstrip(' '), m.group('pid'),
                   m.group('cpu'), m.group('time'), m.group('name'),
                   m.group('rest')]
            out.append(cur)
        elif DROPPED.match(line):
            continue
        elif line.startswith('[UNKNOWN EVENT]'):
            cur = None   # a record whose event has no format
        elif cur is not None:
            cur[5] += '\n' + line
    recs = []
    for comm, pid, cpu, time, name, rest in out:
        pad = 20 - len(name) if len(name) < 20 else 0
        recs.append((comm, pid, cpu, time, name, rest[pad:]))
    return recs


def unescape(v):
    out = []
    i = 0
    while i < len(v):
        c = v[i]
        if c == '\\' and i + 1 < len(v):
            n = v[i + 1]
            out.append({'t': '\t', 'n': '\n', '\\': '\\'}.get(n, '\\' + n))
            i += 2
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def rows(text):
    """(names, values) of every row of ROWS, names from its block's head."""
    names = None
    out = []
    for n, line in enumerate(text.split('\n')[:-1], 1):
        cols = line.split('\t')
        if cols[0] == 'time':
            if cols[1:4] != ['cpu', 'comm', 'pid']:
                sys.exit('ROWS line %d: bad header' % n)
            names = cols[4:]
            continue
        if names is None:
            sys.exit('ROWS line %d: a row before any header' % n)
        if len(cols) != len(names) + 4:
            sys.exit('ROWS line %d: %d columns, header has %d' %
                     (n, len(cols), len(names) + 4))
        out.append((n, names, [unescape(c) for c in cols]))
    return out


def run(args):
    p = subprocess.run(['trace-cmd', 'report'] + args, check=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return p.stdout.decode('utf-8', 'surrogateescape')


def read(path):
    with open(path, 'rb') as f:
        return f.read().decode('utf-8', 'surrogateescape')


def cut(info, names):
    """The -R info cut at the names: {name: value} (for the reasons)."""
    vals = {}
    pos = 0
    for i, f in enumerate(names):
        key = ' %s=' % f
        if not info.startswith(key, pos):
            break
        pos += len(key)
        end = len(info)
        if i + 1 < len(names):
            j = info.find(' %s=' % names[i + 1], pos)
            end = j if j >= 0 else end
        vals[f] = info[pos:end]
        pos = end
    return vals


def known(name, names, cols, info, cleared):
    """Why a row differs from -R, when it is one of the two known ways
    trace-cmd's text depends on more than the record; None otherwise.

    - A string field (char/u8 array) printed as ARRAY[...] by -R while
      ours is its text: libtraceevent cleared the field's string flag at
      an earlier record whose value was not printable (ours is ARRAY[...]
      there too), and trace-cmd shows every later value as an array.
    - A last array that goes past the record's page (kernel_stack's
      caller[8] of a short stack at the end of a page): trace-cmd shows
      the memory after its page (the next page's header, or other heap
      bytes), ours shows zeroes there.
    """
    got = cut(info, names)
    why = []
    for f, v in zip(names, cols[4:]):
        r = got.get(f)
        if r is None or r == v:
            continue
        if r.startswith('ARRAY[') and not v.startswith('ARRAY[') and \
                (name, f) in cleared:
            why.append('%s: string flag cleared at ROWS line %d' %
                       (f, cleared[(name, f)]))
            continue
        a = v[6:-1].split(', ') if v.startswith('ARRAY[') else None
        b = r[6:-1].split(', ') if r.startswith('ARRAY[') else None
        if a and b and len(a) == len(b):
            k = next(i for i in range(len(a)) if a[i] != b[i])
            if all(x == '00' for x in a[k:]):
                why.append('%s: bytes %d.. past the page' % (f, k))
                continue
        return None
    return '; '.join(why) if why else None


def note_cleared(name, names, cols, info, n, cleared):
    """Remember where a string field was first printed as an array by
    both (the record that clears libtraceevent's string flag)."""
    got = cut(info, names)
    for f, v in zip(names, cols[4:]):
        if (name, f) not in cleared and v.startswith('ARRAY[') and \
                got.get(f) == v:
            cleared[(name, f)] = n


def compare(rs, raw, rep):
    """(mismatches, known differences), as lines of text."""
    bad, kn = [], []
    cleared = {}
    k = 0
    compare.comms = 0
    for i, (n, names, cols) in enumerate(rs):
        if i >= len(raw):
            break
        comm, pid, cpu, time, name, info = raw[i]
        want = ''.join(' %s=%s' % (f, v) for f, v in zip(names, cols[4:]))
        why = []
        if cols[0] != time:
            why.append('time %r, report -t %r' % (cols[0], time))
        if cols[1] != str(int(cpu)):
            why.append('cpu %r, report %r' % (cols[1], cpu))
        if cols[3] != pid:
            why.append('pid %r, report %r' % (cols[3], pid))
        # the same record's line in the report, when it has one: the
        # report's records are those of -R less the folded exits
        if k < len(rep) and rep[k][1:5] == (pid, cpu, time, name):
            compare.comms += 1
            if cols[2] != rep[k][0]:
                why.append('comm %r, report %r' % (cols[2], rep[k][0]))
            k += 1
        where = 'ROWS line %d (%s %s)' % (n, time, name)
        if want != info:
            reason = None if why else known(name, names, cols, info,
                                            cleared)
            if reason:
                kn.append('%s: %s' % (where, reason))
            else:
                why.append('info %r\n      -R %r' % (want, info))
        note_cleared(name, names, cols, info, n, cleared)
        if why:
            bad.append('%s: %s' % (where, '; '.join(why)))
    if len(rs) != len(raw):
        bad.append('%d rows, %d records in trace-cmd report -R' %
                   (len(rs), len(raw)))
    return bad, kn


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--trace')
    ap.add_argument('--raw')
    ap.add_argument('--report')
    ap.add_argument('--event')
    ap.add_argument('--strict', action='store_true')
    ap.add_argument('--instances')
    ap.add_argument('--buffer')
    ap.add_argument('--show-known', type=int, default=5)
    ap.add_argument('rows')
    a = ap.parse_args()
    if a.trace:
        raw_text = run(['-R', '-t', a.trace])
        rep_text = run(['-t', a.trace])
    elif a.raw and a.report:
        raw_text, rep_text = read(a.raw), read(a.report)
    else:
        ap.print_usage(sys.stderr)
        sys.exit(2)
    inst = a.instances.split(',') if a.instances else []
    if a.buffer is not None and a.buffer not in inst:
        sys.exit('--buffer NAME must be one of --instances')
    raw = records(buffer_lines(raw_text, a.buffer, inst))
    rep = records(buffer_lines(rep_text, a.buffer, inst))
    if a.event:
        raw = [r for r in raw if r[4] == a.event]
        rep = [r for r in rep if r[4] == a.event]
    rs = rows(read(a.rows))
    bad, kn = compare(rs, raw, rep)
    for line in bad[:20]:
        print(line)
    for line in kn[:a.show_known]:
        print('known: ' + line)
    print('%s: %d rows, %d records (%d with a report line), %d mismatches,'
          ' %d known differences' % (a.rows, len(rs), len(raw),
                                     compare.comms, len(bad), len(kn)))
    sys.exit(1 if bad or (kn and a.strict) else 0)


if __name__ == '__main__':
    main()
