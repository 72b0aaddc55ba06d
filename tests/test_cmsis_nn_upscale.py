"""arm_convolve_s8's upscale_dims (CMSIS-NN v7's signature): an input upscaled by 2 in H, W or both gives the very
outputs of the same convolution over that input with the zeros written out (zero = the input's zero point), on
the host's scalar path; an upscale other than 1 or 2 is refused."""

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "cmsis_nn_kernels"

PROGRAM = textwrap.dedent(
    r"""
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include "arm_nnfunctions.h"

    static uint32_t seed = 12345;
    static int8_t rnd(void) { seed = seed * 1103515245u + 12345u; return (int8_t)(seed >> 16); }

    /* conv over `up` (upscaled by uy, ux from `x`), once through upscale_dims and once over the written-out input */
    static int check(int32_t n, int32_t h, int32_t w, int32_t c, int32_t uy, int32_t ux, int32_t k, int32_t oc,
                     int32_t stride, int32_t pad) {
        const int32_t H = h * uy, W = w * ux, in_offset = 7, zero = -in_offset;
        int8_t *x = malloc((size_t)(n * h * w * c)), *up = malloc((size_t)(n * H * W * c));
        int8_t wt[4 * 9 * 8];
        int32_t bias[8], mult[8], shift[8];
        for (int32_t i = 0; i < n * h * w * c; i++) x[i] = rnd();
        for (int32_t i = 0; i < oc * k * k * c; i++) wt[i] = rnd();
        for (int32_t i = 0; i < oc; i++) bias[i] = rnd() * 37, mult[i] = 1518500250 + rnd() * 1000, shift[i] = -5;
        for (int32_t b = 0; b < n; b++)
            for (int32_t yy = 0; yy < H; yy++)
                for (int32_t xx = 0; xx < W; xx++)
                    for (int32_t ch = 0; ch < c; ch++) {
                        const int data = yy % uy == 0 && xx % ux == 0;
                        up[((b * H + yy) * W + xx) * c + ch] =
                            data ? x[((b * h + yy / uy) * w + xx / ux) * c + ch] : (int8_t)zero;
                    }
        const int32_t oh = (H + 2 * pad - k) / stride + 1, ow = (W + 2 * pad - k) / stride + 1;
        int8_t *a = malloc((size_t)(n * oh * ow * oc)), *b = malloc((size_t)(n * oh * ow * oc));
        static int8_t buf[1 << 16];
        const cmsis_nn_context ctx = {buf, sizeof buf};
        const cmsis_nn_conv_params p = {in_offset, -3, {stride, stride}, {pad, pad}, {1, 1}, {-128, 127}};
        const cmsis_nn_per_channel_quant_params q = {mult, shift};
        const cmsis_nn_dims in_dims = {n, H, W, c}, f_dims = {oc, k, k, c}, b_dims = {1, 1, 1, oc};
        const cmsis_nn_dims o_dims = {n, oh, ow, oc}, ups = {1, uy, ux, 1};
        if (arm_convolve_s8(&ctx, &p, &q, &in_dims, x, &f_dims, wt, &b_dims, bias, &ups, &o_dims, a) != 0) return 2;
        if (arm_convolve_s8(&ctx, &p, &q, &in_dims, up, &f_dims, wt, &b_dims, bias, NULL, &o_dims, b) != 0) return 3;
        const int same = memcmp(a, b, (size_t)(n * oh * ow * oc)) == 0;
        free(x), free(up), free(a), free(b);
        return same ? 0 : 1;
    }

    int main(void) {
        static const int32_t cases[][10] = {
            {1, 4, 5, 3, 2, 2, 3, 8, 1, 1}, {2, 3, 4, 4, 2, 1, 3, 5, 1, 2}, {1, 5, 3, 1, 1, 2, 2, 4, 2, 0},
            {1, 4, 4, 2, 2, 2, 3, 3, 2, 1}, {1, 6, 2, 4, 1, 1, 3, 8, 1, 1},
        };
        for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const int32_t *t = cases[i];
            const int r = check(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9]);
            if (r) { printf("case %u: %s\n", i, r == 1 ? "outputs differ" : "refused"); return 1; }
        }
        int8_t one = 0, out = 0;
        int32_t z = 0, m = 1 << 30, s = 0;
        static int8_t buf[64];
        const cmsis_nn_context ctx = {buf, sizeof buf};
        const cmsis_nn_conv_params p = {0, 0, {1, 1}, {0, 0}, {1, 1}, {-128, 127}};
        const cmsis_nn_per_channel_quant_params q = {&m, &s};
        const cmsis_nn_dims d = {1, 1, 1, 1}, up3 = {1, 3, 1, 1};
        if (arm_convolve_s8(&ctx, &p, &q, &d, &one, &d, &one, &d, &z, &up3, &d, &out) != ARM_CMSIS_NN_ARG_ERROR) {
            printf("an upscale of 3 was not refused\n");
            return 1;
        }
        printf("ok\n");
        return 0;
    }
    """
)


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a host C compiler (cc)")
@pytest.mark.slow
def test_upscale_equals_the_written_out_input(tmp_path):
    cc = "cc"
    src = tmp_path / "upscale.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "upscale"
    sources = sorted(str(p) for p in KERNELS.glob("*.c"))
    build = subprocess.run(
        [cc, "-std=c11", "-O1", "-Wall", "-Werror", f"-I{KERNELS / 'include'}", str(src), *sources, "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout
