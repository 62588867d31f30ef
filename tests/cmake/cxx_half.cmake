# test_cxx_half: the C++ half of tvm-ffi's ABI in the drop-in
# (c/compat/cxx/, cmake/tvm_ffi_dropin.cmake), from a C++ program built
# against the wheel's headers and linked to the drop-in only. It loads the
# test_tvm_module plugins (tests/cmake/tvm_module.cmake), which bind their
# xffi_* and TVMFFI* symbols to the drop-in.
if(NOT TARGET xffi_cxx_objects)
  return()
endif()
add_executable(test_cxx_half ${CMAKE_CURRENT_SOURCE_DIR}/c/compat/test_cxx_half.cc)
target_include_directories(test_cxx_half SYSTEM PRIVATE ${XFFI_TVM_FFI_HEADERS})
target_compile_features(test_cxx_half PRIVATE cxx_std_17)
# The project's warning options are partly C ones: replace them.
set(XFFI_CXX_HALF_TEST_OPTIONS -Wall -Wextra -Wno-unused-parameter)
if(XFFI_WERROR)
  list(APPEND XFFI_CXX_HALF_TEST_OPTIONS -Werror)
endif()
set_target_properties(test_cxx_half PROPERTIES COMPILE_OPTIONS "${XFFI_CXX_HALF_TEST_OPTIONS}")
target_link_libraries(test_cxx_half PRIVATE xffi_tvm_ffi PkgConfig::CMOCKA)
foreach(plugin tvm_module tvm_module_dep)
  add_dependencies(test_cxx_half xffi_test_plugin_${plugin})
  string(TOUPPER ${plugin} upper)
  target_compile_definitions(test_cxx_half PRIVATE XFFI_TEST_PLUGIN_${upper}="$<TARGET_FILE:xffi_test_plugin_${plugin}>")
endforeach()
add_test(NAME test_cxx_half COMMAND test_cxx_half)
set_tests_properties(test_cxx_half PROPERTIES LABELS one_runtime)
