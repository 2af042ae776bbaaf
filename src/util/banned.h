/* SPDX-License-Identifier: MIT */
/*
 * banned.h - libc calls that overflow or lose errors; use the skitx_buf
 * functions, snprintf or strtol instead. Included last by common.h.
 */
#ifndef SKITX_BANNED_H
#define SKITX_BANNED_H

#define SKITX_BANNED(func) sorry_##func##_is_banned_in_skit

#undef strcpy
#define strcpy(x, y) SKITX_BANNED(strcpy)
#undef strcat
#define strcat(x, y) SKITX_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) SKITX_BANNED(strncpy)
#undef sprintf
#define sprintf(...) SKITX_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) SKITX_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) SKITX_BANNED(strtok)
#undef atoi
#define atoi(x) SKITX_BANNED(atoi)
#undef gets
#define gets(x) SKITX_BANNED(gets)

#endif
