#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""events/SYSTEM/EVENT/fields.tsv (SPEC 2.6) as a table the usual tools load.

For the top buffer and every instance, every event with a fields.tsv:
  - the header row is `time cpu comm pid`, then the event's own fields in
    the order of its events/S/E/format (the top buffer's: all buffers
    share the formats), the common_* fields left out;
  - it loads in Python's csv module (delimiter tab, no quoting): every row
    has the header's columns, and there are as many rows as summary.tsv
    has records for the event;
  - it loads in pandas, `read_csv(sep="\\t")`: the same columns, one
    DataFrame row per record;
  - every event's file `.import`ed into the sqlite3 shell (`.mode tabs`):
    a GROUP BY system, event over all their rows gives summary.tsv's
    `records`, row for row.
The rows against the oracle, `trace-cmd report -R -t` (each row rejoined
as FIELD=VALUE with single spaces is the info text of the record, its time
column is the -t time, comm the report's), are compared by
tests/tools/fields-check.py (--check), given each buffer's lines of the
oracle's output (cached in ORACLE_CACHE as tests/public caches it) and
every event's rows in one file, ordered as the oracle's records.
  fields.py [--oracle FILE] [--check FIELDS_CHECK] TDAT TRACE ORACLE_CACHE
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import viewlib  # noqa: E402

FIXED = ['time', 'cpu', 'comm', 'pid']
RENAMED = re.compile(r'^ *"[^"]*" to "[^"]*",?$')


FIELD_LINE = re.compile(r'^field:[^;]*;\s*offset:\s*\d+;\s*size:\s*\d+;')


def format_fields(fmt):
    """The own (not common_*) field names of an event's format file, up
    to the first field line libtraceevent cannot read (event_read_fields()
    keeps the fields before it, and trace-cmd -R prints only those)."""
    names = []
    for line in fmt.decode('latin-1').splitlines():
        line = line.strip()
        if not line.startswith('field:'):
            continue
        if not FIELD_LINE.match(line):
            break
        decl = line[len('field:'):].split(';', 1)[0].strip()
        name = decl.split()[-1].split('[', 1)[0]
        if not name.startswith('common_'):
            names.append(name)
    return names


def summary_rows(tdat, prefix, opts):
    """{(system, event): (id, records)} from the buffer's summary.tsv; the
    records of an id without a format (no name: no fields.tsv) are left
    out"""
    text = tdat.cat('/%sevents/summary.tsv' % prefix, opts=opts).decode('latin-1')
    out = {}
    for row in text.splitlines()[1:]:
        r = row.split('\t')
        if len(r) >= 4 and (r[0], r[1]) != ('', ''):
            out[(r[0], r[1])] = r[3]
    return out


def load_csv(t, path, data, header_want, records):
    rows = list(csv.reader(io.StringIO(data.decode('latin-1'), newline=''),
                           delimiter='\t', quoting=csv.QUOTE_NONE))
    if not t.check(rows, '%s is empty (no header row)' % path):
        return
    t.check(rows[0] == header_want, '%s: header %s, want %s' % (
        path, rows[0], header_want))
    bad = [i + 2 for i, r in enumerate(rows[1:]) if len(r) != len(rows[0])]
    t.check(not bad, '%s: rows %s have not %d columns' % (path, bad[:5], len(rows[0])))
    t.check(str(len(rows) - 1) == records, '%s: %d rows in csv, summary.tsv says %s'
            ' records' % (path, len(rows) - 1, records))


def pandas_names(header):
    """HEADER as pandas names the columns: a name seen before gets .1,
    .2, ... (the fixed comm and pid columns and an event's own comm and
    pid fields share their names)."""
    out, seen = [], set()
    for name in header:
        new, k = name, 0
        while new in seen:
            k += 1
            new = '%s.%d' % (name, k)
        seen.add(new)
        out.append(new)
    return out


def load_pandas(t, path, file, header_want, records):
    import pandas
    try:
        df = pandas.read_csv(file, sep='\t')
    except Exception as e:  # noqa: BLE001 - any refusal is the failure
        t.fail('%s: pandas.read_csv refuses it: %s' % (path, e))
        return
    want = pandas_names(header_want)
    t.check(list(df.columns) == want, '%s: pandas columns %s, want %s'
            % (path, list(df.columns), want))
    t.check(str(len(df)) == records, '%s: pandas reads %d rows, summary.tsv says'
            ' %s records' % (path, len(df), records))


def sqlite_counts(t, files):
    """FILES [(system, event, file)] imported into one sqlite3 database:
    {(system, event): count} from a GROUP BY over all their rows."""
    script = ['.bail on', '.mode tabs']
    union = []
    for i, (s, e, f) in enumerate(files):
        script.append('.import "%s" t%d' % (f, i))
        union.append("SELECT '%s' AS system, '%s' AS event FROM t%d" % (s, e, i))
    script.append('CREATE TABLE rows AS %s;' % ' UNION ALL '.join(union))
    script.append('SELECT system, event, count(*) FROM rows GROUP BY system, event'
                  ' ORDER BY system, event;')
    p = subprocess.run(['sqlite3', ':memory:'], input='\n'.join(script).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # .import renames the columns of a header that has a name twice, and
    # says so on stderr: nothing else may be said there
    err = [ln for ln in p.stderr.decode('latin-1').splitlines()
           if not ln.startswith('Columns renamed during .import ')
           and not RENAMED.match(ln)]
    if not t.check(p.returncode == 0 and not err, 'sqlite3 .import: status %d: %s'
                   % (p.returncode, '\n'.join(err)[:500])):
        return None
    out = {}
    for line in p.stdout.decode('latin-1').splitlines():
        s, e, n = line.split('\t')
        out[(s, e)] = n
    return out


def buffer_texts(text, buffers):
    """A report of several buffers cut into each buffer's lines, without
    the right-aligned "NAME: " trace-cmd puts before an instance's lines
    and the padding of the same width before the top buffer's; a line
    with neither (the rest of a multi-line record) goes with the line
    before it.  {prefix: bytes}; the cpus= line is left out."""
    lines = text.splitlines(keepends=True)
    if lines and lines[0].startswith(b'cpus='):
        lines = lines[1:]
    if len(buffers) == 1:
        return {buffers[0][0]: b''.join(lines)}
    width = max(len(n) for p, n in buffers if p)
    heads = [(b' ' * (width + 2), '')] + [
        (('%*s: ' % (width, n)).encode('latin-1'), p) for p, n in buffers if p]
    out = {p: [] for p, _ in buffers}
    cur = ''
    for line in lines:
        for head, p in heads:
            if line.startswith(head):
                cur = p
                line = line[len(head):]
                break
        out[cur].append(line)
    return {p: b''.join(v) for p, v in out.items()}


def interleave(raw, tables):
    """The rows of TABLES ({(system, event): fields.tsv bytes}) in the
    order of the records of RAW (one buffer's `report -R -t` lines), one
    block with its header row per run of one event's records, for
    fields-check.py; rows left over (more rows than records) at the end.
    None when an event name of RAW belongs to two systems."""
    systems = {}
    for s, e in tables:
        systems.setdefault(e, []).append(s)
    if any(len(v) > 1 for v in systems.values()):
        return None
    rows = {}
    for (s, e), data in tables.items():
        lines = data.splitlines(keepends=True)
        rows[e] = (lines[0] if lines else b'', lines[1:])
    out, last, used = [], None, {e: 0 for e in rows}
    for r in viewlib.records(raw):
        if r.name not in rows or used[r.name] >= len(rows[r.name][1]):
            continue
        if r.name != last:
            out.append(rows[r.name][0])
            last = r.name
        out.append(rows[r.name][1][used[r.name]])
        used[r.name] += 1
    for e, (head, rs) in rows.items():
        if used[e] < len(rs):
            out.append(head)
            out += rs[used[e]:]
    return b''.join(out)


def against_oracle(t, prefix, tables, oracle, tmp):
    """fields-check.py on every row of the buffer, in one run."""
    raw, rep, check = oracle
    rows = interleave(raw, tables)
    if not t.check(rows is not None, '%sevents: an event name in two systems: '
                   'fields-check.py cannot tell their records apart' % prefix):
        return
    files = []
    for what, data in (('raw', raw), ('report', rep), ('rows', rows)):
        files.append(os.path.join(tmp, what))
        with open(files[-1], 'wb') as f:
            f.write(data)
    p = subprocess.run([sys.executable, check, '--raw', files[0], '--report',
                        files[1], files[2]], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    out = p.stdout.decode('latin-1')
    if not t.check(p.returncode == 0, '%sevents/*/*/fields.tsv against trace-cmd '
                   'report -R -t (%s): status %d' % (prefix, os.path.basename(check),
                                                     p.returncode)):
        sys.stderr.write(''.join(out.splitlines(keepends=True)[-24:]))
    else:
        print('%sevents: %s' % (prefix, out.strip().splitlines()[-1]))


def split_at(data, head, n):
    """DATA, the files of one tdat cat, cut before each line that starts
    with HEAD (each file's first line does, no other line can); N parts,
    or N empty ones when their count differs (every check then fails
    and names the file)."""
    parts, cur = [], None
    for line in data.splitlines(keepends=True):
        if line.startswith(head):
            cur = []
            parts.append(cur)
        if cur is None:
            return [b''] * n
        cur.append(line)
    parts = [b''.join(p) for p in parts]
    return parts if len(parts) == n else [b''] * n


def check_buffer(t, tdat, prefix, opts, tmp, oracles):
    summary = summary_rows(tdat, prefix, opts)
    events = sorted(tuple(p.split('/')[:2])
                    for p in tdat.ls('/%sevents' % prefix, recursive=True)
                    if p.count('/') == 2 and p.endswith('/fields.tsv'))
    t.check(set(events) == set(summary),
            '%sevents: fields.tsv of %s, summary.tsv rows of %s' % (
                prefix, sorted(set(events) - set(summary)),
                sorted(set(summary) - set(events))))
    files, tables = [], {}
    datas = split_at(tdat.cat(*['/%sevents/%s/%s/fields.tsv' % (prefix, s, e)
                                for s, e in events], opts=opts),
                     b'time\tcpu\tcomm\tpid', len(events))
    fmts = split_at(tdat.cat(*['/events/%s/%s/format' % k for k in events]),
                    b'name: ', len(events))
    for (s, e), data, fmt in zip(events, datas, fmts):
        path = '/%sevents/%s/%s/fields.tsv' % (prefix, s, e)
        want = FIXED + format_fields(fmt)
        f = os.path.join(tmp, '%d.tsv' % len(files))
        with open(f, 'wb') as out:
            out.write(data)
        files.append((s, e, f))
        tables[(s, e)] = data
        records = summary.get((s, e), '?')
        load_csv(t, path, data, want, records)
        load_pandas(t, path, f, want, records)
    if files:
        counts = sqlite_counts(t, files)
        if counts is not None:
            t.check(counts == summary, '%sevents: sqlite3 GROUP BY gives %s, '
                    'summary.tsv %s' % (prefix, sorted(counts.items())[:8],
                                        sorted(summary.items())[:8]))
    if oracles:
        against_oracle(t, prefix, tables, oracles[prefix], tmp)
    return '%d events' % len(events)


def oracles(t, tdat, oracle, cache, check):
    """{prefix: (raw, report, check)}: each buffer's lines of `trace-cmd
    report -R -t` and `report -t` (cached), or None where there is no
    fields-check.py or no oracle that can run (a zlib trace with only a
    stored report; a missing fields-check.py is a failure)."""
    if not check or not os.path.exists(check):
        t.fail('no fields-check.py (%s): the rows cannot be compared with '
               'trace-cmd' % check)
        return None
    if oracle is None:
        oracle, stored = viewlib.oracle_input(tdat.trace)
        if stored:
            print('%s: only a stored report, no trace-cmd report -R: the rows are '
                  'not compared with trace-cmd' % os.path.basename(tdat.trace))
            return None
    bufs = tdat.buffers()
    raw = buffer_texts(viewlib.report(oracle, cache, '-R', '-t'), bufs)
    rep = buffer_texts(viewlib.report(oracle, cache, '-t'), bufs)
    return {p: (raw[p], rep[p], check) for p, _ in bufs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--oracle', help='the file trace-cmd reads (default: '
                    'TRACE, its .twin.dat)')
    ap.add_argument('--check', help='tests/tools/fields-check.py')
    ap.add_argument('tdat')
    ap.add_argument('trace')
    ap.add_argument('cache')
    a = ap.parse_args()
    tdat = viewlib.Tdat(a.tdat, a.trace)
    t = viewlib.Tally('fields %s' % os.path.basename(a.trace))
    orc = oracles(t, tdat, a.oracle, a.cache, a.check)
    with tempfile.TemporaryDirectory() as tmp:
        viewlib.each_buffer(t, tdat, lambda t_, d, p, o: check_buffer(t_, d, p, o, tmp, orc),
                            passes=(None,))
    t.finish()


if __name__ == '__main__':
    main()
