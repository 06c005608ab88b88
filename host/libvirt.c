// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvirt.c - finding a libvirt domain's QEMU and hvtrace channel (libvirt.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <hvtrace/wire.h>

#include "host/libvirt.h"
#include "host/qmp.h"
#include "lib/fileio.h"

/* libvirt reports to stderr by default; its errors are put in ours instead. */
static void quiet(void *data, virErrorPtr e)
{
	(void)data, (void)e;
}

static const char *last_error(void)
{
	const char *msg = virGetLastErrorMessage();

	return msg ? msg : "unknown error";
}

/* Attribute @attr of the first node @xpath selects, or NULL (free with xmlFree()). */
static xmlChar *first_attr(xmlXPathContextPtr ctx, const char *xpath, const char *attr)
{
	xmlXPathObjectPtr found = xmlXPathEvalExpression((const xmlChar *)xpath, ctx);
	xmlChar *value = NULL;

	if (found && found->nodesetval && found->nodesetval->nodeNr > 0)
		value = xmlGetProp(found->nodesetval->nodeTab[0], (const xmlChar *)attr);
	if (found)
		xmlXPathFreeObject(found);
	return value;
}

/* The hvtrace channel's socket. */
static int find_channel(xmlXPathContextPtr ctx, const char *name, struct hvt_libvirt_vm *vm,
			char *err, size_t errlen)
{
	static const char source[] =
		"/domain/devices/channel[@type='unix'][target/@type='virtio']"
		"[target/@name='" HVT_WIRE_PORT_NAME "']/source";
	xmlChar *sock = first_attr(ctx, source, "path"), *mode = first_attr(ctx, source, "mode");
	int ret = -1;

	if (!sock && !mode)
		snprintf(err, errlen, "domain %s has no virtio channel named %s; add <channel "
			 "type='unix'><source mode='bind' path='...'/><target type='virtio' "
			 "name='%s'/></channel>", name, HVT_WIRE_PORT_NAME, HVT_WIRE_PORT_NAME);
	else if (!sock || hvt_path(vm->channel, sizeof(vm->channel), "%s", (const char *)sock))
		snprintf(err, errlen, "domain %s: the %s channel has no usable socket path",
			 name, HVT_WIRE_PORT_NAME);
	else
		ret = 0;
	vm->qemu_listens = !mode || !strcmp((const char *)mode, "bind");
	if (ret)
		vm->channel[0] = '\0';
	xmlFree(sock);
	xmlFree(mode);
	return ret;
}

/* <vsock model='virtio'><cid address='N'/></vsock>: the guest's CID, or 0. */
static unsigned int find_vsock_cid(xmlXPathContextPtr ctx)
{
	xmlChar *addr = first_attr(ctx, "/domain/devices/vsock/cid", "address");
	unsigned int cid = addr ? (unsigned int)strtoul((const char *)addr, NULL, 10) : 0;

	xmlFree(addr);
	return cid > 2 ? cid : 0;
}

/*
 * What the domain's XML says: the channel (an error if missing and
 * @need_channel) and the vsock CID.
 */
static int read_domain_xml(const char *xml, const char *name, bool need_channel,
			   struct hvt_libvirt_vm *vm, char *err, size_t errlen)
{
	xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "domain.xml", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;
	int ret = -1;

	if (!ctx)
		snprintf(err, errlen, "domain %s: its XML description cannot be parsed", name);
	else if (!find_channel(ctx, name, vm, err, errlen) || !need_channel)
		ret = 0;
	if (ctx)
		vm->vsock_cid = find_vsock_cid(ctx);
	if (ctx)
		xmlXPathFreeContext(ctx);
	if (doc)
		xmlFreeDoc(doc);
	return ret;
}

/* The thread group of a vCPU thread: /proc/TID/status "Tgid:". */
static pid_t tgid_of(json_int_t tid)
{
	char path[64], *text = NULL, *line;
	size_t len;
	pid_t pid = 0;

	snprintf(path, sizeof(path), "/proc/%lld/status", (long long)tid);
	if (hvt_read_file(path, 1 << 16, &text, &len))
		return 0;
	line = strstr(text, "\nTgid:");
	if (line)
		pid = (pid_t)atoi(line + 6);
	free(text);
	return pid;
}

