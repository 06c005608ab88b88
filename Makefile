# SPDX-License-Identifier: GPL-2.0-only
#
# hvtrace top-level Makefile.
#
#   make            user-space parts (libhvtrace, the hvtrace command)
#   make kmod       the guest module, with Kbuild against the guest kernel
#   make kmod-rt    the same against Debian's PREEMPT_RT kernel; kmod-612 and
#                   kmod-612-rt against 6.12, kmod-all all four
#   make image      the guest initramfs (scripts/guest-image); image-rt,
#                   image-612, image-612-rt on the other kernels
#   make demo       the main job: trace host, guest kernel and guest user space
#   make check      every test: unit tests (plain and ASan+UBSan), end to end
#   make fuzz       the fuzz targets (libFuzzer), FUZZ_SECONDS each
#   make install    PREFIX=/usr/local DESTDIR=
#   make install-guest   in a VM: the agent, libhvtrace, its systemd unit and
#                   udev rule, the module's autoload and DKMS sources
#
# Objects go to $(BUILD) (build/, or build-san/ with SANITIZE=1). The unit
# tests of make unit and make check are built twice whatever SANITIZE says:
# plain in $(PLAIN_BUILD) and with ASan+UBSan in $(SAN_BUILD), one of them
# $(BUILD).

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD ?= build-san
OPT := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_BUILD := $(BUILD)
PLAIN_BUILD ?= build
else
BUILD ?= build
OPT := -O2
PLAIN_BUILD := $(BUILD)
SAN_BUILD ?= $(BUILD)-san
endif

PREFIX ?= /usr/local
DESTDIR ?=

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS := -std=gnu11 -g $(OPT) $(WARN) -D_GNU_SOURCE -Iinclude -I. $(EXTRA_CFLAGS)
LDFLAGS := $(OPT) $(EXTRA_LDFLAGS)
HOST_PKGS := libtracefs libtraceevent libtracecmd jansson libvirt libvirt-qemu libxml-2.0 sqlite3
HOST_LIBS := $(shell pkg-config --libs $(HOST_PKGS) 2>/dev/null)
HOST_CFLAGS := $(shell pkg-config --cflags $(HOST_PKGS) 2>/dev/null)

LIBHVTRACE_VERSION := 1.1.0
LIBHVTRACE_SONAME := libhvtrace.so.1

