# secfilter: `make`, `make check`, `make bench`, `make fuzz`,
# `make install`, `make uninstall`.
# Sources are found by wildcard; data tables are generated into build/gen.

CC       ?= gcc
CFLAGS   ?= -O2 -g
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
DESTDIR  ?=
SANITIZE ?=
FUZZ_TIME ?= 60
INSTALL  ?= install

B := build
WARN := -Wall -Wextra -Werror
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -Ifilter -I$(B)/gen $(CFLAGS)
# The library's floors, lowest first (HACKING.md): a floor's sources see
# the headers of their own floor and of those below, no others.
FLOORS := base obj state report trap rewrite interpose entry
floor_inc = $(patsubst %,-Ipreload/%,$(1))

# The tool and the tests may be sanitized.  libsecfilter.so never is: ASan
# must be the first library of a process, and a preloaded library cannot
# be; the library's logic is exercised sanitized through the unit tests of
# filter/ and end to end through the tool.
ifneq ($(SANITIZE),)
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
HOST_CFLAGS := $(BASE_CFLAGS) $(SAN_FLAGS)
HOST_LDFLAGS := $(SAN_FLAGS) $(LDFLAGS)
# -fno-builtin: the library defines read(), open(), ... with its own types.
# -mgeneral-regs-only: a rewritten syscall site enters the library without
# saving the vector registers (preload/rewrite/rwentry.S): no code of it may touch
# them.
# -fno-jump-tables: a switch compiled to a table reads it from .rodata,
# a page fault of its own in a process that reads nothing else there (the
# switch in sf_issue: every forked child of a filtered shell).
PIC_CFLAGS := $(BASE_CFLAGS) -fPIC -fvisibility=hidden -fno-builtin \
	-fno-stack-protector -ftls-model=initial-exec -mgeneral-regs-only \
	-ffunction-sections -fno-jump-tables

GEN_SRC := $(B)/gen/systab_data.c $(B)/gen/consts_data.c $(B)/gen/errno_data.c \
	$(B)/gen/groups_data.c $(B)/gen/args_data.c $(B)/gen/uring_data.c
