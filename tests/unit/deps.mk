
$(BUILD)/tests/test_ringbuf: $(COMMON_LIB)
$(BUILD)/tests/test_lockless_rb: $(COMMON_LIB)
$(BUILD)/tests/test_registry: $(COMMON_LIB)
$(BUILD)/tests/test_wire: $(COMMON_LIB)
$(BUILD)/tests/test_tsdl: $(COMMON_LIB)
$(BUILD)/tests/test_clocksync: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_vm_link: $(BUILD)/obj/host/vm_link.o $(BUILD)/obj/host/vm_store.o \
	$(BUILD)/obj/tests/common/wire_packet.o \
	$(BUILD)/obj/host/archive_writer.o $(BUILD)/obj/host/tsc.o \
	$(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_agent_apps: $(BUILD)/obj/tools/agent.o $(BUILD)/obj/tools/agent_apps.o \
	$(BUILD)/obj/tools/agent_kernel.o $(COMMON_LIB)
# merge/check readers (tools/) and the synthetic archives their tests use.
HVT_READER_OBJS := $(addprefix $(BUILD)/obj/tools/,align.o archive.o archive_tsv.o \
	archive_vm.o ctf_fields.o ctf_reader.o ftrace_reader.o heap.o kvm_tsc.o stream_warn.o \
	sync_points.o textout.o timeline.o tracedat.o)
# `hvtrace merge` itself
HVT_MERGE_OBJS := $(addprefix $(BUILD)/obj/tools/,merge.o merge_report.o select.o json_out.o ctf_out.o \
	progress.o)
HVT_FIXTURE_OBJ := $(BUILD)/obj/tests/unit/archive_fixture.o
$(BUILD)/tests/test_heap: $(BUILD)/obj/tools/heap.o
$(BUILD)/tests/test_ctf_reader: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_ftrace_reader: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_archive: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_timeline: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_kvm_tsc: $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_merge: $(HVT_MERGE_OBJS) $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) \
	$(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_check: $(addprefix $(BUILD)/obj/tools/,check.o check_events.o bound_hist.o \
	vcpu_windows.o) $(HVT_READER_OBJS) $(HVT_FIXTURE_OBJ) \
	$(COMMON_LIB) $(CLOCKSYNC_LIB)
# test_dlclose loads $(BUILD)/libhvtrace.so.1: built first, in both builds
$(BUILD)/tests/test_libhvtrace: $(LIBHVTRACE_A) $(COMMON_LIB) | $(LIBHVTRACE_SO)
$(BUILD)/tests/test_tsc_xform: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_fit: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_drift: $(BUILD)/obj/tools/drift.o $(COMMON_LIB) $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_estimator: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_netaddr: $(COMMON_LIB)
$(BUILD)/tests/test_ftrace_capture: $(BUILD)/obj/host/ftrace_capture.o $(COMMON_LIB)
