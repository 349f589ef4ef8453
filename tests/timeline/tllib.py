# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of the timeline.svg tests (issue 15 item 5, TIMELINE.md).

Two sides, kept apart:
  - the picture: produce() runs `tdat cat TRACE PATH` once per trace,
    buffer and window (cached in a directory of the build tree, by the
    identity of tdat and of the trace), parse() reads the SVG into lanes,
    task bars, density columns, print ticks and the legend;
  - the reference, computed here from the trace's records and never from
    tdatfs's drawing code: Ref reads the buffer's sched_switch rows
    (events/sched/sched_switch/fields.tsv: times in ns as `trace-cmd
    report -t` prints them), each CPU's first and last record time (from
    its per_cpu text, the lines tests/tools compare with trace-cmd), the
    ftrace:print records (their text as events/ftrace/print/trace prints
    them, their ns times from fields.tsv) and, for a buffer without
    sched_switch, each CPU's records in a span.

A printed time of the text is rounded to the microsecond (usec mode), so
a CPU's first or last record is known to +-500 ns there; the checks add
that to the tolerance of the intervals that start or end at one.  On a
raw clock the text prints the count itself (exact).
"""
import hashlib
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'views'))
import viewlib  # noqa: E402,F401  (re-exported: Tally, Tdat, records)

SVG_NS = '{http://www.w3.org/2000/svg}'
MAX_BYTES = 2 * 1024 * 1024
# a CPU whose text is larger than this is searched by windows for its
# first and last record instead of being read whole
WHOLE_TEXT_MAX = 40 * 1024 * 1024


# ---- the picture ------------------------------------------------------------

def produce(tdat, cache, path):
    """(file, bytes) of `tdat cat TRACE PATH`, produced once per run: kept
    in CACHE under a name made of tdat's and the trace's identity (path,
    size, mtime) and PATH, written to a temporary name and renamed; the
    pictures of an older tdat or trace are removed when a new one is
    written."""
    ident = []
    for f in (tdat.exe, tdat.trace):
        st = os.stat(f)
        ident.append('%s:%d:%d' % (os.path.realpath(f), st.st_size, st.st_mtime_ns))
    who = hashlib.sha1('\n'.join(ident).encode()).hexdigest()[:12]
    what = hashlib.sha1(path.encode()).hexdigest()[:12]
    base = os.path.basename(tdat.trace)
    os.makedirs(cache, exist_ok=True)
    name = os.path.join(cache, '%s-%s-%s.svg' % (base, who, what))
    if not os.path.exists(name):
        for old in os.listdir(cache):
            if old.startswith(base + '-') and old.endswith('.svg') and \
                    old[len(base) + 1:].count('-') == 1 and \
                    not old.startswith('%s-%s-' % (base, who)):
                try:
                    os.unlink(os.path.join(cache, old))
                except FileNotFoundError:
                    pass
        data = tdat.cat(path)
        tmp = '%s.%d' % (name, os.getpid())
        with open(tmp, 'wb') as f:
            f.write(data)
        os.rename(tmp, name)
    with open(name, 'rb') as f:
        return name, f.read()


def xmllint(t, what, file):
    """`xmllint --noout FILE` accepts it"""
    p = subprocess.run(['xmllint', '--noout', file], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return t.check(p.returncode == 0, '%s: xmllint --noout: status %d: %s' % (
        what, p.returncode, p.stderr.decode('latin-1')[:600]))


def tag(e):
    return e.tag[len(SVG_NS):] if e.tag.startswith(SVG_NS) else e.tag


def classes(e):
    return (e.get('class') or '').split()


def num(e, attr):
    v = e.get(attr)
    if v is None:
        raise ValueError('<%s> without %s' % (tag(e), attr))
    return float(v)



def text_cpus(tdat, prefix):
    """The CPUs of a buffer that hold data: per_cpu/cpuN with a trace file
    (a CPU the file lists only in its CPUSTAT options has stats alone)."""
    cpus = []
    for d in tdat.ls('/%sper_cpu' % prefix):
        if re.fullmatch(r'cpu\d+', d) and \
                'trace' in tdat.ls('/%sper_cpu/%s' % (prefix, d)):
            cpus.append(int(d[3:]))
    return cpus

class Lane:
    __slots__ = ('cpu', 'y', 'h', 'elem', 'bg', 'mark', 'labels', 'tasks',
                 'density', 'ticks', 'order')

    def __init__(self, e):
        self.elem = e
        self.cpu = int(e.get('data-cpu'))
        self.y = num(e, 'data-y')
        self.h = num(e, 'data-h')
        self.bg = self.mark = None
        self.labels = []
        self.tasks = {}      # pid: Task
        self.order = []      # pids in document order (a pid twice: listed twice)
        self.density = []    # (x, y, width, height, n)
        self.ticks = []      # Tick


class Task:
    __slots__ = ('pid', 'comm', 'fill', 'title', 'rects')

    def __init__(self, e):
        self.pid = int(e.get('data-pid'))
        self.comm = e.get('data-comm')
        self.fill = (e.get('fill') or '').lower()
        ts = [c for c in e if tag(c) == 'title']
        self.title = ts[0].text if ts else None
        self.rects = [(num(r, 'x'), num(r, 'y'), num(r, 'width'), num(r, 'height'))
                      for r in e.iter() if tag(r) == 'rect']


class Tick:
    __slots__ = ('x', 'title', 'n', 'stroke')

    def __init__(self, e):
        self.x = num(e, 'x1')
        if abs(num(e, 'x2') - self.x) > 1e-6:
            raise ValueError('print tick with x1 %s != x2 %s' % (e.get('x1'), e.get('x2')))
        ts = [c for c in e if tag(c) == 'title']
        self.title = ts[0].text or '' if ts else None
        self.n = int(e.get('data-n', '1'))
        self.stroke = (e.get('stroke') or '').lower()


class Picture:
    """What parse() found: root attributes, lanes in document order, the
    legend items (pid, comm, ns, fill of the swatch, text)."""

    def __init__(self, root):
        self.root = root
        self.width = root.get('width')
        self.t0 = int(root.get('data-t0'))
        self.t1 = int(root.get('data-t1'))
        self.left = num(root, 'data-left')
        self.w = num(root, 'data-width')
        self.lanes = []
        self.legend = []

    def x(self, t):
        return self.left + (t - self.t0) * self.w / (self.t1 - self.t0)

    def px(self, ns):
        """a duration in px"""
        return ns * self.w / (self.t1 - self.t0)


def parse(data):
    """Picture of the SVG bytes DATA; raises ValueError (or
    ET.ParseError) when a part the contract names is malformed."""
    root = ET.fromstring(data)
    if tag(root) != 'svg':
        raise ValueError('root element <%s>, not <svg>' % tag(root))
    for a in ('data-t0', 'data-t1', 'data-left', 'data-width'):
        if root.get(a) is None:
            raise ValueError('<svg> without %s' % a)
    pic = Picture(root)
    for e in root.iter():
        c = classes(e)
        if tag(e) == 'g' and 'lane' in c:
            pic.lanes.append(parse_lane(e))
        elif tag(e) == 'g' and 'legend-item' in c:
            sw = [r for r in e.iter() if tag(r) == 'rect']
            text = ''.join(''.join(x.itertext()) for x in e.iter() if tag(x) == 'text')
            pic.legend.append((int(e.get('data-pid')), e.get('data-comm'),
                               int(e.get('data-ns')),
                               ((sw[0].get('fill') or '').lower() if sw else None), text))
    return pic


def parse_lane(e):
    lane = Lane(e)
    for c in e:
        k, cl = tag(c), classes(c)
        if k == 'rect' and 'bg' in cl:
            lane.bg = c
        elif k == 'rect' and 'mark' in cl:
            lane.mark = c
        elif k == 'text':
            lane.labels.append(''.join(c.itertext()))
        elif k == 'g' and 'task' in cl:
            task = Task(c)
            lane.order.append(task.pid)
            if task.pid in lane.tasks:   # counted by the checker as a defect
                lane.tasks[task.pid].rects += task.rects
            else:
                lane.tasks[task.pid] = task
        elif k == 'g' and 'density' in cl:
            lane.density += [(num(r, 'x'), num(r, 'y'), num(r, 'width'),
                              num(r, 'height'), int(r.get('data-n')))
                             for r in c.iter() if tag(r) == 'rect']
        elif k == 'g' and 'print' in cl:
            lane.ticks += [Tick(x) for x in c.iter() if tag(x) == 'line']
    return lane


# ---- the reference ----------------------------------------------------------

def unescape_tsv(s):
    """A fields.tsv value: \\t, \\n, \\\\ back to their bytes"""
    if '\\' not in s:
        return s
    return re.sub(r'\\(.)', lambda m: {'t': '\t', 'n': '\n', '\\': '\\'}.get(
        m.group(1), '\\' + m.group(1)), s)


def tsv_rows(data):
    """(header, rows) of a fields.tsv, values unescaped"""
    lines = data.decode('utf-8', 'surrogateescape').split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if not lines:
        return [], []
    head = lines[0].split('\t')
    return head, [[unescape_tsv(v) for v in ln.split('\t')] for ln in lines[1:]]


class Ref:
    """The reference of one buffer (PREFIX '' or 'instances/NAME/')."""

    def __init__(self, tdat, prefix):
        self.tdat = tdat
        self.prefix = prefix
        self.name = prefix.split('/')[1] if prefix else 'top'
        self.cpus = text_cpus(tdat, prefix)
        self._counts = {}   # cpu: its record times, when its text was read
        self._summary()
        self._switches()
        self._first_last()
        self._intervals()

    # -- what the text shows of the buffer
    def _summary(self):
        """The events of the buffer and their first and last printed
        times (events/summary.tsv, times as the text prints them)"""
        text = self.tdat.cat('/%sevents/summary.tsv' % self.prefix).decode('latin-1')
        self.events = {}
        firsts, lasts = [], []
        for row in text.splitlines()[1:]:
            r = row.split('\t')
            if len(r) >= 6:
                self.events[(r[0], r[1])] = int(r[3])
                firsts.append(r[4])
                lasts.append(r[5])
        self.like = firsts[0] if firsts else '0'
        self.seconds = '.' in self.like
        # the printed time's step and how far the ns key may be from it
        self.step = viewlib.time_step(self.like)
        self.fuzz = self.step // 2 if self.seconds else 0
        ns = [viewlib.time_ns(s, self.seconds) for s in firsts + lasts]
        self.first = min(ns) if ns else None
        self.last = max(ns) if ns else None

    def fmt(self, ns):
        """A key (ns, or the count) printed as a window bound"""
        if not self.seconds:
            return str(ns)
        return '%d.%09d' % (ns // 10**9, ns % 10**9)

    def _switches(self):
        """self.switches: {cpu: [(ns, prev_pid, prev_comm, next_pid, next_comm)]}"""
        self.switches = {c: [] for c in self.cpus}
        self.nswitch = 0
        if ('sched', 'sched_switch') not in self.events:
            return
        head, rows = tsv_rows(self.tdat.cat(
            '/%sevents/sched/sched_switch/fields.tsv' % self.prefix))
        ix = {n: i for i, n in enumerate(head)}
        for r in rows:
            c = int(r[ix['cpu']])
            self.switches.setdefault(c, []).append((
                viewlib.time_ns(r[ix['time']], self.seconds),
                int(r[ix['prev_pid']]), r[ix['prev_comm']],
                int(r[ix['next_pid']]), r[ix['next_comm']]))
            self.nswitch += 1

    def cpu_text(self, cpu, t0=None, t1=None):
        """per_cpu/cpuN/trace of the buffer, or of the window [T0, T1)
        (printed bounds); a CPU without a text (no record) has none"""
        if t0 is None:
            if cpu not in self.with_text:
                return b''
            return self.tdat.cat('/%sper_cpu/cpu%d/trace' % (self.prefix, cpu))
        return self.tdat.cat('/%stime/%s-%s/per_cpu/cpu%d/trace' % (
            self.prefix, t0, t1, cpu))

    def _first_last(self):
        """self.bounds: {cpu: (first, last)} printed record times as keys
        (None for a CPU without records)"""
        self.bounds = {}
        sizes = {}
        self.with_text = set()
        for c in self.cpus:
            sizes[c] = 0
            pl = self.tdat.run('ls', '-l', self.tdat.trace,
                               '/%sper_cpu/cpu%d' % (self.prefix, c))
            for ln in pl.stdout.decode('latin-1').splitlines():
                f = ln.split()
                if len(f) == 3 and f[2] == 'trace':
                    sizes[c] = int(f[1])
                    self.with_text.add(c)
        for c in self.cpus:
            if self.first is None or c not in self.with_text:
                self.bounds[c] = None
            elif sizes[c] <= WHOLE_TEXT_MAX:
                ts = self._counts[c] = self._times(self.cpu_text(c))
                self.bounds[c] = (min(ts), max(ts)) if ts else None
            else:
                self.bounds[c] = self._search_bounds(c)

    def _times(self, text):
        return [r.ns if self.seconds else int(r.time)
                for r in viewlib.records(text) if r.name is not None]

    def _search_bounds(self, c):
        """First and last record of cpu C by windows growing from the
        buffer's ends (a window's cost is its records)"""
        lo, hi = self.first, self.last + self.step
        span = hi - lo
        first = last = None
        d = max(span // 4096, self.step)
        while first is None:
            end = min(lo + d, hi)
            ts = self._times(self.cpu_text(c, self.pfmt(lo), self.pfmt(end)))
            if ts:
                first = ts[0]
            elif end >= hi:
                return None
            d *= 8
        d = max(span // 4096, self.step)
        while last is None:
            start = max(hi - d, lo)
            ts = self._times(self.cpu_text(c, self.pfmt(start), self.pfmt(hi)))
            if ts:
                last = ts[-1]
            d *= 8
        return first, last

    def printed(self, key):
        """KEY as the text prints it (rounded to its step), as a key"""
        if not self.seconds:
            return key
        return (key + self.step // 2) // self.step * self.step

    def pfmt(self, key):
        """a key as a bound of the text's own precision (a multiple of
        its step)"""
        return viewlib.time_str(key - key % self.step, self.like) if self.seconds \
            else str(key)

    # -- running intervals (TIMELINE.md, Running intervals)
    def _intervals(self):
        """self.iv: {cpu: [(start, end, pid, fuzz)]}: FUZZ is the
        uncertainty of the interval's length (a start or an end at a
        CPU's first or last printed record time)"""
        self.iv = {}
        self.comms = {}   # pid: [(ns, comm)] of every switch naming it
        for c in self.cpus:
            sw = self.switches.get(c, [])
            out = []
            if sw and self.bounds.get(c):
                first, last = self.bounds[c]
                out.append((first, sw[0][0], sw[0][1], self.fuzz))
                for a, b in zip(sw, sw[1:]):
                    out.append((a[0], b[0], a[3], 0))
                out.append((sw[-1][0], last, sw[-1][3], self.fuzz))
            self.iv[c] = [i for i in out if i[2] != 0]
            for s in sw:
                self.comms.setdefault(s[1], []).append((s[0], s[2]))
                self.comms.setdefault(s[3], []).append((s[0], s[4]))

    def running(self, t0, t1):
        """{cpu: {pid: (ns, fuzz, intervals [(start, end)] clipped)}} in
        [T0, T1)"""
        out = {}
        for c, ivs in self.iv.items():
            m = {}
            for s, e, pid, fz in ivs:
                a, b = max(s, t0), min(e, t1)
                if b <= a and not (fz and b + fz > a):
                    continue
                ns, f, parts = m.get(pid, (0, 0, []))
                parts.append((a, max(a, b)))
                m[pid] = (ns + max(0, b - a), f + fz, parts)
            out[c] = m
        return out

    def comm(self, pid, t0, t1):
        """The comm of PID's latest switch in [T0, T1), or None"""
        best = None
        for ns, comm in self.comms.get(pid, []):
            if t0 <= ns < t1 and (best is None or ns >= best[0]):
                best = (ns, comm)
        return best[1] if best else None

    # -- records per CPU (density) and prints
    def times_in(self, cpu, t0, t1):
        """The record times (keys, from the printed times) of CPU's text
        in [T0, T1)"""
        if cpu not in self._counts:
            self._counts[cpu] = self._times(self.cpu_text(cpu))
        return [x for x in self._counts[cpu] if t0 <= x < t1]

    def prints(self):
        """[(ns, cpu, text bytes)] of the buffer's ftrace:print records:
        the text as its lines in events/ftrace/print/trace print it (the
        info after `IP: `, continuation lines joined, the last newline
        dropped), the time from fields.tsv (zipped in order; the printed
        times must agree)"""
        if ('ftrace', 'print') not in self.events:
            return []
        base = '/%sevents/ftrace/print/' % self.prefix
        recs = [r for r in viewlib.records(self.tdat.cat(base + 'trace'))
                if r.name is not None]
        head, rows = tsv_rows(self.tdat.cat(base + 'fields.tsv'))
        ix = {n: i for i, n in enumerate(head)}
        if len(recs) != len(rows):
            raise RuntimeError('%strace has %d records, fields.tsv %d rows' % (
                base, len(recs), len(rows)))
        out = []
        for rec, row in zip(recs, rows):
            ns = viewlib.time_ns(row[ix['time']], self.seconds)
            pt = rec.ns if self.seconds else int(rec.time)
            if abs(ns - pt) > self.fuzz:
                raise RuntimeError('%s: record at %s, fields.tsv row at %s' % (
                    base, rec.time, row[ix['time']]))
            text = rec.text()
            ip = row[ix['ip']].encode('utf-8', 'surrogateescape') + b': '
            m = viewlib.HEADER.search(text)
            k = text.find(ip, m.end()) if m else -1
            if k < 0:
                raise RuntimeError('%s: no "%s" in %r' % (base, ip, text[:200]))
            body = text[k + len(ip):]
            if body.endswith(b'\n'):
                body = body[:-1]
            out.append((ns, rec.cpu, body))
        return out


