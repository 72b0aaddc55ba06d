# CMake toolchain for arm-none-eabi-gcc (Debian: gcc-arm-none-eabi libnewlib-arm-none-eabi).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy)

# nano.specs maps -lc to newlib-nano. No nosys.specs: with no _sbrk anywhere, code that pulls in
# malloc (or printf) fails to link instead of growing a heap behind the planner's back.
set(MX_TOOLCHAIN_LINK_OPTIONS --specs=nano.specs -nostartfiles)
# libm before libc: the kernels call expf/tanhf/sqrtf, and libm's errno handling needs libc.
set(MX_TOOLCHAIN_LINK_LIBRARIES m c gcc)