FILTER_SRC := $(filter-out filter/mem-libc.c,$(wildcard filter/*.c))
# In the order of their names, whatever their floor: the link order of
# what hot.txt does not place.
PRELOAD_C := $(foreach f,$(FLOORS),$(wildcard preload/$(f)/*.c))
PRELOAD_S := $(foreach f,$(FLOORS),$(wildcard preload/$(f)/*.S))
by_name = $(foreach n,$(sort $(notdir $(1))),$(filter %/$(n),$(1)))
PRELOAD_SRC := $(call by_name,$(PRELOAD_C)) $(call by_name,$(PRELOAD_S)) $(B)/gen/wrappers.c
TOOL_SRC := $(wildcard tools/*.c)

objs = $(patsubst %,$(B)/$(1)/%.o,$(2))
FILTER_OBJ := $(call objs,obj,$(FILTER_SRC) $(GEN_SRC))
FILTER_PIC := $(call objs,pic,$(FILTER_SRC) $(GEN_SRC))
PRELOAD_PIC := $(call objs,pic,$(PRELOAD_SRC))
MEMLIBC_OBJ := $(call objs,obj,filter/mem-libc.c)
TOOL_OBJ := $(call objs,obj,$(TOOL_SRC))

UNIT_SUPPORT := $(filter-out tests/unit/test_%,$(wildcard tests/unit/*.c))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))
PROGS := $(patsubst tests/progs/%.c,$(B)/progs/%,$(wildcard tests/progs/*.c))
# The escape battery (tests/escape/run.sh): attempts a_*, their shared
# objects lib_*.so.
ESCAPES := $(patsubst tests/escape/%.c,$(B)/escape/%,$(wildcard tests/escape/a_*.c)) \
	$(patsubst tests/escape/%.c,$(B)/escape/%.so,$(wildcard tests/escape/lib_*.c)) \
	$(B)/escape/h_interp $(B)/escape/h_interp_user $(B)/escape/h_nolibc \
	$(B)/escape/fakelibs/libunwind.so.8 $(B)/escape/fakelibc/libc.so.6

# The version has one home, tools/secfilter.h; the library's ABI version
# is its SONAME's number, raised only when the API breaks.
VERSION := $(shell sed -n 's/^\#define SECFILTER_VERSION "\(.*\)"/\1/p' tools/secfilter.h)
SONAME := libsecfilter.so.1
# build/libsecfilter.so is a link to the SONAME file: what LD_PRELOAD,
# -lsecfilter and the tests name.
LIB := $(B)/libsecfilter.so
LIB_SO := $(B)/$(SONAME)
TOOL := $(B)/secfilter

all: $(LIB_SO) $(LIB) $(TOOL)

$(B)/gen/systab_data.c: syscalls/x86_64/syscalls.tbl syscalls/gen-systab.awk
	@mkdir -p $(@D)
	LC_ALL=C awk -f syscalls/gen-systab.awk $< > $@.tmp && mv $@.tmp $@

$(B)/gen/uring_data.c: syscalls/x86_64/syscalls.tbl syscalls/x86_64/io_uring.tbl syscalls/gen-uring.awk
	@mkdir -p $(@D)
	awk -f syscalls/gen-uring.awk syscalls/x86_64/syscalls.tbl syscalls/x86_64/io_uring.tbl > $@.tmp && mv $@.tmp $@

$(B)/gen/consts_data.c: syscalls/x86_64/constants.tbl syscalls/gen-consts.awk
	@mkdir -p $(@D)
	LC_ALL=C sort -k1,1 -s $< | awk -f syscalls/gen-consts.awk > $@.tmp && mv $@.tmp $@

$(B)/gen/errno_data.c: syscalls/x86_64/errno.tbl syscalls/gen-errno.awk
	@mkdir -p $(@D)
	awk -f syscalls/gen-errno.awk $< > $@.tmp && mv $@.tmp $@

$(B)/gen/groups_data.c: syscalls/systemd-groups.txt syscalls/gen-groups.awk syscalls/x86_64/syscalls.tbl
	@mkdir -p $(@D)
	awk -f syscalls/gen-groups.awk syscalls/x86_64/syscalls.tbl $< > $@.tmp && mv $@.tmp $@

# The constants come sorted as for consts_data.c: the hints name them by
# their index there.
$(B)/gen/args_data.c: syscalls/x86_64/args.tbl syscalls/gen-args.awk syscalls/x86_64/syscalls.tbl \
		syscalls/x86_64/constants.tbl
	@mkdir -p $(@D)
	LC_ALL=C sort -k1,1 -s syscalls/x86_64/constants.tbl | \
		awk -f syscalls/gen-args.awk syscalls/x86_64/syscalls.tbl - syscalls/x86_64/args.tbl > $@.tmp && mv $@.tmp $@

# References for tests/unit/test_systab.c from the build machine's headers:
# every __NR_* its <asm/unistd_64.h> defines, and a check of each table
# constant against whatever header also defines it.
$(B)/gen/unistd_list.h:
	@mkdir -p $(@D)
	echo '#include <asm/unistd_64.h>' | $(CC) -dM -E -x c - > $@.defs
	awk '$$1 == "#define" && $$2 ~ /^__NR_/ && $$3 ~ /^[0-9]+$$/ { sub(/^__NR_/, "", $$2); printf "SF_UNISTD(%s, %s)\n", $$2, $$3 }' \
		$@.defs > $@.tmp && rm -f $@.defs && mv $@.tmp $@

$(B)/gen/consts_check.h: syscalls/x86_64/constants.tbl syscalls/gen-constcheck.awk
	@mkdir -p $(@D)
	awk -f syscalls/gen-constcheck.awk $< > $@.tmp && mv $@.tmp $@

$(B)/gen/errno_check.h: syscalls/x86_64/errno.tbl syscalls/gen-constcheck.awk
	@mkdir -p $(@D)
	awk -f syscalls/gen-constcheck.awk $< > $@.tmp && mv $@.tmp $@

$(B)/tests/test_systab: $(B)/gen/unistd_list.h $(B)/gen/consts_check.h $(B)/gen/errno_check.h

$(B)/gen/wrappers.c: preload/interpose/wrappers.tbl preload/interpose/gen-wrappers.awk syscalls/x86_64/syscalls.tbl
	@mkdir -p $(@D)
	awk -f preload/interpose/gen-wrappers.awk syscalls/x86_64/syscalls.tbl $< > $@.tmp && mv $@.tmp $@

$(B)/obj/%.c.o: %.c $(GEN_SRC)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(B)/pic/%.c.o: %.c $(GEN_SRC)
	@mkdir -p $(@D)
	$(CC) $(PIC_CFLAGS) $(FLOOR_INC) -MMD -MP -c $< -o $@

$(B)/pic/%.S.o: %.S
	@mkdir -p $(@D)
	$(CC) $(PIC_CFLAGS) $(FLOOR_INC) -MMD -MP -c $< -o $@

# A floor's sources are compiled with the include paths of that floor and
# the floors below it only: an upward #include does not compile.  (filter/
# sees no floor at all.)  The generated wrappers are interpose/'s.
$(foreach i,$(shell seq $(words $(FLOORS))),$(eval \
	$(B)/pic/preload/$(word $(i),$(FLOORS))/%: FLOOR_INC := $(call floor_inc,$(wordlist 1,$(i),$(FLOORS)))))
$(B)/pic/$(B)/gen/wrappers.c.o: FLOOR_INC := $(call floor_inc,base obj state report trap rewrite interpose)
$(B)/pic/preload/entry/%: FLOOR_INC += -Ipreload # secfilter.h, the API

# The library needs no library: loaded as an audit module (preload/entry/audit.c)
# its dependencies would be looked for on the program's own RPATH, RUNPATH
# and LD_LIBRARY_PATH before the filter exists, and a libc there would be
# a second copy of libc, mapped, relocated and initialized in every
# process started in trusted mode.  What it takes from libc is weak and
# bound in the program's namespace (preload/base/base.h); libgcc is static.  The
# build id lets the copies of the library in one process recognize each
# other.  LIBC_PATH: the real libc, which a test copies.
LIBC_PATH ?= $(shell readlink -f "$$($(CC) -print-file-name=libc.so.6)")

# What every start, fork and trap runs is linked first, together: the
# kernel maps a file's pages around a fault 64 KiB at a time, so code
# spread over the whole text took a page fault per window in every
# process (a start of /bin/true: sf_init, the parser, apply and util.c,
# each in a window of its own).
HOT_SRC := preload/entry/init.c preload/state/settings.c preload/entry/audit.c preload/obj/self.c \
	preload/obj/objs.c preload/base/mem.c preload/base/libc.c preload/base/fmt.c \
	preload/entry/api.c preload/state/publish.c preload/state/policy.c preload/base/sud.c \
	preload/state/decide.c preload/trap/dispatch.c preload/trap/sigreturn.c \
	preload/trap/guard.c preload/trap/trusted.c preload/trap/action.c preload/trap/clone.c \
	preload/trap/special.c preload/trap/frame.c preload/trap/user.c preload/state/rwstate.c \
	preload/rewrite/rewrite.c filter/parse.c \
	filter/build.c filter/apply.c filter/util.c filter/systab.c filter/uring.c \
	filter/print.c preload/interpose/wrap.c preload/trap/exec.c $(B)/gen/uring_data.c
LIB_PIC := $(call objs,pic,$(HOT_SRC)) \
	$(filter-out $(call objs,pic,$(HOT_SRC)),$(PRELOAD_PIC) $(FILTER_PIC))

# Within those files, the functions preload/hot.txt names go first of all,
# in an output section of their own placed before .text (INSERT keeps the
# default linker script), and sf_region (the wrappers, the library's own
# syscalls) right after them: ~33 KB instead of ~176, beside the code
# every call runs.  The guard's stubs (a page's start), the assembly
# (sf_sys, the stubs every start calls: raw.S, clone.S, vfork.S,
# rwentry.S) open sf_region, then the wrappers every start calls (_exit,
# open, fcntl, sigaction, execve...: SF_REGION_FIRST, wrap.h) and the
# generated ones in preload/interpose/wrappers.tbl's order (read, write, close,
# dup2, getuid... wait3 first).  The kernel maps a file's pages around a
# fault in 64 KiB windows of addresses; the library is loaded at any
# page, so code within 64 KiB of sf_init, the first of the hot text,
# lies in at most two windows: the link checks that wait3, the last of
# the hot wrappers, is still there.
# The functions preload/warm.txt names (what a start or a forked child on
# its way to exec runs beyond those) follow sf_region, at the start of
# .text: spread over .text, they were a fault in each of three windows in
# every image of an interposed tree.
# Segments are aligned to 4 KiB (max-page-size): aligned to 64 KiB, the
# hot text began a window, but the loader then reserves, trims and
# splits the mapping, four more system calls in every image (b_start,
# interleaved, AMD EPYC: the shell loop 1.150x against 1.144x
# interposed, 1.083x against 1.076x trusted; make 1.226x against 1.217x
# and 1.164x against 1.148x; an image of a trusted tree 12 us more).
$(B)/hot.ld: preload/hot.txt preload/warm.txt
	@mkdir -p $(@D)
	{ echo 'SECTIONS {'; echo '  .text.sf_hot : {'; \
	  sed 's/#.*//' preload/hot.txt | awk 'NF { printf "    *(.text.%s .text.%s.* .text.startup.%s)\n", $$1, $$1, $$1 }'; \
	  echo '  }'; echo '  sf_region : { *guard.S.o(sf_region) *raw.S.o(sf_region) *clone.S.o(sf_region) *vfork.S.o(sf_region) *rwentry.S.o(sf_region) *(sf_region.first) *wrappers.c.o(sf_region) *(sf_region) }'; \
	  echo '  .text.sf_warm : {'; \
	  sed 's/#.*//' preload/warm.txt | awk 'NF { printf "    *(.text.%s .text.%s.* .text.startup.%s)\n", $$1, $$1, $$1 }'; \
	  echo '  }'; \
	  echo '}'; echo 'INSERT BEFORE .text;'; \
	  echo 'SECTIONS { . = ALIGN(CONSTANT(MAXPAGESIZE)); }'; echo 'INSERT BEFORE .tdata;'; } >$@.tmp
	mv $@.tmp $@

# The writable segment starts a page and has no RELRO: .dynamic, the GOT
# and .data then share the one page the loader writes first (clearing the
# tail after .data), where RELRO took a page of their own, read and then
# written (two faults) and then an mprotect, in every image.  RELRO would
# keep a program's stray write off the GOT; it keeps nothing from a
# program that means it (the library's state beside it is writable, and
# in interposition mode so is everything else), and in trusted mode the
# kernel filter decides whatever the library's pointers say.
$(LIB_SO): $(LIB_PIC) $(B)/hot.ld
	$(CC) -shared -nostdlib -Wl,-soname,$(SONAME) -o $@.tmp $(LIB_PIC) -lgcc -Wl,-z,now \
		-Wl,-z,norelro -Wl,-z,noexecstack -Wl,-z,max-page-size=0x1000 \
		-Wl,--build-id=sha1 -Wl,-T,$(B)/hot.ld $(LDFLAGS)
	@! readelf -d $@.tmp | grep -q NEEDED || { echo "$@: needs a library" >&2; exit 1; }
	@a=$$(nm $@.tmp | awk '$$3 == "sf_init" { print $$1 }'); b=$$(nm $@.tmp | awk '$$3 == "wait3" { print $$1 }'); \
	[ -n "$$a" ] && [ -n "$$b" ] && [ $$((0x$$b - 0x$$a)) -gt 0 ] && [ $$((0x$$b - 0x$$a)) -lt 65536 ] || \
		{ echo "$@: wait3, the last of the hot wrappers, is more than 64 KiB past sf_init" \
		  "(preload/hot.txt or the first wrappers grew)" >&2; exit 1; }
	mv $@.tmp $@

$(LIB): $(LIB_SO)
	ln -sf $(SONAME) $@

$(TOOL): $(TOOL_OBJ) $(FILTER_OBJ) $(MEMLIBC_OBJ)
	$(CC) $(HOST_LDFLAGS) -o $@ $^

$(B)/tests/%: tests/unit/%.c $(UNIT_SUPPORT) $(FILTER_OBJ) $(MEMLIBC_OBJ) $(GEN_SRC)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -o $@ $< $(UNIT_SUPPORT) $(FILTER_OBJ) $(MEMLIBC_OBJ) $(HOST_LDFLAGS) -lcmocka -lseccomp -lpthread

# test_oci_diff also loads what `secfilter compile --format=oci` writes.
$(B)/tests/test_oci_diff: tests/unit/test_oci_diff.c $(UNIT_SUPPORT) $(FILTER_OBJ) $(MEMLIBC_OBJ) $(GEN_SRC) $(B)/obj/tools/oci_out.c.o
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -Itools -o $@ $< $(UNIT_SUPPORT) $(FILTER_OBJ) $(MEMLIBC_OBJ) $(B)/obj/tools/oci_out.c.o $(HOST_LDFLAGS) -lcmocka -lseccomp -lpthread

# test_learnfs drives learn's fs. rules (tools/learnfs.c), a pure function.
$(B)/tests/test_learnfs: tests/unit/test_learnfs.c $(UNIT_SUPPORT) $(FILTER_OBJ) $(MEMLIBC_OBJ) $(GEN_SRC) $(B)/obj/tools/learnfs.c.o
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/unit -Itools -o $@ $< $(UNIT_SUPPORT) $(FILTER_OBJ) $(MEMLIBC_OBJ) $(B)/obj/tools/learnfs.c.o $(HOST_LDFLAGS) -lcmocka -lseccomp -lpthread

# Test programs run under the library; *-static.c ones are linked -static.
$(B)/progs/%-static: tests/progs/%-static.c
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -MMD -MP -static -o $@ $<

$(B)/progs/%: tests/progs/%.c preload/secfilter.h
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -MMD -MP -Ipreload -o $@ $< -lpthread -ldl -lseccomp

# A cgo-linked (so dynamically linked) Go program for the end-to-end tests:
# Go makes its own syscall instructions.  Go's caches live in the build
# directory.
GO_PROBE := $(B)/progs/go_probe
GO_ENV = HOME=$(abspath $(B)) GOCACHE=$(abspath $(B))/go/cache GOPATH=$(abspath $(B))/go/path \
	GOFLAGS=-mod=mod CGO_ENABLED=1
$(GO_PROBE): tests/go/probe.go
	@mkdir -p $(@D)
	cd tests/go && $(GO_ENV) go build -o $(abspath $@) probe.go

$(B)/escape/%-static: tests/escape/%-static.c tests/escape/escape.h
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -static -o $@ $<

$(B)/escape/%.so: tests/escape/%.c tests/escape/escape.h
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -shared -fPIC -o $@ $<

# A static "interpreter" (no libc: it would run with another program's
# auxv) and a program that names it in PT_INTERP.
$(B)/escape/h_interp: tests/escape/h_interp.c
	@mkdir -p $(@D)
	$(CC) -O1 $(WARN) -static -nostdlib -fno-pic -no-pie -o $@ $<

# The same code dynamic, with the system's loader and no library:
# a_exec_rlimit, a_exec_nofile, a_exec_chmod, a_exec_sigids.
$(B)/escape/h_nolibc: tests/escape/h_interp.c
	@mkdir -p $(@D)
	$(CC) -O1 $(WARN) -nostdlib -fPIE -pie -Wl,--dynamic-linker=/lib64/ld-linux-x86-64.so.2 -o $@ $<

$(B)/escape/h_interp_user: tests/escape/h_interp_user.c $(B)/escape/h_interp
	@mkdir -p $(@D)
	$(CC) -O1 $(WARN) -o $@ $< -Wl,--dynamic-linker=$(abspath $(B)/escape/h_interp)

# -rdynamic: an attempt may export its own definition of a libc function
# the library might call.
$(B)/escape/%: tests/escape/%.c tests/escape/escape.h preload/secfilter.h
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -Ipreload -rdynamic -o $@ $< -lpthread -ldl $(ESCAPE_LINK_$*)

escapes: $(ESCAPES)

# Attempts on what the loader runs before main: libraries of the program's
# own found on its RPATH/RUNPATH, fakes of what the secfilter library loads.
ESCAPE_LINK_a_needed_ctor_rpath = -L$(B)/escape -l:lib_ctor.so -Wl,--disable-new-dtags,-rpath,'$$ORIGIN'
ESCAPE_LINK_a_needed_ctor_runpath = -L$(B)/escape -l:lib_ctor.so -Wl,--enable-new-dtags,-rpath,'$$ORIGIN'
ESCAPE_LINK_a_needed_ifunc = -L$(B)/escape -l:lib_ifunc.so -Wl,--enable-new-dtags,-rpath,'$$ORIGIN' -Wl,-z,now
ESCAPE_LINK_a_fake_libunwind_rpath = -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/fakelibs'
ESCAPE_LINK_a_fake_libc_runpath = -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/fakelibc'
$(B)/escape/a_needed_ctor_rpath $(B)/escape/a_needed_ctor_runpath: $(B)/escape/lib_ctor.so
$(B)/escape/a_needed_ifunc: $(B)/escape/lib_ifunc.so
$(B)/escape/a_fake_libc_runpath: $(B)/escape/fakelibc/libc.so.6
$(B)/escape/a_uring_refused $(B)/escape/a_uring_denied $(B)/escape/a_uring_named: tests/escape/ring.h

$(B)/escape/fakelibs/libunwind.so.8: tests/escape/fake_libunwind.c tests/escape/escape.h
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -shared -fPIC -nostdlib -o $@ $<

# A copy of libc that also loads fake_marker.so (by absolute path).
$(B)/escape/fakelibc/libc.so.6: $(B)/escape/fakelibc/fake_marker.so
	cp $(LIBC_PATH) $@.tmp
	patchelf --add-needed $(abspath $<) $@.tmp
	mv $@.tmp $@

$(B)/escape/fakelibc/fake_marker.so: tests/escape/fake_marker.c tests/escape/escape.h
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -shared -fPIC -nostdlib -o $@ $<

# The library's floors (HACKING.md): no object calls a floor above its
# own, no more than 4 objects reach each other.
layers: $(LIB_SO)
	@bash tests/layers.sh $(B) $(PRELOAD_PIC)

check: all layers $(UNIT_TESTS) $(PROGS) $(ESCAPES) $(GO_PROBE)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done
	@bash tests/e2e/run.sh

# The end-to-end tests again with the syscall sites never rewritten: every
# call the wrappers do not see goes through the trap.
check-norewrite: all $(UNIT_TESTS) $(PROGS) $(ESCAPES) $(GO_PROBE)
	@SECFILTER_REWRITE=0 bash tests/e2e/run.sh

# Fuzzing with libFuzzer (clang), one target per tests/fuzz/fuzz_NAME.c,
# seeded from tests/fuzz/seeds/NAME (checked in; what the fuzzer finds goes
# to $(B)/fuzz/corpus/NAME).  `make fuzz` runs each for FUZZ_TIME seconds,
# as CI does: a crash, a leak, undefined behaviour or an input that takes
# over 10 s fails it, the input kept as $(B)/fuzz/fuzz_NAME-crash-*.
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS))
FUZZ_SRC := $(FILTER_SRC) $(GEN_SRC) filter/mem-libc.c tests/unit/bpf_sim.c
FUZZ_CFLAGS := -g -O1 -std=gnu11 $(WARN) -D_GNU_SOURCE -Ifilter -I$(B)/gen -Itests/unit \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS ?=

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRC) $(wildcard filter/*.h tests/unit/bpf_sim.h tests/fuzz/*.h)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $< $(FUZZ_SRC) -o $@

fuzz: $(FUZZ_BINS)
	@set -e; for t in $(FUZZ_TARGETS); do \
		s=$${t#fuzz_}; mkdir -p $(B)/fuzz/corpus/$$s; \
		echo "== $$t, $(FUZZ_TIME) s"; \
		$(B)/fuzz/$$t -max_total_time=$(FUZZ_TIME) -max_len=4096 -timeout=10 \
			-print_final_stats=1 -artifact_prefix=$(B)/fuzz/$$t- $(FUZZ_FLAGS) \
			$(B)/fuzz/corpus/$$s tests/fuzz/seeds/$$s; \
	done

bench: all
	@bash bench/run.sh

# One bench alone: nginx, redis and postgres under their learned policies
# (bench/b_servers.sh; ROUNDS, SRV_SECONDS, SRV_REQUESTS size it).
bench-servers: all
	@bash bench/run.sh servers

# What `make install` writes; `make uninstall` removes exactly these.
# Binaries are stripped on the way (install -s): the build tree keeps them
# with their debug information.  secfilter.pc is written at install time,
# for the PREFIX given then.
MAN_PAGES := $(wildcard man/*.[137])
BIN_DIR := $(DESTDIR)$(PREFIX)/bin
LIB_DIR := $(DESTDIR)$(LIBDIR)
INC_DIR := $(DESTDIR)$(PREFIX)/include
DOC_DIR := $(DESTDIR)$(PREFIX)/share/doc/secfilter
MAN_DIR := $(DESTDIR)$(PREFIX)/share/man
PC_DIR := $(LIB_DIR)/pkgconfig
COMPLETION_DIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
INSTALLED := $(BIN_DIR)/secfilter $(LIB_DIR)/$(SONAME) $(LIB_DIR)/libsecfilter.so \
	$(INC_DIR)/secfilter.h $(DOC_DIR)/secfilter.conf.example $(PC_DIR)/secfilter.pc \
	$(COMPLETION_DIR)/secfilter \
	$(foreach m,$(MAN_PAGES),$(MAN_DIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))

install: all
	$(INSTALL) -d $(BIN_DIR) $(LIB_DIR) $(INC_DIR) $(DOC_DIR) $(PC_DIR) $(COMPLETION_DIR) \
		$(MAN_DIR)/man1 $(MAN_DIR)/man3 $(MAN_DIR)/man7
	$(INSTALL) -s -m 755 $(TOOL) $(BIN_DIR)/secfilter
	$(INSTALL) -s -m 755 $(LIB_SO) $(LIB_DIR)/$(SONAME)
	ln -sf $(SONAME) $(LIB_DIR)/libsecfilter.so
	$(INSTALL) -m 644 preload/secfilter.h $(INC_DIR)/secfilter.h
	$(INSTALL) -m 644 secfilter.conf.example $(DOC_DIR)/secfilter.conf.example
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
		-e 's|@VERSION@|$(VERSION)|' secfilter.pc.in > $(B)/secfilter.pc
	$(INSTALL) -m 644 $(B)/secfilter.pc $(PC_DIR)/secfilter.pc
	$(INSTALL) -m 644 completion/secfilter.bash $(COMPLETION_DIR)/secfilter
	$(foreach m,$(MAN_PAGES),$(INSTALL) -m 644 $(m) $(MAN_DIR)/man$(subst .,,$(suffix $(m)))/ &&) true

uninstall:
	rm -f $(INSTALLED)
	rmdir $(DOC_DIR) 2>/dev/null || true

clean:
	rm -rf $(B)

.PHONY: all layers escapes check check-norewrite fuzz bench bench-servers install uninstall clean
.SECONDARY:

-include $(shell find $(B)/obj $(B)/pic $(B)/progs -name '*.d' 2>/dev/null)
