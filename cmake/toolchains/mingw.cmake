# Windows x86-64 with Debian's mingw-w64 cross compiler (the posix-threads
# variant, whose winpthreads the tests' own threads use; libxffi itself uses
# the Windows API). Programs run under wine (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(XFFI_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${XFFI_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${XFFI_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${XFFI_MINGW_TRIPLE}-windres)
# XFFI_CROSS_PREFIX (environment): where scripts/cross/cmocka.sh installed
# cmocka for this target.
set(CMAKE_FIND_ROOT_PATH /usr/${XFFI_MINGW_TRIPLE} $ENV{XFFI_CROSS_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# wine64 itself: the `wine` wrapper asks for the 32-bit wine on every run.
find_program(XFFI_WINE NAMES wine64 PATHS /usr/lib/wine NO_DEFAULT_PATH)
find_program(XFFI_WINE NAMES wine64 wine)
if(XFFI_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${XFFI_WINE})
endif()
