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

/* The hvtrace channel's socket, from the domain's XML. */
static int find_channel(const char *xml, const char *name, struct hvt_libvirt_vm *vm,
			char *err, size_t errlen)
{
	static const char path[] =
		"/domain/devices/channel[@type='unix'][target/@type='virtio']"
		"[target/@name='" HVT_WIRE_PORT_NAME "']/source";
	xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "domain.xml", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;
	xmlXPathObjectPtr found = ctx ? xmlXPathEvalExpression((const xmlChar *)path, ctx) : NULL;
	xmlChar *sock = NULL, *mode = NULL;
	int ret = -1;

	if (!found || !found->nodesetval || found->nodesetval->nodeNr < 1) {
		snprintf(err, errlen, "domain %s has no virtio channel named %s; add <channel "
			 "type='unix'><source mode='bind' path='...'/><target type='virtio' "
			 "name='%s'/></channel>", name, HVT_WIRE_PORT_NAME, HVT_WIRE_PORT_NAME);
		goto out;
	}
	sock = xmlGetProp(found->nodesetval->nodeTab[0], (const xmlChar *)"path");
	mode = xmlGetProp(found->nodesetval->nodeTab[0], (const xmlChar *)"mode");
	if (!sock || hvt_path(vm->channel, sizeof(vm->channel), "%s", (const char *)sock)) {
		snprintf(err, errlen, "domain %s: the %s channel has no usable socket path",
			 name, HVT_WIRE_PORT_NAME);
		goto out;
	}
	vm->qemu_listens = !mode || !strcmp((const char *)mode, "bind");
	ret = 0;
out:
	xmlFree(sock);
	xmlFree(mode);
	if (found)
		xmlXPathFreeObject(found);
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

/* QEMU's pid and vCPU count, from QMP query-cpus-fast. */
static int find_qemu(virDomainPtr dom, const char *name, struct hvt_libvirt_vm *vm,
		     char *err, size_t errlen)
{
	char *reply = NULL;
	json_t *root, *cpus, *cpu;
	size_t i;

	if (virDomainQemuMonitorCommand(dom, "{\"execute\":\"query-cpus-fast\"}", &reply, 0)) {
		snprintf(err, errlen, "domain %s: QMP query-cpus-fast: %s", name, last_error());
		return -1;
	}
	root = json_loads(reply, 0, NULL);
	free(reply);
	cpus = json_object_get(root, "return");
	json_array_foreach(cpus, i, cpu) {
		json_int_t tid = json_integer_value(json_object_get(cpu, "thread-id"));
		pid_t pid = tid > 0 ? tgid_of(tid) : 0;

		if (pid > 0 && !vm->qemu_pid)
			vm->qemu_pid = pid;
		vm->vcpus++;
	}
	json_decref(root);
	if (!vm->qemu_pid) {
		snprintf(err, errlen, "domain %s: QMP query-cpus-fast named no vCPU thread of this "
			 "host (is the domain on another host?)", name);
		return -1;
	}
	return 0;
}

int hvt_libvirt_lookup(const char *uri, const char *name, struct hvt_libvirt_vm *vm,
		       char *err, size_t errlen)
{
	virConnectPtr conn;
	virDomainPtr dom = NULL;
	char *xml = NULL;
	int ret = -1;

	memset(vm, 0, sizeof(*vm));
	virSetErrorFunc(NULL, quiet);
	uri = uri ? uri : HVT_LIBVIRT_DEFAULT_URI;
	conn = virConnectOpen(uri);
	if (!conn) {
		snprintf(err, errlen, "cannot connect to libvirt at %s: %s (is libvirtd running? "
			 "--connect URI names another)", uri, last_error());
		return -1;
	}
	dom = virDomainLookupByName(conn, name);
	if (!dom) {
		snprintf(err, errlen, "no domain %s at %s: %s", name, uri, last_error());
		goto out;
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
	ret = find_channel(xml, name, vm, err, errlen) || find_qemu(dom, name, vm, err, errlen) ?
	      -1 : 0;
out:
	free(xml);
	if (dom)
		virDomainFree(dom);
	virConnectClose(conn);
	return ret;
}
