# Finds the apache-tvm-ffi wheel's headers and libtvm_ffi.so for the
# benchmarks that measure tvm-ffi (bench/tvm.cmake, bench/CMakeLists.txt):
# sets XFFI_BENCH_TVM_INCLUDE (empty without the wheel), XFFI_BENCH_TVM_LIBDIR
# and XFFI_BENCH_TVM_LIBRARY, found as in tests/cmake/interop.cmake.
include_guard(DIRECTORY)
set(XFFI_BENCH_TVM_INCLUDE "${XFFI_TVM_FFI_INCLUDE_DIR}")
if(NOT XFFI_BENCH_TVM_INCLUDE)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -m tvm_ffi.config --includedir
      OUTPUT_VARIABLE XFFI_BENCH_TVM_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE XFFI_BENCH_TVM_RESULT ERROR_QUIET)
    if(NOT XFFI_BENCH_TVM_RESULT EQUAL 0)
      set(XFFI_BENCH_TVM_INCLUDE "")
    endif()
  endif()
endif()
get_filename_component(XFFI_BENCH_TVM_LIBDIR "${XFFI_BENCH_TVM_INCLUDE}/../lib" ABSOLUTE)
find_library(XFFI_BENCH_TVM_LIBRARY NAMES tvm_ffi PATHS "${XFFI_BENCH_TVM_LIBDIR}" NO_DEFAULT_PATH)

