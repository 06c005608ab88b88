// SPDX-License-Identifier: GPL-2.0-only
/*
 * buffer.c - per-CPU ring buffers and their stream fds.
 *
 * Each session has one buffer per possible CPU (include/hvtrace/lockless_rb.h;
 * the write path is write.c). The consumer is the stream fd, on any CPU, one
 * operation at a time under buf->lock:
 *
 *   mmap        the sub-buffers and, after them, one reader slot (read-only)
 *   GET_SUBBUF  the next delivered packet: in discard mode where it lies (no
 *               writer touches it until PUT_SUBBUF); in overwrite mode copied
 *               to the reader slot first, since writers may overwrite the ring
 *   PUT_SUBBUF  releases it
 *   read()      the next packet copied out, one per call
 *   poll        readable once a packet is delivered; writers wake pollers by
 *               irq_work once per packet, never per event
 *   FLUSH       closes the CPU's open packet, on that CPU (IPI), where it
 *               nests like an interrupt over any writer
 */
#include <linux/anon_inodes.h>
#include <linux/cpu.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "hvtrace_internal.h"

struct hvtrace_stream {
	struct hvtrace_buffer *buf;
	struct file *session_file;	/* keeps the session and its buffers */
};

static void buffer_wakeup(struct irq_work *work)
{
	struct hvtrace_buffer *buf = container_of(work, struct hvtrace_buffer, wakeup);

	wake_up_interruptible(&buf->wait);
}

static void buffer_free_data(struct hvtrace_buffer *buf)
{
	unsigned long i;

	if (buf->rb.data)
		vunmap(buf->rb.data);
	for (i = 0; i < buf->nr_pages; i++)
		__free_page(buf->pages[i]);
	kvfree(buf->pages);
}

/*
 * The sub-buffers and the reader slot: zeroed pages (nothing of the kernel's
 * shows through mmap) on the CPU's own node, mapped contiguously for the
 * writers. Like ftrace's ring buffer, they may fail rather than wake the OOM
 * killer (hvtrace_session_create() also checks the memory available first).
 */
static unsigned char *buffer_alloc_data(struct hvtrace_buffer *buf, int node)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN | __GFP_ZERO;
	unsigned long n = PAGE_ALIGN(buf->map_size) >> PAGE_SHIFT;

	buf->pages = kvcalloc(n, sizeof(*buf->pages), GFP_KERNEL);
	if (!buf->pages)
		return NULL;
	for (; buf->nr_pages < n; buf->nr_pages++) {
		buf->pages[buf->nr_pages] = alloc_pages_node(node, gfp, 0);
		if (!buf->pages[buf->nr_pages])
			return NULL;
	}
	return vmap(buf->pages, n, VM_MAP, PAGE_KERNEL);
}

struct hvtrace_buffer *hvtrace_buffer_create(const struct hvtrace_session_config *config,
					     unsigned int cpu)
{
	int node = cpu_to_node(cpu);
	struct hvtrace_buffer *buf;
	unsigned char *data;

	buf = kzalloc_node(sizeof(*buf), GFP_KERNEL, node);
	if (!buf)
		return NULL;
	buf->slots = kcalloc_node(config->nr_subbufs, sizeof(*buf->slots), GFP_KERNEL, node);
	buf->map_size = hvtrace_buffer_bytes(config);
	data = buf->slots ? buffer_alloc_data(buf, node) : NULL;
	if (!data) {
		buffer_free_data(buf);
		kfree(buf->slots);
		kfree(buf);
		return NULL;
	}
	mutex_init(&buf->lock);
	init_waitqueue_head(&buf->wait);
	init_irq_work(&buf->wakeup, buffer_wakeup);
	hvt_lrb_init(&buf->rb, data, buf->slots, config->subbuf_size, config->nr_subbufs,
		     config->mode == HVTRACE_MODE_OVERWRITE ? HVT_LRB_OVERWRITE : HVT_LRB_DISCARD);
	buf->reader = data + (size_t)config->nr_subbufs * config->subbuf_size;
	buf->rb.cpu_id = cpu;
	buf->rb.stream_instance_id = cpu;
	memcpy(buf->rb.uuid, config->uuid, HVT_UUID_LEN);
	return buf;
}

/* After the session left the list and every writer finished. */
void hvtrace_buffer_destroy(struct hvtrace_buffer *buf)
{
	if (!buf)
		return;
	irq_work_sync(&buf->wakeup);
	buffer_free_data(buf);
	kfree(buf->slots);
	kfree(buf);
}

static void flush_on_cpu(void *info)
{
	struct hvtrace_buffer *buf = info;

	if (hvt_lrb_flush(&buf->rb))
		irq_work_queue(&buf->wakeup);
}

/*
 * Closes the open packet, if any, whether or not writers may run: on the
 * buffer's CPU, where it nests over any writer like an interrupt, or directly
 * while that CPU is offline (hotplug held off, so no writer can start). The
 * buffer's atomics are one CPU's: buf->lock keeps two flushes of an offline
 * CPU's buffer, each on its own CPU, from running at once.
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
 * The next delivered packet, taken by @holder: its offset in the mapping and
 * length. -EAGAIN if none, -EBUSY if one is held, -EIO if the packet is not
 * sane (it is released: a reader never sticks on it).
 */
