// SPDX-License-Identifier: GPL-2.0-only
/*
 * buffer.c - per-CPU ring buffers: the write path and the stream fds.
 *
 * Each session has one buffer per possible CPU (include/hvtrace/ringbuf.h).
 * The producer is whatever runs on that CPU: probes write with interrupts
 * off, so a write is never interleaved with another write or with a flush,
 * which closes the open packet on the buffer's CPU by IPI. The consumer is
 * the stream fd's read(), on any CPU. Reads and flushes of one buffer take
 * buf->lock, so two flushes never close one packet at the same time.
 */
#include <linux/anon_inodes.h>
#include <linux/cpu.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

#include "hvtrace_internal.h"

struct hvtrace_stream {
	struct hvtrace_buffer *buf;
	struct file *session_file;	/* keeps the session and its buffers */
};

static struct hvtrace_session *next_session(struct hvtrace_session *s)
{
	return list_entry_rcu(s->node.next, struct hvtrace_session, node);
}

/*
 * Finds the next session, from w->session on, that takes the event, and
 * reserves room in it. The event is stamped at the first such session, with
 * interrupts turned off there until the last session is written: one
 * timestamp, CPU and tid for every session, and no other write on this CPU
 * in between. Without any session nothing is read and interrupts stay on.
 */
static void write_reserve(struct hvtrace_write *w)
{
	for (; &w->session->node != &hvtrace_sessions; w->session = next_session(w->session)) {
		struct hvtrace_session *s = w->session;

		if (!READ_ONCE(s->active) || !test_bit(w->event->id, s->enabled))
			continue;
		if (!w->stamped) {
			local_irq_save(w->irq_flags);
			w->stamped = true;
			w->cpu = smp_processor_id();
			w->tid = current->pid;
			w->ts = __hvtrace_clock_read();
		}
		w->buffer = s->buffers[w->cpu];
		w->payload = hvt_rb_reserve(&w->buffer->rb, w->event->id, w->ts, w->cpu,
					    w->tid, w->size, &w->end);
		if (w->payload)
			return;
	}
	if (w->stamped)
		local_irq_restore(w->irq_flags);
	w->payload = NULL;
}

/* Called by probes, which run with preemption off (an RCU read side). */
void hvtrace_write_begin(struct hvtrace_write *w, struct hvtrace_event *event,
			 unsigned int size)
{
	w->event = event;
	w->size = size;
	w->stamped = false;
	w->session = list_entry_rcu(hvtrace_sessions.next, struct hvtrace_session, node);
	write_reserve(w);
}

void hvtrace_write_next(struct hvtrace_write *w)
{
	hvt_rb_commit(&w->buffer->rb, w->ts, w->end);
	w->session = next_session(w->session);
	write_reserve(w);
}

/*
 * On the CPU's own node, where its writer runs. Like ftrace's ring buffer, the
 * data may fail rather than wake the OOM killer: a trace is not worth a
 * process (hvtrace_session_create() also checks the memory available first).
 */
struct hvtrace_buffer *hvtrace_buffer_create(const struct hvtrace_session_config *config,
					     unsigned int cpu)
{
	const gfp_t data_gfp = GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN;
	int node = cpu_to_node(cpu);
	struct hvtrace_buffer *buf;
	unsigned char *data;

	buf = kzalloc_node(sizeof(*buf), GFP_KERNEL, node);
	if (!buf)
		return NULL;
	data = kvzalloc_node(hvtrace_buffer_bytes(config), data_gfp, node);
	if (!data) {
		kfree(buf);
		return NULL;
	}
	mutex_init(&buf->lock);
	buf->rb.cpu_id = cpu;
	buf->rb.stream_instance_id = cpu;
	memcpy(buf->rb.uuid, config->uuid, HVT_UUID_LEN);
	hvt_rb_init(&buf->rb, &buf->prod, &buf->cons, data,
		    config->subbuf_size, config->nr_subbufs);
	return buf;
}

void hvtrace_buffer_destroy(struct hvtrace_buffer *buf)
{
	if (!buf)
		return;
	kvfree(buf->rb.data);
	kfree(buf);
}

