# test_tvm_type_testing_lib: the wheel's libtvm_ffi_testing.so (C++, built by
# tvm-ffi) loaded on xffi's type registry. It needs a library with SONAME
# libtvm_ffi.so already loaded: here xffi's objects plus weak stand-ins for
# the functions of other areas (tests/c/compat/tvm_type/stand_ins.c), in a
# directory of its own. Built with the wheel and shared libraries on ELF
# platforms only, never when cross compiling (the wheel's library is the host's).
set(XFFI_TVM_TYPE_WHEEL_LIB "")
if(XFFI_TVM_FFI_HEADERS)
  get_filename_component(XFFI_TVM_TYPE_WHEEL_LIBDIR "${XFFI_TVM_FFI_HEADERS}/../lib" ABSOLUTE)
  if(EXISTS "${XFFI_TVM_TYPE_WHEEL_LIBDIR}/libtvm_ffi_testing.so")
    set(XFFI_TVM_TYPE_WHEEL_LIB "${XFFI_TVM_TYPE_WHEEL_LIBDIR}/libtvm_ffi_testing.so")
  endif()
endif()
if(XFFI_TVM_TYPE_WHEEL_LIB AND XFFI_SHARED_LIBRARIES AND UNIX AND NOT APPLE AND NOT CMAKE_CROSSCOMPILING)
  set(XFFI_TVM_TYPE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/c/compat/tvm_type)
  add_library(xffi_tvm_type_runtime SHARED ${XFFI_TVM_TYPE_DIR}/stand_ins.c $<TARGET_OBJECTS:xffi_objects>)
  target_include_directories(xffi_tvm_type_runtime PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(xffi_tvm_type_runtime PRIVATE Threads::Threads ${CMAKE_DL_LIBS} m)
  set_target_properties(xffi_tvm_type_runtime PROPERTIES OUTPUT_NAME tvm_ffi
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tvm_type_runtime)
  add_executable(test_tvm_type_testing_lib ${XFFI_TVM_TYPE_DIR}/test_tvm_type_testing_lib.c)
  target_include_directories(test_tvm_type_testing_lib PRIVATE ${XFFI_TEST_HELPERS})
  target_link_libraries(test_tvm_type_testing_lib PRIVATE xffi_tvm_type_runtime PkgConfig::CMOCKA ${CMAKE_DL_LIBS})
  target_compile_definitions(test_tvm_type_testing_lib PRIVATE
    XFFI_TVM_FFI_TESTING_LIB="${XFFI_TVM_TYPE_WHEEL_LIB}")
  add_test(NAME test_tvm_type_testing_lib COMMAND test_tvm_type_testing_lib)
endif()
