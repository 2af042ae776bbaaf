/* SPDX-License-Identifier: MIT */
/*
 * eval_int.h - what eval.c (loading, running, scoring) and eval_report.c
 * (rendering) share: the loaded case and the report.
 */
#ifndef SKIT_LIB_EVAL_INT_H
#define SKIT_LIB_EVAL_INT_H

#include "skit/eval.h"
#include "util/buf.h"
#include "util/pool.h"

/* A list of strings (in a pool). */
struct eval_strv {
	const char **v;
	size_t n;
};

struct eval_json_check {
	const char *path, *equals;
};

struct eval_case {
	const char *name, *file, *dir;
	const char *input;
	struct eval_strv skills; /* absolute roots */
	struct eval_strv files;  /* absolute files copied into work/ */
	const char *cassette;    /* absolute, or NULL */
	unsigned int trials;
	double threshold; /* < 0: the run's default */
	struct eval_strv exp_skills, not_skills, steps, forbidden;
	long max_tool_calls; /* < 0: none */
	struct eval_strv contains, not_contains, regex;
	struct eval_json_check *json;
	size_t njson;
};

struct skit_eval_suite {
	struct skitx_pool pool;
	struct eval_case *cases;
	size_t n;
};

struct skit_eval_report {
	struct skitx_pool pool;
	skit_eval_case_result *cases;
	size_t ncases;
	skit_eval_skill_result *skills;
	size_t nskills;
	skit_eval_summary sum;
};

/* Render `r` in `format` into `out` (skit_eval_report_write()). */
int skit__eval_render(struct skitx_buf *out, const skit_eval_report *r,
                      skit_eval_format format);

#endif
