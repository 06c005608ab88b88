# SPDX-License-Identifier: GPL-2.0-only
#
# hvtrace top-level Makefile.
#
#   make            user-space parts (libhvtrace, the hvtrace command)
#   make kmod       the guest module, with Kbuild against the guest kernel
#   make kmod-rt    the same against Debian's PREEMPT_RT kernel
#   make image      the guest initramfs (scripts/guest-image); image-rt: RT
#   make demo       the main job: trace host, guest kernel and guest user space
#   make check      every test: unit tests (plain and ASan+UBSan), end to end
#   make install    PREFIX=/usr/local DESTDIR=
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
HOST_LIBS := $(shell pkg-config --libs libtracefs libtraceevent jansson 2>/dev/null)
HOST_CFLAGS := $(shell pkg-config --cflags libtracefs libtraceevent jansson 2>/dev/null)

LIBHVTRACE_VERSION := 1.0.0
LIBHVTRACE_SONAME := libhvtrace.so.1

COMMON_SRC := $(wildcard lib/*.c)
CLOCKSYNC_SRC := $(wildcard clocksync/*.c)
VDSO_SRC := vdso/clock.c vdso/agent.c vdso/buffer.c vdso/event.c lib/fdpass.c
TOOL_SRC := $(wildcard tools/*.c) $(wildcard host/*.c)
TEST_SRC := $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
pic = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))

COMMON_LIB := $(BUILD)/libhvtcommon.a
CLOCKSYNC_LIB := $(BUILD)/libhvtclocksync.a
LIBHVTRACE_A := $(BUILD)/libhvtrace.a
LIBHVTRACE_SO := $(BUILD)/libhvtrace.so.$(LIBHVTRACE_VERSION)
HVTRACE := $(BUILD)/hvtrace
HVDEMO := $(BUILD)/hvdemo
GUEST_TEST := $(BUILD)/hvtrace-guest-test
KVM_OFFSETS := $(BUILD)/hvtrace-kvm-offsets
TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC))

all: $(HVTRACE) $(LIBHVTRACE_SO) $(LIBHVTRACE_A) $(HVDEMO)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(COMMON_LIB): $(call obj,$(COMMON_SRC))
	$(AR) rcs $@ $^

$(CLOCKSYNC_LIB): $(call obj,$(CLOCKSYNC_SRC))
	$(AR) rcs $@ $^

$(LIBHVTRACE_A): $(call obj,$(VDSO_SRC))
	$(AR) rcs $@ $^

$(LIBHVTRACE_SO): $(call pic,$(VDSO_SRC)) vdso/libhvtrace.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIBHVTRACE_SONAME) \
		-Wl,--version-script=vdso/libhvtrace.map -o $@ $(call pic,$(VDSO_SRC)) -pthread
	ln -sf libhvtrace.so.$(LIBHVTRACE_VERSION) $(BUILD)/$(LIBHVTRACE_SONAME)
	ln -sf libhvtrace.so.$(LIBHVTRACE_VERSION) $(BUILD)/libhvtrace.so

$(HVTRACE): $(call obj,$(TOOL_SRC)) $(COMMON_LIB) $(CLOCKSYNC_LIB)
	$(CC) $(LDFLAGS) -o $@ $(call obj,$(TOOL_SRC)) $(COMMON_LIB) $(CLOCKSYNC_LIB) $(HOST_LIBS) -lm

$(HVDEMO): $(call obj,vdso/example/hvdemo.c) $(LIBHVTRACE_SO)
	$(CC) $(LDFLAGS) -o $@ $(call obj,vdso/example/hvdemo.c) -L$(BUILD) -lhvtrace -pthread \
		-Wl,-rpath,'$$ORIGIN'

# The module's tests that run inside the guest (tests/e2e/guest_clock.sh).
$(GUEST_TEST): $(call obj,tests/guest/clock_test.c) $(LIBHVTRACE_SO)
	$(CC) $(LDFLAGS) -o $@ $(call obj,tests/guest/clock_test.c) -L$(BUILD) -lhvtrace -pthread \
		-Wl,-rpath,'$$ORIGIN'

# A VMM without a guest for tests/e2e/kvm_tsc.sh.
$(KVM_OFFSETS): $(call obj,tests/host/kvm_offsets.c)
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

$(BUILD)/bench/bench_clocksync: $(CLOCKSYNC_LIB)
$(BUILD)/bench/bench_tracepoint: $(COMMON_LIB) | $(LIBHVTRACE_SO)
$(BUILD)/bench/bench_merge: $(BUILD)/obj/tools/merge.o $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS) -lm

bench: deps
	$(MAKE) $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done

# guest-kmod/Makefile finds the headers (scripts/guest-kernel) unless KDIR=
# is given, which reaches it from the command line or the environment.
kmod:
	$(MAKE) -C guest-kmod

# The same module against Debian's PREEMPT_RT kernel (linux-headers-rt-amd64),
# built in a copy of guest-kmod/ so that the two builds' objects stay apart.
KMOD_RT := $(BUILD)/kmod-rt
kmod-rt:
	@mkdir -p $(KMOD_RT)/events
	cp -u guest-kmod/Kbuild guest-kmod/Makefile $(filter-out %.mod.c,$(wildcard guest-kmod/*.c)) \
		guest-kmod/*.h $(KMOD_RT)/
	cp -u guest-kmod/events/*.h $(KMOD_RT)/events/
	$(MAKE) -C $(KMOD_RT) FLAVOUR=rt-amd64 HVT_TOP=$(CURDIR)

# Kbuild decides whether hvtrace.ko is out of date: kmod always runs, and
# the image is rebuilt when the .ko's time changed.
guest-kmod/hvtrace.ko: kmod ;
$(KMOD_RT)/hvtrace.ko: kmod-rt ;

GUEST_DEPS := $(HVTRACE) $(HVDEMO) $(GUEST_TEST) $(LIBHVTRACE_SO) scripts/guest-image \
	scripts/guest-init
GUEST_IMAGE := $(BUILD)/guest/initrd.gz
$(GUEST_IMAGE): $(GUEST_DEPS) guest-kmod/hvtrace.ko
	scripts/guest-image $(BUILD)

# The test guest on the PREEMPT_RT kernel (tests/e2e/guest_clock.sh runs on both).
GUEST_IMAGE_RT := $(BUILD)/guest-rt/initrd.gz
$(GUEST_IMAGE_RT): $(GUEST_DEPS) $(KMOD_RT)/hvtrace.ko
	scripts/guest-image $(BUILD) rt-amd64

image: $(GUEST_IMAGE)
image-rt: $(GUEST_IMAGE_RT)

deps:
	scripts/install-deps

unit:
	$(if $(filter $(PLAIN_BUILD),$(SAN_BUILD)),$(error PLAIN_BUILD and SAN_BUILD are both $(SAN_BUILD)))
	$(MAKE) SANITIZE=0 BUILD=$(PLAIN_BUILD) tests
	scripts/run-unit-tests $(PLAIN_BUILD)
	$(MAKE) SANITIZE=1 BUILD=$(SAN_BUILD) tests
	scripts/run-unit-tests $(SAN_BUILD)

# A make of its own after deps: pkg-config's flags are read when make starts.
demo: deps
	$(MAKE) all image
	scripts/demo $(BUILD)

check: deps
	$(MAKE) all image image-rt $(KVM_OFFSETS)
	$(MAKE) unit
	tests/e2e/run $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/hvtrace
	install -m 755 $(HVTRACE) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIBHVTRACE_SO) $(LIBHVTRACE_A) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libhvtrace.so.$(LIBHVTRACE_VERSION) $(DESTDIR)$(PREFIX)/lib/$(LIBHVTRACE_SONAME)
	ln -sf libhvtrace.so.$(LIBHVTRACE_VERSION) $(DESTDIR)$(PREFIX)/lib/libhvtrace.so
	install -m 644 include/hvtrace/*.h $(DESTDIR)$(PREFIX)/include/hvtrace/
	# hvtrace.pc names PREFIX: written here, for the PREFIX of this install
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBHVTRACE_VERSION)|' \
		vdso/hvtrace.pc.in > $(BUILD)/hvtrace.pc
	install -m 644 $(BUILD)/hvtrace.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/

clean:
	rm -rf build build-san $(BUILD) $(SAN_BUILD)
	-$(MAKE) -C guest-kmod clean

.PHONY: all kmod kmod-rt image image-rt deps unit tests bench demo check install clean
.DELETE_ON_ERROR:
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
