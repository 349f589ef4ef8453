#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""events/SYSTEM/EVENT/fields.tsv (SPEC 2.6) as a table the usual tools load.

For the top buffer and every instance, every event with a fields.tsv:
  - the header row is `time cpu comm pid`, then the event's own fields in
    the order of its events/S/E/format (the common_* fields left out);
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
column is the -t time), are compared by tests/tools/fields-check.py, run
here on the same trace when given.
  fields.py TDAT TRACE ORACLE_CACHE [FIELDS_CHECK]
"""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import viewlib  # noqa: E402

FIXED = ['time', 'cpu', 'comm', 'pid']
RENAMED = re.compile(r'^ *"[^"]*" to "[^"]*",?$')


def format_fields(fmt):
    """The own (not common_*) field names of an event's format file."""
    names = []
    for line in fmt.decode('latin-1').splitlines():
        line = line.strip()
        if not line.startswith('field:'):
            continue
        decl = line[len('field:'):].split(';', 1)[0].strip()
        name = decl.split()[-1].split('[', 1)[0]
        if not name.startswith('common_'):
            names.append(name)
    return names


def summary_rows(tdat, prefix, opts):
    """{(system, event): (id, records)} from the buffer's summary.tsv"""
    text = tdat.cat('/%sevents/summary.tsv' % prefix, opts=opts).decode('latin-1')
    out = {}
    for row in text.splitlines()[1:]:
        r = row.split('\t')
        if len(r) >= 4:
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


def check_buffer(t, tdat, prefix, opts, tmp):
    summary = summary_rows(tdat, prefix, opts)
    events = sorted(tuple(p.split('/')[:2])
                    for p in tdat.ls('/%sevents' % prefix, recursive=True)
                    if p.count('/') == 2 and p.endswith('/fields.tsv'))
    t.check(set(events) == set(summary),
            '%sevents: fields.tsv of %s, summary.tsv rows of %s' % (
                prefix, sorted(set(events) - set(summary)),
                sorted(set(summary) - set(events))))
    files = []
    for s, e in events:
        path = '/%sevents/%s/%s/fields.tsv' % (prefix, s, e)
        data = tdat.cat(path, opts=opts)
        want = FIXED + format_fields(tdat.cat('/%sevents/%s/%s/format' % (prefix, s, e)))
        f = os.path.join(tmp, '%d.tsv' % len(files))
        with open(f, 'wb') as out:
            out.write(data)
        files.append((s, e, f))
        records = summary.get((s, e), '?')
        load_csv(t, path, data, want, records)
        load_pandas(t, path, f, want, records)
    if files:
        counts = sqlite_counts(t, files)
        if counts is not None:
            t.check(counts == summary, '%sevents: sqlite3 GROUP BY gives %s, '
                    'summary.tsv %s' % (prefix, sorted(counts.items())[:8],
                                        sorted(summary.items())[:8]))
    return '%d events' % len(events)


def main():
    exe, trace, cache = sys.argv[1:4]
    check = sys.argv[4] if len(sys.argv) > 4 else None
    tdat = viewlib.Tdat(exe, trace)
    t = viewlib.Tally('fields %s' % os.path.basename(trace))
    with tempfile.TemporaryDirectory() as tmp:
        viewlib.each_buffer(t, tdat, lambda t_, d, p, o: check_buffer(t_, d, p, o, tmp),
                            passes=(None,))
    if check:
        p = subprocess.run([sys.executable, check, exe, trace, cache])
        t.check(p.returncode == 0, '%s %s: status %d' % (
            os.path.basename(check), os.path.basename(trace), p.returncode))
    t.finish()


if __name__ == '__main__':
    main()
