/* SPDX-License-Identifier: MIT */
/*
 * tools_web.h - the web_fetch tool (tools_web.c): an HTTP(S) GET under
 * the rules of the scripts' web proxy, the page made readable text and
 * framed as untrusted; private to the tools folder (the skill tools'
 * provider, tools.c, serves it; docs/agent.md, docs/permissions.md).
 *
 * What it does not do: ask the user (the agent's gate decided the call
 * before it arrives; a redirect to a host the user would have to approve
 * is refused with a note telling the model to fetch that URL itself),
 * run scripts, keep cookies, send credentials, or use a proxy.
 */
#ifndef SKIT_LIB_TOOLS_WEB_H
#define SKIT_LIB_TOOLS_WEB_H

#include <jansson.h>

#include "lib/tools/tool_provider.h"

extern const skit_tool_schema skit__tool_web_fetch_schema;

/*
 * What the policy matches and the approval prompt shows for a call of
 * web_fetch with `args`: the "url" argument as libcurl reads it (scheme
 * and host in lower case, no fragment), so that the host the policy
 * judges is the host the fetch dials; the argument as given when it does
 * not parse (the call is then refused). 0 or SKIT_ENOMEM.
 */
int skit__web_fetch_target(json_t *args, struct skitx_buf *target);

/* web_fetch with `args` ({url, prompt?}): a call already allowed; the
 * contract of struct skit__tool_provider_ops' call. */
int skit__tool_web_fetch(struct skit__tool_ctx *c, json_t *args,
                         struct skitx_buf *out, bool *is_error,
                         skit_error *err);

/*
 * HTML to readable text (libxml2's HTML parser, then a walk of the
 * tree): headings as "#" lines, paragraphs, line breaks, lists as "- "
 * (or "1. ") items, links as "text (url)" resolved against `base`, pre
 * blocks fenced with ```, inline code in backquotes, table cells split
 * by " | "; script, style, nav, forms' noise and the head dropped.
 * At most `cap` bytes are appended to `out` (cut at a character
 * boundary); *dropped (may be NULL) receives how many more there were.
 * `encoding` (may be NULL) is the charset the server named. The title
 * (collapsed blanks; NULL when none) goes to *title, freed with
 * skitx_free(). 0 or SKIT_ENOMEM.
 */
int skit__html_to_text(struct skitx_buf *out, const char *html, size_t len,
                       const char *base, const char *encoding, size_t cap,
                       size_t *dropped, char **title);

/*
 * For tests only (the library and the CLI never call it): NULL-ended
 * "HOST=ADDRESS" pairs (a numeric IPv4 or IPv6 address) that web_fetch
 * dials instead of resolving HOST, whatever the address's range and on
 * any port, as skit__netproxy_opts.resolve does for the proxy; NULL
 * restores the resolver. Every other host, 127.0.0.1 itself included,
 * stays under the address rule. Borrowed until reset; not thread-safe.
 */
void skit__web_fetch_test_resolve(const char *const *pairs);

#endif
