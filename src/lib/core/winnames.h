/* SPDX-License-Identifier: MIT */
/*
 * winnames.h - the one rule for names that Windows reserves for devices,
 * shared by the pack and install checks (pack_names.c, pack.c) and the
 * `skit validate` lint (lint.c).
 *
 * A name is reserved when the part before its first '.' (trailing
 * spaces dropped) is, in any case, CON, PRN, AUX, NUL, CONIN$, CONOUT$,
 * or COM or LPT followed by one digit 0-9 or a superscript 1, 2 or 3
 * (U+00B9, U+00B2, U+00B3, which Windows treats as the digit). So "con",
 * "NUL.md", "com1.txt", "lpt³.txt" and "Aux .tar.gz" are reserved; "cons",
 * "com10" and "lpt" are not. Windows opens the device instead of such a
 * file, in every folder, so a pack that holds one cannot be unpacked
 * there, and a skill of that name cannot be installed there.
 */
#ifndef SKIT_LIB_WINNAMES_H
#define SKIT_LIB_WINNAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Is the path component `name` (`len` bytes, no '/') reserved? */
bool skit__windows_reserved(const char *name, size_t len);

#endif
