// SPDX-License-Identifier: GPL-2.0-only
/*
 * replace_async.c - atomic file replacements on a thread of their own
 * (replace_async.h). One thread for the process, started with the first
 * slot queued; it sleeps while the queue is empty and lives as long as the
 * process.
 *
 * It is never woken by the caller: it looks at the queue every PERIOD_NS
 * on its own. The tick that queues info.json also sends the clock
 * exchanges, and a wakeup of this thread then (a futex wake, another
 * core leaving idle), let alone its write and fsync, delayed their
 * replies: round trip p50 52-77 us written in place, 94-334 us with a
 * thread woken at the tick (a program traced at 100 k-1 M events/s).
 * Its own period has no relation to the tick's, so it meets an exchange
 * only by chance.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/replace_async.h"
#include "lib/fileio.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;	/* to the waiters */
static struct hvt_replace_slot *head, **tail = &head;
static bool started;

#define PERIOD_NS	50000000L	/* half the collector's 100 ms tick */

/* Under @lock: takes @s out of the queue. */
static void unqueue(struct hvt_replace_slot *s)
{
	struct hvt_replace_slot **p = &head;

	while (*p != s)
		p = &(*p)->next;
	*p = s->next;
	if (!*p)
		tail = p;
	s->next = NULL;
	s->queued = false;
}

/* The next slot to write, out of the queue and busy, with its text; under @lock. */
static struct hvt_replace_slot *take(char **path, char **text, size_t *len)
{
	struct hvt_replace_slot *s;

	if (!head)
		return NULL;
	s = head;
	unqueue(s);
	s->busy = true;
	*path = s->path;
	*text = s->text;
	*len = s->len;
	s->path = s->text = NULL;
	return s;
}

static void *writer(void *arg)
{
	const struct timespec period = { 0, PERIOD_NS };

	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		char *path, *text;
		size_t len;
		struct hvt_replace_slot *s = take(&path, &text, &len);
		int err = 0;

		if (!s) {	/* nothing (left) to write: look again a period later */
			pthread_mutex_unlock(&lock);
			nanosleep(&period, NULL);
			pthread_mutex_lock(&lock);
			continue;
		}
		pthread_mutex_unlock(&lock);
		if (hvt_write_file_atomic(path, text, len))
			err = errno ? errno : EIO;
		free(path);
		free(text);
		pthread_mutex_lock(&lock);
		s->busy = false;
		if (err)
			s->err = err;
		pthread_cond_broadcast(&done_cond);
	}
	return NULL;
}

/* Under @lock: the thread, started once. */
static int start(void)
{
	pthread_attr_t attr;
	pthread_t t;
	int ret;

	if (started)
		return 0;
	if (pthread_attr_init(&attr))
		return -1;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&t, &attr, writer, NULL);
	pthread_attr_destroy(&attr);
	if (ret) {
		errno = ret;
		return -1;
	}
	started = true;
	return 0;
}

int hvt_replace_async(struct hvt_replace_slot *s, const char *path, char *text, size_t len)
{
	char *copy = strdup(path);

	if (!copy)
		return -1;
	pthread_mutex_lock(&lock);
	if (start()) {
		int err = errno;

		pthread_mutex_unlock(&lock);
		free(copy);
		errno = err;
		return -1;
	}
	free(s->path);		/* an older text not written yet: superseded */
	free(s->text);
	s->path = copy;
	s->text = text;
	s->len = len;
	if (!s->queued) {
		s->queued = true;
		*tail = s;
		tail = &s->next;
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

/*
 * Waits until @s has nothing queued (@drop: drops a queued text first)
 * and nothing being written; -1 with errno if a write failed and was not
 * taken yet.
 */
static int settle(struct hvt_replace_slot *s, bool drop)
{
	int err;

	pthread_mutex_lock(&lock);
	if (drop && s->queued) {
		unqueue(s);
		free(s->path);
		free(s->text);
		s->path = s->text = NULL;
	}
	while (s->queued || s->busy)
		pthread_cond_wait(&done_cond, &lock);
	err = s->err;
	pthread_mutex_unlock(&lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int hvt_replace_wait(struct hvt_replace_slot *s)
{
	return settle(s, false);
}

int hvt_replace_cancel(struct hvt_replace_slot *s)
{
	return settle(s, true);
}

int hvt_replace_error(struct hvt_replace_slot *s)
{
	int err;

	pthread_mutex_lock(&lock);
	err = s->err;
	s->err = 0;
	pthread_mutex_unlock(&lock);
	return err;
}
