#ifndef MX_PORTABLE_CONV2D_F32_LINE_H
#define MX_PORTABLE_CONV2D_F32_LINE_H
/* Whole output lines of a float32 depthwise 3x3 convolution at stride 1 or 2, undilated, NCHW: the general loop nest's
 * path for such lines (mx_conv2d_f32.c), one channel at a time, on every core. The padded pixels at the line's two
 * ends are part of it, so a line is one call; the pixels between them are the M55's vectors (mx_conv2d_f32_tiles.c),
 * elsewhere FPU registers: the 9 weights stay in registers for the line, 4 pixels share their inputs' loads. Per
 * element the operations of mx_conv2d_f32: bias, then each tap inside the input, kernel row by row, column by
 * column, so the bits are the same. */
#include <stdbool.h>
#include <stdint.h>

typedef struct mx_conv2d_f32_line {
  const float *x; /* input at the line's first index along it, at its first cross tap inside the input */
  const float *w; /* the channel's weights at that cross tap, along tap 0 */
  float *y;       /* output at the line's first pixel */
  float bias;
  int32_t n;      /* pixels on the line, at least 2 */
  int32_t pad;    /* padding before the line's first input: 0 or 1 (then its first pixel has 2 taps along) */
  int32_t trail;  /* 1: the last pixel's window reaches 1 past the last input (2 taps along), else 0 */
  int32_t stride; /* inputs between pixels along the line: 1, or 2 but for the M55 (one pixel at a time) */
  int32_t nc;  /* cross taps inside the input: 2 or 3 */
  int32_t x_a, x_c, w_a, w_c, y_a; /* steps along the line and across it: input, weights; output along */
} mx_conv2d_f32_line;

/* One channel's line: along output rows (along_w; the cross taps are kernel rows, x_a and w_a 1) or down output
 * columns (a narrow map: KWS's is 5 wide; the cross taps are kernel columns, x_c and w_c 1).
 *
 * Weak, and defined in mx_conv2d_f32_dw_lines.c, which no kernel includes: a model's firmware compiles that file only
 * when one of its convolutions may take the path (mcu_export/firmware/kernel_variants.py), so that the others do
 * without its 2-2.6 KB; where it is absent the symbol is NULL and the general loop nest's tiles run the lines. Host
 * builds and the serving firmware compile it. */
__attribute__((weak)) void mx_conv2d_f32_dw_line(const mx_conv2d_f32_line *l, bool along_w);

#endif
