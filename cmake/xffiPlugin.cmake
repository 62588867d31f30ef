# xffi_add_plugin(<name> [SOURCES] <source>...): a tvm-ffi plugin written with
# xffi's C API, a MODULE library that any host loads at run time (Python's
# tvm_ffi.load_module on the wheel's runtime or on xffi's overlay, a C host on
# xffi's drop-in, a Rust host on the xffi crate). Installed with the package;
# find_package(xffi) includes it. The result is an ordinary target: set more
# properties on it as usual (INSTALL_RPATH "$ORIGIN" when libxffi.so ships
# beside the plugin, say).
#
# What it sets, and why:
# - links xffi::shared, never the static library: the shared libxffi binds to
#   the runtime the process already has, and a static copy would be a second,
#   private runtime inside the plugin;
# - -z nodelete: a plugin that registers types or global functions at load
#   leaves its code (creators, deleters, getters, methods) in the process's
#   registry, so it must never be unmapped while the process runs;
# - -z defs: every symbol resolves at link time (libxffi.so and libc), so a
#   missing one is a link error, not a failure when a host loads the plugin;
# - hidden visibility: only the exported functions (XFFI_EXPORT_FUNCTION) and
#   the ABI marker (XFFI_DEFINE_ABI_MARKER) leave the library;
# - an rpath to the directory of the libxffi.so it links (built and
#   installed): the host that loads the plugin (Python, say) does not know
#   where xffi is installed, so the plugin carries it.
function(xffi_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  set(sources ${arg_SOURCES} ${arg_UNPARSED_ARGUMENTS})
  if(NOT sources)
    message(FATAL_ERROR "xffi_add_plugin(${name}): no sources given (expected SOURCES file.c ...)")
  endif()
  if(NOT TARGET xffi::shared)
    message(FATAL_ERROR "xffi_add_plugin(${name}): this xffi was installed without its shared library "
      "(xffi::shared), which a plugin links")
  endif()
  add_library(${name} MODULE ${sources})
  target_link_libraries(${name} PRIVATE xffi::shared)
  set_target_properties(${name} PROPERTIES
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH_USE_LINK_PATH ON)
  if(NOT APPLE AND NOT WIN32) # ELF linkers
    target_link_options(${name} PRIVATE -Wl,-z,nodelete -Wl,-z,defs)
  endif()
endfunction()