/* QEMU's pid, vCPU count and vCPU threads, from QMP query-cpus-fast. */
static int find_qemu(virDomainPtr dom, const char *name, struct hvt_libvirt_vm *vm,
		     char *err, size_t errlen)
{
	char *reply = NULL;
	json_t *root;
	unsigned int i;

	if (virDomainQemuMonitorCommand(dom, "{\"execute\":\"query-cpus-fast\"}", &reply, 0)) {
		snprintf(err, errlen, "domain %s: QMP query-cpus-fast: %s", name, last_error());
		return -1;
	}
	root = json_loads(reply, 0, NULL);
	free(reply);
	hvt_qmp_cpus_parse(root, vm->vcpu_tids, HVT_QEMU_MAX_VCPUS, &vm->vcpus);
	json_decref(root);
	for (i = 0; i < HVT_QEMU_MAX_VCPUS && !vm->qemu_pid; i++)
		if (vm->vcpu_tids[i])
			vm->qemu_pid = tgid_of(vm->vcpu_tids[i]);
	if (!vm->qemu_pid) {
		snprintf(err, errlen, "domain %s: QMP query-cpus-fast named no vCPU thread of this "
			 "host (is the domain on another host?)", name);
		return -1;
	}
	return 0;
}

struct hvt_libvirt {
	virConnectPtr conn;
	char uri[256];
};

struct hvt_libvirt *hvt_libvirt_open(const char *uri, char *err, size_t errlen)
{
	struct hvt_libvirt *lv = calloc(1, sizeof(*lv));

	if (!lv) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	virSetErrorFunc(NULL, quiet);
	snprintf(lv->uri, sizeof(lv->uri), "%s", uri ? uri : HVT_LIBVIRT_DEFAULT_URI);
	lv->conn = virConnectOpen(lv->uri);
	if (!lv->conn) {
		snprintf(err, errlen, "cannot connect to libvirt at %s: %s (is libvirtd running? "
			 "--connect URI names another)", lv->uri, last_error());
		free(lv);
		return NULL;
	}
	return lv;
}

void hvt_libvirt_close(struct hvt_libvirt *lv)
{
	if (!lv)
		return;
	virConnectClose(lv->conn);
	free(lv);
}

int hvt_libvirt_lookup(struct hvt_libvirt *lv, const char *name, bool need_channel,
		       struct hvt_libvirt_vm *vm, char *err, size_t errlen)
{
	virDomainPtr dom;
	char *xml = NULL;
	int ret = -1;

	memset(vm, 0, sizeof(*vm));
	dom = virDomainLookupByName(lv->conn, name);
	if (!dom) {
		snprintf(err, errlen, "no domain %s at %s: %s", name, lv->uri, last_error());
		return -1;
	}
	if (virDomainIsActive(dom) != 1) {
		snprintf(err, errlen, "domain %s is not running (virsh start %s)", name, name);
		goto out;
	}
	xml = virDomainGetXMLDesc(dom, 0);
	if (!xml) {
		snprintf(err, errlen, "domain %s: no XML description: %s", name, last_error());
		goto out;
	}
	if (read_domain_xml(xml, name, need_channel, vm, err, errlen))
		goto out;
	vm->id = virDomainGetID(dom);
	ret = find_qemu(dom, name, vm, err, errlen);
out:
	free(xml);
	virDomainFree(dom);
	return ret;
}

int hvt_libvirt_running(struct hvt_libvirt *lv, struct hvt_libvirt_domain **doms, char *err,
			size_t errlen)
{
	virDomainPtr *list = NULL;
	int n = virConnectListAllDomains(lv->conn, &list, VIR_CONNECT_LIST_DOMAINS_ACTIVE), i;
	bool oom = false;

	*doms = NULL;
	if (n < 0) {
		snprintf(err, errlen, "libvirt at %s: cannot list domains: %s", lv->uri,
			 last_error());
		return -1;
	}
	*doms = calloc((size_t)n + 1, sizeof(**doms));
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(list[i]);

		if (*doms) {
			(*doms)[i].name = name ? strdup(name) : NULL;
			(*doms)[i].id = virDomainGetID(list[i]);
			oom |= !(*doms)[i].name;
		}
		virDomainFree(list[i]);
	}
	free(list);
	if (!*doms || oom) {
		hvt_libvirt_free_domains(*doms, n);
		*doms = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return n;
}

void hvt_libvirt_free_domains(struct hvt_libvirt_domain *doms, int n)
{
	int i;

	for (i = 0; doms && i < n; i++)
		free(doms[i].name);
	free(doms);
}
