#!/usr/bin/env bash
# An image exec'd in trusted mode under a filter of the very text it is
# handed (the mark, preload/trap/trusted.c) parses that text only when
# something first needs it (preload/state/policy.c, sf_policy_now): the
# kernel enforces it already.  Everything that needs the policy still has
# it: the report of a kill quotes the policy's rule, concurrent first uses
# agree, secfilter_apply narrows it, and a text the mark does not confirm
# (forged, or another one) is parsed at the start and loaded as before.
# LD_AUDIT alone: a preloaded copy would be handed the policy at its load,
# which parses it at the start.
. "$TOP/tests/e2e/lib.sh"

lazy() { local policy=$1; shift; LD_AUDIT=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY=$policy "$@"; }

# With no listener (the first image is a subreaper: trusted mode forks
# none), a kill in an exec'd image is reported by that image's handler.
cat >reaper.c <<'C'
#include <sys/prctl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	(void)argc;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return 3;
	execvp(argv[1], argv + 1);
	return 4;
}
C
cc -o reaper reaper.c
# Threads released at once, each making the call the policy denies.
cat >race.c <<'C'
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#define N 8
static pthread_barrier_t go;
static void *t(void *a) { (void)a; pthread_barrier_wait(&go); syscall(SYS_getpriority, 0, 0); return NULL; }
int main(void)
{
	pthread_t th[N];
	int i;
	pthread_barrier_init(&go, NULL, N);
	for (i = 0; i < N; i++)
		pthread_create(&th[i], NULL, t, NULL);
	for (i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	write(1, "escaped\n", 8);
	return 0;
}
C
cc -pthread -o race race.c
P='*: 1
getpriority: which == 7'

# The start: the exec'd image loads no filter (the mark answers), and runs.
lazy "$P" sh -c 'grep "^Seccomp_filters" /proc/$$/status; exec grep "^Seccomp_filters" /proc/self/status' >n.out 2>n.err ||
	fail "an exec'd image failed: $(cat n.err)"
sh_n=$(sed -n 1p n.out | awk '{print $2}'); img_n=$(sed -n 2p n.out | awk '{print $2}')
[ -n "$sh_n" ] && [ "$img_n" = "$sh_n" ] || fail "the exec'd image loaded a filter: $sh_n -> $img_n"
echo "ok the exec'd image starts under the inherited filter ($sh_n filters)"
# The one thing its start asked the policy, whether it may unblock SIGSYS
# (rt_sigprocmask), the mark answers: a policy that denies it lets the
# image start all the same, without the call that would kill it.
lazy '*: 1; rt_sigprocmask: how != 1' sh -c 'exec echo started' >u.out 2>u.err ||
	fail "an exec'd image under a policy denying SIG_UNBLOCK: status $?: $(cat u.err)"
expect_grep '^started$' u.out
echo "ok the mark says whether the policy lets the image unblock SIGSYS"

# (a) The kill's report, from the image's own handler, quotes the rule
# and its line: the tree was parsed from the handler.
./reaper env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" sh -c 'exec ./race' >r.out 2>r.err
expect_sigkill $?
expect_no_grep '^escaped$' r.out
expect_report r.err getpriority 'sys_getpriority: which == 7 (SECFILTER_POLICY:2)'
echo "ok a kill in the exec'd image reports the policy's rule, the policy parsed at first use by racing threads"

# (b) The API, in a copy dlopen'ed after the start: it is handed the
# policy (parsed then), its mode is "enforcing", and a narrowing holds.
cat >api.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*mode)(void), (*apply)(const char *);
	const char *(*error)(void);
	struct utsname u;
	(void)argc;
	if (!h) { printf("dlopen: %s\n", dlerror()); return 3; }
	mode = (int (*)(void))dlsym(h, "secfilter_mode");
	apply = (int (*)(const char *))dlsym(h, "secfilter_apply");
	error = (const char *(*)(void))dlsym(h, "secfilter_error");
	printf("mode %d\n", mode());
	printf("apply %d '%s'\n", apply(argv[2]), error());
	fflush(stdout);
	if (argc > 3 && !strcmp(argv[3], "getpriority"))
		getpriority(PRIO_PROCESS, 0);
	else
		uname(&u);
	printf("%s ran\n", argc > 3 ? argv[3] : "uname");
	return 0;
}
C
cc -o api api.c -ldl
./reaper env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" sh -c "exec ./api '$LIB' 'uname: 0'" >a.out 2>a.err
expect_sigkill $?
expect_grep '^mode 2$' a.out
expect_grep "^apply 0 ''$" a.out
expect_no_grep '^uname ran$' a.out
expect_report a.err newuname 'not in the allowed set'
# the narrowing is made on the policy in force: its rules still hold
./reaper env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" \
	sh -c "exec ./api '$LIB' 'uname: 0' getpriority" >g.out 2>g.err
expect_sigkill $?
expect_grep "^apply 0 ''$" g.out
expect_no_grep '^getpriority ran$' g.out
expect_report g.err getpriority 'sys_getpriority: which == 7 (SECFILTER_POLICY:2)'
echo "ok secfilter_apply in the exec'd image narrows the policy parsed at first use"

# (c) A text the mark does not confirm is parsed and loaded at the start,
# as ever: a forged wider one widens nothing (the inherited filter still
# kills; the image's policy has no rule for it, the report says so), a narrower one is enforced by
# the filter the image loads (its program and its mark: two more).
lazy "$P" sh -c 'SECFILTER_POLICY="*: 1" exec grep "^Seccomp_filters" /proc/self/status' >f.out 2>f.err ||
	fail "a forged text: $(cat f.err)"
forged_n=$(awk '{print $2}' f.out)
[ "$forged_n" = $((sh_n + 2)) ] || fail "an image handed another text loaded no filter: $sh_n -> $forged_n"
./reaper env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" \
	sh -c 'SECFILTER_POLICY="*: 1" exec ./race' >fw.out 2>fw.err
expect_sigkill $?
expect_no_grep '^escaped$' fw.out
expect_grep '^    rule: denied by a filter installed before this image$' fw.err
lazy "$P" sh -c 'SECFILTER_POLICY="*: 1; uname: 0" uname; echo "uname $?"' >fn.out 2>fn.err
expect_grep '^uname 137$' fn.out
expect_report fn.err newuname 'not in the allowed set'
echo "ok a text the mark does not confirm is parsed and loaded at the start ($sh_n -> $forged_n filters)"
