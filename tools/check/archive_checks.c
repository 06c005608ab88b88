// SPDX-License-Identifier: GPL-2.0-only
/*
 * archive_checks.c - `hvtrace check`'s verdicts on what the session holds
 * (archive_checks.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/fileio.h"
#include "tools/check/archive_checks.h"
#include "tools/check/metadata_check.h"

const char *hvt_check_cannot_open(const char *path, const char *name, char *buf, size_t len)
{
	uint64_t size;
	int fd = hvt_open_regular(path, UINT64_MAX, &size);

	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	snprintf(buf, len, "%s: %s", name, hvt_file_strerror(errno));
	return buf;
}

/* "vm/NAME/FILE: why" in @buf if VM @ref's @file cannot be opened; NULL if it can. */
static const char *vm_file_missing(const struct hvt_vm_ref *ref, const char *file, char *buf,
				   size_t len)
{
	char path[HVT_PATH_LEN], name[HVT_VM_NAME_MAX + 64];

	if (!ref->dir || hvt_path(path, sizeof(path), "%s/%s", ref->dir, file))
		return NULL;
	snprintf(name, sizeof(name), "vm/%s/%s", ref->name, file);
	return hvt_check_cannot_open(path, name, buf, len);
}

const char *hvt_check_vm_unplaced(const struct hvt_session *ses, size_t i, char *buf,
				  size_t len)
{
	const struct hvt_session_vm *st = &ses->vms[i];
	const struct hvt_vm_ref *ref = &ses->archive.vms[i];
	char why[HVT_VM_NAME_MAX + 192];

	if (!st->loaded) {
		snprintf(buf, len, "the VM cannot be read: %s",
			 vm_file_missing(ref, "info.json", why, sizeof(why)) ? why :
			 "its info.json cannot be used (see the errors)");
		return buf;
	}
	if (st->al.aligned || st->al.exact || hvt_vm_info_host_only(&st->vm))
		return NULL;
	/* not aligned: no exchange (the estimate needs one) and no sync point */
	if (st->vm.sync_warnings && vm_file_missing(ref, "sync.tsv", why, sizeof(why)))
		snprintf(buf, len, "the VM cannot be aligned: %s", why);
	else
		snprintf(buf, len, "the VM cannot be aligned: no clock exchange in sync.tsv%s and "
			 "no sync point", st->vm.sync_warnings ? " (see the warnings)" : "");
	return buf;
}

/* Every line of sync.tsv was usable. */
static bool sync_tsv_sound(const struct hvt_vm_info *vm, char *reason, size_t len)
{
	if (vm->sync_warnings)
		snprintf(reason, len, "sync.tsv: %lu problem%s (see the warnings)",
			 vm->sync_warnings, vm->sync_warnings == 1 ? "" : "s");
	return !vm->sync_warnings;
}

bool hvt_check_sync(const struct hvt_vm_info *vm, struct hvt_vm_clock *clock,
		    char *reason, size_t len)
{
	const struct hvt_sync_rec *bad;
	size_t exempt;

	if (!sync_tsv_sound(vm, reason, len))
		return false;
	if (!clock) {
		snprintf(reason, len, "no clock exchanges: the guest cannot be aligned");
		return false;
	}
	if (clock->glitch) {
		snprintf(reason, len, "exchange seq %" PRIu64 " is not causal: it contradicts the "
			 "exchanges around it", clock->glitch_seq);
		return false;
	}
	bad = hvt_vm_clock_first_violation(clock, vm->sync, vm->nr_sync, &exempt);
	if (bad) {
		snprintf(reason, len, "exchange seq %" PRIu64 " is not causal once aligned", bad->seq);
		return false;
	}
	return true;
}


/* sync-held-out[VM]: exchanges the estimate never saw, judged against it. */
static void check_held_out(struct hvt_tally *t, struct hvt_session *ses,
			   const struct hvt_session_vm *st)
{
	struct hvt_held_out h;
	char name[512];

	hvt_check_named(name, sizeof(name), "sync-held-out", st->vm.name);
	if (st->al.exact) {
		hvt_check_report(t, HVT_SKIP, name, "aligned by KVM's TSC parameters, not by a fit");
		return;
	}
	if (hvt_vm_clock_held_out(st->vm.sync, st->vm.nr_sync, HVT_HELD_OUT_EVERY, &h)) {
		hvt_check_report(t, HVT_SKIP, name, "%zu exchanges; at least %u are needed to keep some out of "
		       "the fit", st->vm.nr_sync, HVT_HELD_OUT_MIN);
		return;
	}
	if (h.contradict)
		hvt_check_report(t, HVT_FAIL, name, "%zu of %zu exchanges kept out of the fit lie outside its "
		       "guaranteed interval, the first is seq %" PRIu64 ": the clock model does "
		       "not hold there", h.contradict, h.judged, h.first_seq);
	else
		hvt_check_report(t, HVT_PASS, name, "every %uth exchange kept out of the fit: %zu judged, all "
		       "within its guaranteed interval; %zu not causal against its central line "
		       "(by at most %.3f us, inside the bound), %zu in a change window or of "
		       "guest values two segments may have shown",
		       HVT_HELD_OUT_EVERY, h.judged, h.off_line, hvt_check_us(ses, h.worst_ticks), h.exempt);
}

