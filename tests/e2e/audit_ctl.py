"""The kernel's audit switch, for the tests of trusted mode's Landlock
reports (which come from the kernel's audit records):

    audit_ctl.py get       prints 1 or 0 (enabled), status 1 if unreadable
    audit_ctl.py set N     enables (1) or disables (0) audit
    audit_ctl.py contexts CMD ARG...
                           runs CMD in an audit session of its own whose
                           tasks get a syscall audit context; status 3
                           when that cannot be arranged, else CMD's

Before enabling it adds the rule `-a task,never` (as distributions' audit
rules do), so that enabling audit gives no task created from now on a
syscall audit context: the machine's other processes keep their fast
syscall path.  `contexts` starts a new audit session (the same loginuid
written again, or the uid when it is unset) and, while CMD runs, puts
`-a task,never -F sessionid!=S` in that rule's place: only CMD's tree
gets contexts.  Needs CAP_AUDIT_CONTROL (root)."""
import os
import socket
import struct
import sys

AUDIT_GET, AUDIT_SET, AUDIT_LIST_RULES, AUDIT_ADD_RULE, AUDIT_DEL_RULE = 1000, 1001, 1013, 1011, 1012
NLMSG_ERROR, NLMSG_DONE = 2, 3
AUDIT_FILTER_TASK, AUDIT_NEVER = 1, 0
AUDIT_SESSIONID, AUDIT_NOT_EQUAL = 25, 0x30000000
RULE_WORDS = 64  # AUDIT_BITMASK_SIZE, AUDIT_MAX_FIELDS

sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 9)  # NETLINK_AUDIT
sock.bind((0, 0))


def request(kind, payload=b"", dump=False, reply=False):
    # the kernel may acknowledge before it replies (audit_send_reply)
    flags = 1 | 4 | (0x300 if dump else 0)  # REQUEST | ACK | DUMP
    sock.send(struct.pack("=IHHII", 16 + len(payload), kind, flags, 1, 0) + payload)
    replies = []
    while True:
        data = sock.recv(65536)
        off = 0
        while off < len(data):
            length, t = struct.unpack_from("=IH", data, off)
            body = data[off + 16:off + length]
            off += (length + 3) & ~3
            if t == NLMSG_ERROR:
                err = struct.unpack_from("=i", body)[0]
                if err:
                    raise OSError(-err, "audit request %d" % kind)
                if not dump and (replies or not reply):
                    return replies
            elif t == NLMSG_DONE:
                return replies
            else:
                replies.append((t, body))
                if not dump and (replies or not reply):
                    return replies


def enabled():
    (t, body), = request(AUDIT_GET, reply=True)
    return struct.unpack_from("=II", body)[1]


def never_task_rule(field=None):
    """-a task,never, for every task or (field: (number, op, value)) those
    that match."""
    if not field:
        return struct.pack("=III", AUDIT_FILTER_TASK, AUDIT_NEVER, 0) + \
            b"\0" * (4 * RULE_WORDS * 4) + struct.pack("=I", 0)
    words = [0] * RULE_WORDS
    return struct.pack("=III", AUDIT_FILTER_TASK, AUDIT_NEVER, 1) + \
        struct.pack("=%dI" % RULE_WORDS, *words) + \
        struct.pack("=%dI" % RULE_WORDS, *([field[0]] + words[1:])) + \
        struct.pack("=%dI" % RULE_WORDS, *([field[2]] + words[1:])) + \
        struct.pack("=%dI" % RULE_WORDS, *([field[1]] + words[1:])) + struct.pack("=I", 0)


def with_contexts(cmd):
    """Runs cmd where its tree alone gets syscall audit contexts; 3 when
    that cannot be arranged."""
    try:
        uid = open("/proc/self/loginuid").read().strip()
        if int(uid) == 0xffffffff:
            uid = str(os.getuid())
        with open("/proc/self/loginuid", "w") as f:
            f.write(uid)
        session = int(open("/proc/self/sessionid").read())
    except (OSError, ValueError) as e:
        print("audit_ctl: no audit session of its own: %s" % e, file=sys.stderr)
        return 3
    scoped = never_task_rule((AUDIT_SESSIONID, AUDIT_NOT_EQUAL, session))
    had = has_never_task()
    if had:
        request(AUDIT_DEL_RULE, never_task_rule())
    request(AUDIT_ADD_RULE, scoped)
    try:
        pid = os.fork()
        if pid == 0:
            try:
                os.execvp(cmd[0], cmd)
            finally:
                os._exit(127)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    finally:
        if had:
            request(AUDIT_ADD_RULE, never_task_rule())
        request(AUDIT_DEL_RULE, scoped)


def has_never_task():
    rule = never_task_rule()
    return any(body[:len(rule)] == rule for t, body in request(AUDIT_LIST_RULES, dump=True))


def main():
    try:
        if sys.argv[1] == "get":
            print(enabled())
        elif sys.argv[1] == "set":
            on = int(sys.argv[2])
            if on and not has_never_task():
                request(AUDIT_ADD_RULE, never_task_rule())
            request(AUDIT_SET, struct.pack("=11I", 1, on, *([0] * 9)))
        elif sys.argv[1] == "contexts":
            sys.exit(with_contexts(sys.argv[2:]))
    except OSError as e:
        print("audit_ctl: %s" % e, file=sys.stderr)
        sys.exit(1)


main()
