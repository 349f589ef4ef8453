#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The progress line on a terminal (tdat(1), check, index and --progress).

`tdat check TRACE` and `tdat -o index_dir=DIR,threads=1 index TRACE` on a
trace that takes more than a second, with standard error a pseudo-terminal
and no --progress: the line is drawn in place (each update starts with a
carriage return, the last ends the line), its percentages never go down and
the last says 100%; standard output and the exit status are those of the
same command with standard error a file, which shows no line at all.
The line is shown only for work that has taken over a second, and a fast
machine checks or indexes big.dat in less (0.8 s to index it on two
cores): TRACE is BIG-TRACE made 3 times larger by SCALE-TRACE, indexed on
one thread.
    progress-tty.py TDAT BIG-TRACE SCALE-TRACE
"""
import os
import pty
import re
import select
import subprocess
import sys
import tempfile

FAILS = []
CHECKS = [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print('FAIL: ' + what)


def on_tty(argv):
    """run ARGV with stderr on a pty: (status, stdout bytes, stderr bytes)"""
    master, slave = pty.openpty()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=slave)
        os.close(slave)
        err = b''
        while True:
            r, _, _ = select.select([master], [], [], 600)
            if not r:
                p.kill()
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the slave side is closed
                break
            if not chunk:
                break
            err += chunk
        rc = p.wait()
        os.close(master)
        out.seek(0)
        return rc, out.read(), err


def on_file(argv):
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def lines_of(err, what):
    """the progress updates drawn in place: their percentages"""
    # the terminal turns "\n" into "\r\n"
    text = err.decode('utf-8', 'replace').replace('\r\n', '\n')
    pat = re.compile(r'\r(tdat: [^\r\n]*: %s: (\d+)%% of \d+ \w+, '
                     r'[0-9.]+ MB/s(, \d+ s left)?) *' % what)
    return [int(m.group(2)) for m in pat.finditer(text)], text


def main():
    tdat, big, scale = sys.argv[1], sys.argv[2], sys.argv[3]
    if not os.path.exists(big):
        print('SKIP: %s is missing' % big)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'big3.dat')
        subprocess.run([sys.executable, scale, '-k', '3', big, trace],
                       check=True, stdout=subprocess.DEVNULL)
        cases = [
            ('checking', [tdat, 'check', trace], None),
            ('indexing', [tdat, '-o', 'index_dir=' + os.path.join(tmp, 'a') +
                          ',threads=1', 'index', trace],
             [tdat, '-o', 'index_dir=' + os.path.join(tmp, 'b') +
              ',threads=1', 'index', trace]),
        ]
        for what, argv, argv_file in cases:
            rc, out, err = on_tty(argv)
            pcts, text = lines_of(err, what)
            name = ' '.join(os.path.basename(a) for a in argv[1:])
            check(len(pcts) >= 2, '%s: %d updates on the terminal, want '
                  '2 or more: %r' % (name, len(pcts), text[-400:]))
            check(pcts == sorted(pcts), '%s: percentages go down: %r' %
                  (name, pcts))
            check(pcts[-1:] == [100], '%s: the last update is not 100%%: %r'
                  % (name, pcts[-3:]))
            check(re.search(r'%s: 100%% of [^\r\n]*\n' % what, text),
                  '%s: the last update does not end its line' % name)
            # the same command, stderr a file: no line, the same result
            frc, fout, ferr = on_file(argv_file or argv)
            check(what.encode() not in ferr, '%s: a progress line with '
                  'stderr not a terminal: %r' % (name, ferr[:200]))
            check(rc == frc, '%s: status %d on a terminal, %d without' %
                  (name, rc, frc))
            if argv_file:  # tdat index says where: the directories differ
                out = out.replace(b'/a/', b'/b/')
                out = re.sub(rb'built in [0-9.]+ s', b'built', out)
                fout = re.sub(rb'built in [0-9.]+ s', b'built', fout)
            check(out == fout, '%s: stdout differs: %r / %r' %
                  (name, out[:200], fout[:200]))
    print('%d checks, %d failed' % (CHECKS[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
