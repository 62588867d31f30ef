# Plugins for test_module: shared libraries loaded at run time.
# - registers: uses the host's xffi runtime (links the shared libxffi) and
#   registers a type and a global function at load; -z nodelete keeps it
#   loaded, since the registry holds code of it.
# - plain: exports functions only; unloaded after its last function goes.
# - bad_abi: claims another xffi ABI version; the loader must refuse it.
# - tvm_only: no xffi at all (like a pure tvm-ffi library).
# - unmarked: includes the xffi headers but writes no XFFI_DEFINE_ABI_MARKER().
# test_module is the host: it links the SHARED libxffi (one runtime per
# process), not the static one the other tests use. Where there are no
# shared libraries (WASI) it links the static one and checks that loading
# fails clearly.
if(NOT XFFI_SHARED_LIBRARIES)
  return()
endif()
set(XFFI_TEST_PLUGINS registers plain bad_abi tvm_only unmarked)
foreach(plugin ${XFFI_TEST_PLUGINS})
  add_library(xffi_test_plugin_${plugin} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/plugin_${plugin}.c)
  target_include_directories(xffi_test_plugin_${plugin} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  add_dependencies(test_module xffi_test_plugin_${plugin})
  string(TOUPPER ${plugin} upper)
  target_compile_definitions(test_module PRIVATE
    XFFI_TEST_PLUGIN_${upper}="$<TARGET_FILE:xffi_test_plugin_${plugin}>")
endforeach()
target_link_libraries(xffi_test_plugin_registers PRIVATE xffi_shared)
if(WIN32)
  # No weak symbols on Windows: XFFI_EXPORT_FUNCTION's failure path is imported
  # from the DLL. plugin_registers pins itself instead of -z nodelete.
  target_link_libraries(xffi_test_plugin_bad_abi PRIVATE xffi_shared)
  target_link_libraries(xffi_test_plugin_unmarked PRIVATE xffi_shared)
else()
  # -z nodelete is an ELF linker's (GNU ld, gold, lld). Elsewhere (Apple's
  # ld64) the plugin pins itself at load with dlopen(RTLD_NOLOAD |
  # RTLD_NODELETE), which macOS's dlopen(3) documents to the same effect.
  xffi_linker_accepts(-Wl,-z,nodelete XFFI_LINKER_HAS_Z_NODELETE)
  if(XFFI_LINKER_HAS_Z_NODELETE)
    target_link_options(xffi_test_plugin_registers PRIVATE -Wl,-z,nodelete)
  else()
    target_compile_definitions(xffi_test_plugin_registers PRIVATE XFFI_TEST_PLUGIN_PIN_SELF=1)
    target_link_libraries(xffi_test_plugin_registers PRIVATE ${CMAKE_DL_LIBS})
  endif()
endif()
target_link_libraries(xffi_test_plugin_plain PRIVATE xffi_shared)

set_property(TARGET test_module PROPERTY LINK_LIBRARIES xffi_shared PkgConfig::CMOCKA ${CMAKE_DL_LIBS})