COMMON_SRC := $(wildcard lib/*.c)
CLOCKSYNC_SRC := $(wildcard clocksync/*.c)
VDSO_SRC := vdso/clock.c vdso/agent.c vdso/agent_trust.c vdso/buffer.c vdso/debug.c vdso/event.c vdso/watch.c \
	lib/fdpass.c
# The offline pipeline's stages below the checks, the analysis and the
# outputs (tools/README): one library that the binary, the unit tests, the
# fuzzers and the benchmarks link.
OFFLINE_SRC := $(wildcard $(addsuffix /*.c,$(addprefix tools/,util archive read align session merge \
	model)))
OUT_SRC := $(wildcard tools/out/*.c)
CHECK_SRC := $(wildcard tools/check/*.c)
ANALYZE_SRC := $(wildcard tools/analyze/*.c)
TOP_SRC := $(wildcard tools/top/*.c)
RELAY_SRC := $(wildcard tools/relay/*.c)
# hvtrace-agent: the guest side alone, linking libc only (tools/agent/agent_main.c)
AGENT_SRC := $(wildcard tools/agent/*.c)
TOOL_SRC := $(wildcard tools/*.c) $(OUT_SRC) $(CHECK_SRC) $(ANALYZE_SRC) $(TOP_SRC) $(RELAY_SRC) \
	$(filter-out tools/agent/agent_main.c,$(AGENT_SRC)) $(wildcard host/*.c)
TEST_SRC := $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
pic = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))

COMMON_LIB := $(BUILD)/libhvtcommon.a
CLOCKSYNC_LIB := $(BUILD)/libhvtclocksync.a
OFFLINE_LIB := $(BUILD)/libhvtoffline.a
# What links the offline library links these after it, in this order.
OFFLINE_LIBS := $(OFFLINE_LIB) $(CLOCKSYNC_LIB) $(COMMON_LIB)
LIBHVTRACE_A := $(BUILD)/libhvtrace.a
LIBHVTRACE_SO := $(BUILD)/libhvtrace.so.$(LIBHVTRACE_VERSION)
HVTRACE := $(BUILD)/hvtrace
AGENT := $(BUILD)/hvtrace-agent
HVDEMO := $(BUILD)/hvdemo
GUEST_TEST := $(BUILD)/hvtrace-guest-test
GUEST_BENCH := $(BUILD)/hvtrace-guest-bench
KVM_OFFSETS := $(BUILD)/hvtrace-kvm-offsets
KVM_GUEST_TSC := $(BUILD)/hvtrace-kvm-guest-tsc
GUEST_PAGES := $(BUILD)/hvtrace-guest-pages
UST_STRESS := $(BUILD)/hvtrace-ust-stress
LATE_APP := $(BUILD)/hvtrace-late-app
TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC))

all: $(HVTRACE) $(AGENT) $(LIBHVTRACE_SO) $(LIBHVTRACE_A) $(HVDEMO)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# Made anew each time: ar would keep the member of a source renamed or removed.
$(COMMON_LIB): $(call obj,$(COMMON_SRC))
	rm -f $@ && $(AR) rcs $@ $^

$(CLOCKSYNC_LIB): $(call obj,$(CLOCKSYNC_SRC))
	rm -f $@ && $(AR) rcs $@ $^

$(OFFLINE_LIB): $(call obj,$(OFFLINE_SRC))
	rm -f $@ && $(AR) rcs $@ $^

$(LIBHVTRACE_A): $(call obj,$(VDSO_SRC))
	rm -f $@ && $(AR) rcs $@ $^

$(LIBHVTRACE_SO): $(call pic,$(VDSO_SRC)) vdso/libhvtrace.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIBHVTRACE_SONAME) -Wl,-z,nodelete \
		-Wl,--version-script=vdso/libhvtrace.map -o $@ $(call pic,$(VDSO_SRC)) -pthread
	ln -sf libhvtrace.so.$(LIBHVTRACE_VERSION) $(BUILD)/$(LIBHVTRACE_SONAME)
	ln -sf libhvtrace.so.$(LIBHVTRACE_VERSION) $(BUILD)/libhvtrace.so

$(HVTRACE): $(call obj,$(TOOL_SRC)) $(OFFLINE_LIBS)
	$(CC) $(LDFLAGS) -o $@ $(call obj,$(TOOL_SRC)) $(OFFLINE_LIBS) $(HOST_LIBS) -lm

# No host library: its objects use lib/ only, and libhvtcommon.a's members
# that need jansson or libtracefs (none today) would fail this link.
$(AGENT): $(call obj,$(AGENT_SRC)) $(COMMON_LIB)
	$(CC) $(LDFLAGS) -o $@ $(call obj,$(AGENT_SRC)) $(COMMON_LIB)

$(HVDEMO): $(call obj,vdso/example/hvdemo.c) $(LIBHVTRACE_SO)
	$(CC) $(LDFLAGS) -o $@ $(call obj,vdso/example/hvdemo.c) -L$(BUILD) -lhvtrace -pthread \
		-Wl,-rpath,'$$ORIGIN'

# The module's tests that run inside the guest (tests/e2e/guest_suite.sh).
GUEST_TEST_SRC := tests/guest/guest_test.c tests/guest/clock_test.c tests/guest/kmod_test.c
$(GUEST_TEST): $(foreach s,$(GUEST_TEST_SRC),$(call obj,$(s))) $(LIBHVTRACE_SO)
	$(CC) $(LDFLAGS) -o $@ $(foreach s,$(GUEST_TEST_SRC),$(call obj,$(s))) -L$(BUILD) -lhvtrace \
		-pthread -Wl,-rpath,'$$ORIGIN'

# sched_switch recording, hvtrace's against ftrace's, inside the guest
# (tests/bench/guest_probes.sh, make bench).
$(GUEST_BENCH): $(call obj,tests/bench/guest_probes.c)
	$(CC) $(LDFLAGS) -o $@ $^

# libhvtrace under threads > CPUs, migrations and fork (tests/e2e/user_stress.sh).
$(UST_STRESS): $(call obj,tests/host/ust_stress.c) $(LIBHVTRACE_SO)
	$(CC) $(LDFLAGS) -o $@ $(call obj,tests/host/ust_stress.c) -L$(BUILD) -lhvtrace -pthread \
		-Wl,-rpath,'$$ORIGIN'

# A process traced by whichever recordings run in its life (tests/e2e/late_attach.sh).
$(LATE_APP): $(call obj,tests/host/late_app.c) $(LIBHVTRACE_SO)
	$(CC) $(LDFLAGS) -o $@ $(call obj,tests/host/late_app.c) -L$(BUILD) -lhvtrace -pthread \
		-Wl,-rpath,'$$ORIGIN'

# A VMM without a guest for tests/e2e/kvm_tsc.sh.
$(KVM_OFFSETS): $(call obj,tests/host/kvm_offsets.c)
	$(CC) $(LDFLAGS) -o $@ $^

# A VMM running real guest code for tests/e2e/vcpu_windows.sh; it writes the
# guest side of its run into the archive with the unit tests' fixture.
$(KVM_GUEST_TSC): $(call obj,tests/host/kvm_guest_tsc.c) $(BUILD)/obj/tests/unit/archive_fixture.o \
		$(COMMON_LIB)
	$(CC) $(LDFLAGS) -o $@ $^

# Raw ring-buffer pages of a guest with known TSC values, for a guest
# trace.dat made by trace-cmd restore (tests/e2e/kvm_tsc.sh).
$(GUEST_PAGES): $(call obj,tests/host/guest_pages.c)
	$(CC) $(LDFLAGS) -o $@ $^

# Unit tests link what they test; tests/unit/deps.mk says what that is.
include tests/unit/deps.mk

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS) -lcmocka -pthread -lm

tests: $(TESTS)

# Benchmarks: tests/bench/bench_X.c -> $(BUILD)/bench/bench_X, run by `make bench`.
BENCH_SRC := $(wildcard tests/bench/bench_*.c)
BENCHES := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
# bench_tracepoint's LTTng-UST reference: tests/bench/lttng_ref.sh runs it in a
# session of a session daemon of its own; bench_tracepoint reads the result.
LTTNG_REF := $(BUILD)/bench/lttng_ref
LTTNG_REF_OUT := $(BUILD)/bench/lttng_ref.out
LTTNG_UST_LIBS = $(shell pkg-config --libs lttng-ust 2>/dev/null || echo -llttng-ust -ldl)

$(BUILD)/bench/bench_clocksync: $(CLOCKSYNC_LIB)
$(BUILD)/bench/bench_tracepoint: $(COMMON_LIB) | $(LIBHVTRACE_SO)
$(BUILD)/bench/bench_merge: $(BUILD)/obj/tests/bench/run_measure.o $(HVT_FIXTURE_OBJ) \
	$(OFFLINE_LIBS) | $(HVTRACE)
$(BUILD)/bench/bench_io_flows: $(BUILD)/obj/tests/bench/run_measure.o $(HVT_FIXTURE_OBJ) \
	$(OFFLINE_LIBS) | $(HVTRACE)
$(BUILD)/bench/bench_collector: $(addprefix $(BUILD)/obj/host/,vm_link.o vm_store.o vm_untraced.o replace_async.o archive_writer.o host_tsc.o ftrace_capture.o task_list.o) $(COMMON_LIB) $(CLOCKSYNC_LIB)

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS) -lm

$(LTTNG_REF): $(BUILD)/obj/tests/bench/lttng_ref.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LTTNG_UST_LIBS)

# Events at a fixed offered rate, for tests/bench/guest_link.sh (guest data
# throughput over virtio-serial against the same collector over a unix socket).
PACED_EVENTS := $(BUILD)/bench/paced_events
$(PACED_EVENTS): $(call obj,tests/bench/paced_events.c) $(LIBHVTRACE_SO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(call obj,tests/bench/paced_events.c) -L$(BUILD) -lhvtrace -pthread \
		-Wl,-rpath,'$$ORIGIN/..'

# The same program against LTTng-UST, for tests/bench/data_path.sh.
PACED_LTTNG := $(BUILD)/bench/paced_lttng
$(BUILD)/obj/tests/bench/paced_lttng.o: tests/bench/paced_events.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DPACED_LTTNG -MMD -MP -c $< -o $@
$(PACED_LTTNG): $(BUILD)/obj/tests/bench/paced_lttng.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LTTNG_UST_LIBS) -pthread

# After deps: two apt-gets at once (make -j) would contend for dpkg's lock.
bench-deps: deps
	scripts/install-bench-deps

bench: bench-deps
	$(MAKE) $(BENCHES) $(LTTNG_REF) $(PACED_EVENTS) $(PACED_LTTNG) $(UST_STRESS) image
	rm -f $(LTTNG_REF_OUT)
	tests/bench/lttng_ref.sh $(LTTNG_REF) $(LTTNG_REF_OUT)
	@for b in $(BENCHES); do echo "== $$b"; HVT_BENCH_LTTNG=$(LTTNG_REF_OUT) $$b || exit 1; done
	@echo "== $(BUILD)/bench/bench_tracepoint, as on the host (HVT_BENCH_HOST=1)"
	HVT_BENCH_HOST=1 HVT_BENCH_LTTNG=$(LTTNG_REF_OUT) $(BUILD)/bench/bench_tracepoint
	@echo "== tests/bench/data_path.sh"
	tests/bench/data_path.sh $(BUILD)
	@echo "== tests/bench/guest_link.sh"
	tests/bench/guest_link.sh $(BUILD)
	@echo "== tests/bench/guest_probes.sh"
	tests/bench/guest_probes.sh $(BUILD)
	@echo "== tests/bench/live.sh"
	tests/bench/live.sh $(BUILD)

.PHONY: bench-deps

# Fuzz targets (libFuzzer, clang): tests/fuzz/fuzz_X.c -> $(FUZZ_BUILD)/fuzz_X, each
# with the sources it fuzzes and its seed generator tests/fuzz/X_seeds.c.
# make fuzz runs each for FUZZ_SECONDS, keeping what it finds in
# $(FUZZ_BUILD)/corpus/X; make check replays the seeds and a fixed number of
# runs from a fixed seed (fuzz-replay), so that it is repeatable.
FUZZ_BUILD := $(BUILD)-fuzz
FUZZ_CC := clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 3000
FUZZ_TARGETS := guest_link archive_readers relay_proto
FUZZ_SRC_guest_link := tests/fuzz/fuzz_guest_link.c host/vm_link.c host/vm_store.c host/vm_untraced.c host/replace_async.c \
	host/archive_writer.c host/host_tsc.c $(COMMON_SRC) $(CLOCKSYNC_SRC)
# merge, check, analyze and tsc: the commands but main, the agent and drift
# (top's objects too: its command is linked with them), with the offline
# library built for fuzzing
FUZZ_SRC_archive_readers := tests/fuzz/fuzz_archive_readers.c tests/fuzz/archive_readers.c \
	tests/unit/archive_fixture.c $(COMMON_SRC) $(CLOCKSYNC_SRC) $(OUT_SRC) $(CHECK_SRC) \
	$(ANALYZE_SRC) $(TOP_SRC) $(RELAY_SRC) \
	$(filter-out tools/hvtrace.c tools/cmd_drift.c,$(wildcard tools/*.c))
# the relay's viewer protocol over a live trace
FUZZ_SRC_relay_proto := tests/fuzz/fuzz_relay_proto.c tools/relay/relay_proto.c \
	tools/relay/relay_trace.c $(COMMON_SRC)
fuzzobj = $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(1))
FUZZ_OFFLINE_LIB := $(FUZZ_BUILD)/libhvtoffline.a

$(FUZZ_OFFLINE_LIB): $(call fuzzobj,$(OFFLINE_SRC))
	rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -g -O1 $(WARN) -D_GNU_SOURCE -Iinclude -I. $(HOST_CFLAGS) \
		-fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/fuzz_guest_link: $(call fuzzobj,$(FUZZ_SRC_guest_link))
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(HOST_LIBS) -lm

$(FUZZ_BUILD)/fuzz_relay_proto: $(call fuzzobj,$(FUZZ_SRC_relay_proto))
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ -lm

$(FUZZ_BUILD)/fuzz_archive_readers: $(call fuzzobj,$(FUZZ_SRC_archive_readers)) $(FUZZ_OFFLINE_LIB)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(HOST_LIBS) -lm

$(FUZZ_BUILD)/seeds_archive_readers: $(BUILD)/obj/tests/fuzz/archive_readers_seeds.o \
		$(BUILD)/obj/tests/fuzz/archive_readers.o $(HVT_FIXTURE_OBJ) $(OFFLINE_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS) -lm

$(FUZZ_BUILD)/seeds_%: $(BUILD)/obj/tests/fuzz/%_seeds.o $(BUILD)/obj/tests/common/wire_packet.o \
		$(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

fuzz-build: deps
	$(MAKE) $(addprefix $(FUZZ_BUILD)/fuzz_,$(FUZZ_TARGETS)) \
		$(addprefix $(FUZZ_BUILD)/seeds_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do rm -rf $(FUZZ_BUILD)/seeds/$$t && \
		mkdir -p $(FUZZ_BUILD)/seeds/$$t $(FUZZ_BUILD)/corpus/$$t && \
		$(FUZZ_BUILD)/seeds_$$t $(FUZZ_BUILD)/seeds/$$t || exit 1; done

# Leaks of third-party libraries on their error paths (tests/fuzz/lsan.supp).
FUZZ_ENV := LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do echo "== fuzz_$$t, $(FUZZ_SECONDS) s"; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -print_final_stats=1 \
			$(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/seeds/$$t || exit 1; done

# Runs per target: an input of archive_readers runs five commands on an
# archive, about 50 a second here.
fuzz_runs = $(if $(filter archive_readers,$(1)),$(FUZZ_RUNS_ARCHIVE),$(FUZZ_RUNS))
FUZZ_RUNS_ARCHIVE ?= 1000

fuzz-replay: fuzz-build
	@$(foreach t,$(FUZZ_TARGETS),echo "== fuzz_$(t): the seeds, then $(call fuzz_runs,$(t)) runs from seed 1"; \
		log=$(FUZZ_BUILD)/replay-$(t).log; new=$(FUZZ_BUILD)/replay-corpus/$(t); \
		rm -rf $$new && mkdir -p $$new && \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$(t) -runs=$(call fuzz_runs,$(t)) -seed=1 -print_final_stats=1 \
			$$new $(FUZZ_BUILD)/seeds/$(t) > $$log 2>&1 || { tail -n 60 $$log; exit 1; }; \
		grep -E "^Done|stat::new_units" $$log;)

-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)

# guest-kmod/Makefile finds the headers (scripts/guest-kernel) unless KDIR=
# is given, which reaches it from the command line or the environment.
kmod:
	$(MAKE) -C guest-kmod

# The module against the other guest kernels, each built in a copy of
# guest-kmod/ so that the builds' objects stay apart (guest-kmod/ itself is
# Debian 12's 6.1). kmod-NAME: FLAVOUR of scripts/guest-kernel, directory.
#   kmod-rt      rt-amd64       $(BUILD)/kmod-rt      6.1 PREEMPT_RT
#   kmod-612     6.12-amd64     $(BUILD)/kmod-612     6.12 (Debian 13's, and
#   kmod-612-rt  6.12-rt-amd64  $(BUILD)/kmod-612-rt  bookworm-security's)
# Kbuild decides whether hvtrace.ko is out of date: kmod always runs, and
# an image is rebuilt when its .ko's time changed.
define kmod_copy
kmod-$(1):
	@mkdir -p $(BUILD)/kmod-$(1)/events
	cp -u guest-kmod/Kbuild guest-kmod/Makefile $(filter-out %.mod.c,$(wildcard guest-kmod/*.c)) \
		guest-kmod/*.h $(BUILD)/kmod-$(1)/
	cp -u guest-kmod/events/*.h $(BUILD)/kmod-$(1)/events/
	$$(MAKE) -C $(BUILD)/kmod-$(1) FLAVOUR=$(2) HVT_TOP=$(CURDIR)
$(BUILD)/kmod-$(1)/hvtrace.ko $(BUILD)/kmod-$(1)/hvtrace_selftest.ko: kmod-$(1) ;
endef
$(eval $(call kmod_copy,rt,rt-amd64))
$(eval $(call kmod_copy,612,6.12-amd64))
$(eval $(call kmod_copy,612-rt,6.12-rt-amd64))
kmod-all: kmod kmod-rt kmod-612 kmod-612-rt

guest-kmod/hvtrace.ko guest-kmod/hvtrace_selftest.ko: kmod ;

GUEST_DEPS := $(AGENT) $(HVDEMO) $(GUEST_TEST) $(GUEST_BENCH) $(PACED_EVENTS) $(LIBHVTRACE_SO) \
	scripts/guest-image scripts/guest-init
GUEST_IMAGE := $(BUILD)/guest/initrd.gz
$(GUEST_IMAGE): $(GUEST_DEPS) guest-kmod/hvtrace.ko guest-kmod/hvtrace_selftest.ko
	scripts/guest-image $(BUILD)

# The test guests on the other kernels (tests/e2e/guest_suite.sh runs on all).
define guest_image
GUEST_IMAGE_$(1) := $(BUILD)/guest-$(1)/initrd.gz
$(BUILD)/guest-$(1)/initrd.gz: $(GUEST_DEPS) $(BUILD)/kmod-$(1)/hvtrace.ko \
		$(BUILD)/kmod-$(1)/hvtrace_selftest.ko
	scripts/guest-image $(BUILD) $(2)
image-$(1): $(BUILD)/guest-$(1)/initrd.gz
endef
$(eval $(call guest_image,rt,rt-amd64))
$(eval $(call guest_image,612,6.12-amd64))
$(eval $(call guest_image,612-rt,6.12-rt-amd64))

image: $(GUEST_IMAGE)

deps:
	scripts/install-deps

unit:
	$(if $(filter $(PLAIN_BUILD),$(SAN_BUILD)),$(error PLAIN_BUILD and SAN_BUILD are both $(SAN_BUILD)))
	$(MAKE) SANITIZE=0 BUILD=$(PLAIN_BUILD) tests
	scripts/run-unit-tests $(PLAIN_BUILD)
	$(MAKE) SANITIZE=1 BUILD=$(SAN_BUILD) tests $(SAN_BUILD)/hvtrace-agent
	scripts/run-unit-tests $(SAN_BUILD)
	tests/agent_exits.sh $(SAN_BUILD)
	tests/man_pages.sh
	tests/layers.sh --self-test

# A make of its own after deps: pkg-config's flags are read when make starts.
demo: deps
	$(MAKE) all image
	scripts/demo $(BUILD)

check: deps
	$(MAKE) all image image-rt image-612 image-612-rt $(KVM_OFFSETS) $(KVM_GUEST_TSC) $(GUEST_PAGES) \
		$(UST_STRESS) $(LATE_APP) $(PACED_EVENTS)
	$(MAKE) unit
	$(MAKE) fuzz-replay
	tests/e2e/run $(BUILD)

# libhvtrace for programs to build and run against: both installs.
install-lib: $(LIBHVTRACE_SO) $(LIBHVTRACE_A)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/hvtrace
	install -m 644 $(LIBHVTRACE_SO) $(LIBHVTRACE_A) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libhvtrace.so.$(LIBHVTRACE_VERSION) $(DESTDIR)$(PREFIX)/lib/$(LIBHVTRACE_SONAME)
	ln -sf libhvtrace.so.$(LIBHVTRACE_VERSION) $(DESTDIR)$(PREFIX)/lib/libhvtrace.so
	install -m 644 include/hvtrace/*.h $(DESTDIR)$(PREFIX)/include/hvtrace/
	# hvtrace.pc names PREFIX: written here, for the PREFIX of this install
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBHVTRACE_VERSION)|' \
		vdso/hvtrace.pc.in > $(BUILD)/hvtrace.pc
	install -m 644 $(BUILD)/hvtrace.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	# the .so pages stay files: man follows them
	install -d $(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 man/man3/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 man/man7/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/

install: all install-lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(HVTRACE) $(AGENT) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

# The guest side, as a VM owner installs it once (README, "In the guest"):
# hvtrace-agent and libhvtrace (no host library needed to build them), a
# systemd unit that runs the agent while the port org.hvtrace.0 exists
# (a udev rule gives the port a device unit), hvtrace.ko loaded at boot,
# and the module's sources for DKMS, which rebuilds it for every guest
# kernel: after the install, dkms install hvtrace/$(HVTRACE_VERSION).
HVTRACE_VERSION := $(shell sed -n 's/^\#define HVTRACE_VERSION "\(.*\)"/\1/p' lib/version.h)
UNITDIR ?= /etc/systemd/system
UDEVRULESDIR ?= /etc/udev/rules.d
MODULESLOADDIR ?= /etc/modules-load.d
DKMSSRCDIR ?= /usr/src
DKMS_TREE = $(DESTDIR)$(DKMSSRCDIR)/hvtrace-$(HVTRACE_VERSION)
install-guest: $(AGENT) install-lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVRULESDIR) \
		$(DESTDIR)$(MODULESLOADDIR) $(DKMS_TREE)/events $(DKMS_TREE)/include/hvtrace
	install -m 755 $(AGENT) $(DESTDIR)$(PREFIX)/bin/
	sed 's|@BINDIR@|$(PREFIX)/bin|' scripts/guest/hvtrace-agent.service.in \
		> $(DESTDIR)$(UNITDIR)/hvtrace-agent.service
	chmod 644 $(DESTDIR)$(UNITDIR)/hvtrace-agent.service
	install -m 644 scripts/guest/60-hvtrace.rules $(DESTDIR)$(UDEVRULESDIR)/
	install -m 644 scripts/guest/modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/hvtrace.conf
	install -m 644 guest-kmod/Kbuild $(filter-out %.mod.c,$(wildcard guest-kmod/*.c)) \
		guest-kmod/*.h $(DKMS_TREE)/
	install -m 644 guest-kmod/events/*.h $(DKMS_TREE)/events/
	install -m 644 include/hvtrace/*.h $(DKMS_TREE)/include/hvtrace/
	sed 's|@VERSION@|$(HVTRACE_VERSION)|' guest-kmod/dkms.conf > $(DKMS_TREE)/dkms.conf

clean:
	rm -rf build build-san build-fuzz $(BUILD) $(SAN_BUILD) $(FUZZ_BUILD)
	-$(MAKE) -C guest-kmod clean

.PHONY: all kmod kmod-rt kmod-612 kmod-612-rt kmod-all image image-rt image-612 image-612-rt fuzz fuzz-build fuzz-replay deps unit tests bench demo check install \
	install-lib install-guest clean
.DELETE_ON_ERROR:
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
