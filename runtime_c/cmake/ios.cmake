# iOS (device, arm64) with Xcode's clang; needs macOS with Xcode installed (xcrun on PATH).
find_program(MX_XCRUN xcrun)
if(NOT MX_XCRUN)
  message(FATAL_ERROR
    "mcu-export: iOS build needs Xcode: xcrun was not found (install Xcode and its command line tools "
    "on macOS, then run xcode-select --install)")
endif()
set(CMAKE_SYSTEM_NAME iOS)
set(CMAKE_OSX_ARCHITECTURES arm64 CACHE STRING "")
set(CMAKE_OSX_DEPLOYMENT_TARGET 13.0 CACHE STRING "")
set(CMAKE_XCODE_ATTRIBUTE_ONLY_ACTIVE_ARCH NO)
