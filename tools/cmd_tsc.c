// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_tsc.c - `hvtrace tsc ARCHIVE`: each KVM VM's guest TSC timeline per vCPU,
 * as merge uses it (tools/align/kvm_model.h), with every disagreement between the
 * recorded sources.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/log.h"
#include "tools/commands.h"
#include "tools/align/kvm_model.h"
#include "tools/archive/archive_path.h"

struct tsc_opts {
	const char *vm;		/* NULL: every VM */
	int tsv;
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: hvtrace tsc [OPTIONS] ARCHIVE\n"
"\n"
"Shows, for each VM that ran under KVM, the guest TSC of every vCPU as a\n"
"function of the host TSC: segments from the host instant of each change\n"
"(kvm:kvm_write_tsc_offset), with offset, scaling ratio and the source used,\n"
"and every recorded debugfs snapshot that disagrees with it.\n"
"guest TSC = ((host TSC * ratio) >> frac_bits) + offset; ratio 1 with\n"
"frac_bits 0 means the TSC is not scaled.\n"
"\n"
"  --vm NAME           only this VM\n"
"  --format text|tsv   output format (default text)\n"
"  -q, --quiet         print no information: warnings, errors and the\n"
"                      results only\n"
"  -h, --help          this text\n"
"\n"
"TSV columns: vm vcpu host_start offset ratio frac_bits source\n"
"(offset signed decimal; source kvm_write_tsc_offset or debugfs)\n"
"\n"
"Exit status: 0, 1 if the archive cannot be read, 2 usage error (a --vm\n"
"naming no VM of the archive included). Disagreements are shown here;\n"
"hvtrace check fails on them (kvm-tsc).\n");
}

static void print_disagreement(const struct hvt_kvm_vcpu *v)
{
	const struct hvt_kvm_disagreement *d = &v->first;

	if (d->ratio)
		printf("    %lu disagreement(s); first at host TSC %" PRIu64 ": %s read ratio %" PRIu64
		       ", the timeline has %" PRIu64 "\n", v->disagreements, d->host,
		       hvt_tsc_source_name(d->source), d->said, d->used);
	else
		printf("    %lu disagreement(s); first at host TSC %" PRIu64 ": %s %s offset %" PRId64
		       ", the timeline has %" PRId64 " (kept: the tracepoint for changes)\n",
		       v->disagreements, d->host, hvt_tsc_source_name(d->source),
		       d->source == HVT_TSC_SRC_TRACEPOINT ? "gave the previous" : "read",
		       (int64_t)d->said, (int64_t)d->used);
}

static void print_vcpu(const char *vm, const struct hvt_kvm_vcpu *v, int tsv)
{
	size_t i;

	if (!tsv)
		printf("  vcpu %u: %lu changes, %lu snapshots\n", v->id, v->changes, v->readings);
	for (i = 0; i < v->tl.n; i++) {
		const struct hvt_tsc_segment *s = &v->tl.seg[i];

		if (tsv)
			printf("%s\t%u\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%u\t%s\n", vm, v->id,
			       s->host_start, (int64_t)s->x.offset, (uint64_t)s->x.ratio, s->x.frac,
			       hvt_tsc_source_name(s->source));
		else
			printf("    from host TSC %-20" PRIu64 " offset %-21" PRId64 " %s  (%s)\n",
			       s->host_start, (int64_t)s->x.offset,
			       s->x.ratio == 1ull << s->x.frac ? "unscaled" : "scaled",
			       hvt_tsc_source_name(s->source));
	}
	if (!tsv && v->disagreements)
		print_disagreement(v);
}

