// SPDX-License-Identifier: GPL-2.0-only
/*
 * session.c - tracing sessions.
 *
 * A session owns one buffer per CPU, in discard or overwrite mode, and a set
 * of enabled events. Writes into it are gated (write.c): the event's probe is
 * registered only while some session enables the event, and the session's
 * "active" flag (the buffer enable) starts or stops all its events at once.
 * A session remembers the names it asked for (its enablers), so that an event
 * another module registers later is enabled in it at once. Sessions are an
 * RCU list walked by the probes; everything that changes them holds
 * hvtrace_lock.
 */
#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uuid.h>
#include <linux/vmalloc.h>

#include "hvtrace_internal.h"

LIST_HEAD(hvtrace_sessions);
DEFINE_MUTEX(hvtrace_lock);
static unsigned int next_serial;

static void session_free(struct hvtrace_session *s)
{
	unsigned int cpu;

	if (s->buffers)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			hvtrace_buffer_destroy(s->buffers[cpu]);
	kfree(s->buffers);
	kfree(s->enablers);
	kfree(s);
}

static int session_release(struct inode *inode, struct file *file)
{
	struct hvtrace_session *s = file->private_data;
	unsigned int id;

	mutex_lock(&hvtrace_lock);
	WRITE_ONCE(s->active, false);
	list_del_rcu(&s->node);
	for_each_set_bit(id, s->enabled, HVTRACE_MAX_EVENTS)
		if (!WARN_ON(!hvtrace_events[id]))
			hvtrace_probe_put(hvtrace_events[id]);
	mutex_unlock(&hvtrace_lock);
	/* No probe can still be writing into this session's buffers after this. */
	tracepoint_synchronize_unregister();
	session_free(s);
	return 0;
}

static int session_enable(struct hvtrace_session *s, struct hvtrace_event *event)
{
	int ret;

	lockdep_assert_held(&hvtrace_lock);
	if (test_bit(event->id, s->enabled))
		return 0;
	ret = hvtrace_probe_get(event);
	if (ret)
		return ret;
	set_bit(event->id, s->enabled);
	/* One of the module's own: sync points start if now recorded. */
	if (event->own)
		hvtrace_sync_update();
	return 0;
}

static bool session_wants(const struct hvtrace_session *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->nr_enablers; i++)
		if (!strcmp(s->enablers[i], name))
			return true;
	return false;
}

/* Enables an event by name: 0, or 1 if none has the name yet (it will). */
static long session_enable_event(struct hvtrace_session *s, void __user *uarg)
{
	struct hvtrace_event_name arg;
	struct hvtrace_event *event;
	long ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (!strnlen(arg.name, sizeof(arg.name)) ||
	    strnlen(arg.name, sizeof(arg.name)) == sizeof(arg.name))
		return -EINVAL;
	mutex_lock(&hvtrace_lock);
	if (!session_wants(s, arg.name)) {
		ret = -ENOSPC;
		if (s->nr_enablers == HVTRACE_MAX_ENABLERS)
			goto out;
		strscpy(s->enablers[s->nr_enablers++], arg.name, HVT_NAME_MAX);
	}
	event = hvtrace_event_find(arg.name);
	ret = event ? session_enable(s, event) : 1;
out:
	mutex_unlock(&hvtrace_lock);
	return ret;
}

/* A new event: the sessions that asked for its name enable it. */
void hvtrace_sessions_event_added(struct hvtrace_event *event)
{
	struct hvtrace_session *s;
	int ret;

	lockdep_assert_held(&hvtrace_lock);
	list_for_each_entry(s, &hvtrace_sessions, node) {
		if (!session_wants(s, event->name))
			continue;
		ret = session_enable(s, event);
		if (ret)
			pr_warn("hvtrace: session %u: event %s not enabled: %d\n", s->serial,
				event->name, ret);
	}
}

/* An event going away: every session lets go of it. */
void hvtrace_sessions_event_removed(struct hvtrace_event *event)
{
	struct hvtrace_session *s;

	lockdep_assert_held(&hvtrace_lock);
	list_for_each_entry(s, &hvtrace_sessions, node)
		if (test_and_clear_bit(event->id, s->enabled))
			hvtrace_probe_put(event);
}

/* enabled_events: "SESSION active|stopped NAME" per enabled event. */
ssize_t hvtrace_sessions_show_enabled(char *buf)
{
	struct hvtrace_session *s;
	ssize_t len = 0;
	unsigned int id;

	mutex_lock(&hvtrace_lock);
	list_for_each_entry(s, &hvtrace_sessions, node)
		for_each_set_bit(id, s->enabled, HVTRACE_MAX_EVENTS)
			len += sysfs_emit_at(buf, len, "%u %s %s\n", s->serial,
					     READ_ONCE(s->active) ? "active" : "stopped",
					     hvtrace_events[id]->name);
	mutex_unlock(&hvtrace_lock);
	return len;
}

static long session_enabled(struct hvtrace_session *s, void __user *uarg)
{
	struct hvtrace_enabled_events out = { { 0 } };
	unsigned int id;

	mutex_lock(&hvtrace_lock);
	for_each_set_bit(id, s->enabled, HVTRACE_MAX_EVENTS)
		out.ids[id / 64] |= 1ull << (id % 64);
	mutex_unlock(&hvtrace_lock);
	return copy_to_user(uarg, &out, sizeof(out)) ? -EFAULT : 0;
}

static long session_start(struct hvtrace_session *s)
{
	mutex_lock(&s->lock);
	WRITE_ONCE(s->active, true);
	mutex_unlock(&s->lock);
	hvtrace_sync_session_started();
	return 0;
}

