/* The mobile builds' <string.h> (mcu_export/mobile.py): the core compiles with clang's own headers only
 * (-ffreestanding -nostdlibinc), and C11's freestanding headers have no <string.h>. These are the C standard's
 * declarations of the functions the core and the portable kernels call; an app's libc (Bionic,
 * libSystem) defines them at link time. */
#ifndef MX_MOBILE_STRING_H
#define MX_MOBILE_STRING_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
int strcmp(const char *a, const char *b);

#endif
