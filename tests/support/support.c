/* SPDX-License-Identifier: MIT */
/*
 * Shared test helpers live in tests/support/ and are linked into every
 * unit test. This file keeps the library non-empty when there are none.
 */
#include "common.h"

int skit_testsupport_present(void);

int skit_testsupport_present(void)
{
	return 1;
}
