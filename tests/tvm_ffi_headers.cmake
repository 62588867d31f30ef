# Finds the apache-tvm-ffi wheel's headers for the tests that compare xffi's
# layouts with them or link its libtvm_ffi.so (test_layout,
# test_dlpack_layout, the interop tests, bench_vs_tvm), so that a plain
# `cmake -S . -B build` finds them the way the test script passes them in.
# Sets:
#   XFFI_TVM_FFI_HEADERS          the include directory (tvm/ffi/c_api.h,
#                                 dlpack/dlpack.h; the library is in ../lib), or ""
#   XFFI_TVM_FFI_HEADERS_MISSING  why there is none (when "")
# Order: XFFI_TVM_FFI_INCLUDE_DIR when given (it must hold the headers);
# else, unless XFFI_FIND_TVM_FFI is OFF, `python3 -m tvm_ffi.config
# --includedir`, then `tvm-ffi-config --includedir`.
option(XFFI_FIND_TVM_FFI
  "Without XFFI_TVM_FFI_INCLUDE_DIR, ask python3 (tvm_ffi.config) and tvm-ffi-config for the tvm-ffi headers" ON)

# Runs the command line given; sets XFFI_TVM_FFI_HEADERS to what it prints
# when that directory holds the headers.
macro(xffi_tvm_ffi_query)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE xffi_query_dir OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE xffi_query_result ERROR_QUIET)
  if(xffi_query_result EQUAL 0 AND EXISTS "${xffi_query_dir}/tvm/ffi/c_api.h")
    set(XFFI_TVM_FFI_HEADERS "${xffi_query_dir}")
  endif()
endmacro()

set(XFFI_TVM_FFI_HEADERS "")
set(XFFI_TVM_FFI_HEADERS_MISSING "")
if(XFFI_TVM_FFI_INCLUDE_DIR)
  if(NOT EXISTS "${XFFI_TVM_FFI_INCLUDE_DIR}/tvm/ffi/c_api.h")
    message(FATAL_ERROR "XFFI_TVM_FFI_INCLUDE_DIR=${XFFI_TVM_FFI_INCLUDE_DIR} holds no tvm/ffi/c_api.h "
      "(expected the output of `python3 -m tvm_ffi.config --includedir`)")
  endif()
  set(XFFI_TVM_FFI_HEADERS "${XFFI_TVM_FFI_INCLUDE_DIR}")
elseif(NOT XFFI_FIND_TVM_FFI)
  set(XFFI_TVM_FFI_HEADERS_MISSING "XFFI_TVM_FFI_INCLUDE_DIR is not set and XFFI_FIND_TVM_FFI is OFF")
else()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    xffi_tvm_ffi_query(${Python3_EXECUTABLE} -m tvm_ffi.config --includedir)
  endif()
  if(NOT XFFI_TVM_FFI_HEADERS)
    find_program(XFFI_TVM_FFI_CONFIG tvm-ffi-config)
    if(XFFI_TVM_FFI_CONFIG)
      xffi_tvm_ffi_query(${XFFI_TVM_FFI_CONFIG} --includedir)
    endif()
  endif()
  if(NOT XFFI_TVM_FFI_HEADERS)
    set(XFFI_TVM_FFI_HEADERS_MISSING "XFFI_TVM_FFI_INCLUDE_DIR is not set and neither python3 -m tvm_ffi.config nor tvm-ffi-config gave the headers (pip install apache-tvm-ffi)")
  endif()
endif()
if(XFFI_TVM_FFI_HEADERS)
  message(STATUS "tvm-ffi headers: ${XFFI_TVM_FFI_HEADERS}")
else()
  message(STATUS "tvm-ffi headers: none (${XFFI_TVM_FFI_HEADERS_MISSING}); the comparisons with them are skipped")
endif()
