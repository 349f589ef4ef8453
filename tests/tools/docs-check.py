#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs-check - the documentation promises of the code, as a test.

usage: docs-check.py SRCDIR BUILDDIR

Fails (exit 1, one line per problem) when:
  - a function with external linkage in parser/ or fs/ (what nm lists as
    defined in the two static libraries) has no kernel-doc comment, or has
    more than one (the copies drift);
  - a function of the public API (prefix tdat_ or tdatfs_) is documented
    anywhere but in a header, or an internal one (any other prefix:
    tdp_, text_, tree_, render_, ...) anywhere but at its definition: the
    API is documented where its users read it, internals where they are
    written;
  - a header does not open with its SPDX line and a comment;
  - an option or verb that `tdat --help` or `tdatfs --help` lists is not
    in the program's man page;
  - a source file of parser/ or fs/ (any folder) is not named, by its
    path, in doc/ARCHITECTURE.md, or the document names one that is gone.
"""
import os
import re
import subprocess
import sys

DOC_RE = re.compile(r'/\*\*\s*(?:\n\s*\*)?\s*([A-Za-z_][A-Za-z0-9_]*)\(\)\s*-')


def sources(src):
    for d in ('parser', 'fs'):
        for root, dirs, files in os.walk(os.path.join(src, d)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(root, name), src)


LIBS = ('libtdat-parser.a', 'libtdatfs-common.a', 'libtdatfs-timeline.a',
        'libtdatfs-pftrace.a',
        'libtdatfs-text.a', 'libtdatfs-tree.a', 'libtdatfs-index.a',
        'libtdatfs-fuse.a', 'libtdatfs-cli.a')


def exported_functions(build):
    libs = []
    for root, _, files in os.walk(build):
        for f in files:
            if f in LIBS:
                libs.append(os.path.join(root, f))
    if len(libs) < len(LIBS):
        sys.exit('docs-check: the static libraries ' + ', '.join(LIBS) +
                 ' are not all built under ' + build)
    out = subprocess.run(['nm', '-g', '--defined-only'] + libs,
                         capture_output=True, text=True, check=True).stdout
    return sorted({l.split()[2] for l in out.splitlines()
                   if len(l.split()) == 3 and l.split()[1] == 'T'})


def check_docs(src, build, problems):
    texts = {p: open(os.path.join(src, p), encoding='utf-8').read()
             for p in sources(src)}
    docs = {}
    for p, text in texts.items():
        for m in DOC_RE.finditer(text):
            docs.setdefault(m.group(1), []).append(p)
        if p.endswith('.h'):
            if not text.startswith('/* SPDX-License-Identifier: GPL-2.0-or-later */\n/*'):
                problems.append(f'{p}: does not open with the SPDX line and a '
                                'comment stating the module\'s invariants')
    for fn in exported_functions(build):
        where = docs.get(fn, [])
        if not where:
            problems.append(f'{fn}(): no kernel-doc comment')
            continue
        if len(where) > 1:
            problems.append(f'{fn}(): kernel-doc in {len(where)} places '
                            f'({", ".join(where)}): keep one')
            continue
        public = fn.startswith(('tdat_', 'tdatfs_'))
        if public and not where[0].endswith('.h'):
            problems.append(f'{fn}(): public API documented in {where[0]}, '
                            'not in its header')
        elif not public and where[0].endswith('.h'):
            problems.append(f'{fn}(): internal function documented in '
                            f'{where[0]}, not at its definition')


def man_text(path):
    t = open(path, encoding='utf-8').read()
    t = re.sub(r'\\f[BIRP]|\\f\(..|\\&', '', t)
    return t.replace('\\-', '-')


def help_items(prog, own_only):
    r = subprocess.run([prog, '--help'], capture_output=True, text=True)
    text = r.stdout + r.stderr
    if own_only:                 # libfuse's own list is documented by libfuse
        text = text.split('FUSE options:')[0]
    text = text.split('Exit status')[0]
    items = set(re.findall(r'-o\s+([a-z_]+)', text))
    items |= set(re.findall(r'(?<![\w-])(--[a-z][a-z-]*)', text))
    items |= set(re.findall(r'(?<![\w-])(-[A-Za-z])\b', text))
    return items, text


def check_options(src, build, problems):
    for prog, man, own in (('tdat', 'cli/tdat.1', False), ('tdatfs', 'fuse/tdatfs.1', True)):
        exe = os.path.join(build, 'fs', prog)
        items, text = help_items(exe, own)
        if not items:
            problems.append(f'{prog} --help: no options found in its output')
        page = man_text(os.path.join(src, 'fs', man))
        if prog == 'tdat':
            items |= set(re.findall(r'tdat (?:\[[^]]*\] )*([a-z]+) ', text))
        for it in sorted(items):
            if not re.search(r'(?<![\w-])' + re.escape(it) + r'(?![\w-])', page):
                problems.append(f'{prog} --help lists {it}, fs/{man} does not')


def check_architecture(src, problems):
    doc = os.path.join(src, 'doc', 'ARCHITECTURE.md')
    text = open(doc, encoding='utf-8').read()
    named = set(re.findall(r'(?<![\w/.-])((?:parser|fs)/[\w./-]+\.[ch])(?![\w])',
                           text))
    have = set(sources(src))
    for p in sorted(have - named):
        problems.append(f'{p}: not named in doc/ARCHITECTURE.md (say what '
                        'it holds and where a change goes)')
    for p in sorted(named - have):
        problems.append(f'doc/ARCHITECTURE.md names {p}, which does not exist')


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, build = sys.argv[1], sys.argv[2]
    problems = []
    check_docs(src, build, problems)
    check_options(src, build, problems)
    check_architecture(src, problems)
    for p in problems:
        print('docs-check: ' + p)
    print(f'docs-check: {len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
