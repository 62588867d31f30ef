# Interoperability with tvm-ffi (the apache-tvm-ffi wheel), both ways:
# - xffi_interop_xffi_exports: a library written with xffi, exporting
#   functions for tvm-ffi's loader (Python: test_tvm_loads_xffi.py; C: the
#   host below through tvm-ffi's C API). Links the shared libxffi.
# - xffi_interop_tvm_exports: a library built against the wheel's headers and
#   libtvm_ffi.so alone, exporting functions in tvm-ffi's convention.
# - test_interop_host: a C host linking both runtimes, loading each library
#   with the other runtime; counts prove every deleter runs exactly once, and
#   the AddressSanitizer build proves there are no leaks.
# The wheel is found through XFFI_TVM_FFI_INCLUDE_DIR (the test script passes
# `python3 -m tvm_ffi.config --includedir`); its library sits in ../lib.
# Without the wheel none of this is built (with a warning).
set(XFFI_INTEROP_TVM_INCLUDE "${XFFI_TVM_FFI_INCLUDE_DIR}")
if(NOT XFFI_INTEROP_TVM_INCLUDE)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -m tvm_ffi.config --includedir
      OUTPUT_VARIABLE XFFI_INTEROP_TVM_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE XFFI_INTEROP_RESULT ERROR_QUIET)
    if(NOT XFFI_INTEROP_RESULT EQUAL 0)
      set(XFFI_INTEROP_TVM_INCLUDE "")
    endif()
  endif()
endif()
get_filename_component(XFFI_INTEROP_TVM_LIBDIR "${XFFI_INTEROP_TVM_INCLUDE}/../lib" ABSOLUTE)
find_library(XFFI_TVM_FFI_LIBRARY NAMES tvm_ffi PATHS "${XFFI_INTEROP_TVM_LIBDIR}" NO_DEFAULT_PATH)

if(XFFI_INTEROP_TVM_INCLUDE AND EXISTS "${XFFI_INTEROP_TVM_INCLUDE}/tvm/ffi/c_api.h" AND XFFI_TVM_FFI_LIBRARY)
  set(XFFI_INTEROP_DIR ${CMAKE_CURRENT_SOURCE_DIR}/interop)

  add_library(xffi_interop_xffi_exports MODULE ${XFFI_INTEROP_DIR}/lib_xffi_exports.c)
  target_link_libraries(xffi_interop_xffi_exports PRIVATE xffi_shared ${CMAKE_DL_LIBS})

  add_library(xffi_interop_tvm_exports MODULE ${XFFI_INTEROP_DIR}/lib_tvm_exports.c)
  target_include_directories(xffi_interop_tvm_exports PRIVATE ${XFFI_INTEROP_TVM_INCLUDE})
  target_link_libraries(xffi_interop_tvm_exports PRIVATE ${XFFI_TVM_FFI_LIBRARY})
  set_target_properties(xffi_interop_tvm_exports PROPERTIES BUILD_RPATH "${XFFI_INTEROP_TVM_LIBDIR}")

  add_executable(test_interop_host ${XFFI_INTEROP_DIR}/test_interop_host.c)
  target_include_directories(test_interop_host PRIVATE ${XFFI_INTEROP_TVM_INCLUDE} ${CMAKE_CURRENT_SOURCE_DIR}/c)
  target_link_libraries(test_interop_host PRIVATE xffi_shared ${XFFI_TVM_FFI_LIBRARY} PkgConfig::CMOCKA
    ${CMAKE_DL_LIBS})
  set_target_properties(test_interop_host PROPERTIES BUILD_RPATH "${XFFI_INTEROP_TVM_LIBDIR}")
  target_compile_definitions(test_interop_host PRIVATE
    XFFI_INTEROP_XFFI_LIB="$<TARGET_FILE:xffi_interop_xffi_exports>"
    XFFI_INTEROP_TVM_LIB="$<TARGET_FILE:xffi_interop_tvm_exports>")
  add_dependencies(test_interop_host xffi_interop_xffi_exports xffi_interop_tvm_exports)
  add_test(NAME test_interop_host COMMAND test_interop_host)
else()
  message(WARNING "interop tests: no apache-tvm-ffi wheel found (set XFFI_TVM_FFI_INCLUDE_DIR to "
    "`python3 -m tvm_ffi.config --includedir`); test_interop_host is not built")
endif()

# bench_vs_tvm (tests/bench) needs the wheel's headers and library:
# tests/bench/tvm.cmake adds them once the bench targets exist (deferred to
# the end of the top-level directory, which adds tests/bench after tests/).
if(XFFI_BUILD_BENCH AND NOT CMAKE_VERSION VERSION_LESS 3.19)
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL include ${PROJECT_SOURCE_DIR}/tests/bench/tvm.cmake)
endif()