/* 0, or -1 on error. */
static int show_vm(const struct hvt_vm_ref *ref, const struct hvt_kvm_changes *changes,
		   const struct tsc_opts *o)
{
	struct hvt_vm_info vm;
	struct hvt_kvm_model m;
	size_t i;

	if (hvt_vm_info_load(&vm, ref))
		return -1;
	if (!vm.kvm) {
		if (!o->tsv)
			printf("vm %s: not run under KVM; its clock is estimated (hvtrace merge)\n",
			       vm.name);
		hvt_vm_info_free(&vm);
		return 0;
	}
	if (hvt_kvm_model_build(&m, &vm, changes)) {
		hvt_err("out of memory");
		hvt_vm_info_free(&vm);
		return -1;
	}
	if (m.unusable && !o->tsv)
		printf("vm %s (kvm): no exact timeline: %s\n", vm.name, m.unusable);
	else if (!o->tsv)
		printf("vm %s (kvm): %zu vCPUs, %zu snapshots%s\n", vm.name, m.nr_vcpus,
		       m.nr_readings, changes ? "" : "; the host layer was not recorded, so "
		       "changes between snapshots are unknown");
	for (i = 0; i < m.nr_vcpus; i++)
		print_vcpu(vm.name, &m.vcpus[i], o->tsv);
	hvt_kvm_model_free(&m);
	hvt_vm_info_free(&vm);
	return 0;
}

static int parse_opts(struct tsc_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vm", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		HVT_CLI_VERBOSITY_OPTIONS,
		{ 0 }
	};
	int c;

	optind = 0;	/* glibc: start over, the command may run more than once */
	opterr = 0;
	hvt_cli_verbosity_reset();
	while ((c = getopt_long(argc, argv, "hvq", opts, NULL)) != -1) {
		if (hvt_cli_verbosity(c))
			continue;
		switch (c) {
		case 'n': o->vm = optarg; break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "tsv")) {
				hvt_usage_error("tsc", "invalid --format '%s': text or tsv", optarg);
				return -1;
			}
			o->tsv = !strcmp(optarg, "tsv");
			break;
		case 'h': usage(stdout); exit(0);
		default: hvt_usage_bad_option("tsc", argv, "hvq", opts); return -1;
		}
	}
	if (optind != argc - 1) {
		hvt_usage_error("tsc", optind == argc ? "give the archive directory" :
				"one archive at a time");
		return -1;
	}
	return 0;
}

int hvt_cmd_tsc(int argc, char **argv)
{
	struct tsc_opts o = { 0 };
	char why[2 * PATH_MAX];
	struct hvt_archive a;
	struct hvt_kvm_changes changes = { 0 };
	struct hvt_ftrace *ft = NULL;
	unsigned long warnings = 0;
	size_t i, shown = 0;
	int ret = 0;

	if (parse_opts(&o, argc, argv))
		return HVT_EXIT_USAGE;
	if (hvt_archive_path_misgiven(argv[optind], why, sizeof(why))) {
		hvt_err("%s", why);
		return 1;
	}
	if (hvt_archive_open(&a, argv[optind]))
		return 1;
	if (a.ftrace_dir) {
		uint64_t lo, hi;

		ft = hvt_ftrace_open(a.ftrace_dir, a.page_size, &warnings);
		if (!ft)
			hvt_warn("the host layer cannot be decoded: offset changes are unknown");
		else if (hvt_archive_host_span(&a, &lo, &hi))	/* as merge: pages outside, damage */
			hvt_ftrace_set_span(ft, lo, hi);
	}
	if (ft && hvt_kvm_changes_read(&a, ft, &changes)) {
		hvt_err("out of memory");
		ret = 1;
	}
	if (o.tsv && !ret)
		printf("vm\tvcpu\thost_start\toffset\tratio\tfrac_bits\tsource\n");
	for (i = 0; i < a.nr_vms && !ret; i++) {
		if (o.vm && strcmp(o.vm, a.vms[i].name))
			continue;
		shown++;
		if (show_vm(&a.vms[i], ft ? &changes : NULL, &o))
			ret = 1;
	}
	if (!ret && o.vm && !shown) {
		char names[256];

		hvt_err("--vm %s: %s has no VM of that name (%s)", o.vm, argv[optind],
			hvt_archive_vm_list(&a, names, sizeof(names)));
		ret = HVT_EXIT_USAGE;	/* as merge and analyze */
	}
	hvt_kvm_changes_free(&changes);
	if (ft)
		hvt_ftrace_close(ft);
	hvt_archive_close(&a);
	return ret;
}