def print_title(body):
    """A print's tick title as TIMELINE.md says (control bytes as \\xNN,
    bytes not UTF-8 too): (full text, whether it is to be cut at 200
    bytes)"""
    esc = re.sub(rb'[\x00-\x1f\x7f]', lambda m: b'\\x%02x' % m.group(0)[0], body)
    return esc.decode('utf-8', 'backslashreplace'), len(body) > 200


# ---- PNG ------------------------------------------------------------------------

def png_decode(data):
    """(width, height, rows) of an 8-bit, non-interlaced PNG: ROWS a list of
    bytes, 3 per pixel (RGB; grey and palette expanded, alpha dropped
    over white)"""
    import struct
    import zlib
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, plte = 8, [], None
    w = h = depth = ctype = None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, inter = struct.unpack('>IIBBBBB', body)
            if depth != 8 or inter != 0:
                raise ValueError('PNG depth %d, interlace %d: not handled' % (depth, inter))
        elif kind == b'PLTE':
            plte = body
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
    chans = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(b''.join(idat))
    stride = w * chans
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        unfilter(f, line, prev, chans)
        rows.append(to_rgb(bytes(line), ctype, plte))
        prev = line
    return w, h, rows


def unfilter(f, line, prev, bpp):
    """Undo PNG filter F on LINE in place (PREV: the row above, unfiltered)"""
    n = len(line)
    if f == 0:
        return
    if f == 1:
        for i in range(bpp, n):
            line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:
        for i in range(n):
            line[i] = (line[i] + prev[i]) & 255
    elif f == 3:
        for i in range(n):
            a = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((a + prev[i]) >> 1)) & 255
    elif f == 4:
        for i in range(n):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pr) & 255
    else:
        raise ValueError('PNG filter %d' % f)


def to_rgb(line, ctype, plte):
    if ctype == 2:
        return line
    if ctype == 0:
        return bytes(v for g in line for v in (g, g, g))
    if ctype == 3:
        return b''.join(plte[3 * i:3 * i + 3] for i in line)
    if ctype == 4:
        return bytes(v for i in range(0, len(line), 2)
                     for v in (over_white(line[i], line[i + 1]),) * 3)
    out = bytearray()
    for i in range(0, len(line), 4):
        a = line[i + 3]
        out += bytes(over_white(line[i + k], a) for k in range(3))
    return bytes(out)


def over_white(v, a):
    return (v * a + 255 * (255 - a)) // 255
