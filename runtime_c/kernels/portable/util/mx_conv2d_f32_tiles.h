#ifndef MX_PORTABLE_CONV2D_F32_TILES_H
#define MX_PORTABLE_CONV2D_F32_TILES_H
/* The register tiles of the float32 convolutions: what a tile reads and writes (mx_conv2d_f32.c's direct loop nest,
 * mx_matmul_nt_f32.c's channels-last 1x1 product), and the MVE tiles, which live in mx_conv2d_f32_tiles.c: a file
 * of their own so that they compile at -O2 (codegen/firmware/compile_flags.toml), where the M55 runs them in
 * low-overhead loops, while the FPU's tiles stay at -Os, where the M33 and the M4 run theirs faster. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mx_conv2d_f32_line.h"

/* A tile of the direct convolution: up to 4 output channels times up to 4 output pixels on one line. */
typedef struct mx_conv2d_f32_tile {
  const float *x;                /* input at (channel 0, first valid tap) under the tile's first pixel */
  const float *w;                /* weights of the tile's first output channel at (channel 0, first valid tap) */
  const float *bias;             /* at the tile's first output channel (zeros when the conv has none) */
  float *y;                      /* output at the tile's first channel and pixel */
  int32_t cg, nkh, nkw;          /* input channels per group, valid kernel rows, valid kernel columns */
  int32_t x_c, x_kh, x_kw, x_px; /* input steps: channel plane, kernel row, kernel column, tile pixel */
  int32_t x_oc;                  /* input step between the channels of a 4-group tile (a group's slice) */
  int32_t w_oc, w_c, w_kh;       /* weight steps: output channel, input channel, kernel row */
  int32_t y_oc, y_px;            /* output steps: channel plane, tile pixel */
} mx_conv2d_f32_tile;

/* A tile of c = a * bt^T + bias: rows of a (pixels) times 4 rows of bt (output channels). */
typedef struct mx_matmul_nt_f32_tile {
  const float *a, *bt, *bias;
  float *c;
  uint32_t lda, ldb, ldc, k;
} mx_matmul_nt_f32_tile;

/* A chunk of the channels-last depthwise convolution (mx_conv2d_f32_dw_nhwc.c): up to 4 pixels along an output row,
 * every channel. */
typedef struct mx_conv2d_f32_dw {
  const float *x;             /* input at channel 0 of the chunk's first pixel, at its first valid tap */
  const float *w;             /* channel 0's weight at that tap */
  const float *bias;          /* NULL: none */
  float *y;                   /* output at channel 0 of the chunk's first pixel */
  int32_t c, nkh, nkw;        /* channels, valid kernel rows, valid kernel columns */
  int32_t x_kh, x_kw, x_px;   /* input steps: kernel row, kernel column, chunk pixel */
  int32_t w_c, w_kh;          /* weight steps: channel, kernel row */
} mx_conv2d_f32_dw;

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
/* 4 output channels of one group at 4 pixels x_px input elements apart (_unit: 1 apart), and at 1 pixel. */
void mx_conv2d_f32_mve_4oc_4px(const mx_conv2d_f32_tile *t);
void mx_conv2d_f32_mve_4oc_4px_unit(const mx_conv2d_f32_tile *t);
void mx_conv2d_f32_mve_4oc_1px(const mx_conv2d_f32_tile *t);
/* 1 output channel at np (1 to MX_CONV2D_F32_MVE_1OC_PX) pixels x_px input elements apart. */
#define MX_CONV2D_F32_MVE_1OC_PX 16
void mx_conv2d_f32_mve_1oc(const mx_conv2d_f32_tile *t, int32_t np);
/* The depthwise chunk's np (1 to 4) pixels, every channel. */
void mx_conv2d_f32_mve_dw(const mx_conv2d_f32_dw *t, int32_t np);
/* The pixels between a depthwise 3x3 line's ends (mx_conv2d_f32_dw_lines.c): count of them from input x, output y. */
void mx_conv2d_f32_mve_line_rows(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t count);
void mx_conv2d_f32_mve_line_cols(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t count);
/* `rows` (1 to 6) rows of c, 4 columns. */
void mx_matmul_nt_f32_mve_x4(const mx_matmul_nt_f32_tile *t, uint32_t rows);
/* Depthwise 3x3 lines at stride 1 only: at stride 2 the 1-channel tiles take fewer instructions than the lines'
 * scalar pixels. (mcu_export/firmware/kernel_variants.py links the line helper by the same rule.) */
#define MX_CONV2D_F32_LINE_MAX_STRIDE 1
#else
/* Depthwise 3x3 lines at stride 1 and 2 (at 2 a pixel at a time). */
#define MX_CONV2D_F32_LINE_MAX_STRIDE 2
#endif

#endif
