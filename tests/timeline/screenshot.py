#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""timeline.svg rendered by a browser (issue 15 item 5): headless Chromium
(Debian's `chromium`, scripts/install-deps) takes a screenshot of each
buffer's whole timeline.svg, 1600 px wide and taller than the svg (the
window's height less chromium's own 87 px is the page's), and the PNG,
decoded here (zlib and the PNG filters, tllib.png_decode()), must show:
  - a picture, not a blank page: at least 4 colours;
  - down the column x = data-left - 7 (through the lane markers), exactly
    one run of the marker colour #303030 per CPU of the buffer's per_cpu/ with data,
    each where its lane's data-y/data-h put it (within a pixel);
  - inside every lane the SVG draws bars or density columns on (1 px and
    more), pixels that are neither the lane background nor white, and, for
    bars, pixels of a task's own fill colour in the lanes all together.
  screenshot.py TDAT TRACE CACHE
Skipped (77) only when TRACE is missing (big.dat lives beside the
checkout); without chromium the test fails (scripts/install-deps installs
it).
"""
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tllib  # noqa: E402
from tllib import viewlib  # noqa: E402

MARK = (0x30, 0x30, 0x30)
BG = (0xf4, 0xf4, 0xf4)
WHITE = (0xff, 0xff, 0xff)
SLACK = 200   # px of window height past the picture's


def near(p, q, d=6):
    return all(abs(a - b) <= d for a, b in zip(p, q))


def hexrgb(s):
    s = (s or '').lstrip('#')
    if len(s) != 6:
        return None
    return tuple(int(s[i:i + 2], 16) for i in (0, 2, 4))


def browser():
    for b in ('chromium', 'chromium-browser'):
        p = shutil.which(b)
        if p:
            return p
    return None


def render(exe, svg, height, tmp):
    """the PNG of SVG, 1600 x HEIGHT, or raises RuntimeError"""
    out = os.path.join(tmp, 'shot.png')
    if os.path.exists(out):
        os.unlink(out)
    # the page's viewport is the window less what headless chromium keeps
    # for itself (87 px here): a window taller than the picture
    cmd = [exe, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
           '--user-data-dir=' + os.path.join(tmp, 'profile'),
           '--screenshot=' + out, '--window-size=1600,%d' % (height + SLACK),
           'file://' + os.path.abspath(svg)]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=180, env=dict(os.environ, HOME=tmp))
    except subprocess.TimeoutExpired:
        raise RuntimeError('chromium took more than 180 s')
    if p.returncode != 0 or not os.path.exists(out):
        raise RuntimeError('chromium: status %d, no %s: %s' % (
            p.returncode, out, p.stderr.decode('latin-1')[-600:]))
    with open(out, 'rb') as f:
        return f.read()


def pixel(rows, x, y):
    r = rows[y]
    return tuple(r[3 * x:3 * x + 3])


def runs_down(rows, x, colour):
    """[(first y, last y)] of the runs of COLOUR down column X"""
    out, start = [], None
    for y in range(len(rows)):
        on = near(pixel(rows, x, y), colour)
        if on and start is None:
            start = y
        if not on and start is not None:
            out.append((start, y - 1))
            start = None
    if start is not None:
        out.append((start, len(rows) - 1))
    return out


def check_buffer(t, tdat, cache, prefix, name, exe, tmp):
    what = '%s /%stimeline.svg' % (name, prefix)
    file, data = tllib.produce(tdat, cache, '/%stimeline.svg' % prefix)
    try:
        pic = tllib.parse(data)
        height = int(math.ceil(float(pic.root.get('height'))))
    except (ValueError, TypeError, tllib.ET.ParseError) as e:
        t.fail('%s: malformed: %s' % (what, e))
        return 'malformed'
    cpus = tllib.text_cpus(tdat, prefix)
    try:
        w, h, rows = tllib.png_decode(render(exe, file, height, tmp))
    except (RuntimeError, ValueError) as e:
        t.fail('%s: %s' % (what, e))
        return 'no screenshot'
    t.check(w == 1600 and h >= height, '%s: screenshot %dx%d, want 1600x%d' % (
        what, w, h, height))
    colours = set()
    for r in rows[::3]:
        colours.update(r[i:i + 3] for i in range(0, len(r), 9))
    t.check(len(colours) >= 4, '%s: the screenshot has %d colours: blank' % (what, len(colours)))
    # one marker run per lane, at its lane
    col = int(pic.left) - 7
    runs = runs_down(rows, col, MARK)
    want = [(int(ln.y), int(math.ceil(ln.y + ln.h)) - 1) for ln in pic.lanes]
    t.check(len(runs) == len(cpus), '%s: %d runs of #303030 down x=%d, the buffer has'
            ' %d CPUs' % (what, len(runs), col, len(cpus)))
    t.check(len(runs) == len(want) and all(abs(a - c) <= 1 and abs(b - d) <= 1
                                           for (a, b), (c, d) in zip(runs, want)),
            '%s: marker runs at rows %s, the lanes are at %s' % (what, runs[:8], want[:8]))
    # bars inside the lanes
    fills = set()
    inked = 0
    for ln in pic.lanes:
        drawn = sum(r[2] for tk in ln.tasks.values() for r in tk.rects) + len(ln.density)
        fills.update(hexrgb(tk.fill) for tk in ln.tasks.values())
        if drawn < 1:
            continue
        ys = range(int(ln.y), int(ln.y + ln.h))
        xs = range(int(pic.left), int(pic.left + pic.w))
        ink = sum(1 for y in ys for x in xs
                  if not near(pixel(rows, x, y), BG, 2) and not near(pixel(rows, x, y), WHITE, 2))
        inked += 1
        t.check(ink > 0, '%s: lane cpu%d draws %.1f px, the screenshot shows none'
                % (what, ln.cpu, drawn))
    fills.discard(None)
    if fills:
        seen = sum(1 for ln in pic.lanes for y in range(int(ln.y), int(ln.y + ln.h))
                   for x in range(int(pic.left), int(pic.left + pic.w))
                   if pixel(rows, x, y) in fills)
        t.check(seen > 0, '%s: no pixel of a task\'s fill inside the lanes' % what)
    else:
        seen = 0
    return '%dx%d, %d colours, %d marker runs, %d lanes inked, %d bar pixels' % (
        w, h, len(colours), len(runs), inked, seen)


def main():
    exe, trace, cache = sys.argv[1:4]
    name = os.path.basename(trace)
    if not os.path.exists(trace):
        print('SKIP: %s is missing' % trace, file=sys.stderr)
        sys.exit(77)
    t = viewlib.Tally('timeline screenshot %s' % name)
    chromium = browser()
    if not chromium:
        t.fail('chromium is not installed (scripts/install-deps installs it)')
        t.finish()
    tdat = viewlib.Tdat(exe, trace)
    tmp = tempfile.mkdtemp(prefix='tdatfs-shot-')
    try:
        for prefix, bname in tdat.buffers():
            try:
                said = check_buffer(t, tdat, cache, prefix, name, chromium, tmp)
            except RuntimeError as e:
                t.fail(str(e))
                continue
            print('%s %s: %s' % (name, bname, said))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.finish()


if __name__ == '__main__':
    main()
