// SPDX-License-Identifier: GPL-2.0-only
/*
 * jsonl_out.c - merged events as JSON lines (jsonl_out.h).
 */
#include <stdlib.h>
#include <string.h>

#include <hvtrace/ctf.h>
#include "tools/out/jsonl_out.h"

#define JSONL_BUFFER	(256u << 10)
#define TEXT_LIT(t, s)	hvt_text_mem((t), (s), sizeof(s) - 1)

int hvt_jsonl_init(struct hvt_jsonl_printer *p, struct hvt_session *ses,
		   const struct hvt_thread_names *names, FILE *out)
{
	char *buf = malloc(JSONL_BUFFER);

	memset(p, 0, sizeof(*p));
	if (!buf || hvt_sched_state_init(&p->states)) {
		free(buf);
		return -1;
	}
	hvt_text_init(&p->text, out, buf, JSONL_BUFFER);
	p->ses = ses;
	p->names = names;
	return 0;
}

/* A JSON string, or null for NULL. */
static void str_or_null(struct hvt_text *t, const char *s)
{
	if (s)
		hvt_text_json_str(t, s, strlen(s));
	else
		TEXT_LIT(t, "null");
}

void hvt_jsonl_event(struct hvt_jsonl_printer *p, struct hvt_source *s)
{
	struct hvt_text *t = &p->text;
	const char *name = hvt_source_event_name(s);
	int64_t bound = hvt_session_event_bound_ns(p->ses, s);
	uint32_t cpu = hvt_source_cpu(s);

	TEXT_LIT(t, "{\"time_ns\":");
	hvt_text_json_s64(t, hvt_host_clock_since_start(&p->ses->clock, s->host_tsc));
	/* beyond 2^53, which a JSON number does not hold exactly: strings, always */
	TEXT_LIT(t, ",\"realtime_ns\":\"");
	hvt_text_s64(t, hvt_host_clock_realtime(&p->ses->clock, s->host_tsc));
	TEXT_LIT(t, "\",\"host_tsc\":\"");
	hvt_text_u64(t, s->host_tsc);
	TEXT_LIT(t, "\",\"bound_ns\":");
	if (bound < 0)
		TEXT_LIT(t, "null");
	else
		hvt_text_json_s64(t, bound);
	TEXT_LIT(t, ",\"layer\":\"");
	hvt_text_mem(t, hvt_layer_name(s->layer), strlen(hvt_layer_name(s->layer)));
	TEXT_LIT(t, "\",\"vm\":");
	str_or_null(t, s->vm);
	TEXT_LIT(t, ",\"comm\":");
	str_or_null(t, p->names ? hvt_thread_names_get(p->names, s) : NULL);
	TEXT_LIT(t, ",\"event\":");
	hvt_text_json_str(t, name, strlen(name));
	TEXT_LIT(t, ",\"args\":{\"cpu\":");
	if (cpu == HVT_CTF_NO_CPU)
		TEXT_LIT(t, "null");
	else
		hvt_text_u64(t, cpu);
	TEXT_LIT(t, ",\"tid\":");
	hvt_text_s64(t, hvt_source_tid(s));
	hvt_source_json_fields(s, t, hvt_sched_state_of(&p->states, s));
	TEXT_LIT(t, "}}\n");
}

void hvt_jsonl_finish(struct hvt_jsonl_printer *p)
{
	hvt_text_flush(&p->text);
	free(p->text.buf);
	hvt_sched_state_free(&p->states);
	memset(p, 0, sizeof(*p));
}
