/* Compiler portability of CMSIS-NN's Internal/arm_nn_compiler.h, under Arm's name and path, for code written
 * against Arm's include layout: the CMSIS keyword macros (each only when not already defined, as CMSIS-Core's
 * cmsis_compiler.h defines them too), the intrinsic headers the target supports (<arm_mve.h> with Helium,
 * <arm_acle.h> on any Arm target), and ARM_GCC_12_2_ICE, which Arm's sources test to step around an internal
 * compiler error of Arm GNU Toolchain 12.2 on Helium code (our arm_softmax_s8.c avoids the construct instead).
 * Arm's private intrinsic wrappers (SMLAD, SXTB16, ...) are not part of it: our kernels use ACLE directly. */
#ifndef ARM_NN_COMPILER_H
#define ARM_NN_COMPILER_H

#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__) || (defined(__ARMCC_VERSION) && (__ARMCC_VERSION >= 6010050))
#ifndef __ASM
#define __ASM __asm
#endif
#ifndef __INLINE
#define __INLINE inline
#endif
#ifndef __STATIC_INLINE
#define __STATIC_INLINE static inline
#endif
#ifndef __STATIC_FORCEINLINE
#define __STATIC_FORCEINLINE __attribute__((always_inline)) static inline
#endif
#ifndef __RESTRICT
#define __RESTRICT __restrict
#endif
#ifndef __ALIGNED
#define __ALIGNED(x) __attribute__((aligned(x)))
#endif
#endif

/* GCC 12.0 to 12.2 targeting Arm (clang defines __GNUC__ as 4) */
#if defined(__GNUC__) && (__GNUC__ == 12) && (__GNUC_MINOR__ <= 2) && defined(__ARM_ARCH)
#define ARM_GCC_12_2_ICE
#endif

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

#if defined(__ARM_ARCH) || defined(__ARM_ACLE)
#include <arm_acle.h>
#endif

#endif /* ARM_NN_COMPILER_H */
