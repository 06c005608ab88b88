// SPDX-License-Identifier: GPL-2.0-only
/*
 * guest_traces.c - trace-cmd recordings made inside a VM of the archive
 * (merge --guest-trace VM=FILE), each placed by that VM's own alignment.
 *
 * A trace.dat recorded in the guest with `trace-cmd record -C x86-tsc`
 * holds guest TSC values, the clock of the guest kernel layer: each of its
 * CPUs is one more kernel source of the VM, through the VM's timeline for
 * that vCPU (KVM's exact transforms, per vCPU, with their changes mid-trace,
 * or the estimate with its bound), exactly as the VM's own streams are. Its
 * raw timestamps are used: trace-cmd's own corrections (its --ts-offset,
 * --tsc2nsec and host/guest time-sync data) are not applied.
 */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "lib/log.h"
#include "tools/session/sources.h"

/* The VM named @name; NULL after an error message listing the archive's VMs. */
static struct hvt_session_vm *named_vm(struct hvt_session *ses, const char *name, size_t len,
				       const char *spec)
{
	char names[256];
	size_t i;

	for (i = 0; i < ses->archive.nr_vms; i++)
		if (strlen(ses->archive.vms[i].name) == len &&
		    !strncmp(ses->archive.vms[i].name, name, len))
			return &ses->vms[i];
	hvt_err("--guest-trace %s: %s has no VM named '%.*s' (%s)", spec, ses->archive.root,
		(int)len, name, hvt_archive_vm_list(&ses->archive, names, sizeof(names)));
	return NULL;
}

/* Whether VM @st can place a trace: loaded and aligned; false after an error message. */
static bool vm_aligned(const struct hvt_session_vm *st, const char *spec)
{
	if (!st->loaded) {
		hvt_err("--guest-trace %s: the VM's info.json cannot be read", spec);
		return false;
	}
	if (!st->al.aligned && !st->al.exact) {
		hvt_err("--guest-trace %s: the VM's clock cannot be aligned with the host "
			"(%s%s%s), so neither can its trace", spec,
			st->vm.dir ? "no usable clock exchanges" : "",
			st->al.kvm_why[0] && st->vm.dir ? "; " : "",
			st->al.kvm_why[0] ? st->al.kvm_why : "");
		return false;
	}
	return true;
}

static int open_guest_trace(struct hvt_session *ses, const char *spec)
{
	const char *eq = strchr(spec, '='), *path, *base, *clock;
	struct hvt_session_vm *st;
	struct hvt_ftrace *ft;
	int cpu, n;

	if (!eq || eq == spec || !eq[1]) {
		hvt_err("--guest-trace %s: expected VM=TRACE.DAT", spec);
		return -1;
	}
	path = eq + 1;
	st = named_vm(ses, spec, (size_t)(eq - spec), spec);	/* the name first: a typo */
	if (!st)
		return -1;
	ft = hvt_ftrace_open_tracedat(path, &clock, &ses->warnings);
	if (!ft)
		return -1;
	if (strcmp(clock, "x86-tsc")) {
		hvt_err("%s: recorded with trace clock '%s'; placing a guest's recording on the "
			"host needs the guest TSC: trace-cmd record -C x86-tsc in the guest",
			path, clock);
		hvt_ftrace_close(ft);
		return -1;
	}
	if (!vm_aligned(st, spec)) {
		hvt_ftrace_close(ft);
		return -1;
	}
	hvt_ftrace_tracedat_raw(ft);
	n = hvt_ftrace_nr_cpus(ft);
	if (st->vm.nr_cpus && (size_t)n > st->vm.nr_cpus) {
		hvt_err("%s: recorded on %d CPUs, but vm %s has %zu: not a recording of that VM",
			path, n, st->vm.name, st->vm.nr_cpus);
		hvt_ftrace_close(ft);
		return -1;
	}
	if (hvt_session_keep_ftrace(ses, ft))
		return -1;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (cpu = 0; cpu < n; cpu++) {
		char name[256];
		struct hvt_source *s;

		snprintf(name, sizeof(name), "vm/%s/%s:cpu%d", st->vm.name, base, cpu);
		s = hvt_session_add_source(ses, HVT_LAYER_KERNEL, (size_t)(st - ses->vms) + 1,
					   st->vm.name, name);
		if (!s) {
			hvt_err("out of memory");
			return -1;
		}
		s->aligned = true;
		s->guest_cpu = cpu;
		s->guest_tl = hvt_vm_align_stream(&st->al, cpu);
		if (!s->guest_tl) {
			hvt_err("%s: CPU %d: vm %s has no KVM TSC timeline for that vCPU (none of "
				"its offset changes or snapshots names it)", path, cpu, st->vm.name);
			return -1;
		}
		hvt_reader_open_ftrace_cpu(&s->rd, ft, path, name, cpu, &s->warnings);
	}
	return 0;
}

int hvt_session_open_guest_traces(struct hvt_session *ses, const char *const *specs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (open_guest_trace(ses, specs[i]))
			return -1;
	return 0;
}
