# Checks of the libtvm_ffi.so drop-in (cmake/tvm_ffi_dropin.cmake) by
# tests/dropin/check_dropin.py:
# - tvm_ffi_dropin_properties: SONAME, libc only, <= 400 KB stripped, the
#   same xffi_* exports as libxffi, no self-call bound at run time in either
#   shared library, no heap allocation of its own at dlopen (counted by
#   load_allocs against reference_lib, a library of the same shape, with the
#   wheel's libtvm_ffi.so as the negative control that must count many). The
#   count and the size are skipped under sanitizers (their runtime owns
#   malloc and their instrumentation is not the product); the size is
#   checked in optimised builds only (an -O0 build is not what ships:
#   scripts/test.sh runs this test in its Release build).
# - tvm_ffi_dropin_abi (label one_runtime): all 50 TVMFFI* functions of
#   include/xffi/tvm_ffi.h are defined and exported.
# - tvm_ffi_dropin_cxx (label one_runtime): with the C++ half
#   (c/compat/cxx/), every tvm::ffi C++ symbol the wheel's library exports;
#   the properties above are then checked on the drop-in without it
#   (xffi_tvm_ffi_c, the C part), and this test prints the C++ part's size.
# Native Linux builds only: the checks run this machine's binutils and
# dlopen the library here (a cross build's cannot be).
if(NOT TARGET xffi_tvm_ffi OR NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR CMAKE_CROSSCOMPILING)
  return()
endif()
# The C part: the drop-in itself, or without its C++ half when it has one.
if(TARGET xffi_tvm_ffi_c)
  set(xffi_dropin_c_part xffi_tvm_ffi_c)
else()
  set(xffi_dropin_c_part xffi_tvm_ffi)
endif()
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "drop-in checks: no python3; tvm_ffi_dropin_properties is not run")
  return()
endif()
set(XFFI_DROPIN_DIR ${CMAKE_CURRENT_SOURCE_DIR}/dropin)
set(XFFI_DROPIN_CHECK ${Python3_EXECUTABLE} ${XFFI_DROPIN_DIR}/check_dropin.py)
if(XFFI_SANITIZE)
  add_test(NAME tvm_ffi_dropin_properties COMMAND ${XFFI_DROPIN_CHECK} properties
    $<TARGET_FILE:${xffi_dropin_c_part}> $<TARGET_FILE:xffi_shared> - - --no-size)
else()
  add_executable(xffi_dropin_load_allocs ${XFFI_DROPIN_DIR}/load_allocs.c)
  target_link_libraries(xffi_dropin_load_allocs PRIVATE ${CMAKE_DL_LIBS})
  # Its malloc must be in the dynamic symbol table, or the loader's and the
  # libraries' calls never reach it (every count was 0).
  set_target_properties(xffi_dropin_load_allocs PROPERTIES ENABLE_EXPORTS ON)
  add_library(xffi_dropin_reference MODULE ${XFFI_DROPIN_DIR}/reference_lib.c)
  target_include_directories(xffi_dropin_reference PRIVATE ${PROJECT_SOURCE_DIR}/include)
  if(CMAKE_BUILD_TYPE MATCHES "^(Release|MinSizeRel|RelWithDebInfo)$")
    set(xffi_dropin_size_option)
  else()
    set(xffi_dropin_size_option --no-size)
  endif()
  # The negative control: the wheel's libtvm_ffi.so (found by
  # tests/cmake/interop.cmake) allocates thousands of times when it loads,
  # and the count must show it.
  if(XFFI_TVM_FFI_LIBRARY)
    set(xffi_dropin_control_option --control ${XFFI_TVM_FFI_LIBRARY})
  else()
    set(xffi_dropin_control_option)
  endif()
  add_test(NAME tvm_ffi_dropin_properties COMMAND ${XFFI_DROPIN_CHECK} properties
    $<TARGET_FILE:${xffi_dropin_c_part}> $<TARGET_FILE:xffi_shared>
    $<TARGET_FILE:xffi_dropin_load_allocs> $<TARGET_FILE:xffi_dropin_reference> ${xffi_dropin_size_option}
    ${xffi_dropin_control_option})
endif()
add_test(NAME tvm_ffi_dropin_abi COMMAND ${XFFI_DROPIN_CHECK} abi
  $<TARGET_FILE:xffi_tvm_ffi> ${PROJECT_SOURCE_DIR}/include/xffi/tvm_ffi.h)
set_tests_properties(tvm_ffi_dropin_abi PROPERTIES LABELS one_runtime)
if(TARGET xffi_tvm_ffi_c AND XFFI_TVM_FFI_LIBRARY)
  add_test(NAME tvm_ffi_dropin_cxx COMMAND ${XFFI_DROPIN_CHECK} cxx
    $<TARGET_FILE:xffi_tvm_ffi> $<TARGET_FILE:xffi_tvm_ffi_c> ${XFFI_TVM_FFI_LIBRARY})
  set_tests_properties(tvm_ffi_dropin_cxx PROPERTIES LABELS one_runtime)
endif()
