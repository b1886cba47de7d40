# make install into a DESTDIR with PREFIX=/usr, used as a distribution
# package would be: pkg-config finds the library, a program built with its
# flags calls secfilter_apply, the installed secfilter finds the installed
# library, binaries are stripped (the build tree keeps its symbols), man -w
# finds all five pages, bash-completion finds the completion, and make
# uninstall removes every file install wrote and nothing else.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

D=$SCRATCH/root
files() { (cd "$D" && find . ! -type d | LC_ALL=C sort); }

# something of another package's in the same directories: uninstall must
# leave it
mkdir -p "$D/usr/bin" "$D/usr/lib/pkgconfig" "$D/usr/share/man/man3"
echo other > "$D/usr/bin/other"
echo other > "$D/usr/share/man/man3/other.3"
files > before

make -s -C "$TOP" B="$B" DESTDIR="$D" PREFIX=/usr install > make.out 2>&1 ||
	{ cat make.out >&3; fail "make install failed"; }
files > after
cat > want <<'EOF'
./usr/bin/other
./usr/bin/secfilter
./usr/include/secfilter.h
./usr/lib/libsecfilter.so
./usr/lib/libsecfilter.so.1
./usr/lib/pkgconfig/secfilter.pc
./usr/share/bash-completion/completions/secfilter
./usr/share/doc/secfilter/secfilter.conf.example
./usr/share/man/man1/secfilter.1
./usr/share/man/man3/other.3
./usr/share/man/man3/secfilter_apply.3
./usr/share/man/man3/secfilter_error.3
./usr/share/man/man3/secfilter_mode.3
./usr/share/man/man7/secfilter-preload.7
./usr/share/man/man7/secfilter.7
EOF
diff want after >&3 || fail "make install wrote other files than expected"

# the library: a SONAME, the development link to it
readelf -d "$D/usr/lib/libsecfilter.so.1" > dyn
expect_grep 'SONAME.*\[libsecfilter\.so\.1\]' dyn
[ "$(readlink "$D/usr/lib/libsecfilter.so")" = libsecfilter.so.1 ] ||
	fail "libsecfilter.so is not a link to libsecfilter.so.1"
[ "$(readlink "$B/libsecfilter.so")" = libsecfilter.so.1 ] ||
	fail "the build tree's libsecfilter.so is not a link to libsecfilter.so.1"

# stripped when installed; the build tree keeps the symbols (and -g's
# debug information, when it was built with it)
for f in bin/secfilter lib/libsecfilter.so.1; do
	readelf -S "$D/usr/$f" > sections
	expect_no_grep ' \.symtab ' sections
	expect_no_grep ' \.debug_' sections
done
for f in "$B/secfilter" "$B/libsecfilter.so.1"; do
	readelf -S "$f" > sections
	expect_grep ' \.symtab ' sections
	case " ${CFLAGS:--O2 -g} " in *" -g "*) expect_grep ' \.debug_info ' sections ;; esac
done

# pkg-config, looking only into DESTDIR, as a cross build would
pc() {
	env PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$D/usr/lib/pkgconfig" \
		PKG_CONFIG_SYSROOT_DIR="$D" pkg-config "$@"
}
pc --exists secfilter || fail "pkg-config does not find secfilter"
[ "$(pc --modversion secfilter)" = "$($SECFILTER --version | cut -d' ' -f2)" ] ||
	fail "secfilter.pc's version differs from secfilter --version"
flags=$(pc --cflags --libs secfilter) || fail "pkg-config --cflags --libs failed"
flags=$(echo $flags) # pkgconf ends with a space
[ "$flags" = "-I$D/usr/include -L$D/usr/lib -lsecfilter" ] || fail "pkg-config gave: $flags"

cat > app.c <<'EOF'
#include <errno.h>
#include <secfilter.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	if (secfilter_mode() != 0)
		return 3;
	if (secfilter_apply("read: fdd == 0") != -1 || errno != EINVAL ||
	    !strstr(secfilter_error(), "<api>:1:7: error: unknown argument 'fdd'"))
		return 4;
	if (secfilter_apply("*: 1; getppid: 0") != 0) {
		fprintf(stderr, "%s\n", secfilter_error());
		return 5;
	}
	if (secfilter_mode() != 2)
		return 6;
	puts("applied");
	fflush(stdout);
	getppid(); /* denied: the library kills the process */
	puts("not killed");
	return 0;
}
EOF
${CC:-cc} -o app app.c $flags 2> cc.err || { cat cc.err >&3; fail "cannot build with pkg-config's flags"; }
readelf -d app > dyn
expect_grep 'NEEDED.*\[libsecfilter\.so\.1\]' dyn
LD_LIBRARY_PATH=$D/usr/lib ./app > out 2> err; st=$?
[ $st -eq 137 ] || { cat out err >&3; fail "app: status $st, not 137"; }
[ "$(cat out)" = applied ] || fail "app printed: $(cat out)"
expect_grep '^app\[[0-9]+\]: system call 110 \(sys_getppid\) blocked at ip:' err

# the installed secfilter finds the installed library (../lib)
expect_status 0 "$D/usr/bin/secfilter" run -e '*: 1' -- $PROGS/cli_prog out hello > out
[ "$(cat out)" = hello ] || fail "installed run: $(cat out)"
expect_status 137 "$D/usr/bin/secfilter" run -e '*: 1; getppid: 0' -- $PROGS/cli_prog getppid 2> err
expect_grep 'sys_getppid' err

# man -w finds every page as itself, and each renders with its own NAME
# line; the two small API pages lead to secfilter_apply(3)
if command -v man > /dev/null; then
	export MANPATH=$D/usr/share/man
	for p in "1 secfilter" "7 secfilter" "7 secfilter-preload" "3 secfilter_apply" \
		 "3 secfilter_error" "3 secfilter_mode"; do
		w=$(man -w $p 2> err) || fail "man -w $p: $(cat err)"
		[ "$w" = "$D/usr/share/man/man${p% *}/${p#* }.${p% *}" ] || fail "man -w $p: $w"
		MANWIDTH=80 man $p > page 2> err || fail "man $p: $(cat err)"
		[ -s err ] && fail "man $p warns: $(cat err)"
		expect_grep "^ +(.*, )?${p#* }(,.*)? +- " page
	done
	for p in secfilter_error secfilter_mode; do
		MANWIDTH=80 man 3 $p > page 2> err || fail "man 3 $p: $(cat err)"
		expect_grep 'secfilter_apply\(3\)' page
	done
	unset MANPATH
else
	echo "man missing: man -w not tested" >&3
fi

# bash-completion's loader finds the completion where it looks
# (XDG_DATA_DIRS, here pointing into DESTDIR)
BC=/usr/share/bash-completion/bash_completion
if [ -r "$BC" ]; then
	XDG_DATA_DIRS=$D/usr/share bash -c ". $BC; __load_completion secfilter; complete -p secfilter" \
		> out 2>&1
	expect_grep '^complete -F _secfilter secfilter$' out
else
	echo "bash-completion missing: its loader not tested" >&3
fi

make -s -C "$TOP" B="$B" DESTDIR="$D" PREFIX=/usr uninstall > make.out 2>&1 ||
	{ cat make.out >&3; fail "make uninstall failed"; }
files > again
diff before again >&3 || fail "make uninstall did not remove exactly what install wrote"
[ -e "$D/usr/share/doc/secfilter" ] && fail "make uninstall left share/doc/secfilter"
exit 0
