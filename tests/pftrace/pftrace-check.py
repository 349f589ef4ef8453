#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check one trace.pftrace against Perfetto's schema and trace-cmd.

    pftrace-check.py [options] TRACE PFTRACE

The oracles are Perfetto's schema (perfetto_trace.proto, decoded by
Debian's protoc and python3-protobuf) and `trace-cmd report -N -R -t`
(no plugins, raw fields, ns times), never tdatfs's own code:
  - schema: `protoc --decode=perfetto.protos.Trace` exits 0 and prints no
    field by number; the python decoding holds no unknown field;
  - structure (what Perfetto relies on): every bundle has a cpu, every
    event a timestamp, a pid and exactly one event; per CPU, a
    sched_switch's next_pid is the next one's prev_pid unless a bundle
    with lost_events lies between; interned kernel symbols come after a
    packet that clears their sequence's state;
  - content: per CPU, the records of the buffer (the top one, or
    --buffer NAME) in the report's order, with the same time (ns), event
    name and common pid; a typed event's every set field equals the
    report's field of that name, a generic event's fields are the
    format's own fields in order with the report's values; lost_events
    exactly where the report prints "EVENTS DROPPED"; a kernel function
    field (funcgraph func, workqueue function) shows in Perfetto as the
    name trace-cmd prints for it (interned on the event's sequence), or
    as its address where trace-cmd knows no name (check_symbol());
  - system_info's utsname against `trace-cmd dump --options`'s UNAME.
--window T0 T1 (ns): the file holds exactly the records with T0 <= t < T1.
--oracle TRACE2: run trace-cmd on TRACE2 (the same records in an encoding
Debian's trace-cmd reads, e.g. zstd for zlib); --no-content: schema and
structure only (no trace-cmd can read the trace).
Prints a summary and at most 20 mismatches; exit 1 on any mismatch.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

MAX_SHOWN = int(os.environ.get('PFTRACE_CHECK_SHOW', '20'))

# FtraceEvent fields holding an iid of InternedData.kernel_symbols
# (Perfetto's kKernelFunctionFields, for the typed events tdatfs writes)
SYMBOL_FIELDS = {
    ('funcgraph_entry', 'func'), ('funcgraph_exit', 'func'),
    ('workqueue_execute_start', 'function'),
    ('workqueue_execute_end', 'function'),
}


class Problems:
    """The mismatches found, the first MAX_SHOWN of them printed."""

    def __init__(self):
        self.count = 0
        self.known = 0   # known differences (past_page()), counted, not failed
        self.cleared = set()  # (event, field) whose string flag trace-cmd cleared
        self.symbols = {'named': 0, 'address': 0}  # function fields checked

    def add(self, msg):
        self.count += 1
        if self.count <= MAX_SHOWN:
            print('MISMATCH: ' + msg)


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          check=False, **kw)


# ---- the schema --------------------------------------------------------------

def load_trace_class(proto_dir, tmp):
    """perfetto.protos.Trace's class, from protoc's descriptor set."""
    out = os.path.join(tmp, 'perfetto.desc')
    r = run(['protoc', '-I', proto_dir, '--descriptor_set_out=' + out,
             '--include_imports', 'perfetto_trace.proto'])
    if r.returncode != 0:
        sys.exit('protoc --descriptor_set_out failed: ' + r.stderr.decode())
    fds = descriptor_pb2.FileDescriptorSet()
    with open(out, 'rb') as f:
        fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    desc = pool.FindMessageTypeByName('perfetto.protos.Trace')
    if hasattr(message_factory, 'GetMessageClass'):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def protoc_start(proto_dir, path, tmp):
    """Start protoc --decode in the background (it runs beside python's
    own decoding): its text (4 times the file) goes through grep, not
    through python; grep keeps the first field printed by number."""
    script = ('protoc -I "$1" --decode=perfetto.protos.Trace perfetto_trace.proto'
              ' < "$2" 2>"$3" | { grep -n -m 1 -E \'^ *[0-9]+(: | \\{)\' > "$4";'
              ' cat >/dev/null; }; exit "${PIPESTATUS[0]}"')
    err, hit = os.path.join(tmp, 'protoc.err'), os.path.join(tmp, 'protoc.hit')
    proc = subprocess.Popen(['bash', '-c', script, 'protoc', proto_dir, path,
                             err, hit])
    return proc, err, hit


def protoc_finish(started, problems):
    """protoc --decode exits 0 and prints no field by its number (how it
    prints an unknown field or one of the wrong wire type)."""
    proc, err, hit = started
    rc = proc.wait()
    if rc != 0:
        with open(err, errors='replace') as f:
            problems.add('protoc --decode exits %d: %s' % (rc, f.read()[:300]))
    with open(hit, errors='replace') as f:
        line = f.read().strip()
    if line:
        problems.add('protoc --decode prints a field by number, line %s' % line[:120])


def unknown_fields(trace, data, problems):
    """No field the schema does not know, no event with two events.

    With the unknown fields discarded, the message's canonical size is
    the file's size when nothing was unknown, no oneof member was
    overwritten by a second one and every length is a minimal varint;
    only when the sizes differ is the file walked field by field
    (slowly, in python) to say which of these it is.
    """
    trace.DiscardUnknownFields()
    known = trace.ByteSize()
    if known == len(data):
        return
    copy = type(trace)()
    copy.ParseFromString(data)
    with_unknown = copy.ByteSize()
    if with_unknown != known:
        problems.add('%d bytes of fields unknown to the schema'
                     % (with_unknown - known))
    wire_walk(trace.DESCRIPTOR, data, problems)


def varint(data, i):
    """(value, next offset, bytes used) of the varint at data[i]."""
    v = shift = 0
    start = i
    while True:
        if i >= len(data):
            raise ValueError('varint runs past the end')
        c = data[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i, i - start


WIRE = {'varint': 0, 'fixed64': 1, 'len': 2, 'fixed32': 5}


def wire_of(fd):
    t = fd.type
    if t in (fd.TYPE_DOUBLE, fd.TYPE_FIXED64, fd.TYPE_SFIXED64):
        return 1
    if t in (fd.TYPE_FLOAT, fd.TYPE_FIXED32, fd.TYPE_SFIXED32):
        return 5
    if t in (fd.TYPE_STRING, fd.TYPE_BYTES, fd.TYPE_MESSAGE):
        return 2
    return 0


def wire_walk(desc, data, problems, start=0, end=None, path='Trace', stats=None):
    """Walk the wire format against the schema: unknown numbers, wrong wire
    types, two members of one oneof; non-minimal lengths are counted (legal,
    Perfetto's own writer back-fills 4-byte lengths)."""
    top = stats is None
    if top:
        stats = {'nonminimal': 0}
    end = len(data) if end is None else end
    i = start
    oneofs = {}
    try:
        while i < end:
            key, i, _ = varint(data, i)
            num, wt = key >> 3, key & 7
            fd = desc.fields_by_number.get(num)
            if wt == 0:
                val, i, _ = varint(data, i)
            elif wt == 1:
                i += 8
            elif wt == 5:
                i += 4
            elif wt == 2:
                n, j, used = varint(data, i)
                if used > 1 and n < 1 << (7 * (used - 1)):
                    stats['nonminimal'] += 1
                i = j + n
                if i > end:
                    problems.add('%s: field %d runs past its message' % (path, num))
                    return
            else:
                problems.add('%s @%d: wire type %d' % (path, i, wt))
                return
            if fd is None:
                problems.add('%s: field number %d unknown to the schema' % (path, num))
                continue
            if wt != wire_of(fd) and not (wt == 2 and fd.label == fd.LABEL_REPEATED):
                problems.add('%s.%s: wire type %d, the schema says %d'
                             % (path, fd.name, wt, wire_of(fd)))
                continue
            if fd.containing_oneof is not None:
                seen = oneofs.get(fd.containing_oneof.name)
                if seen and seen != fd.name:
                    problems.add('%s: oneof %s holds both %s and %s'
                                 % (path, fd.containing_oneof.name, seen, fd.name))
                oneofs[fd.containing_oneof.name] = fd.name
            if wt == 2 and fd.type == fd.TYPE_MESSAGE:
                wire_walk(fd.message_type, data, problems, j, j + n,
                          path + '.' + fd.name, stats)
    except ValueError as e:
        problems.add('%s: %s' % (path, e))
    if top and stats['nonminimal']:
        print('note: %d lengths are non-minimal varints (legal)' % stats['nonminimal'])


# ---- trace-cmd, the oracle -------------------------------------------------

REC = re.compile(r'^\s*(?P<comm>.*)-(?P<pid>-?\d+)\s+\[(?P<cpu>\d+)\]\s*'
                 r'(?P<ts>\d+(?:\.\d+)?): (?P<name>[^\s:]+):\s*(?P<rest>.*)$',
                 re.S)
DROP = re.compile(r'^CPU:(\d+) \[(?:(\d+) )?EVENTS DROPPED\]$')


def ts_ns(text):
    """A report time (s.ns, or a bare count of a counter clock) in ns."""
    if '.' in text:
        s, frac = text.split('.')
        return int(s) * 1000000000 + int((frac + '000000000')[:9])
    return int(text)


def buffer_names(opts_text):
    """The named buffers (instances) in `trace-cmd dump --options`."""
    return re.findall(r'^"([^"]+)" \[name\]$', opts_text, re.M)


def read_report(text, buffer, instances):
    """The records of one buffer: {cpu: [[ts, name, pid, fields, drop]]}.

    drop: the report prints EVENTS DROPPED before this record.  A line
    that is no record continues the one before (a print with newlines).
    """
    prefix = None
    if instances:
        prefix = re.compile(r'^\s*(%s): ' % '|'.join(
            re.escape(n) for n in sorted(instances, key=len, reverse=True)))
    cpus = {}
    last = None
    pending_drop = set()
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    for line in lines[1:] if lines and lines[0].startswith('cpus=') else lines:
        buf = None
        body = line
        if prefix:
            m = prefix.match(line)
            if m:
                buf = m.group(1)
                body = line[m.end():]
        d = DROP.match(body.strip())
        if d:
            if buf == buffer:
                pending_drop.add(int(d.group(1)))
            last = None
            continue
        m = REC.match(body)
        if not m:
            if last is not None:
                last[3] += '\n' + line
            continue
        if buf != buffer:
            last = None
            continue
        cpu = int(m.group('cpu'))
        rec = [ts_ns(m.group('ts')), m.group('name'), int(m.group('pid')),
               m.group('rest'), cpu in pending_drop]
        pending_drop.discard(cpu)
        cpus.setdefault(cpu, []).append(rec)
        last = rec
    return cpus


FIELD = re.compile(r'^\s*field:(?P<decl>[^;]*);\s*offset:\d+;\s*size:(?P<size>\d+);'
                   r'\s*signed:(?P<signed>-?\d+);', re.M)


def read_formats(text):
    """{event name: [[(field, size, signed, is_array, decl)...], ...]}.

    Only each format's own fields (after the blank line that ends the
    common ones); several formats may share a name.
    """
    formats = {}
    for block in re.split(r'\n(?=name: )', text):
        m = re.match(r'name: (\S+)', block)
        if not m or '\nformat:' not in block:
            continue
        body = block.split('\nformat:', 1)[1].split('\nprint fmt:', 1)[0]
        parts = re.split(r'\n\s*\n', body.strip('\n'), maxsplit=1)
        own = parts[1] if len(parts) > 1 else ''
        fields = []
        for f in FIELD.finditer(own):
            decl = f.group('decl').strip()
            name = re.sub(r'\[.*$', '', decl.split()[-1])
            fields.append((name, int(f.group('size')),
                           f.group('signed') == '1',
                           '[' in decl, decl))
        formats.setdefault(m.group(1), []).append(fields)
    return formats


class Oracle:
    """What trace-cmd says about one trace (lazily, what costs more)."""

    def __init__(self, trace):
        self.trace = trace
        self._syms = None
        self._printk = None
        self.splitters = {}

    def report_start(self, tmp):
        """trace-cmd report -N -R -t, started in the background."""
        out = open(os.path.join(tmp, 'report'), 'wb')
        proc = subprocess.Popen(['trace-cmd', 'report', '-N', '-R', '-t', '-i',
                                 self.trace], stdout=out, stderr=subprocess.DEVNULL)
        return proc, out

    def report_finish(self, started):
        proc, out = started
        proc.wait()
        out.close()
        with open(out.name, 'rb') as f:
            return f.read().decode('utf-8', errors='surrogateescape')

    def report(self):
        r = run(['trace-cmd', 'report', '-N', '-R', '-t', '-i', self.trace])
        return r.stdout.decode('utf-8', errors='surrogateescape')

    def options(self):
        r = run(['trace-cmd', 'dump', '--options', self.trace])
        return r.stdout.decode('utf-8', errors='replace')

    def formats(self):
        text = ''
        for what in ('--ftrace-events', '--events'):
            r = run(['trace-cmd', 'dump', what, self.trace])
            text += r.stdout.decode('utf-8', errors='replace') + '\n'
        self.fmts = read_formats(text)

    def symbols(self):
        """(sorted addresses, {address: [names]}) from report -f."""
        if self._syms is None:
            r = run(['trace-cmd', 'report', '-f', '-i', self.trace])
            names = {}
            for line in r.stdout.decode('utf-8', errors='replace').split('\n'):
                p = line.split()
                if len(p) >= 2:
                    try:
                        names.setdefault(int(p[0], 16), []).append(p[1])
                    except ValueError:
                        pass
            self._syms = (sorted(names), names)
        return self._syms

    def printk(self):
        """{address: string} from report -P (trace_printk formats), which
        trace-cmd 3.1.6 prints as "ffffffffa1cfa5fd Start context switch"
        (the printk_formats file's "0x... : \"...\"" is read too)."""
        if self._printk is None:
            r = run(['trace-cmd', 'report', '-P', '-i', self.trace])
            self._printk = {}
            for line in r.stdout.decode('utf-8', errors='replace').split('\n'):
                m = re.match(r'^(?:0x)?([0-9a-fA-F]+)(?: : | )(.*)$', line)
                if m:
                    try:
                        s = m.group(2)
                        if s.startswith('"') and s.endswith('"'):
                            s = s[1:-1]
                        self._printk[int(m.group(1), 16)] = s
                    except ValueError:
                        pass
        return self._printk

    def split_fields(self, name, rest):
        """A record's `f=v f=v` text as [(field, text)], or None."""
        for fields in self.fmts.get(name, []):
            key = (name, tuple(f[0] for f in fields))
            rx = self.splitters.get(key)
            if rx is None:
                pat = ' '.join(re.escape(f[0]) + '=(.*?)' for f in fields)
                rx = re.compile('^' + pat + '$', re.S) if fields else re.compile('^$')
                self.splitters[key] = rx
            m = rx.match(rest)
            if m:
                return fields, m.groups()
        return None, None


# ---- values: the report's text against a number or a string --------------------

def as_number(text):
    """The numbers a report text may mean: decimal, octal, hex with or without 0x."""
    t = text.strip()
    out = []
    try:
        out.append(int(t, 10))
    except ValueError:
        pass
    if re.fullmatch(r'0?[0-7]+', t):   # %o, as -R prints a field the format shows so
        out.append(int(t, 8))
    h = t[2:] if t[:2].lower() == '0x' else t
    if h and re.fullmatch(r'[0-9a-fA-F]+', h):
        out.append(int(h, 16))
    elif t.startswith('-0x'):
        try:
            out.append(-int(t[3:], 16))
        except ValueError:
            pass
    return out


def same_mod(a, b, size):
    bits = 8 * size if size in (1, 2, 4, 8) else 64
    return (a - b) % (1 << bits) == 0


def symbol_of(oracle, value):
    """The names and offset libtraceevent would print for an address."""
    addrs, names = oracle.symbols()
    i = bisect.bisect_right(addrs, value) - 1
    if i < 0:
        return [], 0
    return names[addrs[i]], value - addrs[i]


def number_matches(oracle, value, text, size):
    """Does the report's text show this number (any base, or a symbol)?"""
    if any(same_mod(value, n, size) for n in as_number(text)):
        return True
    t = text.strip()
    if t == '(nil)':        # glibc's %p of a pointer field that is 0
        return value == 0
    if not t or t.startswith('ARRAY['):
        return False
    name, _, off = t.partition('+')
    names, at = symbol_of(oracle, value & ((1 << 64) - 1))
    if name in names:
        if off:
            return as_number(off) and as_number(off)[-1] == at
        return True
    return oracle.printk().get(value & ((1 << 64) - 1)) == t


def array_bytes(text):
    """ARRAY[0b, 00, ...] as bytes, or None."""
    if not (text.startswith('ARRAY[') and text.endswith(']')):
        return None
    inner = text[6:-1].strip()
    if not inner:
        return b''
    try:
        return bytes(int(x, 16) for x in inner.split(', '))
    except ValueError:
        return None


def past_page(value, text):
    """Whether ours and the report's ARRAY[...] differ only where ours is
    zeroes to the end: a last array that runs past its record's page
    (kernel_stack's caller[8] of a short stack at a page's end), where
    trace-cmd shows the memory after the page.  The same known difference
    as fields.tsv's (tests/tools/fields-check.py)."""
    if not (value.startswith('ARRAY[') and text.startswith('ARRAY[')):
        return False
    a, b = value[6:-1].split(', '), text[6:-1].split(', ')
    if len(a) != len(b) or a == b:
        return False
    k = next(i for i in range(len(a)) if a[i] != b[i])
    return all(x == '00' for x in a[k:])


def flag_cleared(value, text):
    """Whether the report's ARRAY[...] holds the first bytes of our text,
    with no NUL among them: the same bytes, which trace-cmd prints as an
    array because libtraceevent cleared the field's string flag at an
    earlier record (in time order, maybe on another CPU than this one)."""
    raw = array_bytes(text)
    if not raw or b'\0' in raw:
        return False
    return value.startswith(raw.decode('utf-8', errors='replace'))


def string_matches(value, text, last):
    """A string field against the report: as printed, or ARRAY[] bytes."""
    if value == text:
        return True
    if last and value.endswith('\n') and value[:-1] == text:
        return True  # trace-cmd drops the record's last newline
    raw = array_bytes(text)
    if raw is not None:
        raw = raw.split(b'\0', 1)[0]
        return value.encode('utf-8', errors='surrogateescape') == raw
    return False


# ---- the file's events --------------------------------------------------------

def holder_of(oracle, value):
    """The names of the symbol libtraceevent finds for an address (the one
    that holds it: the last start at or below it, none past the last
    symbol of trace-cmd report -f), or []."""
    addrs, names = oracle.symbols()
    i = bisect.bisect_right(addrs, value) - 1
    if i < 0 or i == len(addrs) - 1 and value != addrs[i]:
        return []
    return names[addrs[i]]


def check_symbol(o, ctx, kind, fname, val, shown, text, where):
    """A kernel function field as Perfetto shows it against trace-cmd.

    Perfetto shows the name interned for the iid on the event's sequence
    in or before its packet (@shown), else the value as %#llx
    (InternedKernelSymbolOrFallback, doc/PERFETTO.md section 5).  Where
    the format prints the field with %ps, -R prints the name
    libtraceevent finds for the address (the symbol that holds it,
    without an offset), or the address where it finds none: the two must
    say the same.  Where it prints a number (4.x kernels' "--> %lx"),
    trace-cmd's function graph display names it by the same lookup:
    then the name must be one of those trace-cmd report -f lists where
    that symbol starts.  Return 'named' or 'address' (what matched), or
    None after a mismatch.
    """
    t = text.strip()
    addr = None
    if re.fullmatch(r'0[xX][0-9a-fA-F]+', t):
        addr = int(t, 16)
    elif re.fullmatch(r'[0-9a-fA-F]+', t):
        addr = int(t, 16)
    if addr is None or not same_mod(val, addr, 8):
        if shown is not None and shown == t:
            return 'named'
        ctx.add('%s: %s.%s = %#x, Perfetto shows %r; report says %s=%s'
                % (where, kind, fname, val, shown if shown is not None
                   else '%#x' % val if val else '0', fname, t))
        return None
    names = holder_of(o, val)
    if shown is None and not names or shown in names:
        return 'named' if names else 'address'
    ctx.add('%s: %s.%s = %#x, Perfetto shows %r; report says %s=%s, '
            'trace-cmd names it %s' % (where, kind, fname, val, shown if shown is not None
                                        else '%#x' % val if val else '0', fname, t,
                                        '/'.join(names) or 'by its address'))
    return None


def check_typed(o, ctx, rec, kind, msg, fields, values, shown, where):
    """A typed event: every set field equals the report's field; @shown:
    the names Perfetto gives its kernel function fields (walk())."""
    byname = {}
    for i, f in enumerate(fields):
        byname[f[0]] = (f, values[i], i == len(fields) - 1)
    for fd, val in msg.ListFields():
        fname = fd.name
        if fname not in byname:
            ctx.add('%s: %s.%s = %r: the format has no field %s'
                    % (where, kind, fname, val, fname))
            continue
        f, text, last = byname[fname]
        if (kind, fname) in SYMBOL_FIELDS:
            how = check_symbol(o, ctx, kind, fname, val, shown.get(fname),
                               text, where)
            if how:
                ctx.symbols[how] += 1
            continue
        if fd.label == fd.LABEL_REPEATED:
            raw = array_bytes(text)
            ok = False
            if raw is not None and val:
                w = len(raw) // len(val) if len(raw) % len(val) == 0 else 0
                for order in ('little', 'big'):
                    if w and list(val) == [
                            int.from_bytes(raw[i:i + w], order)
                            for i in range(0, len(raw), w)]:
                        ok = True
            if not ok:
                ctx.add('%s: %s.%s = %s, report says %s'
                        % (where, kind, fname, list(val), text[:80]))
            continue
        if isinstance(val, str):
            ok = string_matches(val, text, last)
        elif isinstance(val, bytes):
            ok = string_matches(val.decode('utf-8', errors='surrogateescape'),
                                text, last)
        elif isinstance(val, bool):
            ok = number_matches(o, int(val), text, f[1])
        else:
            ok = number_matches(o, val, text, f[1])
        if not ok:
            ctx.add('%s: %s.%s = %r, report says %s=%s'
                    % (where, kind, fname, val, fname, text[:80]))


def check_generic(o, ctx, rec, msg, fields, values, where):
    """A generic event: the format's own fields in order, the report's values."""
    if msg.event_name != rec[1]:
        ctx.add('%s: generic event_name %r, report says %s'
                % (where, msg.event_name, rec[1]))
    got = [f.name for f in msg.field]
    want = [f[0] for f in fields]
    if got != want:
        ctx.add('%s: generic %s fields %s, the format has %s'
                % (where, rec[1], got, want))
        return
    for i, gf in enumerate(msg.field):
        text = values[i]
        which = gf.WhichOneof('value')
        if which is None:
            ctx.add('%s: generic %s.%s has no value, report says %s'
                    % (where, rec[1], gf.name, text[:80]))
        elif which == 'str_value':
            key = (rec[1], gf.name)
            if gf.str_value == text and text.startswith('ARRAY['):
                # libtraceevent clears a string field's flag for good at
                # a value it cannot print; trace-cmd then shows every
                # later value as ARRAY[...], ours each as if it came first
                # (tdatfs(1) BUGS; fields-check.py's known difference)
                ctx.cleared.add(key)
            if past_page(gf.str_value, text) or (
                    text.startswith('ARRAY[') and
                    not gf.str_value.startswith('ARRAY[') and
                    (key in ctx.cleared or flag_cleared(gf.str_value, text))):
                ctx.known += 1
            elif not string_matches(gf.str_value, text, i == len(fields) - 1):
                ctx.add('%s: generic %s.%s = %r, report says %r'
                        % (where, rec[1], gf.name, gf.str_value[:80], text[:80]))
        elif which in ('int_value', 'uint_value'):
            v = getattr(gf, which)
            if number_matches(o, v, text, fields[i][1]):
                pass
            elif any(same_mod(v, n, w) for n in as_number(text)
                     for w in (1, 2, 4) if w < fields[i][1]):
                # -R prints a field through its print format's narrowing
                # cast ((u8)REC->e): ours is the field's whole value
                ctx.known += 1
            else:
                ctx.add('%s: generic %s.%s = %s %d, report says %s'
                        % (where, rec[1], gf.name, which, v, text[:80]))
        else:
            ctx.add('%s: generic %s.%s holds %s' % (where, rec[1], gf.name, which))


def where_of(pos):
    """(packet, cpu, event) as the text that names an event."""
    return 'packet %d cpu %d event %d' % pos


def walk(trace, ctx):
    """The packets in order: (system_info, shown, {cpu: [(event, lost, pos)]},
    bundles, symbols).

    lost: a bundle with lost_events came since this CPU's previous event;
    pos: (packet, cpu, event index); shown: {pos: {field: name or None}},
    the name Perfetto takes for each kernel function field of an event:
    interned on the packet's sequence, in that packet or an earlier one
    since the last that cleared the sequence's state; symbols: the kernel
    symbols interned.  Also the structural checks that need no oracle.
    """
    sysinfo = None
    tables = {}   # sequence id: {iid: name}, from its last clearing packet
    shown = {}
    nsyms = 0
    cpus = {}
    pending = {}
    sysinfo_at = None
    nbundles = 0
    sym_kinds = {k for k, _ in SYMBOL_FIELDS}
    for pi, pkt in enumerate(trace.packet):
        if pkt.HasField('system_info'):
            sysinfo = pkt.system_info
            sysinfo_at = pi
        seq = pkt.trusted_packet_sequence_id
        if pkt.sequence_flags & 1:
            tables[seq] = {}
        if pkt.HasField('interned_data'):
            if not seq or seq not in tables:
                ctx.add('packet %d: interned_data %s (Perfetto ignores it)'
                        % (pi, 'without trusted_packet_sequence_id' if not seq
                           else 'before a packet with '
                           'SEQ_INCREMENTAL_STATE_CLEARED on sequence %d' % seq))
            for sym in pkt.interned_data.kernel_symbols:
                if not sym.HasField('iid'):
                    ctx.add('packet %d: a kernel symbol without iid' % pi)
                nsyms += 1
                if seq and seq in tables:
                    tables[seq][sym.iid] = sym.str.decode('utf-8', errors='replace')
        if not pkt.HasField('ftrace_events'):
            continue
        b = pkt.ftrace_events
        nbundles += 1
        for f in ('ftrace_clock', 'previous_bundle_end_timestamp',
                  'last_read_event_timestamp'):
            if b.HasField(f):
                ctx.add('packet %d: bundle sets %s (Perfetto hides data before it)'
                        % (pi, f))
        if not b.HasField('cpu'):
            ctx.add('packet %d: bundle without cpu (Perfetto drops it)' % pi)
            continue
        cpu = b.cpu
        lost = b.lost_events
        lst = cpus.setdefault(cpu, [])
        table = tables.get(seq, {})
        for ei, ev in enumerate(b.event):
            kind = ev.WhichOneof('event')
            if not (ev.HasField('timestamp') and ev.HasField('pid') and kind) \
                    or ev.HasField('common_flags'):
                kinds = [fd.name for fd, _ in ev.ListFields()]
                ctx.add('%s: fields %s: want timestamp, pid and one event '
                        '(no common_flags: Perfetto reads it as an event)'
                        % (where_of((pi, cpu, ei)), kinds))
            if kind in sym_kinds and seq != 1:
                ctx.add('%s: %s with an iid in a packet of sequence %d'
                        % (where_of((pi, cpu, ei)), kind, seq))
            if kind in sym_kinds:
                msg = getattr(ev, kind)
                shown[(pi, cpu, ei)] = {
                    f: table.get(getattr(msg, f)) for k, f in SYMBOL_FIELDS
                    if k == kind and msg.HasField(f)}
            lst.append((ev, lost, (pi, cpu, ei)))
            lost = False
        if lost:  # a bundle with lost_events and no event: the next one's
            pending[cpu] = True
        elif b.event and pending.pop(cpu, False):
            e0 = lst[len(lst) - len(b.event)]
            lst[len(lst) - len(b.event)] = (e0[0], True, e0[2])
    if sysinfo is not None and sysinfo_at != 0:
        ctx.add('system_info is packet %d, not the first' % sysinfo_at)
    return sysinfo, shown, cpus, nbundles, nsyms


def switch_chain(cpus):
    """Per CPU, where a sched_switch's prev_pid is not the next_pid of the
    one before it with no lost_events between: [(cpu, time, where, was, is)].
    """
    breaks = []
    for cpu, evs in sorted(cpus.items()):
        prev = None
        lost = False
        for ev, was_lost, pos in evs:
            lost = lost or was_lost
            if ev.WhichOneof('event') != 'sched_switch':
                continue
            s = ev.sched_switch
            if prev is not None and not lost and prev.next_pid != s.prev_pid:
                breaks.append((cpu, ev.timestamp, where_of(pos), prev.next_pid,
                               s.prev_pid))
            prev = s
            lost = False
    return breaks


def report_breaks(o, report, window):
    """The same breaks in trace-cmd's records: {(cpu, time)}.

    Recorded traces have them (a task switched out twice with no switch
    in between: events filtered or lost without a mark); Perfetto can
    only rely on what the records hold.
    """
    out = set()
    for cpu, recs in report.items():
        prev = None
        for r in recs:
            if window and not window[0] <= r[0] < window[1]:
                continue
            if r[4]:
                prev = None
            if r[1] != 'sched_switch':
                continue
            fields, values = o.split_fields(r[1], r[3])
            if fields is None:
                continue
            f = {fl[0]: v for fl, v in zip(fields, values)}
            try:
                pp, np_ = int(f['prev_pid']), int(f['next_pid'])
            except (KeyError, ValueError):
                continue
            if prev is not None and prev != pp:
                out.add((cpu, r[0]))
            prev = np_
    return out


def check_chain(breaks, known, ctx):
    """Every break of the file's chain is one of trace-cmd's records."""
    for cpu, ts, where, was, now in breaks:
        if known is None or (cpu, ts) not in known:
            ctx.add('%s (time %d): sched_switch prev_pid %d, the one before on '
                    'cpu %d switched to %d%s' % (where, ts, now, cpu, was,
                    '' if known is None else ' (trace-cmd\'s records chain there)'))


def check_uname(sysinfo, opts, ctx):
    m = re.search(r'\[Option UNAME, \d+ bytes\]\n([^\n]*)', opts)
    if not m:
        if sysinfo is not None and sysinfo.HasField('utsname'):
            ctx.add('system_info.utsname %r but the trace has no UNAME'
                    % str(sysinfo.utsname).replace('\n', ' '))
        return 'none'
    words = m.group(1).strip('\0').split()
    if sysinfo is None:
        ctx.add('no system_info, the trace has UNAME %r' % m.group(1))
        return m.group(1)
    u = sysinfo.utsname
    want = {'sysname': words[0] if words else '',
            'release': words[2] if len(words) > 2 else '',
            'machine': words[-1] if len(words) > 3 else ''}
    for k, v in want.items():
        if getattr(u, k) != v:
            ctx.add('system_info.utsname.%s %r, UNAME %r says %r'
                    % (k, getattr(u, k), m.group(1), v))
    return m.group(1)


def render_generic(msg):
    """A generic event's fields as `-R` would print the same values."""
    parts = []
    for gf in msg.field:
        w = gf.WhichOneof('value')
        v = getattr(gf, w) if w else None
        parts.append(gf.name + '=' + (v if w == 'str_value' else str(v)))
    return ' '.join(parts)


def typed_fast(msg, fields, values):
    """True when every set field prints as the report's text (the common
    case, checked without the slow rules of check_typed)."""
    byname = {f[0]: values[i] for i, f in enumerate(fields)}
    for fd, val in msg.ListFields():
        t = byname.get(fd.name)
        if t is None or (t != val and t != str(val)):
            return False
    return True


def compare(o, report, cpus, shown, ctx, window):
    """Per CPU, the file's events against the report's records."""
    total = 0
    counts = {'typed': 0, 'generic': 0}
    sym_kinds = {k for k, _ in SYMBOL_FIELDS}
    for cpu in sorted(set(report) | set(cpus)):
        want = report.get(cpu, [])
        if window:
            want = [r for r in want if window[0] <= r[0] < window[1]]
        got = cpus.get(cpu, [])
        total += len(want)
        n = min(len(want), len(got))
        for i in range(n):
            rec = want[i]
            ev, lost, pos = got[i]
            kind = ev.WhichOneof('event')
            msg = getattr(ev, kind) if kind else None
            name = msg.event_name if kind == 'generic' else kind
            if ev.timestamp != rec[0] or name != rec[1] or ev.pid != rec[2]:
                ctx.add('%s: cpu %d record %d: (time %d, %s, pid %d), report '
                        'has (time %d, %s, pid %d); stop comparing this cpu'
                        % (where_of(pos), cpu, i, ev.timestamp, name, ev.pid,
                           rec[0], rec[1], rec[2]))
                break
            # in a window, a loss before its first record may show or not
            if lost != rec[4] and not (window and i == 0):
                ctx.add('%s: cpu %d time %d: lost_events %s, report %s'
                        % (where_of(pos), cpu, rec[0], 'set' if lost else 'unset',
                           'prints EVENTS DROPPED before it' if rec[4]
                           else 'drops nothing there'))
            if kind == 'generic':
                counts['generic'] += 1
                if render_generic(msg) == rec[3]:
                    continue
            else:
                counts['typed'] += 1
            fields, values = o.split_fields(rec[1], rec[3])
            if fields is None:
                ctx.add('%s: cpu %d time %d: report fields of %s do not fit '
                        'its format: %s' % (where_of(pos), cpu, rec[0], rec[1],
                                            rec[3][:100]))
                continue
            w = '%s (cpu %d time %d)' % (where_of(pos), cpu, rec[0])
            if kind == 'generic':
                check_generic(o, ctx, rec, msg, fields, values, w)
            elif kind in sym_kinds or not typed_fast(msg, fields, values):
                check_typed(o, ctx, rec, kind, msg, fields, values,
                            shown.get(pos, {}), w)
        else:
            if len(want) != len(got):
                extra = got[n] if len(got) > n else None
                ctx.add('cpu %d: %d events, report has %d records%s'
                        % (cpu, len(got), len(want),
                           (' (first extra: %s time %d)'
                            % (where_of(extra[2]), extra[0].timestamp))
                           if extra else
                           ' (first missing: time %d %s)' % (want[n][0], want[n][1])))
    return total, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('pftrace')
    ap.add_argument('--proto-dir', required=True,
                    help='the folder of perfetto_trace.proto')
    ap.add_argument('--buffer', help='an instance name (default: the top buffer)')
    ap.add_argument('--oracle', help='the trace trace-cmd reads instead of TRACE')
    ap.add_argument('--window', nargs=2, type=int, metavar=('T0', 'T1'))
    ap.add_argument('--no-content', action='store_true')
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix='pftrace-check.') as tmp:
        return check(a, tmp)


def check(a, tmp):
    """Everything, trace-cmd and protoc running beside python."""
    ctx = Problems()
    label = os.path.basename(a.trace) + ':' + (
        ('instances/%s/' % a.buffer) if a.buffer else '') + (
        'time/%d-%d/' % tuple(a.window) if a.window else '') + 'trace.pftrace'
    o = Oracle(a.oracle or a.trace)
    rep = None if a.no_content else o.report_start(tmp)
    pro = protoc_start(a.proto_dir, a.pftrace, tmp)
    trace_cls = load_trace_class(a.proto_dir, tmp)
    with open(a.pftrace, 'rb') as f:
        data = f.read()
    if data[:1] != b'\x0a' and data:
        ctx.add('the file starts with byte %#x, not 0x0a (Trace.packet)' % data[0])
    trace = trace_cls()
    try:
        trace.ParseFromString(data)
    except Exception as e:  # the schema refuses it: nothing more to read
        ctx.add('python protobuf cannot parse it: %s' % e)
        protoc_finish(pro, ctx)
        print('%s: %d bytes, %d mismatches' % (label, len(data), ctx.count))
        return 1
    unknown_fields(trace, data, ctx)
    sysinfo, shown, cpus, nbundles, nsyms = walk(trace, ctx)
    breaks = switch_chain(cpus)
    nev = sum(len(v) for v in cpus.values())
    summary = '%s: %d bytes, %d packets, %d bundles, %d events, %d symbols' % (
        label, len(data), len(trace.packet), nbundles, nev, nsyms)
    if not a.no_content:
        opts = o.options()
        uname = check_uname(sysinfo, opts, ctx)
        o.formats()
        text = o.report_finish(rep)
        names = buffer_names(opts)
        if a.buffer and a.buffer not in names:
            ctx.add('trace-cmd dump --options names no buffer %r' % a.buffer)
        sub = Problems()
        sub.count = ctx.count
        total, counts = compare(o, read_report(text, a.buffer, names), cpus,
                                shown, ctx, a.window)
        if ctx.count > sub.count and o.report() != text:
            # trace-cmd was seen to misprint one run in many: say so
            print('note: two runs of trace-cmd report printed differently')
        check_chain(breaks, report_breaks(o, read_report(text, a.buffer, names),
                                          a.window), ctx)
        summary += '; report: %d records (%d typed, %d generic), uname %r, ' \
            '%d sched_switch chain breaks in the records' % (
                total, counts['typed'], counts['generic'], uname, len(breaks))
        if any(ctx.symbols.values()):
            summary += '; kernel function fields: %d named, %d by address' % (
                ctx.symbols['named'], ctx.symbols['address'])
        if ctx.known:
            summary += "; %d known differences (an array past its page, a " \
                'string flag trace-cmd cleared, a narrowing cast of the ' \
                'print format)' % ctx.known
    else:
        # recorded traces break the chain themselves (small.dat: 1142
        # times); without trace-cmd's records to compare, only say so
        summary += '; content not checked (no trace-cmd oracle), %d ' \
            'sched_switch chain breaks' % len(breaks)
    protoc_finish(pro, ctx)
    print(summary)
    if ctx.count > MAX_SHOWN:
        print('... %d mismatches more' % (ctx.count - MAX_SHOWN))
    print('%s: %d mismatches' % (label, ctx.count))
    return 1 if ctx.count else 0


if __name__ == '__main__':
    sys.exit(main())
