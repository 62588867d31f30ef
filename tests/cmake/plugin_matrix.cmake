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

# A host that unloads the process's runtime while the C plugin bound to it
# lives: the binding pinned the runtime, so the dlclose unloads nothing and the
# plugin works on. The runtime: the drop-in's C part (c-part/libtvm_ffi.so,
# which nothing else keeps loaded: without the pin it is unmapped), and the
# wheel's libtvm_ffi.so (its C++ unique symbols keep it loaded anyway; it
# needs the wheel, so it runs with the wheel-runtime tests, label
# wheel_runtime: the plugins step).
if(TARGET xffi_matrix_c_plugin AND NOT CMAKE_CROSSCOMPILING AND NOT XFFI_SANITIZE)
  add_executable(test_unload_runtime ${CMAKE_CURRENT_SOURCE_DIR}/plugin_matrix/test_unload_runtime.c)
  target_link_libraries(test_unload_runtime PRIVATE xffi_shared ${CMAKE_DL_LIBS})
  add_dependencies(test_unload_runtime xffi_matrix_c_plugin)
  if(TARGET xffi_tvm_ffi_c)
    add_test(NAME plugin_host_unloads_the_runtime
      COMMAND test_unload_runtime $<TARGET_FILE:xffi_tvm_ffi_c> $<TARGET_FILE:xffi_matrix_c_plugin>)
  endif()
  get_filename_component(xffi_unload_wheel_libdir "${XFFI_TVM_FFI_HEADERS}/../lib" ABSOLUTE)
  if(XFFI_TVM_FFI_HEADERS AND EXISTS "${xffi_unload_wheel_libdir}/libtvm_ffi.so")
    add_test(NAME plugin_host_unloads_the_wheel_runtime
      COMMAND test_unload_runtime ${xffi_unload_wheel_libdir}/libtvm_ffi.so $<TARGET_FILE:xffi_matrix_c_plugin>)
    set_tests_properties(plugin_host_unloads_the_wheel_runtime PROPERTIES LABELS wheel_runtime)
  endif()
endif()