static void flush_on_cpu(void *info)
{
	struct hvtrace_buffer *buf = info;

	hvt_rb_close_packet(&buf->rb);
}

/*
 * Closes the open packet, if any, whether or not writers may run: on the
 * buffer's CPU, where no write can be in progress (writers keep interrupts
 * off), or directly while that CPU is offline (hotplug held off, so none can
 * start). A second close of a closed packet does nothing; two at once could
 * both advance 'produced', which buf->lock prevents (two flushes of an
 * offline CPU's buffer would otherwise both run here, on their own CPUs).
 */
void hvtrace_buffer_flush(struct hvtrace_buffer *buf)
{
	mutex_lock(&buf->lock);
	cpus_read_lock();
	if (cpu_online(buf->rb.cpu_id))
		smp_call_function_single(buf->rb.cpu_id, flush_on_cpu, buf, 1);
	else
		flush_on_cpu(buf);
	cpus_read_unlock();
	mutex_unlock(&buf->lock);
}

/*
 * One closed packet per call, its content only (closing made packet_size
 * equal content_size). The buffer must hold a whole sub-buffer, whatever
 * the next packet's size, so that a caller learns of a too small buffer at
 * once and not at the first full packet.
 */
static ssize_t stream_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct hvtrace_buffer *buf = ((struct hvtrace_stream *)file->private_data)->buf;
	const unsigned char *pkt;
	u64 consumed, len;
	ssize_t ret;

	if (count < buf->rb.subbuf_size)
		return -EINVAL;
	mutex_lock(&buf->lock);
	consumed = buf->cons.consumed;
	if (hvt_rb_ready(&buf->prod, consumed, buf->rb.nr_subbufs) <= 0) {
		ret = -EAGAIN;
		goto out;
	}
	pkt = hvt_rb_slot(buf->rb.data, buf->rb.subbuf_size, buf->rb.nr_subbufs, consumed);
	len = hvt_get_u64(pkt + offsetof(struct hvt_ctf_packet, content_size)) / 8;
	if (WARN_ON_ONCE(len > buf->rb.subbuf_size)) {	/* never copy past the slot */
		ret = -EIO;
		goto out;
	}
	if (copy_to_user(ubuf, pkt, len)) {
		ret = -EFAULT;
		goto out;
	}
	smp_store_release(&buf->cons.consumed, consumed + 1);
	ret = len;
out:
	mutex_unlock(&buf->lock);
	return ret;
}

static long stream_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hvtrace_buffer *buf = ((struct hvtrace_stream *)file->private_data)->buf;
	struct hvtrace_stream_stats st;

	switch (cmd) {
	case HVTRACE_STREAM_FLUSH:
		hvtrace_buffer_flush(buf);
		return 0;
	case HVTRACE_STREAM_STATS:
		memset(&st, 0, sizeof(st));
		st.produced = smp_load_acquire(&buf->prod.produced);
		st.consumed = READ_ONCE(buf->cons.consumed);
		st.lost = READ_ONCE(buf->prod.lost);
		st.subbuf_size = buf->rb.subbuf_size;
		st.cpu = buf->rb.cpu_id;
		return copy_to_user((void __user *)arg, &st, sizeof(st)) ? -EFAULT : 0;
	default:
		return -ENOTTY;
	}
}

static int stream_release(struct inode *inode, struct file *file)
{
	struct hvtrace_stream *st = file->private_data;

	fput(st->session_file);
	kfree(st);
	return 0;
}

static const struct file_operations stream_fops = {
	.owner = THIS_MODULE,
	.read = stream_read,
	.unlocked_ioctl = stream_ioctl,
	.release = stream_release,
	.llseek = noop_llseek,
};

int hvtrace_stream_fd(struct hvtrace_session *s, struct file *session_file,
		      unsigned int cpu)
{
	struct hvtrace_stream *st;
	int fd;

	if (cpu >= nr_cpu_ids || !s->buffers[cpu])
		return -EINVAL;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->buf = s->buffers[cpu];
	st->session_file = get_file(session_file);
	fd = anon_inode_getfd("[hvtrace-stream]", &stream_fops, st, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fput(session_file);
		kfree(st);
	}
	return fd;
}
