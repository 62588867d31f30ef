# The plugin matrix's C plugin (tests/plugin_matrix/c_plugin.c): built as a
# plugin author builds one, a MODULE linking the shared libxffi, with
# -z nodelete (its type's code lives in it). tests/plugin_matrix/run.py loads
# it on each runtime (the `plugins` step of scripts/test.sh).
if(UNIX AND NOT APPLE)
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
