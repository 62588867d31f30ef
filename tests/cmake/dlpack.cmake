# The DLPack layout test compares xffi's own DLPack declarations with the
# official <dlpack/dlpack.h> shipped in the apache-tvm-ffi wheel. The test
# script passes -DXFFI_TVM_FFI_INCLUDE_DIR=$(tvm-ffi-config --includedir);
# without it, tvm-ffi-config is asked directly. Only the second translation
# unit (dlpack_layout_official.c) sees the official header: the test's own
# unit compiles xffi's declarations with XFFI_NO_SYSTEM_DLPACK.
set(XFFI_DLPACK_OFFICIAL_DIR "${XFFI_TVM_FFI_INCLUDE_DIR}")
if(NOT XFFI_DLPACK_OFFICIAL_DIR)
  find_program(XFFI_TVM_FFI_CONFIG tvm-ffi-config)
  if(XFFI_TVM_FFI_CONFIG)
    execute_process(COMMAND ${XFFI_TVM_FFI_CONFIG} --includedir
      OUTPUT_VARIABLE XFFI_DLPACK_OFFICIAL_DIR OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE XFFI_TVM_FFI_CONFIG_RESULT ERROR_QUIET)
    if(NOT XFFI_TVM_FFI_CONFIG_RESULT EQUAL 0)
      set(XFFI_DLPACK_OFFICIAL_DIR "")
    endif()
  endif()
endif()

if(XFFI_DLPACK_OFFICIAL_DIR AND EXISTS "${XFFI_DLPACK_OFFICIAL_DIR}/dlpack/dlpack.h")
  set(XFFI_DLPACK_OFFICIAL_SRC ${CMAKE_CURRENT_SOURCE_DIR}/c/dlpack_layout_official.c)
  target_sources(test_dlpack_layout PRIVATE ${XFFI_DLPACK_OFFICIAL_SRC})
  set_source_files_properties(${XFFI_DLPACK_OFFICIAL_SRC} PROPERTIES INCLUDE_DIRECTORIES "${XFFI_DLPACK_OFFICIAL_DIR}")
  target_compile_definitions(test_dlpack_layout PRIVATE XFFI_HAVE_OFFICIAL_DLPACK=1)
  message(STATUS "DLPack layout test: comparing with ${XFFI_DLPACK_OFFICIAL_DIR}/dlpack/dlpack.h")
else()
  message(WARNING "DLPack layout test: no official dlpack/dlpack.h (set XFFI_TVM_FFI_INCLUDE_DIR to "
    "the output of `tvm-ffi-config --includedir`); test_dlpack_layout will fail")
endif()
