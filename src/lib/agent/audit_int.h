/* SPDX-License-Identifier: MIT */
/*
 * audit_int.h - the audit writer's jansson-level entry points, for the
 * agent (which builds its events as jansson objects). The public
 * skit_audit_event() and skit_audit_close() parse their text and call
 * these. Redaction, the line cap and the seq/ts/type members apply alike.
 */
#ifndef SKIT_LIB_AUDIT_INT_H
#define SKIT_LIB_AUDIT_INT_H

#include <jansson.h>

#include "skit/audit.h"

/*
 * Append one event of `type` with the members of `fields` (a JSON object,
 * or NULL). The reference to `fields` is stolen, also on error. Returns 0,
 * SKIT_EINVALID (bad type, `fields` not an object), SKIT_EIO, SKIT_ENOMEM.
 */
int skit__audit_emit(skit_audit *a, const char *type, json_t *fields,
                     skit_error *err);

/*
 * skit_audit_close() with a jansson summary (an object, or NULL; stolen).
 * `a` is freed in every case.
 */
int skit__audit_close_json(skit_audit *a, json_t *summary, skit_error *err);

/* The run folder, opened once without following links (session.c writes
 * session.jsonl through it); owned by `a`. */
int skit__audit_dirfd(const skit_audit *a);

/* Replace in `b` every secret registered with skit_audit_redact(), as
 * events are (session.c redacts its records so). 0 or SKIT_ENOMEM. */
struct skitx_buf;
int skit__audit_redact_buf(const skit_audit *a, struct skitx_buf *b);

/* Whether a live skit still writes the run folder `dir` (it holds the
 * lock on its events.jsonl). */
bool skit__audit_writer_alive(const char *dir);

#endif
