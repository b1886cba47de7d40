# What the bench/b_*.sh scripts share; they source it.

# The median of the numbers on stdin, one a line; "-" when there are none.
median() { sort -g | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : "-" }'; }

# The name a table row gives workload $1 (b_preload.sh, b_start.sh).
workload_label() {
	case $1 in
	ls) echo 'ls -lR /usr/include' ;;
	tar) echo 'tar cf (file) /usr/include' ;;
	py) echo 'python3 -c pass' ;;
	sqlite) echo 'sqlite3, 2000 insert transactions' ;;
	loop) echo 'sh: 150 x $(echo|sed|tr), expr (~750 procs)' ;;
	loopc) echo '  the same, LC_ALL=C (no locale files)' ;;
	make) echo 'make -j1, 120 recipes (sh each)' ;;
	conf) echo 'configure-like: 320 test/sed/grep/cc -E' ;;
	*) echo "$1" ;;
	esac
}
