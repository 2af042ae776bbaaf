/* SPDX-License-Identifier: MIT */
/*
 * model_window.c - the context window of well-known models, and what a
 * provider's "context length exceeded" answer says about it.
 *
 * The table holds model-name prefixes as the providers publish them; the
 * longest matching prefix wins, so "gpt-4o-mini" is found before "gpt-4".
 * A name the table does not know has no known window (0): the agent then
 * uses the configured one (`context_window`) or its default.
 */
#define _GNU_SOURCE /* strcasestr: before any header */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lib/model/model_int.h"

struct window {
	const char *prefix;
	uint64_t tokens;
};

/* Published context windows, in tokens. Vendor prefixes ("openai/",
 * "anthropic/") of routers are skipped before the lookup. */
static const struct window windows[] = {
	{ "gpt-5", 400000 },
	{ "gpt-4.1", 1047576 },
	{ "gpt-4o", 128000 },
	{ "gpt-4-turbo", 128000 },
	{ "gpt-4-32k", 32768 },
	{ "gpt-4", 8192 },
	{ "gpt-3.5-turbo", 16385 },
	{ "o1", 200000 },
	{ "o3", 200000 },
	{ "o4-mini", 200000 },
	{ "codex-mini", 200000 },
	{ "claude-sonnet-4", 200000 },
	{ "claude-opus-4", 200000 },
	{ "claude-haiku-4", 200000 },
	{ "claude-3", 200000 },
	{ "claude-", 200000 },
	{ "gemini-2", 1048576 },
	{ "gemini-1.5", 1048576 },
	{ "llama-3.1", 131072 },
	{ "llama-3.2", 131072 },
	{ "llama-3.3", 131072 },
	{ "llama3.1", 131072 },
	{ "mistral-large", 131072 },
	{ "qwen2.5", 32768 },
	{ "deepseek-chat", 65536 },
	{ "deepseek-reasoner", 65536 },
};

uint64_t skit__model_window_of(const char *name)
{
	const char *slash;
	size_t best = 0;
	uint64_t tokens = 0;

	if (!name)
		return 0;
	slash = strrchr(name, '/');
	if (slash)
		name = slash + 1;
	for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
		size_t n = strlen(windows[i].prefix);

		if (n > best && !strncmp(name, windows[i].prefix, n)) {
			best = n;
			tokens = windows[i].tokens;
		}
	}
	return tokens;
}

uint64_t skit_model_context_window(const skit_model *model)
{
	if (!model || model->provider == &skit__provider_replay)
		return 0;
	return skit__model_window_of(model->name);
}

bool skit_model_error_is_overflow(const char *message, uint64_t *window)
{
	static const char *const marks[] = {
		"context_length_exceeded", "maximum context length",
		"context length",          "prompt is too long",
		"context window",          "too many tokens",
		"input is too long",       "reduce the length of the messages",
	};
	const char *hit = NULL, *p;

	if (window)
		*window = 0;
	if (!message)
		return false;
	for (size_t i = 0; !hit && i < sizeof(marks) / sizeof(marks[0]); i++)
		hit = strcasestr(message, marks[i]);
	if (!hit)
		return false;
	/* "maximum context length is 16385 tokens": the first number of
	 * four digits or more after the mark is the window. */
	for (p = hit; window && *p; p++) {
		if (isdigit((unsigned char)*p)) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end - p >= 4 && v < (1ULL << 32)) {
				*window = v;
				break;
			}
			p = end - 1;
		}
	}
	return true;
}
