# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of the views tests (SPEC 2.6): the reference side.

Everything expected here is cut from a full text (`trace`,
`per_cpu/cpuN/trace`) by parsing its lines, never by asking tdatfs's own
code which line is which:
  - a record's first line is `COMM-PID [CPU] TIME: NAME: ...` (COMM is
    right-aligned in 16 columns and may hold spaces, so the line is
    searched for its `-PID [CPU] TIME: NAME:` part; a raw clock's count
    may fill its column, with no space after `]`);
  - `CPU:N [N EVENTS DROPPED]` and `CPU:N [EVENTS DROPPED]` lines belong
    to the record after them;
  - every other line (a stack, the rest of a multi-line print) belongs to
    the record before it.
Texts are handled as bytes, so that a comparison is byte for byte.

Also: running `tdat`, the oracle `trace-cmd report` with a cache shared by
the tests of one run, and the pass/fail tally of tests/lib/common.sh.
"""
import hashlib
import os
import re
import subprocess
import sys

HEADER = re.compile(rb'-(\d+) +\[(\d+)\] *(\d+(?:\.\d+)?): ([^ :]+):')
DROPPED = re.compile(rb'^CPU:\d+ \[(\d+ )?EVENTS DROPPED\]$')
# a record whose event has no format, as trace-cmd prints it
UNKNOWN = b'[UNKNOWN EVENT]'



class Record:
    """One record of a text: its lines (bytes, each with its newline)."""
    __slots__ = ('name', 'cpu', 'time', 'ns', 'comm', 'pid', 'lines', 'multi')

    def __init__(self, m, line):
        self.name = m.group(4).decode('latin-1')
        self.cpu = int(m.group(2))
        self.time = m.group(3).decode('latin-1')
        self.ns = time_ns(self.time)   # for comparisons
        self.pid = m.group(1).decode('latin-1')
        self.comm = line[:m.start()].lstrip(b' ').decode('latin-1')
        self.lines = []
        self.multi = False

    def text(self):
        return b''.join(self.lines)


def records(text):
    """The records of TEXT (bytes), in text order.

    Lines before the first record (none in a sound text) form a record
    named None, so that no byte is lost from a comparison.
    """
    recs = []
    pending = []   # dropped-events lines waiting for their record
    cur = None
    for line in text.splitlines(keepends=True):
        body = line.rstrip(b'\n')
        if DROPPED.match(body):
            pending.append(line)
            continue
        m = HEADER.search(body)
        if m:
            cur = Record(m, body)
            cur.lines = pending + [line]
            pending = []
            recs.append(cur)
            continue
        if pending or cur is None or body.startswith(UNKNOWN):
            # a continuation with no record before it (or after a
            # dropped line), or the line of a record whose event has no
            # format: keep it in a record of its own
            orphan = Record.__new__(Record)
            orphan.name = orphan.time = orphan.ns = orphan.comm = orphan.pid = None
            orphan.cpu = -1
            orphan.lines = pending + [line]
            orphan.multi = False
            pending = []
            recs.append(orphan)
            cur = orphan
            continue
        cur.lines.append(line)
        cur.multi = True
    if pending:
        orphan = Record.__new__(Record)
        orphan.name = orphan.time = orphan.ns = orphan.comm = orphan.pid = None
        orphan.cpu = -1
        orphan.lines = pending
        orphan.multi = False
        recs.append(orphan)
    return recs


def time_ns(s, seconds=None):
    """A printed time as an integer for a decimal compare: seconds become
    nanoseconds ('506.3175' -> 506317500000, '506' -> 506000000000); a raw
    count stays itself.  SECONDS: whether the text prints seconds (the
    default: whether S has a '.')."""
    if seconds is None:
        seconds = '.' in s
    if not seconds:
        return int(s)
    if '.' not in s:
        return int(s) * 10**9
    sec, frac = s.split('.', 1)
    return int(sec) * 10**9 + int((frac + '000000000')[:9])


def time_step(s):
    """The smallest step of a printed time: 1 in its last digit, in the
    unit of time_ns()."""
    if '.' not in s:
        return 1
    return 10 ** (9 - len(s.split('.', 1)[1]))


def time_str(ns, like):
    """NS (time_ns() units) printed with as many decimals as LIKE."""
    if '.' not in like:
        return str(ns)
    d = len(like.split('.', 1)[1])
    q = 10 ** (9 - d)
    return '%d.%0*d' % (ns // 10**9, d, (ns % 10**9) // q)


class Tally:
    """The checks of one test: ok(), fail(), finish() as in common.sh."""

    def __init__(self, what):
        self.what = what
        self.checks = 0
        self.failures = 0

    def ok(self):
        self.checks += 1

    def fail(self, msg):
        print('FAIL: %s: %s' % (self.what, msg), file=sys.stderr)
        self.failures += 1

    def check(self, cond, msg):
        if cond:
            self.ok()
        else:
            self.fail(msg)
        return cond

    def same(self, what, want, got):
        """Byte comparison of two texts, with the first differing lines."""
        if want == got:
            self.ok()
            return True
        wl = want.splitlines(keepends=True)
        gl = got.splitlines(keepends=True)
        i = 0
        while i < min(len(wl), len(gl)) and wl[i] == gl[i]:
            i += 1
        self.fail('%s differs (want %d lines, %d bytes; got %d lines, %d bytes;'
                  ' first difference at line %d)' % (what, len(wl), len(want),
                                                     len(gl), len(got), i + 1))
        for tag, lines in (('-', wl), ('+', gl)):
            for ln in lines[i:i + 4]:
                sys.stderr.write('  %s %s' % (tag, ln.decode('latin-1')))
                if not ln.endswith(b'\n'):
                    sys.stderr.write('\n')
        return False

    def finish(self):
        print('%d checks passed, %d failed' % (self.checks, self.failures))
        sys.exit(1 if self.failures or not self.checks else 0)


class Tdat:
    """`tdat` on one trace; OPTS (-o) for every run unless one says its
    own."""

    def __init__(self, exe, trace):
        self.exe = exe
        self.trace = trace
        self.opts = None

    def run(self, *args, opts=None):
        cmd = [self.exe]
        opts = opts or self.opts
        if opts:
            cmd += ['-o', opts]
        cmd += list(args)
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def cat(self, *paths, opts=None):
        """The bytes of PATHS; raises on a non-zero exit status."""
        p = self.run('cat', self.trace, *paths, opts=opts)
        if p.returncode != 0:
            raise RuntimeError('tdat cat %s %s: status %d: %s' % (
                self.trace, ' '.join(paths), p.returncode,
                p.stderr.decode('latin-1').strip()))
        return p.stdout

    def exists(self, path):
        return self.run('ls', self.trace, path).returncode == 0

    def ls(self, path, recursive=False):
        """The names of a directory (recursive: paths relative to it)."""
        args = ['ls', '-R'] if recursive else ['ls']
        p = self.run(*args, self.trace, path)
        if p.returncode != 0:
            raise RuntimeError('tdat ls %s %s: status %d: %s' % (
                self.trace, path, p.returncode,
                p.stderr.decode('latin-1').strip()))
        return p.stdout.decode('latin-1').splitlines()

    def buffers(self):
        """(prefix, name) of every buffer with a text: '' for the top
        buffer, 'instances/NAME/' for each instance."""
        out = [('', 'top')]
        if self.exists('/instances'):
            for n in self.ls('/instances'):
                out.append(('instances/%s/' % n, n))
        return out


def oracle_input(trace):
    """(file trace-cmd reads, stored report or None) for TRACE, as
    ../shared/traces/public/README.md says: a zlib trace NAME.dat is read
    through NAME.twin.dat, or only its stored NAME.report.zst exists."""
    base = trace[:-4] if trace.endswith('.dat') else trace
    if os.path.exists(base + '.twin.dat'):
        return base + '.twin.dat', None
    if os.path.exists(base + '.report.zst'):
        return None, base + '.report.zst'
    return trace, None


def trace_cmd_version():
    p = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'trace-cmd'],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return p.stdout.decode().strip() or 'unknown'


def report(oracle, cache, *args):
    """`trace-cmd report ARGS -i ORACLE`'s output (bytes), cached in
    CACHE by the file's SHA-1, the oracle's version and ARGS, so the tests
    of one run (and the normal and sanitizer builds) run it once.  Written
    to a temporary name and renamed: a reader never sees half of it."""
    with open(oracle, 'rb') as f:
        key = hashlib.sha1(f.read()).hexdigest()
    os.makedirs(cache, exist_ok=True)
    # the name tests/public/public-vs-report.sh gives the same entry
    path = os.path.join(cache, '%s-%s%s' % (key, trace_cmd_version(),
                                            ' '.join(args).replace(' ', '_')))
    if not os.path.exists(path):
        tmp = '%s.%d' % (path, os.getpid())
        with open(tmp, 'wb') as f:
            subprocess.run(['trace-cmd', 'report'] + list(args) + ['-i', oracle],
                           stdout=f, stderr=subprocess.DEVNULL, check=True)
        os.rename(tmp, path)
    with open(path, 'rb') as f:
        return f.read()


def each_buffer(t, tdat, check, passes=('noindex', None)):
    """CHECK(tally, tdat, prefix, opts) for every buffer, first without an
    index (`-o noindex`: the engine learns what the views need from a
    pass of its own), then after `tdat index` (loaded from the index
    kept).  CHECK returns a line saying what it saw; a tdat that fails is
    a failure of the test, not its end."""
    for opts in passes:
        tdat.opts = opts
        if opts is None:
            p = subprocess.run([tdat.exe, 'index', tdat.trace],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if not t.check(p.returncode == 0, 'tdat index: status %d: %s' % (
                    p.returncode, p.stderr.decode('latin-1').strip())):
                continue
        for prefix, name in tdat.buffers():
            try:
                said = check(t, tdat, prefix, opts)
            except RuntimeError as e:
                t.fail(str(e))
                continue
            print('%s %s (%s): %s' % (os.path.basename(tdat.trace), name,
                                      opts or 'index', said))


def main(what, check):
    """A test's main: `SCRIPT TDAT TRACE`, CHECK on every buffer (see
    each_buffer()), the tally and the exit status."""
    exe, trace = sys.argv[1:3]
    tdat = Tdat(exe, trace)
    t = Tally('%s %s' % (what, os.path.basename(trace)))
    each_buffer(t, tdat, check)
    t.finish()