static long buffer_get(struct hvtrace_buffer *buf, struct file *holder, struct hvtrace_subbuf *sb)
{
	unsigned long packet;
	long len;

	if (buf->held)
		return -EBUSY;
	if (buf->rb.mode == HVT_LRB_DISCARD) {
		len = hvt_lrb_peek(&buf->rb, &packet);
		if (len < 0)
			hvt_lrb_release(&buf->rb, packet);
		sb->offset = hvt_lrb_packet_addr(&buf->rb, packet) - buf->rb.data;
	} else {
		len = hvt_lrb_read_packet(&buf->rb, buf->reader, &packet);
		sb->offset = buf->reader - buf->rb.data;
	}
	if (len == 0)
		return -EAGAIN;
	if (WARN_ON_ONCE(len < 0))
		return -EIO;
	buf->held = true;
	buf->holder = holder;
	buf->held_packet = packet;
	sb->len = len;
	sb->seq = packet;
	return 0;
}

static long buffer_put(struct hvtrace_buffer *buf, u64 seq)
{
	if (!buf->held || seq != buf->held_packet)
		return -EINVAL;
	if (buf->rb.mode == HVT_LRB_DISCARD)
		hvt_lrb_release(&buf->rb, buf->held_packet);
	buf->held = false;
	return 0;
}

/*
 * One packet per call, its content only (closing made packet_size equal
 * content_size). The buffer must hold a whole sub-buffer, whatever the next
 * packet's size, so that a caller learns of a too small buffer at once and
 * not at the first full packet.
 */
static ssize_t stream_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct hvtrace_buffer *buf = ((struct hvtrace_stream *)file->private_data)->buf;
	struct hvtrace_subbuf sb;
	ssize_t ret;

	if (count < buf->rb.subbuf_size)
		return -EINVAL;
	mutex_lock(&buf->lock);
	ret = buffer_get(buf, file, &sb);
	if (!ret) {
		ret = copy_to_user(ubuf, buf->rb.data + sb.offset, sb.len) ? -EFAULT : sb.len;
		buffer_put(buf, sb.seq);
	}
	mutex_unlock(&buf->lock);
	return ret;
}

static __poll_t stream_poll(struct file *file, poll_table *wait)
{
	struct hvtrace_buffer *buf = ((struct hvtrace_stream *)file->private_data)->buf;
	unsigned long packet;

	poll_wait(file, &buf->wait, wait);
	return hvt_lrb_ready(&buf->rb, &packet) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int stream_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct hvtrace_buffer *buf = ((struct hvtrace_stream *)file->private_data)->buf;
	unsigned long n = vma_pages(vma);
	int ret;

	if (vma->vm_pgoff || n > buf->nr_pages)
		return -EINVAL;
	ret = hvtrace_vma_readonly(vma);
	return ret ? ret : vm_insert_pages(vma, vma->vm_start, buf->pages, &n);
}

static long stream_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hvtrace_buffer *buf = ((struct hvtrace_stream *)file->private_data)->buf;
	struct hvtrace_stream_stats st;

	struct hvtrace_subbuf sb = { 0 };
	u64 seq;
	long ret;

	switch (cmd) {
	case HVTRACE_STREAM_FLUSH:
		hvtrace_buffer_flush(buf);
		return 0;
	case HVTRACE_STREAM_STATS:
		memset(&st, 0, sizeof(st));
		st.produced = hvt_local_read(&buf->rb.closed);
		st.consumed = hvt_shared_read(&buf->rb.consumed);
		st.lost = hvt_lrb_lost(&buf->rb);
		st.subbuf_size = buf->rb.subbuf_size;
		st.cpu = buf->rb.cpu_id;
		st.nr_subbufs = buf->rb.nr_subbufs;
		st.map_size = buf->map_size;
		return copy_to_user((void __user *)arg, &st, sizeof(st)) ? -EFAULT : 0;
	case HVTRACE_STREAM_GET_SUBBUF:
		mutex_lock(&buf->lock);
		ret = buffer_get(buf, file, &sb);
		if (!ret && copy_to_user((void __user *)arg, &sb, sizeof(sb))) {
			buffer_put(buf, sb.seq);	/* the caller cannot know what to put */
			ret = -EFAULT;
		}
		mutex_unlock(&buf->lock);
		return ret;
	case HVTRACE_STREAM_PUT_SUBBUF:
		if (get_user(seq, (u64 __user *)arg))
			return -EFAULT;
		mutex_lock(&buf->lock);
		ret = buffer_put(buf, seq);
		mutex_unlock(&buf->lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

/* A packet this fd got and did not put is put: no later reader sticks on EBUSY. */
static int stream_release(struct inode *inode, struct file *file)
{
	struct hvtrace_stream *st = file->private_data;

	mutex_lock(&st->buf->lock);
	if (st->buf->held && st->buf->holder == file)
		buffer_put(st->buf, st->buf->held_packet);
	mutex_unlock(&st->buf->lock);
	fput(st->session_file);
	kfree(st);
	return 0;
}

static const struct file_operations stream_fops = {
	.owner = THIS_MODULE,
	.read = stream_read,
	.poll = stream_poll,
	.mmap = stream_mmap,
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
