# Android: a thin wrapper over the NDK's own toolchain file. Set ANDROID_NDK (environment or -D) to the
# NDK root; ANDROID_ABI / ANDROID_PLATFORM are passed through (defaults: arm64-v8a, android-24).
if(NOT ANDROID_NDK AND DEFINED ENV{ANDROID_NDK})
  set(ANDROID_NDK "$ENV{ANDROID_NDK}")
endif()
if(NOT ANDROID_NDK OR NOT EXISTS "${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
  message(FATAL_ERROR
    "mcu-export: Android build needs the Android NDK: set ANDROID_NDK to the NDK root "
    "(the folder holding build/cmake/android.toolchain.cmake); got '${ANDROID_NDK}'")
endif()
if(NOT ANDROID_ABI)
  set(ANDROID_ABI arm64-v8a)
endif()
if(NOT ANDROID_PLATFORM)
  set(ANDROID_PLATFORM android-24)
endif()
include("${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
