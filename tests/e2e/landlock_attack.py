# The attempts of t_cli_landlock.sh and t_lib_landlock.sh: each prints
# '<what>: done', or '<what>: <ERRNO>' on stderr and exits 1.
import errno, os, socket, sys
what, *args = sys.argv[1:]
try:
    if what == "write":          # open(path, O_CREAT) and write
        with open(args[0], "w") as f:
            f.write("pwned\n")
    elif what == "rename":
        os.rename(args[0], args[1])
    elif what == "link":
        os.link(args[0], args[1])
    elif what == "symlink-write":  # make a symlink inside, write through it
        os.symlink(args[1], args[0])
        with open(args[0], "w") as f:
            f.write("pwned\n")
    elif what == "openat":       # a directory fd opened before the policy
        fd = os.open(args[1], os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=int(args[0]))
        os.write(fd, b"pwned\n")
    elif what == "connect":
        s = socket.create_connection(("127.0.0.1", int(args[0])))
        s.sendall(b"from-sandbox\n")
        s.close()
    elif what == "bind":
        socket.socket().bind(("127.0.0.1", int(args[0])))
except OSError as e:
    print(f"{what}: {errno.errorcode[e.errno]}", file=sys.stderr)
    sys.exit(1)
print(f"{what}: done")
