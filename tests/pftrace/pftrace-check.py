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
    packet that clears the sequence's state;
  - content: per CPU, the records of the buffer (the top one, or
    --buffer NAME) in the report's order, with the same time (ns), event
    name and common pid; a typed event's every set field equals the
    report's field of that name, a generic event's fields are the
    format's own fields in order with the report's values; lost_events
    exactly where the report prints "EVENTS DROPPED";
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


NUMBERED = re.compile(rb'^\s*[0-9]+(: | \{)', re.M)


def protoc_decode(proto_dir, path, problems):
    """protoc --decode: exit 0 and no field printed by its number."""
    with open(path, 'rb') as f:
        r = subprocess.run(['protoc', '-I', proto_dir,
                            '--decode=perfetto.protos.Trace',
                            'perfetto_trace.proto'], stdin=f,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           check=False)
    if r.returncode != 0:
        problems.add('protoc --decode exits %d: %s' %
                     (r.returncode, r.stderr.decode(errors='replace')[:300]))
    m = NUMBERED.search(r.stdout)
    if m:
        line_no = r.stdout.count(b'\n', 0, m.start()) + 1
        line = r.stdout[m.start():r.stdout.find(b'\n', m.end())]
        problems.add('protoc --decode prints a field by number, line %d: %s'
                     % (line_no, line.strip().decode(errors='replace')[:120]))


def unknown_fields(trace_cls, trace, problems):
    """No unknown field anywhere: the size is the same once discarded."""
    copy = trace_cls()
    copy.CopyFrom(trace)
    copy.DiscardUnknownFields()
    if copy.ByteSize() == trace.ByteSize():
        return
    for i, pkt in enumerate(trace.packet):
        c = type(pkt)()
        c.CopyFrom(pkt)
        c.DiscardUnknownFields()
        if c.ByteSize() != pkt.ByteSize():
            problems.add('packet %d holds %d bytes of fields unknown to the '
                         'schema' % (i, pkt.ByteSize() - c.ByteSize()))
            return


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

    def report(self):
        r = run(['trace-cmd', 'report', '-N', '-R', '-t', '-i', self.trace])
        return r.stdout.decode('utf-8', errors='surrogateescape'), r

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
        """{address: string} from report -P (trace_printk formats)."""
        if self._printk is None:
            r = run(['trace-cmd', 'report', '-P', '-i', self.trace])
            self._printk = {}
            for line in r.stdout.decode('utf-8', errors='replace').split('\n'):
                m = re.match(r'^([0-9a-fA-Fx]+) : (.*)$', line)
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
    """The numbers a report text may mean: decimal, hex with or without 0x."""
    t = text.strip()
    out = []
    try:
        out.append(int(t, 10))
    except ValueError:
        pass
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

def check_typed(o, ctx, rec, kind, msg, fields, values, symtab, where):
    """A typed event: every set field equals the report's field."""
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
            sym = symtab.get(val)
            if sym is None:
                ctx.add('%s: %s.%s = iid %d, not interned before'
                        % (where, kind, fname, val))
                continue
            sym = sym.decode('utf-8', errors='replace')
            if sym == text.strip():
                continue
            nums = as_number(text)
            names = symbol_of(o, nums[-1])[0] if nums else []
            if sym not in names and not any(
                    n == int(sym, 16) for n in nums
                    if re.fullmatch(r'0x[0-9a-fA-F]+', sym)):
                ctx.add('%s: %s.%s is symbol %r, report says %s=%s (%s)'
                        % (where, kind, fname, sym, fname, text,
                           '/'.join(names) or 'no symbol'))
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
            if not string_matches(gf.str_value, text, i == len(fields) - 1):
                ctx.add('%s: generic %s.%s = %r, report says %r'
                        % (where, rec[1], gf.name, gf.str_value[:80], text[:80]))
        elif which in ('int_value', 'uint_value'):
            v = getattr(gf, which)
            if not number_matches(o, v, text, fields[i][1]):
                ctx.add('%s: generic %s.%s = %s %d, report says %s'
                        % (where, rec[1], gf.name, which, v, text[:80]))
        else:
            ctx.add('%s: generic %s.%s holds %s' % (where, rec[1], gf.name, which))


