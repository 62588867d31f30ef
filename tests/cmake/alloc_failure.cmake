# test_alloc_failure loads a module under allocation failure: it uses the
# plugin without xffi (tvm_only, built by module.cmake), so that the test
# keeps its statically linked runtime as the only one in the process.
if(NOT XFFI_SHARED_LIBRARIES)
  return() # no plugin to load (WASI)
endif()
target_compile_definitions(test_alloc_failure PRIVATE
  XFFI_TEST_PLUGIN_TVM_ONLY="$<TARGET_FILE:xffi_test_plugin_tvm_only>")
add_dependencies(test_alloc_failure xffi_test_plugin_tvm_only)
