#!/usr/bin/env python3
"""A report's source lines against addr2line.

report_lines.py REPORT...

Each frame of each backtrace in the REPORT files that names an object
file is looked up with `addr2line -e OBJECT OFFSET`, at the address the
library's line reader (filter/dwline.c) was given: the frame's ip less
the object's load bias, less one where the ip is a return address (the
call is the byte before, maybe on an earlier line, as gdb looks it up).
The ip is exact, used as it is, in the frame a signal interrupted (the
one after the library's restorer, `sf_restorer_checked`) and in the
restorer's own frame (the byte before it is not a call).  The bias is not in the report; it comes from the
frames' `symbol+0xoff` and the symbol's value as nm reads it, and every
named frame of one object in one backtrace must give the same bias.

A frame that carries `at FILE:LINE` must have addr2line's line and file
(the report's path may be the tail of addr2line's: relative to the
compilation directory where addr2line's is absolute).  A frame without
one must be in an object whose own line table the reader cannot read
(none, or compressed sections), or at an address addr2line cannot name
either.

Prints one line per REPORT, each disagreement under it, then the totals;
exits 1 if anything disagrees."""
import os
import re
import shutil
import subprocess
import sys

FRAME = re.compile(r"^      #(\d+) 0x([0-9a-f]+) (\S+)(?: \((.+?)\))?(?: at (.+):(\d+))?$")
ANSWER = re.compile(r"^(.*):(\d+|\?)(?: \(discriminator \d+\))?$")


def backtraces(path):
    """The frames of each backtrace in the file, as match objects."""
    out, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line == "    backtrace:":
                cur = []
                out.append(cur)
            elif cur is not None and (m := FRAME.match(line)):
                cur.append(m)
            else:
                cur = None
    return out


def run(*argv):
    return subprocess.run(argv, capture_output=True, text=True).stdout


_symbols = {}


def symbols(obj):
    """name -> set of values, from the full and the dynamic symbol table."""
    if obj not in _symbols:
        table = {}
        for flag in ([], ["-D"]):
            for line in run("nm", "--defined-only", *flag, obj).splitlines():
                parts = line.split()
                if len(parts) == 3:
                    name = parts[2].split("@")[0]
                    table.setdefault(name, set()).add(int(parts[0], 16))
        _symbols[obj] = table
    return _symbols[obj]


_readable = {}


def has_line_table(obj):
    """Whether obj has a .debug_line the reader can read (not compressed)."""
    if obj not in _readable:
        flags = []
        for row in run("readelf", "-SW", obj).splitlines():
            cols = row.partition("]")[2].split()
            if cols[:1] == [".debug_line"]:
                # name type address offset size entsize [flags] link info align
                flags.append(cols[6] if len(cols) == 10 else "")
        _readable[obj] = bool(flags) and not any("C" in f for f in flags)
    return _readable[obj]


def object_file(name):
    """The file the report's object name is: a path, or argv[0] found on PATH."""
    if "/" in name:
        return name if os.path.isfile(name) else None
    return shutil.which(name)


def bias_of(obj, frames):
    """The object's load bias in this backtrace, from its named frames."""
    table, found = symbols(obj), set()
    for m in frames:
        name, _, off = m.group(3).rpartition("+0x")
        values = table.get(name, set())
        if name and len(values) == 1:
            found.add(int(m.group(2), 16) - next(iter(values)) - int(off, 16))
    if len(found) > 1:
        raise ValueError("its named frames disagree on its load bias: %s" % sorted(map(hex, found)))
    if not found:
        raise ValueError("no frame named by a symbol nm knows: no load bias")
    return found.pop()


def addr2line(obj, addrs):
    """(file, line) for each address; line None where addr2line has none."""
    out = []
    for line in run("addr2line", "-e", obj, *map(hex, addrs)).splitlines():
        m = ANSWER.match(line)
        if not m or m.group(1) == "??" or m.group(2) in ("?", "0"):
            out.append((None, None))
        else:
            out.append((m.group(1), int(m.group(2))))
    return out


def same_file(got, want):
    """The report's path names addr2line's file: the same, or its tail
    (the report's may be relative to the compilation directory)."""
    if want is None:
        return False
    got, want = os.path.normpath(got), os.path.normpath(want)
    return got == want or want.endswith("/" + got)


RESTORER = "sf_restorer_checked"


def frame_name(m):
    return m.group(3).rpartition("+0x")[0] or m.group(3)


def lookup_ips(bt):
    """Each frame's ip as the report looks its line up."""
    out, after_restorer = {}, False
    for m in bt:
        ip = int(m.group(2), 16)
        exact = after_restorer or frame_name(m) == RESTORER
        out[id(m)] = ip if exact else ip - 1
        after_restorer = frame_name(m) == RESTORER
    return out


def check_object(obj, frames, look, errors):
    """Compares the frames of one object in one backtrace; returns the
    number of lines that agree."""
    if not has_line_table(obj) and all(m.group(5) is None for m in frames):
        return 0  # nothing either reader could name here
    bias = bias_of(obj, frames)
    addrs = [look[id(m)] - bias for m in frames]
    answers = addr2line(obj, addrs)
    if len(answers) != len(addrs):
        raise ValueError("addr2line gave %d answers for %d addresses" % (len(answers), len(addrs)))
    agreed = 0
    for m, addr, (want_file, want_line) in zip(frames, addrs, answers):
        where = "#%s %s %s+0x%x" % (m.group(1), m.group(3), obj, addr)
        if m.group(5) is None:
            if want_line is not None and has_line_table(obj):
                errors.append("%s: no line, addr2line says %s:%d" % (where, want_file, want_line))
            continue
        got_file, got_line = m.group(5), int(m.group(6))
        if got_line != want_line or not same_file(got_file, want_file):
            errors.append("%s: at %s:%d, addr2line says %s:%s" % (where, got_file, got_line, want_file, want_line))
        else:
            agreed += 1
    return agreed


def check_file(path, errors):
    lines = frames = 0
    for bt in backtraces(path):
        by_object, look = {}, lookup_ips(bt)
        for m in bt:
            frames += 1
            obj = object_file(m.group(4)) if m.group(4) else None
            if obj is None:
                if m.group(5) is not None:
                    errors.append("#%s %s: a line, but no object file to check it in" % (m.group(1), m.group(3)))
                continue
            by_object.setdefault(obj, []).append(m)
        for obj, group in by_object.items():
            try:
                lines += check_object(obj, group, look, errors)
            except ValueError as e:
                errors.append("%s: %s" % (obj, e))
    return lines, frames


def main(paths):
    failed = False
    total_lines = total_frames = 0
    for path in paths:
        errors = []
        lines, frames = check_file(path, errors)
        total_lines, total_frames = total_lines + lines, total_frames + frames
        print("%s: %d frames, %d lines as addr2line names them%s" % (path, frames, lines, ", and:" if errors else ""))
        for e in errors:
            print("  " + e)
        failed = failed or bool(errors)
    print("%d reports, %d frames, %d lines as addr2line names them%s" %
          (len(paths), total_frames, total_lines, "; some differ" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
