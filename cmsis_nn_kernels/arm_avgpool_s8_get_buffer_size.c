/* Scratch for arm_avgpool_s8: the DSP path keeps one int32 sum per channel; the others need none. The
 * _dsp/_mve forms let the exporter size the buffer for a target while running on the host. */
#include "arm_nnfunctions.h"

int32_t arm_avgpool_s8_get_buffer_size_dsp(const int dim_dst_width, const int ch_src)
{
    (void)dim_dst_width;
    return ch_src * (int32_t)sizeof(int32_t);
}

int32_t arm_avgpool_s8_get_buffer_size_mve(const int dim_dst_width, const int ch_src)
{
    (void)dim_dst_width;
    (void)ch_src;
    return 0;
}

int32_t arm_avgpool_s8_get_buffer_size(const int dim_dst_width, const int ch_src)
{
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    return arm_avgpool_s8_get_buffer_size_mve(dim_dst_width, ch_src);
#elif defined(__ARM_FEATURE_DSP)
    return arm_avgpool_s8_get_buffer_size_dsp(dim_dst_width, ch_src);
#else
    (void)dim_dst_width;
    (void)ch_src;
    return 0;
#endif
}
