/* SPDX-License-Identifier: MIT */
/*
 * tool_provider.c - what every tool provider uses of its context: the
 * run's audit trail and trace (through the host, the agent), and the
 * active skills.
 */
#include "common.h"

#include "lib/tools/tool_provider.h"

void skit__tool_audit(struct skit__tool_ctx *c, const char *type,
                      json_t *fields)
{
	if (!c->host) {
		json_decref(fields);
		return;
	}
	c->host->audit(c->host_self, type, fields);
}

void skit__tool_trace(struct skit__tool_ctx *c, skit_trace_kind kind,
                      const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!c->host)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->host->trace(c->host_self, kind, line);
}

const struct skit__active_skill *
skit__tool_find_active(const struct skit__tool_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->nactive; i++)
		if (!strcmp(c->active[i].name, name))
			return &c->active[i];
	return NULL;
}
