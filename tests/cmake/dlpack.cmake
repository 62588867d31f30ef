# The DLPack layout test compares xffi's own DLPack declarations with the
# official <dlpack/dlpack.h> shipped in the apache-tvm-ffi wheel, found by
# tests/tvm_ffi_headers.cmake; without it that comparison is reported as
# skipped, with the reason. Only the second translation
# unit (dlpack_layout_official.c) sees the official header: the test's own
# unit compiles xffi's declarations with XFFI_NO_SYSTEM_DLPACK.
set(XFFI_DLPACK_OFFICIAL_DIR "${XFFI_TVM_FFI_HEADERS}")

if(XFFI_DLPACK_OFFICIAL_DIR AND EXISTS "${XFFI_DLPACK_OFFICIAL_DIR}/dlpack/dlpack.h")
  set(XFFI_DLPACK_OFFICIAL_SRC ${CMAKE_CURRENT_SOURCE_DIR}/c/tensor/dlpack_layout_official.c)
  target_sources(test_dlpack_layout PRIVATE ${XFFI_DLPACK_OFFICIAL_SRC})
  set_source_files_properties(${XFFI_DLPACK_OFFICIAL_SRC} PROPERTIES INCLUDE_DIRECTORIES "${XFFI_DLPACK_OFFICIAL_DIR}")
  target_compile_definitions(test_dlpack_layout PRIVATE XFFI_HAVE_OFFICIAL_DLPACK=1)
  message(STATUS "DLPack layout test: comparing with ${XFFI_DLPACK_OFFICIAL_DIR}/dlpack/dlpack.h")
else()
  set(XFFI_DLPACK_MISSING "${XFFI_TVM_FFI_HEADERS_MISSING}")
  if(NOT XFFI_DLPACK_MISSING)
    set(XFFI_DLPACK_MISSING "${XFFI_DLPACK_OFFICIAL_DIR} holds no dlpack/dlpack.h")
  endif()
  target_compile_definitions(test_dlpack_layout PRIVATE XFFI_TVM_FFI_HEADERS_MISSING="${XFFI_DLPACK_MISSING}")
endif()
