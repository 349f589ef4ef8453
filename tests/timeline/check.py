#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""timeline.svg (TIMELINE.md) against the trace's own records.

For the top buffer and every instance, the whole buffer's timeline.svg
and those of two windows (time/T0-T1/timeline.svg: one over the middle of
the buffer, one over a few dozen switches or records, bounds cutting
through running intervals):
  - `xmllint --noout` accepts it; at most 2 MiB;
  - the span: data-t0/data-t1 are the window's bounds, or the buffer's
    first and last record time (as its text prints them: +-500 ns);
  - one `lane` per CPU of the buffer's per_cpu/ that holds data (a trace
    file), in the buffer's order
    (numeric, or the listing's), each with
    its background (x = data-left, width = data-width), its marker
    (x = LEFT-10, width 6, #303030), its label cpuN, the geometry its
    data-y/data-h say (18 px lanes, 6 px gaps up to 64 CPUs);
  - bars: per (cpu, pid != 0) the summed rect widths against the running
    time computed here from the sched_switch rows (the intervals of
    TIMELINE.md, clipped to the span), within 1 px + 0.001 px per rect;
    no rect outside its lane or over another; one task group per pid on
    a lane, its title COMM-P, one colour per pid; every interval of th
    px or more drawn as a rect of its own at its place, th the smallest
    power of two that holds (at most 64), and a task's drawn time left of
    any x within 2 th + 1 px of its running time left of it;
  - the legend: the (at most 20) tasks with the most running time,
    sorted by it then pid, data-ns against the same computation, its
    text "COMM-P  DURATION" with the duration right to its last digit
    (rounded or cut);
  - a text of the picture (its title) names the buffer ("top" or the
    instance's name);
  - a buffer without sched_switch: density columns, their data-n summed
    per lane the CPU's records in the span, each column where its
    records are (within a pixel), heights proportional to data-n;
  - print ticks: every ftrace:print record in the span on a tick of its
    CPU's lane at its x (within a pixel), one tick a column, data-n the
    prints it holds, its title the record's text (control bytes \\xNN,
    200 bytes at most, then "...", and "(+N more)").
  check.py [--whole] TDAT TRACE CACHE
"""
import bisect
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tllib  # noqa: E402
from tllib import viewlib  # noqa: E402

MARK = '#303030'
BG = '#f4f4f4'
TICK = '#d00000'
EPS = 0.002   # px: 3 decimals in the file


def close(a, b, tol=EPS):
    return abs(a - b) <= tol


class Checker:
    def __init__(self, t, tdat, cache, ref, what):
        self.t, self.tdat, self.cache, self.ref = t, tdat, cache, ref
        self.what = what

    def fail(self, msg):
        self.t.fail('%s: %s' % (self.what, msg))

    def check(self, cond, msg):
        return self.t.check(cond, '%s: %s' % (self.what, msg))

    # ---- the file and its frame
    def run(self, path, t0, t1, window):
        file, data = tllib.produce(self.tdat, self.cache, path)
        self.check(len(data) <= tllib.MAX_BYTES, '%d bytes, more than 2 MiB' % len(data))
        if not tllib.xmllint(self.t, self.what, file):
            return 'not XML'
        try:
            pic = tllib.parse(data)
        except (ValueError, TypeError, tllib.ET.ParseError) as e:
            self.fail('malformed: %s' % e)
            return 'malformed'
        self.pic = pic
        self.span(t0, t1, window)
        if pic.t1 <= pic.t0:
            self.fail('data-t1 %d <= data-t0 %d' % (pic.t1, pic.t0))
            return 'no span'
        if not window:   # all of the buffer (its ends known to +-fuzz here)
            t0, t1 = min(pic.t0, self.ref.first), max(pic.t1, self.ref.last + 1)
        self.t0, self.t1 = t0, t1
        self.lanes()
        texts = [''.join(e.itertext()) for e in pic.root.iter() if tllib.tag(e) == 'text']
        self.check(any(self.ref.name in x for x in texts), 'no text names the buffer'
                   ' %r' % self.ref.name)
        said = '%d bytes, %d lanes' % (len(data), len(pic.lanes))
        if self.ref.nswitch:
            said += self.bars() + self.legend()
        else:
            said += self.density(window)
            self.check(not pic.legend, 'a legend of %d tasks, but no sched_switch'
                       ' in the buffer' % len(pic.legend))
        return said + self.prints()

    def span(self, t0, t1, window):
        pic, fz = self.pic, self.ref.fuzz
        self.check(pic.width == '1600', '<svg width="%s">, want 1600' % pic.width)
        self.check(pic.left >= 0 and pic.left + pic.w <= 1600 and pic.w > 0,
                   'data-left %g, data-width %g: not inside 1600 px' % (pic.left, pic.w))
        if window:
            self.check((pic.t0, pic.t1) == (t0, t1), 'data-t0/t1 %d-%d, want the'
                       ' window %d-%d' % (pic.t0, pic.t1, t0, t1))
        else:
            self.check(abs(pic.t0 - t0) <= fz and t1 - fz <= pic.t1 <= t1 + fz + 1,
                       'data-t0/t1 %d-%d, want the first and last record %d-%d'
                       ' (+-%d)' % (pic.t0, pic.t1, t0, t1, fz))

    def lanes(self):
        pic, cpus = self.pic, self.ref.cpus
        got = [ln.cpu for ln in pic.lanes]
        # in the buffer's order: numeric, or as per_cpu/ lists them
        self.check(got in (cpus, sorted(cpus)), 'lanes for CPUs %s, per_cpu/ lists %s'
                   % (got, cpus))
        bottom = None
        for ln in pic.lanes:
            w = 'lane cpu%d' % ln.cpu
            self.check(ln.h >= 2, '%s: data-h %g' % (w, ln.h))
            if len(cpus) <= 64:
                self.check(ln.h == 18, '%s: data-h %g, want 18 (<= 64 CPUs)' % (w, ln.h))
                if bottom is not None:
                    self.check(ln.y - bottom == 6, '%s: gap %g px above it, want 6'
                               % (w, ln.y - bottom))
            if bottom is not None:
                self.check(ln.y >= bottom + 1, '%s: y %g overlaps the lane above' % (w, ln.y))
            bottom = ln.y + ln.h
            bg, mk = ln.bg, ln.mark
            if self.check(bg is not None, '%s: no rect class="bg"' % w):
                self.check([tllib.num(bg, a) for a in ('x', 'y', 'width', 'height')] ==
                           [pic.left, ln.y, pic.w, ln.h] and
                           (bg.get('fill') or '').lower() == BG,
                           '%s: background %s' % (w, bg.attrib))
            if self.check(mk is not None, '%s: no rect class="mark"' % w):
                self.check([tllib.num(mk, a) for a in ('x', 'y', 'width', 'height')] ==
                           [pic.left - 10, ln.y, 6, ln.h] and
                           (mk.get('fill') or '').lower() == MARK,
                           '%s: marker %s' % (w, mk.attrib))
            self.check(any(lb.strip() == 'cpu%d' % ln.cpu for lb in ln.labels),
                       '%s: labels %s, want cpu%d' % (w, ln.labels, ln.cpu))

    # ---- bars
    def bars(self):
        pic, ref = self.pic, self.ref
        want = ref.running(self.t0, self.t1)
        colour, rects, worst, th_all = {}, 0, 0.0, 1
        for ln in pic.lanes:
            w = 'cpu%d' % ln.cpu
            exp = want.get(ln.cpu, {})
            self.check(len(ln.order) == len(set(ln.order)),
                       '%s: a pid with two task groups' % w)
            self.check(not ln.density, '%s: density columns, but the buffer has'
                       ' sched_switch records' % w)
            self.lane_rects(ln)
            for pid in sorted(set(exp) | set(ln.tasks)):
                task = ln.tasks.get(pid)
                ns, fz, _ = exp.get(pid, (0, 0, []))
                drawn = sum(r[2] for r in task.rects) if task else 0.0
                n = len(task.rects) if task else 0
                rects += n
                tol = 1 + 0.001 * n + pic.px(fz)
                err = drawn - pic.px(ns)
                worst = max(worst, abs(err))
                self.check(abs(err) <= tol, '%s pid %d: rects %.3f px wide (%d rects),'
                           ' running %d ns = %.3f px (tolerance %.3f)'
                           % (w, pid, drawn, n, ns, pic.px(ns), tol))
                if task is None:
                    continue
                self.check(pid != 0, '%s: the idle task (pid 0) drawn' % w)
                self.task(ln, task, colour)
            th_all = max(th_all, self.places(ln, exp))
        return (', %d rects, sums within %.3f px of the running times, th %d'
                % (rects, worst, th_all))

    def lane_rects(self, ln):
        """every rect in its lane and over none other"""
        pic, w = self.pic, 'cpu%d' % ln.cpu
        all_r = sorted((r, pid) for pid, tk in ln.tasks.items() for r in tk.rects)
        bad = [(r, pid) for r, pid in all_r if r[1] != ln.y or r[3] != ln.h or
               r[2] < 0 or r[0] < pic.left - EPS or r[0] + r[2] > pic.left + pic.w + EPS]
        self.check(not bad, '%s: %d rects outside the lane, first %s' % (
            w, len(bad), bad[:1]))
        over = [(a, b) for a, b in zip(all_r, all_r[1:])
                if b[0][0] < a[0][0] + a[0][2] - EPS]
        self.check(not over, '%s: %d rects over another, first %s' % (w, len(over), over[:1]))

    def task(self, ln, task, colour):
        w = 'cpu%d pid %d' % (ln.cpu, task.pid)
        self.check(task.title == '%s-%d' % (task.comm, task.pid),
                   '%s: title %r, data-comm %r' % (w, task.title, task.comm))
        comm = self.ref.comm(task.pid, self.t0, self.t1)
        if comm is not None:
            self.check(task.comm == comm, '%s: data-comm %r, its latest switch in the'
                       ' span says %r' % (w, task.comm, comm))
        self.check(len(task.fill) == 7 and task.fill.startswith('#'),
                   '%s: fill %r' % (w, task.fill))
        old = colour.setdefault(task.pid, task.fill)
        self.check(old == task.fill, '%s: fill %s here, %s on another lane'
                   % (w, task.fill, old))

    def places(self, ln, exp):
        """Where the rects are: th is the smallest power of two for which
        each interval of th px or more is a rect of its own at its x;
        then each task's drawn width left of any x is within 2 th + 1 px
        of its running time left of x.  Returns th."""
        pic, w = self.pic, 'cpu%d' % ln.cpu
        fzpx = pic.px(self.ref.fuzz)
        th = 1
        while th <= 64:
            missing = []
            for pid, (_, _, parts) in exp.items():
                have = sorted(ln.tasks[pid].rects) if pid in ln.tasks else []
                xs = [r[0] for r in have]
                for a, b in parts:
                    x, wd = pic.x(a), pic.px(b - a)
                    if wd < th:
                        continue
                    k = bisect.bisect_left(xs, x - EPS - fzpx)
                    if not (k < len(have) and close(have[k][0], x, EPS + fzpx) and
                            close(have[k][2], wd, EPS + 2 * fzpx)):
                        missing.append((pid, a, b))
            if not missing:
                break
            th *= 2
        if not self.check(th <= 64, '%s: intervals of 64 px and more not drawn as rects'
                          ' at their place (th > 64), first %s' % (w, missing[:1])):
            return th
        for pid, (_, _, parts) in exp.items():
            have = [(r[0], r[0] + r[2]) for r in ln.tasks[pid].rects] if pid in ln.tasks else []
            mine = [(pic.x(a), pic.x(b)) for a, b in parts]
            dev, at = deviation(have, mine)
            self.check(dev <= 2 * th + 1 + 0.001 * len(have) + 2 * fzpx,
                       '%s pid %d: drawn %.3f px off its running time left of x=%.3f'
                       ' (th %d)' % (w, pid, dev, at, th))
        return th

    # ---- legend
    def legend(self):
        pic, ref = self.pic, self.ref
        total, fuzz = {}, {}
        for per in ref.running(self.t0, self.t1).values():
            for pid, (ns, fz, _) in per.items():
                total[pid] = total.get(pid, 0) + ns
                fuzz[pid] = fuzz.get(pid, 0) + fz
        items = pic.legend
        got = [it[0] for it in items]
        self.check(len(got) == len(set(got)), 'legend lists a pid twice: %s' % got)
        tasks = [p for p, ns in total.items() if ns > 0]
        self.check(len(items) == min(20, len(tasks)), 'legend of %d tasks, %d ran in'
                   ' the span' % (len(items), len(tasks)))
        keys = [(-it[2], it[0]) for it in items]
        self.check(keys == sorted(keys), 'legend not sorted by running time, then'
                   ' pid: %s' % [(it[0], it[2]) for it in items])
        fills = {}
        for ln in pic.lanes:
            for pid, tk in ln.tasks.items():
                fills[pid] = tk.fill
        for pid, comm, ns, fill, text in items:
            w = 'legend pid %d' % pid
            tol = fuzz.get(pid, 0)
            self.check(abs(ns - total.get(pid, 0)) <= tol, '%s: data-ns %d, it ran'
                       ' %d ns (+-%d)' % (w, ns, total.get(pid, 0), tol))
            want = ref.comm(pid, self.t0, self.t1)
            if want is not None:
                self.check(comm == want, '%s: data-comm %r, want %r' % (w, comm, want))
            self.check('%s-%d' % (comm, pid) in text, '%s: text %r' % (w, text))
            self.duration(w, text[text.find('%s-%d' % (comm, pid)) + len('%s-%d' % (comm, pid)):], ns)
            if pid in fills:
                self.check(fill == fills[pid], '%s: swatch %s, bars %s' % (w, fill, fills[pid]))
        if items:
            low = min(it[2] for it in items)
            out = [(p, ns) for p, ns in total.items() if p not in got and p != 0 and
                   ns > low + fuzz.get(p, 0)]
            self.check(not out, 'tasks not in the legend ran more than its last'
                       ' (%d ns): %s' % (low, out[:5]))
        return ', legend of %d' % len(items)

    def duration(self, w, text, ns):
        """the legend's running time as text, against its data-ns: a
        number and a unit, right to its last digit (rounded or cut)"""
        m = re.search(r'(\d+(?:\.(\d+))?)\s*(ns|us|\u00b5s|ms|s)\b', text)
        if not self.check(m is not None, '%s: no duration in %r' % (w, text)):
            return
        unit = {'ns': 1, 'us': 10**3, '\u00b5s': 10**3, 'ms': 10**6, 's': 10**9}[m.group(3)]
        if not self.ref.seconds:   # a raw clock: counts, whatever the unit says
            return
        step = unit / 10 ** len(m.group(2) or '')
        # rounded or cut at its last digit
        self.check(abs(float(m.group(1)) * unit - ns) <= step + 1, '%s: %r for'
                   ' data-ns %d' % (w, m.group(0), ns))

    # ---- density
    def density(self, window):
        pic, ref = self.pic, self.ref
        times = {c: ref.times_in(c, self.t0, self.t1) for c in ref.cpus}
        counts = {c: len(v) for c, v in times.items()}
        peak = max((d[4] for ln in pic.lanes for d in ln.density), default=0)
        total = 0
        for ln in pic.lanes:
            w = 'cpu%d' % ln.cpu
            self.check(not ln.tasks, '%s: task bars, but no sched_switch' % w)
            got = sum(d[4] for d in ln.density)
            total += got
            self.check(got == counts[ln.cpu], '%s: density data-n sum %d, the CPU has'
                       ' %d records in the span' % (w, got, counts[ln.cpu]))
            cols = sorted(d[0] for d in ln.density)
            self.check(len(cols) == len(set(cols)), '%s: two columns at one x' % w)
            for x, y, wd, h, n in ln.density:
                self.check(wd == 1 and n > 0 and pic.left - EPS <= x < pic.left + pic.w and
                           close(y + h, ln.y + ln.h, 0.01) and h >= 0 and
                           close(h, ln.h * n / peak, 1),
                           '%s: column x=%g y=%g width=%g height=%g data-n=%d (largest'
                           ' %d)' % (w, x, y, wd, h, n, peak))
            self.columns(ln, sorted(times[ln.cpu]))
        return ', density: %d records' % total

    def columns(self, ln, times):
        """each column's records are within a pixel of it: the records
        drawn left of a column's edge are those left of it +- 1 px"""
        pic = self.pic
        xs = [pic.x(t) for t in times]
        cum = 0
        for x, _, wd, _, n in sorted(ln.density):
            cum += n
            lo = bisect.bisect_left(xs, x + wd - 1 - pic.px(self.ref.fuzz))
            hi = bisect.bisect_right(xs, x + wd + 1 + pic.px(self.ref.fuzz))
            if not self.check(lo <= cum <= hi, 'cpu%d: %d records drawn up to x=%g, %d-%d'
                              ' of its records are within a pixel of there'
                              % (ln.cpu, cum, x + wd, lo, hi)):
                return

    # ---- prints
    def prints(self):
        pic, ref = self.pic, self.ref
        allp = ref.prints()
        prs = [p for p in allp if self.t0 <= p[0] < self.t1]
        # A window's text takes a record by its printed time (SPEC 2.6):
        # with bounds finer than the text's, a print may be in the window's
        # text and not in [T0, T1) of its ns.  Either reading is taken,
        # the one the ticks' count says.
        txt = [p for p in allp if self.t0 <= ref.printed(p[0]) < self.t1]
        drawn = sum(k.n for ln in pic.lanes for k in ln.ticks)
        if txt != prs and drawn == len(txt):
            print('%s: prints taken by their printed time (%d, %d by ns)'
                  % (self.what, len(txt), len(prs)))
            prs = txt
        shown = 0
        for ln in pic.lanes:
            w = 'cpu%d' % ln.cpu
            mine = sorted((p for p in prs if p[1] == ln.cpu), key=lambda p: p[0])
            ticks = sorted(ln.ticks, key=lambda k: k.x)
            shown += len(ticks)
            cols = [int(k.x - pic.left) for k in ticks]
            self.check(len(cols) == len(set(cols)), '%s: two print ticks in one column' % w)
            self.check(sum(k.n for k in ticks) == len(mine), '%s: ticks hold %d prints,'
                       ' the CPU has %d in the span' % (w, sum(k.n for k in ticks), len(mine)))
            self.check(all(k.stroke == TICK for k in ticks), '%s: a tick not %s' % (w, TICK))
            groups = {}
            for ns, _, body in mine:
                x = pic.x(ns)
                k = nearest(ticks, x)
                if not self.check(k is not None, '%s: print at %d (x=%.3f) %r on no tick'
                                  % (w, ns, x, body[:60])):
                    continue
                groups.setdefault(id(k), []).append(body)
            for k in ticks:
                got = groups.get(id(k), [])
                self.check(k.n == len(got), '%s: tick at x=%g data-n %d, %d prints are'
                           ' there' % (w, k.x, k.n, len(got)))
                if got:
                    self.title(w, k, got[0], len(got))
        return ', %d prints in %d ticks' % (len(prs), shown)

    def title(self, w, k, body, n):
        full, long_ = tllib.print_title(body)
        title = k.title or ''
        more = ' (+%d more)' % (n - 1)
        if n > 1:
            if not self.check(title.endswith(more.strip()), '%s: tick title %r: no %r'
                              % (w, title[-80:], more.strip())):
                return
            title = title[:-len(more.strip())].rstrip(' ')
        if long_ and title.endswith('...'):
            cut = title[:-3]
            self.check(full.startswith(cut) and 190 <= len(cut.encode()) <= 800,
                       '%s: tick title %r..., the record says %r' % (w, cut[:80], full[:80]))
        else:
            self.check(title == full, '%s: tick title %r, the record says %r'
                       % (w, title[:240], full[:240]))


def nearest(ticks, x):
    """The tick of X's pixel column, else the nearest within a pixel"""
    best = None
    for k in ticks:
        d = abs(k.x - x)
        if int(k.x) == int(x) and d <= 1:
            return k
        if d <= 1 and (best is None or d < abs(best.x - x)):
            best = k
    return best


def deviation(have, mine):
    """max over x of |width of HAVE left of x - width of MINE left of x|
    (two lists of (start, end)), and where"""
    def cum(lst):
        lst = sorted(lst)
        pre, s = [0.0], 0.0
        for a, b in lst:
            s += b - a
            pre.append(s)
        return [a for a, _ in lst], lst, pre

    def left_of(c, x):
        starts, lst, pre = c
        k = bisect.bisect_right(starts, x)
        if k == 0:
            return 0.0
        a, b = lst[k - 1]
        return pre[k - 1] + min(x, b) - a

    h, m = cum(have), cum(mine)
    worst, at = 0.0, 0.0
    for x in sorted(set([p for ab in have + mine for p in ab])):
        d = abs(left_of(h, x) - left_of(m, x))
        if d > worst:
            worst, at = d, x
    return worst, at


def windows(ref):
    """[(label, T0 key, T1 key, (T0 name, T1 name))]: the middle of the
    buffer, and a few dozen running intervals (or records).  With
    sched_switch records the bounds are in the middle of running
    intervals (so they cut through bars); without, midway between two
    records of the buffer, so that a printed time's rounding moves no
    record across them."""
    out = []
    if ref.nswitch:
        ivs = sorted((s, e) for c in ref.cpus for s, e, _, _ in ref.iv[c])
        at = lambda i: (ivs[i][0] + ivs[i][1]) // 2  # noqa: E731
        if len(ivs) >= 4:
            out.append(('the middle', at(len(ivs) * 3 // 10), at(len(ivs) * 6 // 10)))
        if len(ivs) >= 40:
            k = len(ivs) // 2
            out.append(('30 running intervals', at(k), at(k + 30)))
    else:
        ts = sorted(t for c in ref.cpus for t in ref.times_in(c, 0, 2**64))
        if len(ts) >= 8:
            out.append(('the middle', mid(ts, len(ts) * 3 // 10, ref),
                        mid(ts, len(ts) * 6 // 10, ref)))
        if len(ts) >= 80:
            k = len(ts) // 2
            out.append(('50 records', mid(ts, k, ref), mid(ts, k + 50, ref)))
    return [(lab, a, b, (ref.fmt(a), ref.fmt(b))) for lab, a, b in out
            if a is not None and b is not None and b > a]


def mid(ts, i, ref):
    """a key midway in the first gap of TS at or after index I that is
    wider than 2 steps of the printed time (None if there is none)"""
    for j in range(max(i, 0), len(ts) - 1):
        if ts[j + 1] - ts[j] > 2 * ref.step + 2 * ref.fuzz:
            return (ts[j] + ts[j + 1]) // 2
    return None


def check_buffer(t, tdat, cache, prefix, name, whole_only):
    ref = tllib.Ref(tdat, prefix)
    said = []
    if ref.first is None:   # no record: a picture that parses, no lane drawn on
        what = '%s /%stimeline.svg' % (name, prefix)
        file, data = tllib.produce(tdat, cache, '/%stimeline.svg' % prefix)
        tllib.xmllint(t, what, file)
        return 'no records, %d bytes' % len(data)
    c = Checker(t, tdat, cache, ref, '%s /%stimeline.svg' % (name, prefix))
    said.append('whole: ' + c.run('/%stimeline.svg' % prefix, ref.first, ref.last, None))
    if not whole_only:
        for label, a, b, names in windows(ref):
            path = '/%stime/%s-%s/timeline.svg' % (prefix, names[0], names[1])
            c = Checker(t, tdat, cache, ref, '%s %s (%s)' % (name, path, label))
            said.append('%s: %s' % (label, c.run(path, a, b, names)))
    return '; '.join(said)


def main():
    args = sys.argv[1:]
    whole_only = '--whole' in args
    args = [a for a in args if a != '--whole']
    exe, trace, cache = args
    name = os.path.basename(trace)
    if not os.path.exists(trace):
        print('SKIP: %s is missing' % trace, file=sys.stderr)
        sys.exit(77)
    tdat = viewlib.Tdat(exe, trace)
    t = viewlib.Tally('timeline %s' % name)
    p = subprocess.run([exe, 'index', trace], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    t.check(p.returncode == 0, 'tdat index: status %d: %s' % (
        p.returncode, p.stderr.decode('latin-1').strip()))
    for prefix, bname in tdat.buffers():
        try:
            said = check_buffer(t, tdat, cache, prefix, name, whole_only)
        except RuntimeError as e:
            t.fail(str(e))
            continue
        print('%s %s: %s' % (name, bname, said))
    t.finish()


if __name__ == '__main__':
    main()
