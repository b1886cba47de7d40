#!/usr/bin/env bash
# libsecfilter.so's two protocols with the secfilter tool: the handshake
# (SECFILTER_HANDSHAKE=<fd> gets "ok PID\n" once enforcement is armed) and the
# state mapping that `secfilter show PID` reads.
. "$TOP/tests/e2e/lib.sh"

# Handshake: "ok PID\n" on the fd, PID the armed process's, and the
# variable is gone from environ.
sh -c 'echo $$ > pid; exec env LD_PRELOAD="$0" SECFILTER_POLICY="*: 1" SECFILTER_HANDSHAKE=3 env' \
	"$LIB" 3>hs.txt >env.out || fail "handshake run failed"
[ "$(od -An -c hs.txt | tr -d ' ')" = "ok$(cat pid)\\n" ] || { od -c hs.txt >&2; fail "handshake bytes"; }
expect_no_grep '^SECFILTER_HANDSHAKE=' env.out
expect_grep '^SECFILTER_POLICY=' env.out
echo "ok handshake"

# No handshake when the policy cannot be applied: exit 125, nothing written.
env LD_PRELOAD="$LIB" SECFILTER_POLICY='nope: 1' SECFILTER_HANDSHAKE=3 "$PROBE" 3>hs2.txt >/dev/null 2>&1
[ $? -eq 125 ] || fail "bad policy: expected 125"
[ ! -s hs2.txt ] || fail "handshake written for a bad policy"
echo "ok no handshake on failure"

# Pending policies hand-shake too (armed for the next exec).
env LD_PRELOAD="$LIB" SECFILTER_POLICY='on_next_syscall: 1; *: 1' SECFILTER_HANDSHAKE=3 true 3>hs3.txt ||
	fail "pending run failed"
expect_grep '^ok [1-9][0-9]*$' hs3.txt

# State mapping: read through /proc/PID/mem, as `secfilter show` does.
# Version 2: the policy's short form (what exec'd images get), which show
# prints canonically (t_cli_show).
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; sethostname: 0' "$PROBE" sleep 1500 apply 'getppid: 0' \
	sleep 1500 apply 'getpgrp: 0' sleep 4000 >/dev/null 2>&1 &
pid=$!
/usr/bin/python3 - "$pid" <<'PY' || fail "state mapping"
import re, struct, sys, time

pid = int(sys.argv[1])

# The library's record (magic "secfilter-where", version 1, then the
# state's address and size and the counts' address) is in its writable
# data: a file-backed rw-p mapping; the state it names is anonymous.
def state():
    with open(f"/proc/{pid}/mem", "rb") as mem:
        for line in open(f"/proc/{pid}/maps"):
            f = line.split()
            if f[1] != "rw-p" or f[4] == "0":
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            mem.seek(lo)
            data = mem.read(min(hi - lo, 65536))
            at = data.find(b"secfilter-where\0")
            while at >= 0 and at % 8:
                at = data.find(b"secfilter-where\0", at + 1)
            if at < 0:
                continue
            version, _, st, size, counts = struct.unpack_from("<IIQQQ", data, at + 16)
            assert version == 1, version
            if not st:
                continue
            mem.seek(st)
            head = mem.read(32)
            magic, version, length, gen = struct.unpack("<16sIIQ", head)
            assert 32 + length <= size, (length, size)
            text = mem.read(length).decode()
            return magic, version, gen, text, st
    raise SystemExit("no secfilter-state mapping")

deadline = time.time() + 8
while True:
    try:
        magic, version, gen1, text1, at1 = state()
        break
    except (SystemExit, FileNotFoundError):
        if time.time() > deadline:
            raise
        time.sleep(0.05)
assert magic == b"secfilter-state\0", magic
assert version == 2, version
assert text1 == "*: 1\nsys_sethostname: 0\n", text1
def next_state(gen):
    while True:
        st = state()
        if st[2] != gen or time.time() > deadline:
            return st
        time.sleep(0.05)
_, _, gen2, text2, at2 = next_state(gen1)
assert gen2 == gen1 + 1, (gen1, gen2)
assert text2 == "*: 1\nsys_getppid: 0\nsys_sethostname: 0\n", text2
assert at2 != at1
_, _, gen3, text3, at3 = next_state(gen2)
assert gen3 == gen2 + 1, (gen2, gen3)
assert text3 == "*: 1\nsys_getppid: 0\nsys_getpgrp: 0\nsys_sethostname: 0\n", text3
assert at3 != at2
# A later state is a mapping of its own, unmapped when the next is
# published (the new one goes in first, the old one a moment later:
# poll).  The first is in the library's own memory, never given back and
# never written again: no reader of it can meet another state's bytes.
def mapped(at):
    for line in open(f"/proc/{pid}/maps"):
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        if lo <= at < hi:
            return line
    return None
while mapped(at2) and time.time() < deadline:
    time.sleep(0.05)
assert not mapped(at2), "the second state was not unmapped: " + mapped(at2)
with open(f"/proc/{pid}/mem", "rb") as mem:
    mem.seek(at1)
    magic, version, length, gen = struct.unpack("<16sIIQ", mem.read(32))
    assert (magic, gen, mem.read(length).decode()) == (b"secfilter-state\0", gen1, text1), \
        "the first state was overwritten"
import os
for fd in os.listdir(f"/proc/{pid}/fd"):
    assert "secfilter" not in os.readlink(f"/proc/{pid}/fd/{fd}"), "a descriptor of ours is open"
print(f"ok state: generation {gen1} -> {gen3}, {len(text3)} bytes of text")
PY
kill $pid 2>/dev/null
wait $pid 2>/dev/null
true