def walk(trace, ctx):
    """The packets in order: (system_info, symbols, {cpu: [(event, lost)]}).

    lost: a bundle with lost_events came since this CPU's previous event.
    Also the structural checks that need no oracle.
    """
    sysinfo = None
    symtab = {}
    seq_cleared = False
    cpus = {}
    pending = {}
    sysinfo_at = None
    nbundles = 0
    for pi, pkt in enumerate(trace.packet):
        if pkt.HasField('system_info'):
            sysinfo = pkt.system_info
            sysinfo_at = pi
        if pkt.sequence_flags & 1:
            seq_cleared = True
            symtab = {}
        if pkt.HasField('interned_data'):
            if not pkt.trusted_packet_sequence_id or not seq_cleared:
                ctx.add('packet %d: interned_data %s' % (pi,
                        'without trusted_packet_sequence_id'
                        if not pkt.trusted_packet_sequence_id else
                        'before a packet with SEQ_INCREMENTAL_STATE_CLEARED'))
            for s in pkt.interned_data.kernel_symbols:
                if not s.HasField('iid'):
                    ctx.add('packet %d: a kernel symbol without iid' % pi)
                symtab[s.iid] = s.str
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
        if b.lost_events:
            pending[b.cpu] = True
        lst = cpus.setdefault(b.cpu, [])
        for ei, ev in enumerate(b.event):
            where = 'packet %d cpu %d event %d' % (pi, b.cpu, ei)
            if not ev.HasField('timestamp') or not ev.HasField('pid'):
                ctx.add('%s: no %s' % (where, 'timestamp'
                        if not ev.HasField('timestamp') else 'pid'))
            kinds = [fd.name for fd, _ in ev.ListFields()
                     if fd.name not in ('timestamp', 'pid')]
            if len(kinds) != 1 or ev.WhichOneof('event') != kinds[0]:
                ctx.add('%s: fields %s besides timestamp and pid, want one event'
                        % (where, kinds))
            if ev.HasField('common_flags'):
                ctx.add('%s: common_flags set (Perfetto reads it as an event)'
                        % where)
            if any(k for k in kinds if (k, 'func') in SYMBOL_FIELDS or
                   (k, 'function') in SYMBOL_FIELDS):
                if pkt.trusted_packet_sequence_id != 1:
                    ctx.add('%s: %s with an iid in a packet of sequence %d'
                            % (where, kinds[0], pkt.trusted_packet_sequence_id))
            lst.append((ev, pending.pop(b.cpu, False), where))
    if sysinfo is not None and sysinfo_at != 0:
        ctx.add('system_info is packet %d, not the first' % sysinfo_at)
    return sysinfo, symtab, cpus, nbundles


def switch_chain(cpus):
    """Per CPU, where a sched_switch's prev_pid is not the next_pid of the
    one before it with no lost_events between: [(cpu, time, where, was, is)].
    """
    breaks = []
    for cpu, evs in sorted(cpus.items()):
        prev = None
        lost = False
        for ev, was_lost, where in evs:
            lost = lost or was_lost
            if ev.WhichOneof('event') != 'sched_switch':
                continue
            s = ev.sched_switch
            if prev is not None and not lost and prev.next_pid != s.prev_pid:
                breaks.append((cpu, ev.timestamp, where, prev.next_pid, s.prev_pid))
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


