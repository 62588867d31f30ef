# The plugin matrix's C plugin (tests/plugin_matrix/c_plugin.c): built as a
# plugin author builds one, a MODULE linking the shared libxffi, with
# -z nodelete (its type's code lives in it). tests/plugin_matrix/run.py loads
# it on each runtime (the `plugins` step of scripts/test.sh). Only where
# there are shared libraries (not on wasm32-wasi, say).
if(UNIX AND NOT APPLE AND TARGET xffi_shared)
  add_library(xffi_matrix_c_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugin_matrix/c_plugin.c)
  target_link_libraries(xffi_matrix_c_plugin PRIVATE xffi_shared)
  target_link_options(xffi_matrix_c_plugin PRIVATE -Wl,-z,nodelete)
endif()

# The matrix's C host: a program linked to xffi's drop-in libtvm_ffi.so, the
# process's runtime, loading each plugin with xffi_module_load.
if(TARGET xffi_tvm_ffi)
  add_executable(xffi_matrix_c_host ${CMAKE_CURRENT_SOURCE_DIR}/plugin_matrix/c_host.c)
  target_link_libraries(xffi_matrix_c_host PRIVATE xffi_tvm_ffi)
endif()

# A tvm-ffi runtime xffi cannot bind to (lacking the type registry's entry
# points, or of another ABI): registering a type or a global function in
# libxffi beside it is a clear RuntimeError naming the runtime, not a crash.
if(UNIX AND NOT APPLE AND TARGET xffi_shared)
  add_library(xffi_runtime_errors_only MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugin_matrix/runtime_errors_only.c)
  set_target_properties(xffi_runtime_errors_only PROPERTIES OUTPUT_NAME tvm_ffi PREFIX lib
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/errors_only_runtime NO_SONAME OFF)
  target_link_options(xffi_runtime_errors_only PRIVATE -Wl,-soname,libtvm_ffi.so)
  add_executable(test_bind_lacking ${CMAKE_CURRENT_SOURCE_DIR}/plugin_matrix/test_bind_lacking.c)
  target_link_libraries(test_bind_lacking PRIVATE xffi_shared ${CMAKE_DL_LIBS})
  add_dependencies(test_bind_lacking xffi_runtime_errors_only)
  add_test(NAME plugin_runtime_lacking_type_entry_points
    COMMAND test_bind_lacking $<TARGET_FILE:xffi_runtime_errors_only> lacking)
  add_test(NAME plugin_runtime_of_another_abi
    COMMAND test_bind_lacking $<TARGET_FILE:xffi_runtime_errors_only> other-abi)
  set_tests_properties(plugin_runtime_of_another_abi PROPERTIES ENVIRONMENT XFFI_TEST_RUNTIME_VERSION=0.2.0)
endif()
