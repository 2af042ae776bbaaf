/* SPDX-License-Identifier: MIT */
/*
 * datadir.h - where skit's installed data is (the scan rules, the
 * builtin skills), found relative to the library itself so that an
 * install can be moved (library-internal; core).
 */
#ifndef SKIT_LIB_CORE_DATADIR_H
#define SKIT_LIB_CORE_DATADIR_H

/*
 * The data folder, `<prefix>/share/skit`: the first of these that holds
 * scan-rules.yaml, where FILE is the real path of the file that holds
 * this code (libskit.so, or the program libskit.a is linked into):
 * dirname(FILE)/share/skit (the build tree), dirname(FILE)/../share/skit
 * (`<prefix>/bin`, `<prefix>/lib`), dirname(FILE)/../../share/skit
 * (`<prefix>/lib/<multiarch>`); else the prefix configured at build time
 * (SKIT_INSTALL_DATADIR/skit), whether or not it exists. Computed once;
 * static storage; never NULL.
 */
const char *skit__data_dir(void);

#endif
