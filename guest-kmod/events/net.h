/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events/net.h - network device events, attached to the kernel's
 * tracepoints: a packet handed to a device to send, and one taken in from
 * a device, with ftrace's fields (skbaddr pairs a packet's events within
 * the guest; len is its length). Opt-in (-e net_dev_xmit -e
 * netif_receive_skb): one per packet.
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <trace/events/net.h>

#include "../hvtrace_event.h"

/*
 * rc is the driver's netdev_tx_t (0: sent); name is the device's, copied
 * whole (IFNAMSIZ bytes, NUL-terminated within, as the kernel keeps it):
 * a copy of fixed size costs less than one that stops at the NUL.
 */
HVTRACE_TP_EVENT(net_dev_xmit,
	HVT_PROTO(struct sk_buff *skb, int rc, struct net_device *dev, unsigned int skb_len),
	HVT_ARGS(skb, rc, dev, skb_len),
	HVT_FIELDS((hex, u64, skbaddr),
		   (int, u32, len),
		   (int, s32, rc),
		   (text, name, IFNAMSIZ)),
	HVT_ASSIGN(__entry->skbaddr = (u64)(unsigned long)skb;
		   __entry->len = skb_len;
		   __entry->rc = rc;
		   memcpy(__entry->name, dev->name, sizeof(__entry->name));),
	HVT_PRINT("skbaddr=%#llx len=%u rc=%d name=%s"));

HVTRACE_TP_EVENT(netif_receive_skb,
	HVT_PROTO(struct sk_buff *skb),
	HVT_ARGS(skb),
	HVT_FIELDS((hex, u64, skbaddr),
		   (int, u32, len),
		   (text, name, IFNAMSIZ)),
	HVT_ASSIGN(__entry->skbaddr = (u64)(unsigned long)skb;
		   __entry->len = skb->len;
		   if (skb->dev)
			   memcpy(__entry->name, skb->dev->name, sizeof(__entry->name));
		   else
			   memset(__entry->name, 0, sizeof(__entry->name));),
	HVT_PRINT("skbaddr=%#llx len=%u name=%s"));