/*
 * Why VM @vm has no KVM TSC parameters to judge: a TCG guest's TSC is
 * QEMU's own, an unknown VMM's is not known to be KVM's. NULL for a KVM VM.
 */
const char *hvt_check_not_kvm(const struct hvt_vm_info *vm)
{
	if (vm->kvm)
		return NULL;
	return vm->tcg ? "the VM ran under TCG (its TSC is QEMU's: KVM has no TSC parameters, "
			 "kvm_entry or kvm_exit for it)" :
			 "whether the VM ran under KVM is not known (info.json's accel is "
			 "neither \"kvm\" nor \"tcg\": the recording knew no VMM process of it)";
}

/*
 * kvm-tsc[VM]: a KVM VM is aligned with KVM's own parameters, which agree
 * among their sources. Every VM has the line: one that cannot have them
 * says why.
 */
static void check_kvm_tsc(struct hvt_tally *t, const struct hvt_session_vm *st)
{
	unsigned long disagreements = 0;
	char name[512];
	size_t i;

	hvt_check_named(name, sizeof(name), "kvm-tsc", st->vm.name);
	if (hvt_check_not_kvm(&st->vm)) {
		hvt_check_report(t, HVT_SKIP, name, "%s", hvt_check_not_kvm(&st->vm));
		return;
	}
	if (!st->al.kvm.nr_vcpus) {	/* nothing recorded to judge */
		hvt_check_report(t, HVT_SKIP, name, "no KVM TSC parameters to judge: %s",
				 st->al.kvm_why[0] ? st->al.kvm_why : "none was recorded");
		return;
	}
	for (i = 0; i < st->al.kvm.nr_vcpus; i++)
		disagreements += st->al.kvm.vcpus[i].disagreements;
	if (!st->al.exact)
		hvt_check_report(t, HVT_FAIL, name, "not aligned with KVM's TSC parameters: %s", st->al.kvm_why);
	else if (disagreements)
		hvt_check_report(t, HVT_FAIL, name, "%lu snapshot(s) or previous offsets disagree with the traced "
		       "changes (hvtrace tsc)", disagreements);
	else
		hvt_check_report(t, HVT_PASS, name, NULL);
}

/* registry[TRACE], metadata[TRACE]: each trace's registry and CTF metadata. */
static void check_traces(struct hvt_tally *t, const struct hvt_session_vm *st)
{
	char name[512], reason[256];
	size_t j;

	for (j = 0; j < st->vm.nr_traces; j++) {
		hvt_check_named(name, sizeof(name), "registry", st->vm.traces[j].rel);
		if (st->regs[j].warnings)
			hvt_check_report(t, HVT_FAIL, name, "fails validation (see the warnings)");
		else
			hvt_check_report(t, HVT_PASS, name, NULL);
		hvt_check_named(name, sizeof(name), "metadata", st->vm.traces[j].rel);
		if (hvt_metadata_check(&st->vm, &st->vm.traces[j], &st->regs[j].reg, reason,
				       sizeof(reason)))
			hvt_check_report(t, HVT_FAIL, name, "%s", reason);
		else
			hvt_check_report(t, HVT_PASS, name, NULL);
	}
}

/* untraced[VM]: every process and thread that asked was traced. */
static void check_untraced(struct hvt_tally *t, const struct hvt_session_vm *st, const char *vm)
{
	char name[512], text[320];

	hvt_check_named(name, sizeof(name), "untraced", vm);
	if (hvt_vm_info_untraced_text(&st->vm, text, sizeof(text)))
		hvt_check_report(t, HVT_FAIL, name, "%s", text);
	else
		hvt_check_report(t, HVT_PASS, name, NULL);
}

/*
 * The host's applications (host/apps) are placed on the host TSC as they
 * are. host-apps-clock judges that premise: the host agent's clock
 * exchanges, its TSC against the collector's, must each allow an offset
 * of 0 (host_send <= agent_recv, agent_send <= host_recv).
 */
