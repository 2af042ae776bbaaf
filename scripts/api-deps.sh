#!/bin/sh
# SPDX-License-Identifier: MIT
# api-deps.sh DIR - install the npm packages of tests/api (typescript,
# ajv, openai, @anthropic-ai/sdk; pinned) into DIR, for the API request
# check (tests/api/requests.sh). See npm-deps.sh: cached; exit 77 = skip.
exec "$(dirname "$0")/npm-deps.sh" tests/api "${1:?usage: api-deps.sh DIR}" \
	"the API request check"
