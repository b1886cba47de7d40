#!/usr/bin/env python3
"""Verdicts of CPython's regression tests from `python3 -m test --junit-xml`.

py_verdicts.py XML            one line per test: "verdict name"
py_verdicts.py --summary XML  per module: "module run N failed F skipped S"

A test's verdict is pass, fail, error or skip (a test the run never got to,
because its module crashed, has no line: compare the lists)."""
import sys
import xml.etree.ElementTree as ET


def verdicts(path):
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        if case.find("skipped") is not None:
            v = "skip"
        elif case.find("failure") is not None:
            v = "fail"
        elif case.find("error") is not None:
            v = "error"
        else:
            v = "pass"
        out[name] = v
    return out


def module(name):
    # test.test_asyncio.test_subprocess.SubprocessMixin.test_x -> test_asyncio.test_subprocess
    parts = name.split(".")
    if parts and parts[0] == "test":
        parts = parts[1:]
    mod = [p for p in parts[:2] if p.startswith("test_")]
    return ".".join(mod) or parts[0]


def main(argv):
    summary = argv[1:2] == ["--summary"]
    v = verdicts(argv[-1])
    if not summary:
        for name in sorted(v):
            print(v[name], name)
        return 0
    mods = {}
    for name, verdict in v.items():
        m = mods.setdefault(module(name), {"run": 0, "failed": 0, "skipped": 0})
        m["run"] += 1
        if verdict in ("fail", "error"):
            m["failed"] += 1
        elif verdict == "skip":
            m["skipped"] += 1
    for m in sorted(mods):
        c = mods[m]
        print(f"{m} run {c['run']} failed {c['failed']} skipped {c['skipped']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
