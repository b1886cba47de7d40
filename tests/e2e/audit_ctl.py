"""The kernel's audit switch, for the tests of trusted mode's Landlock
reports (which come from the kernel's audit records):

    audit_ctl.py get       prints 1 or 0 (enabled), status 1 if unreadable
    audit_ctl.py set N     enables (1) or disables (0) audit

Before enabling it adds the rule `-a task,never` (as distributions' audit
rules do), so that enabling audit gives no task created from now on a
syscall audit context: the machine's other processes keep their fast
syscall path.  Needs CAP_AUDIT_CONTROL (root)."""
import socket
import struct
import sys

AUDIT_GET, AUDIT_SET, AUDIT_LIST_RULES, AUDIT_ADD_RULE = 1000, 1001, 1013, 1011
NLMSG_ERROR, NLMSG_DONE = 2, 3
AUDIT_FILTER_TASK, AUDIT_NEVER = 1, 0
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


def never_task_rule():
    return struct.pack("=III", AUDIT_FILTER_TASK, AUDIT_NEVER, 0) + \
        b"\0" * (4 * RULE_WORDS * 4) + struct.pack("=I", 0)


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
    except OSError as e:
        print("audit_ctl: %s" % e, file=sys.stderr)
        sys.exit(1)


main()