/*
 * s->lock keeps a START from reviving writers before the partial packets are
 * closed. The flush still runs on each buffer's CPU and under its lock, so
 * it cannot race a stream fd's HVTRACE_STREAM_FLUSH either.
 */
static long session_stop(struct hvtrace_session *s)
{
	unsigned int cpu;

	mutex_lock(&s->lock);
	WRITE_ONCE(s->active, false);
	/*
	 * Probes run with preemption off: once this returns, none writes here,
	 * and the flush leaves no packet open behind it.
	 */
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		hvtrace_buffer_flush(s->buffers[cpu]);
	mutex_unlock(&s->lock);
	return 0;
}

static size_t registry_record(const struct hvtrace_event *ev, void *dst)
{
	return hvt_reg_event_write(dst, ev->id, ev->name, ev->fields, ev->nr_fields,
				   ev->print_fmt);
}

/* Copies the registry records of every registered event. */
static long session_registry(void __user *uarg)
{
	struct hvtrace_registry_buf arg;
	size_t need = 0, off = 0;
	unsigned int i, n = 0;
	char *tmp = NULL;
	long ret = 0;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	mutex_lock(&hvtrace_lock);
	for (i = 0; i < hvtrace_nr_ids; i++)
		if (hvtrace_events[i])
			need += registry_record(hvtrace_events[i], NULL);
	arg.generation = hvtrace_registry_gen;
	if (arg.size < need) {
		arg.size = need;
		ret = -ENOSPC;
		goto out;
	}
	tmp = kvzalloc(need, GFP_KERNEL);
	if (!tmp) {
		mutex_unlock(&hvtrace_lock);
		return -ENOMEM;
	}
	for (i = 0; i < hvtrace_nr_ids; i++)
		if (hvtrace_events[i]) {
			off += registry_record(hvtrace_events[i], tmp + off);
			n++;
		}
	arg.size = need;
	arg.nr_events = n;
out:
	mutex_unlock(&hvtrace_lock);
	if ((tmp && copy_to_user(u64_to_user_ptr(arg.addr), tmp, need)) ||
	    copy_to_user(uarg, &arg, sizeof(arg)))
		ret = -EFAULT;
	kvfree(tmp);
	return ret;
}

static long session_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hvtrace_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	u32 cpu;

	switch (cmd) {
	case HVTRACE_SESSION_ENABLE_EVENT:
		return session_enable_event(s, uarg);
	case HVTRACE_SESSION_START:
		return session_start(s);
	case HVTRACE_SESSION_STOP:
		return session_stop(s);
	case HVTRACE_SESSION_REGISTRY:
		return session_registry(uarg);
	case HVTRACE_SESSION_REGISTRY_GEN:
		return put_user((u64)READ_ONCE(hvtrace_registry_gen), (u64 __user *)uarg);
	case HVTRACE_SESSION_ENABLED:
		return session_enabled(s, uarg);
	case HVTRACE_SESSION_STREAM:
		if (get_user(cpu, (u32 __user *)uarg))
			return -EFAULT;
		return hvtrace_stream_fd(s, file, cpu);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations session_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = session_ioctl,
	.release = session_release,
	.llseek = noop_llseek,
};

static struct hvtrace_session *session_alloc(const struct hvtrace_session_config *config)
{
	struct hvtrace_session *s;
	unsigned int cpu;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	mutex_init(&s->lock);
	INIT_LIST_HEAD(&s->node);
	s->enablers = kcalloc(HVTRACE_MAX_ENABLERS, sizeof(*s->enablers), GFP_KERNEL);
	if (!s->enablers)
		goto fail;
	s->buffers = kcalloc(nr_cpu_ids, sizeof(*s->buffers), GFP_KERNEL);
	if (!s->buffers)
		goto fail;
	for_each_possible_cpu(cpu) {
		s->buffers[cpu] = hvtrace_buffer_create(config, cpu);
		if (!s->buffers[cpu])
			goto fail;
	}
	return s;
fail:
	session_free(s);
	return NULL;
}

long hvtrace_session_create(struct hvtrace_session_config __user *uconfig)
{
	struct hvtrace_session_config config;
	struct hvtrace_session *s;
	struct file *file;
	int fd;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&config, uconfig, sizeof(config)))
		return -EFAULT;
	if (!hvt_rb_geometry_ok(config.subbuf_size, config.nr_subbufs))
		return -EINVAL;
	if (config.mode != HVTRACE_MODE_DISCARD && config.mode != HVTRACE_MODE_OVERWRITE)
		return -EINVAL;
	/* Geometry allows 1 GiB per CPU: refuse what memory cannot hold now. */
	if (num_possible_cpus() * (hvtrace_buffer_bytes(&config) >> PAGE_SHIFT) >
	    (unsigned long)si_mem_available())
		return -ENOMEM;
	generate_random_uuid(config.uuid);
	config.nr_cpus = nr_cpu_ids;
	config.tsc_khz = hvtrace_clock_khz();

	s = session_alloc(&config);
	if (!s)
		return -ENOMEM;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		session_free(s);
		return fd;
	}
	file = anon_inode_getfile("[hvtrace-session]", &session_fops, s, O_RDWR);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		session_free(s);
		return PTR_ERR(file);
	}
	if (copy_to_user(uconfig, &config, sizeof(config))) {
		put_unused_fd(fd);
		fput(file);	/* session_release() frees the session */
		return -EFAULT;
	}
	mutex_lock(&hvtrace_lock);
	s->serial = next_serial++;
	list_add_tail_rcu(&s->node, &hvtrace_sessions);
	mutex_unlock(&hvtrace_lock);
	fd_install(fd, file);
	return fd;
}
