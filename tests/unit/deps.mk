# Unit tests link what they test: each test below lists what it adds to its
# own object. The offline pipeline is one library (the Makefile's
# OFFLINE_LIBS: libhvtoffline.a, then clocksync and lib/), whose members a
# test pulls in as it needs them.

HVT_FIXTURE_OBJ := $(BUILD)/obj/tests/unit/archive_fixture.o
# A test of the offline side: the synthetic archives, then the library.
OFFLINE_TEST := $(HVT_FIXTURE_OBJ) $(OFFLINE_LIBS)
obj_of = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

$(BUILD)/tests/test_ringbuf: $(COMMON_LIB)
$(BUILD)/tests/test_lockless_rb: $(COMMON_LIB)
$(BUILD)/tests/test_registry: $(COMMON_LIB)
$(BUILD)/tests/test_wire: $(COMMON_LIB)
$(BUILD)/tests/test_tsdl: $(COMMON_LIB)
$(BUILD)/tests/test_clocksync: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_tsc_xform: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_fit: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_estimator: $(CLOCKSYNC_LIB)
$(BUILD)/tests/test_netaddr: $(COMMON_LIB)
$(BUILD)/tests/test_cli: $(COMMON_LIB)
$(BUILD)/tests/test_priority: $(COMMON_LIB)
$(BUILD)/tests/test_replace_async: $(BUILD)/obj/host/replace_async.o $(BUILD)/obj/tests/common/tmpdir.o $(COMMON_LIB)
$(BUILD)/tests/test_fileio: $(BUILD)/obj/tests/common/tmpdir.o $(COMMON_LIB)
$(BUILD)/tests/test_drift: $(BUILD)/obj/tools/cmd_drift.o $(CLOCKSYNC_LIB) $(COMMON_LIB)
$(BUILD)/tests/test_vm_link: $(BUILD)/obj/host/vm_link.o $(BUILD)/obj/host/vm_store.o $(BUILD)/obj/host/replace_async.o \
	$(BUILD)/obj/host/vm_untraced.o \
	$(BUILD)/obj/tests/common/wire_packet.o \
	$(BUILD)/obj/host/archive_writer.o $(BUILD)/obj/host/host_tsc.o \
	$(CLOCKSYNC_LIB) $(COMMON_LIB)
$(BUILD)/tests/test_ftrace_capture: $(BUILD)/obj/host/ftrace_capture.o \
	$(BUILD)/obj/host/task_list.o $(BUILD)/obj/tests/common/tmpdir.o $(COMMON_LIB)
$(BUILD)/tests/test_qemu_log_copy: $(BUILD)/obj/host/qemu_log_copy.o \
	$(BUILD)/obj/tests/common/tmpdir.o $(COMMON_LIB)
$(BUILD)/tests/test_qemu_log_lines: $(BUILD)/obj/tools/read/qemu_log_lines.o \
	$(BUILD)/obj/tests/common/tmpdir.o $(COMMON_LIB)
$(BUILD)/tests/test_task_list: $(BUILD)/obj/host/task_list.o \
	$(BUILD)/obj/tests/common/tmpdir.o $(COMMON_LIB)
$(BUILD)/tests/test_agent_apps: \
	$(addprefix $(BUILD)/obj/tools/agent/,agent_apps.o agent_link.o agent_uids.o) \
	$(COMMON_LIB)
# test_dlclose loads $(BUILD)/libhvtrace.so.1: built first, in both builds
$(BUILD)/tests/test_libhvtrace: $(BUILD)/obj/tests/common/tmpdir.o $(LIBHVTRACE_A) $(COMMON_LIB) \
	| $(LIBHVTRACE_SO)

# The offline side, stage by stage.
$(BUILD)/tests/test_heap: $(OFFLINE_TEST)
$(BUILD)/tests/test_host_runs: $(OFFLINE_TEST)
$(BUILD)/tests/test_ctf_reader: $(OFFLINE_TEST)
$(BUILD)/tests/test_ftrace_reader: $(OFFLINE_TEST)
$(BUILD)/tests/test_archive: $(OFFLINE_TEST)
$(BUILD)/tests/test_kvm_model: $(OFFLINE_TEST)
$(BUILD)/tests/test_run_constraints: $(OFFLINE_TEST)
$(BUILD)/tests/test_timeline: $(OFFLINE_TEST)
$(BUILD)/tests/test_merge: $(call obj_of,tools/cmd_merge.c $(OUT_SRC)) $(OFFLINE_TEST)
$(BUILD)/tests/test_check: $(call obj_of,tools/cmd_check.c $(CHECK_SRC)) $(OFFLINE_TEST)
$(BUILD)/tests/test_vm_analysis: $(OFFLINE_TEST)
$(BUILD)/tests/test_wait_chain: $(OFFLINE_TEST)
$(BUILD)/tests/test_io_flows: $(OFFLINE_TEST)
$(BUILD)/tests/test_analyze: $(call obj_of,tools/cmd_analyze.c $(ANALYZE_SRC)) $(OFFLINE_TEST)
$(BUILD)/tests/test_top: $(call obj_of,$(TOP_SRC)) $(OFFLINE_TEST)
$(BUILD)/tests/test_event_decoder: $(OFFLINE_TEST)
$(BUILD)/tests/test_session: $(OFFLINE_TEST)
$(BUILD)/tests/test_follow: $(OFFLINE_TEST)
$(BUILD)/tests/test_align: $(OFFLINE_TEST)
$(BUILD)/tests/test_sql: $(call obj_of,tools/cmd_merge.c tools/cmd_sql.c $(OUT_SRC)) $(OFFLINE_TEST)
$(BUILD)/tests/test_relay_proto: $(call obj_of,tools/relay/relay_proto.c tools/relay/relay_trace.c) \
	$(COMMON_LIB)
