# test_interop_map: Maps and Dicts cross between xffi and tvm-ffi's inline
# C++ (tests/interop/lib_map_cross.cc, built against the wheel's headers and
# libtvm_ffi.so alone, loaded by an xffi host). Built where interop.cmake
# builds its C++ library (the wheel and a C++ compiler are there), with the
# same compile options.
if(TARGET xffi_interop_list_grow)
  add_library(xffi_interop_map_cross MODULE ${XFFI_INTEROP_DIR}/lib_map_cross.cc)
  target_include_directories(xffi_interop_map_cross SYSTEM PRIVATE ${XFFI_INTEROP_TVM_INCLUDE})
  target_link_libraries(xffi_interop_map_cross PRIVATE ${XFFI_TVM_FFI_LIBRARY})
  target_compile_features(xffi_interop_map_cross PRIVATE cxx_std_17)
  set_target_properties(xffi_interop_map_cross PROPERTIES COMPILE_OPTIONS "${XFFI_INTEROP_CXX_OPTIONS}"
    BUILD_RPATH "${XFFI_INTEROP_TVM_LIBDIR}")

  add_executable(test_interop_map ${XFFI_INTEROP_DIR}/test_interop_map.c)
  target_include_directories(test_interop_map PRIVATE ${XFFI_TEST_HELPERS})
  target_link_libraries(test_interop_map PRIVATE xffi_shared PkgConfig::CMOCKA)
  target_compile_definitions(test_interop_map PRIVATE
    XFFI_INTEROP_MAP_CROSS_LIB="$<TARGET_FILE:xffi_interop_map_cross>")
  add_dependencies(test_interop_map xffi_interop_map_cross)
  add_test(NAME test_interop_map COMMAND test_interop_map)
endif()
