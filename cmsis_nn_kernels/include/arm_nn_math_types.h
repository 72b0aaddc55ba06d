/* The ISA macros and integer limits of CMSIS-NN's arm_nn_math_types.h, under Arm's name and with Arm's
 * conditions, so that code written for CMSIS-NN (TFLM's kernels among it) that tests ARM_MATH_DSP or
 * ARM_MATH_MVEI takes its DSP / Helium path with our library as it does with Arm's:
 *   ARM_MATH_DSP          the target has the DSP extension (__ARM_FEATURE_DSP == 1: Cortex-M4/M7/M33/M55/M85)
 *   ARM_MATH_MVEI         integer Helium (__ARM_FEATURE_MVE bit 0: Cortex-M55/M85)
 *   ARM_MATH_MVEF         floating-point Helium (__ARM_FEATURE_MVE bit 1), as is ARM_MATH_MVE_FLOAT16; neither
 *                         when the user asks for ARM_MATH_AUTOVECTORIZE (CMSIS-DSP's convention)
 *   ARM_MATH_HELIUM       set by the user: turns on all three of MVEI, MVEF and MVE_FLOAT16
 * Each is left alone when already defined (e.g. on the command line). ARM_MATH_AUTOVECTORIZE itself is only
 * ever the user's: nothing here defines it. Our kernels choose their path with ARM_NN_USE_MVE /
 * ARM_NN_USE_DSP (arm_nnsupportfunctions.h), derived from these. */
#ifndef ARM_NN_MATH_TYPES_H
#define ARM_NN_MATH_TYPES_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP) && (__ARM_FEATURE_DSP == 1) && !defined(ARM_MATH_DSP)
#define ARM_MATH_DSP 1
#endif

#if (defined(ARM_MATH_HELIUM) || (defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1))) && !defined(ARM_MATH_MVEI)
#define ARM_MATH_MVEI 1
#endif

#if defined(ARM_MATH_HELIUM) || \
    (defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && !defined(ARM_MATH_AUTOVECTORIZE))
#ifndef ARM_MATH_MVEF
#define ARM_MATH_MVEF 1
#endif
#ifndef ARM_MATH_MVE_FLOAT16
#define ARM_MATH_MVE_FLOAT16 1
#endif
#endif

#define NN_Q31_MAX ((int32_t)0x7FFFFFFFL)
#define NN_Q31_MIN ((int32_t)0x80000000L)
#define NN_Q15_MAX ((int16_t)0x7FFF)
#define NN_Q15_MIN ((int16_t)(-0x7FFF - 1))
#define NN_Q7_MAX 127
#define NN_Q7_MIN (-128)

#endif /* ARM_NN_MATH_TYPES_H */