static void check_host_apps(struct hvt_tally *t, struct hvt_session *ses)
{
	const struct hvt_session_vm *st = &ses->host_apps;
	char reason[256];
	size_t i;

	if (!ses->archive.host_apps.dir)
		return;
	if (!st->loaded) {
		hvt_check_report(t, HVT_FAIL, "info-json[host/apps]", "cannot be used (see the errors)");
		return;
	}
	if (st->vm.warnings)
		hvt_check_report(t, HVT_FAIL, "info-json[host/apps]", "%lu entr%s skipped (see the warnings)",
		       st->vm.warnings, st->vm.warnings == 1 ? "y" : "ies");
	else
		hvt_check_report(t, HVT_PASS, "info-json[host/apps]", NULL);
	if (!sync_tsv_sound(&st->vm, reason, sizeof(reason))) {
		hvt_check_report(t, HVT_FAIL, "host-apps-clock", "%s", reason);
	} else if (!st->vm.nr_sync) {
		hvt_check_report(t, HVT_SKIP, "host-apps-clock", "no clock exchange with the host agent");
	} else {
		for (i = 0; i < st->vm.nr_sync; i++) {
			const struct hvt_exchange *x = &st->vm.sync[i].ex;

			if (x->host_send > x->guest_recv || x->guest_send > x->host_recv)
				break;
		}
		if (i < st->vm.nr_sync)
			hvt_check_report(t, HVT_FAIL, "host-apps-clock", "exchange seq %" PRIu64 " rules out "
			       "offset 0: the host agent's TSC is not the collector's, and host "
			       "applications are misplaced", st->vm.sync[i].seq);
		else
			hvt_check_report(t, HVT_PASS, "host-apps-clock", "%zu exchanges with the host agent, "
			       "each causal at offset 0", st->vm.nr_sync);
	}
	check_untraced(t, st, "host/apps");
	check_traces(t, st);
}

static void check_vms(struct hvt_tally *t, struct hvt_session *ses)
{
	char name[512], reason[256];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++) {
		struct hvt_session_vm *st = &ses->vms[i];

		hvt_check_named(name, sizeof(name), "info-json", ses->archive.vms[i].name);
		if (!st->loaded) {
			hvt_check_report(t, HVT_FAIL, name, "cannot be used (see the errors)");
			continue;
		}
		if (st->vm.warnings)
			hvt_check_report(t, HVT_FAIL, name, "%lu entr%s skipped (see the warnings)",
			       st->vm.warnings, st->vm.warnings == 1 ? "y" : "ies");
		else
			hvt_check_report(t, HVT_PASS, name, NULL);
		check_untraced(t, st, st->vm.name);
		hvt_check_named(name, sizeof(name), "sync-causal", st->vm.name);
		if (hvt_vm_info_host_only(&st->vm)) {
			/* no guest clock to judge; KVM's parameters still are */
			hvt_check_report(t, HVT_SKIP, name, "recorded with the host layer only: no guest clock");
			check_kvm_tsc(t, st);
			check_traces(t, st);
			continue;
		}
		/*
		 * An exactly aligned VM's exchanges were judged against KVM's
		 * parameters when the timeline opened (it is exact only if none
		 * contradicted them): what is left is sync.tsv itself.
		 */
		if (st->al.exact ? sync_tsv_sound(&st->vm, reason, sizeof(reason)) :
		    hvt_check_sync(&st->vm, st->al.aligned ? &st->al.clock : NULL, reason,
				   sizeof(reason)))
			hvt_check_report(t, HVT_PASS, name, NULL);
		else
			hvt_check_report(t, HVT_FAIL, name, "%s", reason);
		check_held_out(t, ses, st);
		check_kvm_tsc(t, st);
		check_traces(t, st);
	}
}

static void check_streams(struct hvt_tally *t, struct hvt_session *ses)
{
	char name[512];
	size_t i;

	if (hvt_session_host_unreadable(ses))	/* no stream of it was even opened */
		hvt_check_report(t, HVT_FAIL, "stream-decodes[host/ftrace]", "the manifest "
				 "names a host layer, and it cannot be decoded (see the errors): "
				 "its %zu CPU file%s are not read", ses->archive.nr_cpus,
				 ses->archive.nr_cpus == 1 ? "" : "s");
	for (i = 0; i < ses->nr_sources; i++) {
		struct hvt_source *s = ses->sources[i];
		unsigned long warnings;

		/* Not merged: decode it here, on its own. */
		if (!s->aligned)
			while (hvt_source_next(s))
				;
		warnings = hvt_source_warnings(s);
		hvt_check_named(name, sizeof(name), "stream-decodes", s->name);
		if (!hvt_reader_opened(&s->rd))
			hvt_check_report(t, HVT_FAIL, name, "cannot be opened");
		else if (warnings)
			hvt_check_report(t, HVT_FAIL, name, "%lu problem%s (see the warnings)", warnings,
			       warnings == 1 ? "" : "s");
		else
			hvt_check_report(t, HVT_PASS, name, NULL);
	}
}

void hvt_check_archive(struct hvt_tally *t, struct hvt_session *ses)
{
	if (ses->tracedat_only)
		hvt_check_report(t, HVT_PASS, "trace.dat", "a trace-cmd recording on its own: "
				 "no manifest");
	else if (ses->archive.warnings)
		hvt_check_report(t, HVT_FAIL, "manifest", "%lu entr%s or lines skipped (see the "
				 "warnings)", ses->archive.warnings,
				 ses->archive.warnings == 1 ? "y" : "ies");
	else if (!ses->archive.complete)
		hvt_check_report(t, HVT_FAIL, "manifest", "the recording did not finish (its status "
				 "is not \"complete\": it is still being written, or its collector "
				 "stopped before it could finish); what was written is checked");
	else
		hvt_check_report(t, HVT_PASS, "manifest", NULL);
	check_vms(t, ses);
	check_host_apps(t, ses);
	check_streams(t, ses);
}
