# test_tvm_module: tvm-ffi's module side (c/module*.c, c/tvm_module.c,
# c/globals_module.c). The host links the static library whole and exports
# its symbols (-rdynamic), so that it can call the ffi.* globals' static
# table (internal) and the plugins, linked to no runtime at all, bind their
# xffi and TVMFFI* symbols to this one runtime, as a tvm-ffi library binds to
# whichever libtvm_ffi.so the process has.
# Plugins (tests/plugins/):
# - tvm_module: functions, doc and metadata getters, __tvm_ffi__library_ctx,
#   a context symbol, lookups through TVMFFIEnvModLookupFromImports;
# - tvm_module_dep: a module the others import;
# - tvm_module_bin: embeds an import tree (__tvm_ffi__library_bin);
# - tvm_cxx: C++ against the wheel's headers with TVM_FFI_DLL_EXPORT_TYPED_FUNC
#   (only when the headers and a C++ compiler are there).
# ELF only for the plugins (whole-archive and undefined symbols in plugins
# are linker specifics); elsewhere the test runs the checks that need none.
if(NOT XFFI_SHARED_LIBRARIES OR WIN32 OR APPLE)
  return()
endif()
set(XFFI_TVM_MODULE_HOSTS test_tvm_module)
if(TARGET test_tvm_module_threads)
  list(APPEND XFFI_TVM_MODULE_HOSTS test_tvm_module_threads)
endif()
foreach(plugin tvm_module tvm_module_dep tvm_module_bin)
  add_library(xffi_test_plugin_${plugin} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/plugin_${plugin}.c)
  target_include_directories(xffi_test_plugin_${plugin} PRIVATE ${PROJECT_SOURCE_DIR}/include)
endforeach()
foreach(host ${XFFI_TVM_MODULE_HOSTS})
  set_property(TARGET ${host} PROPERTY LINK_LIBRARIES
    -Wl,--whole-archive xffi_static -Wl,--no-whole-archive PkgConfig::CMOCKA Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(${host} PROPERTIES ENABLE_EXPORTS ON)
  target_compile_definitions(${host} PRIVATE XFFI_TEST_TVM_MODULE_PLUGINS=1)
  foreach(plugin tvm_module tvm_module_dep tvm_module_bin)
    add_dependencies(${host} xffi_test_plugin_${plugin})
    string(TOUPPER ${plugin} upper)
    target_compile_definitions(${host} PRIVATE XFFI_TEST_PLUGIN_${upper}="$<TARGET_FILE:xffi_test_plugin_${plugin}>")
  endforeach()
endforeach()

# The C++ plugin is built against the wheel's headers for the host only (a
# cross build has no matching C++ runtime under qemu).
if(XFFI_TVM_FFI_HEADERS AND NOT CMAKE_CROSSCOMPILING)
  include(${CMAKE_CURRENT_LIST_DIR}/cxx.cmake)
  xffi_find_cxx()
  if(CMAKE_CXX_COMPILER)
    enable_language(CXX)
    # Not linked to libtvm_ffi.so: its TVMFFI* symbols stay undefined (a
    # shared library may have undefined symbols unless -z defs is given).
    add_library(xffi_test_plugin_tvm_cxx MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/plugin_tvm_cxx.cc)
    target_include_directories(xffi_test_plugin_tvm_cxx SYSTEM PRIVATE ${XFFI_TVM_FFI_HEADERS})
    target_compile_features(xffi_test_plugin_tvm_cxx PRIVATE cxx_std_17)
    # The project's warning options are C ones: replace them. Under UBSan,
    # its C++-only checks would need a C++ runtime part the C host lacks.
    set(XFFI_TVM_CXX_OPTIONS -Wall -Wextra -Wno-unused-parameter)
    if(XFFI_SANITIZE)
      list(APPEND XFFI_TVM_CXX_OPTIONS -fsanitize=${XFFI_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
      if(XFFI_SANITIZE MATCHES "undefined")
        list(APPEND XFFI_TVM_CXX_OPTIONS -fno-sanitize=vptr)
        if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
          list(APPEND XFFI_TVM_CXX_OPTIONS -fno-sanitize=function)
        endif()
      endif()
    endif()
    set_target_properties(xffi_test_plugin_tvm_cxx PROPERTIES COMPILE_OPTIONS "${XFFI_TVM_CXX_OPTIONS}")
    target_link_options(xffi_test_plugin_tvm_cxx PRIVATE -Wl,--allow-shlib-undefined)
    add_dependencies(test_tvm_module xffi_test_plugin_tvm_cxx)
    target_compile_definitions(test_tvm_module PRIVATE
      XFFI_TEST_PLUGIN_TVM_CXX="$<TARGET_FILE:xffi_test_plugin_tvm_cxx>")
  else()
    message(WARNING "test_tvm_module: no C++ compiler, so the tvm-ffi C++ plugin is not built")
  endif()
endif()
