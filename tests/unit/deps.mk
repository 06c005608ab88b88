
$(BUILD)/tests/test_ringbuf: $(COMMON_LIB)
$(BUILD)/tests/test_lockless_rb: $(COMMON_LIB)
$(BUILD)/tests/test_registry: $(COMMON_LIB)
$(BUILD)/tests/test_wire: $(COMMON_LIB)
$(BUILD)/tests/test_tsdl: $(COMMON_LIB)
$(BUILD)/tests/test_clocksync: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_vm_link: $(BUILD)/obj/host/vm_link.o $(BUILD)/obj/host/vm_store.o \
	$(BUILD)/obj/tests/common/wire_packet.o \
	$(BUILD)/obj/host/archive_writer.o $(BUILD)/obj/host/host_tsc.o \
	$(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_agent_apps: $(addprefix $(BUILD)/obj/tools/agent/,agent_apps.o agent_link.o) \
	$(COMMON_LIB)
# merge/check readers (tools/) and the synthetic archives their tests use.
HVT_READER_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/archive/*.c tools/read/*.c \
	tools/align/*.c tools/util/*.c) $(filter-out tools/merge/select.c,$(wildcard tools/merge/*.c)))
# `hvtrace merge` itself
HVT_MERGE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,tools/cmd_merge.c tools/merge/select.c \
	$(wildcard tools/out/*.c))
HVT_FIXTURE_OBJ := $(BUILD)/obj/tests/unit/archive_fixture.o
$(BUILD)/tests/test_heap: $(BUILD)/obj/tools/merge/heap.o
$(BUILD)/tests/test_ctf_reader: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_ftrace_reader: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_archive: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_timeline: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_kvm_model: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_merge: $(HVT_MERGE_OBJS) $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) \
	$(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_check: $(BUILD)/obj/tools/cmd_check.o \
	$(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/check/*.c)) $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) \
	$(COMMON_LIB) $(CLOCKSYNC_LIB)
# test_dlclose loads $(BUILD)/libhvtrace.so.1: built first, in both builds
$(BUILD)/tests/test_libhvtrace: $(BUILD)/obj/tests/common/tmpdir.o $(LIBHVTRACE_A) $(COMMON_LIB) \
	| $(LIBHVTRACE_SO)
$(BUILD)/tests/test_tsc_xform: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_fit: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_drift: $(BUILD)/obj/tools/cmd_drift.o $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_estimator: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_netaddr: $(COMMON_LIB)
$(BUILD)/tests/test_ftrace_capture: $(BUILD)/obj/host/ftrace_capture.o \
	$(BUILD)/obj/tests/common/tmpdir.o $(COMMON_LIB)
$(BUILD)/tests/test_cli: $(COMMON_LIB)
$(BUILD)/tests/test_fileio: $(BUILD)/obj/tests/common/tmpdir.o $(COMMON_LIB)
$(BUILD)/tests/test_host_runs: $(BUILD)/obj/tools/align/host_runs.o
$(BUILD)/tests/test_vm_analysis: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/analyze/*.c)) \
	$(BUILD)/obj/tools/align/host_runs.o
$(BUILD)/tests/test_analyze: $(BUILD)/obj/tools/cmd_analyze.o $(BUILD)/obj/tools/merge/select.o \
	$(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/analyze/*.c)) $(HVT_READER_OBJS) \
	$(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_run_constraints: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