def compare(o, report, cpus, symtab, ctx, window):
    """Per CPU, the file's events against the report's records."""
    total = 0
    counts = {}
    for cpu in sorted(set(report) | set(cpus)):
        want = report.get(cpu, [])
        if window:
            want = [r for r in want if window[0] <= r[0] < window[1]]
        got = cpus.get(cpu, [])
        total += len(want)
        n = min(len(want), len(got))
        first_window = bool(window)
        for i in range(n):
            rec = want[i]
            ev, lost, where = got[i]
            kind = ev.WhichOneof('event')
            name = ev.generic.event_name if kind == 'generic' else kind
            if (ev.timestamp, name, ev.pid) != (rec[0], rec[1], rec[2]):
                ctx.add('%s: cpu %d record %d: (time %d, %s, pid %d), report '
                        'has (time %d, %s, pid %d); stop comparing this cpu'
                        % (where, cpu, i, ev.timestamp, name, ev.pid,
                           rec[0], rec[1], rec[2]))
                break
            counts[kind if kind == 'generic' else 'typed'] = \
                counts.get(kind if kind == 'generic' else 'typed', 0) + 1
            # in a window, a loss before its first record may show or not
            if lost != rec[4] and not (first_window and i == 0):
                ctx.add('%s: cpu %d time %d: lost_events %s, report %s'
                        % (where, cpu, rec[0], 'set' if lost else 'unset',
                           'prints EVENTS DROPPED before it' if rec[4]
                           else 'drops nothing there'))
            fields, values = o.split_fields(rec[1], rec[3])
            if fields is None:
                ctx.add('%s: cpu %d time %d: report fields of %s do not fit '
                        'its format: %s' % (where, cpu, rec[0], rec[1], rec[3][:100]))
                continue
            w = '%s (cpu %d time %d)' % (where, cpu, rec[0])
            if kind == 'generic':
                check_generic(o, ctx, rec, ev.generic, fields, values, w)
            else:
                check_typed(o, ctx, rec, kind, getattr(ev, kind), fields,
                            values, symtab, w)
        else:
            if len(want) != len(got):
                extra = got[n] if len(got) > n else None
                ctx.add('cpu %d: %d events, report has %d records%s'
                        % (cpu, len(got), len(want),
                           (' (first extra: %s time %d)' % (extra[2], extra[0].timestamp))
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
    ctx = Problems()
    label = os.path.basename(a.trace) + ':' + (
        ('instances/%s/' % a.buffer) if a.buffer else '') + (
        'time/%d-%d/' % tuple(a.window) if a.window else '') + 'trace.pftrace'

    with tempfile.TemporaryDirectory(prefix='pftrace-check.') as tmp:
        trace_cls = load_trace_class(a.proto_dir, tmp)
    protoc_decode(a.proto_dir, a.pftrace, ctx)
    with open(a.pftrace, 'rb') as f:
        data = f.read()
    if data[:1] != b'\x0a' and data:
        ctx.add('the file starts with byte %#x, not 0x0a (Trace.packet)' % data[0])
    trace = trace_cls()
    try:
        trace.ParseFromString(data)
    except Exception as e:  # the schema refuses it: nothing more to read
        ctx.add('python protobuf cannot parse it: %s' % e)
        print('%s: %d bytes, %d mismatches' % (label, len(data), ctx.count))
        return 1
    unknown_fields(trace_cls, trace, ctx)
    sysinfo, symtab, cpus, nbundles = walk(trace, ctx)
    breaks = switch_chain(cpus)
    nev = sum(len(v) for v in cpus.values())
    summary = '%s: %d bytes, %d packets, %d bundles, %d events, %d symbols' % (
        label, len(data), len(trace.packet), nbundles, nev, len(symtab))
    if not a.no_content:
        o = Oracle(a.oracle or a.trace)
        opts = o.options()
        uname = check_uname(sysinfo, opts, ctx)
        o.formats()
        text, r = o.report()
        if a.buffer and a.buffer not in buffer_names(opts):
            ctx.add('trace-cmd dump --options names no buffer %r' % a.buffer)
        report = read_report(text, a.buffer, buffer_names(opts))
        before = ctx.count
        total, counts = compare(o, report, cpus, symtab, ctx, a.window)
        check_chain(breaks, report_breaks(o, report, a.window), ctx)
        if ctx.count > before:
            # trace-cmd was seen to misprint a run: the mismatch must hold
            # against a second run too
            text2, _ = o.report()
            if text2 != text:
                print('note: trace-cmd printed two runs differently')
        summary += '; report: %d records (%s), uname %r, %d sched_switch ' \
            'chain breaks in the records' % (
                total, ', '.join('%d %s' % (v, k) for k, v in sorted(counts.items())),
                uname, len(breaks))
    else:
        check_chain(breaks, None, ctx)
        summary += '; content not checked (no trace-cmd oracle)'
    print(summary)
    if ctx.count > MAX_SHOWN:
        print('... %d mismatches more' % (ctx.count - MAX_SHOWN))
    print('%s: %d mismatches' % (label, ctx.count))
    return 1 if ctx.count else 0


if __name__ == '__main__':
    sys.exit(main())
