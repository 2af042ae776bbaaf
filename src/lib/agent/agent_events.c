/* SPDX-License-Identifier: MIT */
/*
 * agent_events.c - what every part of the agent reports through: the
 * audit trail's events, the host's trace lines, and the lookup of an
 * active skill. At the bottom of the agent's files: the loop (agent.c)
 * and the tool gate (agent_tools.c) both use it, it uses neither.
 */
#include "common.h"

#include <stdarg.h>

#include "lib/agent/agent_int.h"
#include "lib/agent/audit_int.h"

/* ---- audit and trace -------------------------------------------------- */

void skit__agent_audit(struct skit_agent *a, const char *type, json_t *fields)
{
	int rc;

	if (!a->audit || a->audit_rc) {
		json_decref(fields);
		return;
	}
	rc = skit__audit_emit(a->audit, type, fields, &a->audit_err);
	if (rc)
		a->audit_rc = rc;
}

void skit__agent_trace(struct skit_agent *a, skit_trace_kind kind,
                       const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!a->hooks.on_trace)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	a->hooks.on_trace(kind, line, a->hooks.payload);
}

/* ---- active skills ---------------------------------------------------- */

struct skit__active_skill *skit__agent_find_active(struct skit_agent *a,
                                                   const char *name)
{
	for (size_t i = 0; i < a->nactive; i++)
		if (!strcmp(a->active[i].name, name))
			return &a->active[i];
	return NULL;
}
