#ifndef MX_PORTABLE_BLOCK_COPY_H
#define MX_PORTABLE_BLOCK_COPY_H
/* The copy behind slice, select and split: `outer` blocks of `bytes`, read every `src_stride` bytes from
 * src and written back to back (every `dst_stride` bytes) to dst. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void mx_block_copy(uint8_t *dst, size_t dst_stride, const uint8_t *src, size_t src_stride, uint32_t outer,
                                 size_t bytes) {
  if (bytes == 0) {
    return;
  }
  for (uint32_t o = 0; o < outer; ++o) {
    memcpy(dst + (size_t)o * dst_stride, src + (size_t)o * src_stride, bytes);
  }
}

#endif
