/* Scratch of arm_fully_connected_s8: one int32 kernel sum per output channel on MVE, none elsewhere
 * (CMSIS-NN v7's sizes). filter_dims->c is the output depth. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

int32_t arm_fully_connected_s8_get_buffer_size_dsp(const cmsis_nn_dims *filter_dims)
{
    (void)filter_dims;
    return 0;
}

int32_t arm_fully_connected_s8_get_buffer_size_mve(const cmsis_nn_dims *filter_dims)
{
    return filter_dims->c * (int32_t)sizeof(int32_t);
}

int32_t arm_fully_connected_s8_get_buffer_size(const cmsis_nn_dims *filter_dims)
{
#if defined(ARM_NN_USE_MVE)
    return arm_fully_connected_s8_get_buffer_size_mve(filter_dims);
#else
    return arm_fully_connected_s8_get_buffer_size_dsp(filter_dims);
#endif
}
