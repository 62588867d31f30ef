# The libtvm_ffi.so drop-in (docs/tvm-ffi.md): the objects of
# libxffi linked once more as a shared library whose file name and SONAME are
# libtvm_ffi.so, so that a program or library linked against tvm-ffi's
# runtime (NEEDED libtvm_ffi.so) runs on xffi's. It exports every xffi_*
# and TVMFFI* function (XFFI_API); libxffi.so exports xffi_* only.
#
# Built with the shared libraries (XFFI_TVM_FFI_DROPIN, ON); installed only
# when asked for, as the component `tvm_ffi_dropin`:
#   cmake --install BUILD --component tvm_ffi_dropin
# A plain `cmake --install` leaves it out, so installing xffi never shadows a
# real tvm-ffi in the library directory.
#
# Both shared libraries bind their own symbols internally
# (-Bsymbolic-functions): in a process that also holds tvm-ffi's
# libtvm_ffi.so (or a second xffi), xffi's calls to its own TVMFFI* and xffi_*
# functions stay inside it instead of binding to whichever library the
# global scope offers first.
option(XFFI_TVM_FFI_DROPIN "Build libtvm_ffi.so, xffi serving tvm-ffi's C ABI (install component tvm_ffi_dropin)" ON)

if(NOT XFFI_SHARED_LIBRARIES OR WIN32 OR APPLE)
  # The drop-in is an ELF shared library with tvm-ffi's SONAME; elsewhere
  # tvm-ffi's libraries name their runtime differently (not done yet).
  set(XFFI_TVM_FFI_DROPIN OFF)
endif()

set(XFFI_SYMBOLIC_FLAG -Wl,-Bsymbolic-functions)
if(XFFI_SHARED_LIBRARIES AND NOT WIN32 AND NOT APPLE)
  xffi_linker_accepts(${XFFI_SYMBOLIC_FLAG} XFFI_LINKER_HAS_SYMBOLIC_FUNCTIONS)
  if(NOT XFFI_LINKER_HAS_SYMBOLIC_FUNCTIONS)
    message(FATAL_ERROR "the linker does not take ${XFFI_SYMBOLIC_FLAG}: xffi's shared libraries "
      "would bind their own calls to other libraries' TVMFFI* functions")
  endif()
  target_link_options(xffi_shared PRIVATE ${XFFI_SYMBOLIC_FLAG})
  # libxffi.so exports xffi_* only (the native API, cmake/xffi_native.map);
  # the drop-in below exports tvm-ffi's names too. So a program that loads
  # tvm-ffi's own libtvm_ffi.so next to libxffi.so never sees two definitions
  # of a TVMFFI* function, and tvm-ffi's library (not -Bsymbolic) cannot bind
  # its calls to xffi's. A program that hosts tvm-ffi kernels on xffi links
  # xffi::tvm_ffi (C) or exports the static runtime's symbols (Rust).
  xffi_linker_accepts(-Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/xffi_native.map XFFI_LINKER_HAS_VERSION_SCRIPT)
  if(XFFI_LINKER_HAS_VERSION_SCRIPT)
    target_link_options(xffi_shared PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/xffi_native.map)
    set_property(TARGET xffi_shared APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/xffi_native.map)
  endif()
endif()

if(XFFI_TVM_FFI_DROPIN)
  # The drop-in is the process's runtime: its C objects are compiled apart,
  # with XFFI_NO_FOREIGN_RUNTIME, which leaves out what binds a plugin's xffi
  # to another runtime (c/runtime/foreign.c's binding, the type provider of
  # c/runtime/type_provider.c and its hooks, the sized forms of
  # xffi/sys/type.h). Each source keeps its optimisation level (above).
  set(xffi_dropin_sources ${XFFI_SOURCES})
  list(FILTER xffi_dropin_sources EXCLUDE REGEX "/c/runtime/type_provider\\.c$")
  add_library(xffi_dropin_objects OBJECT ${xffi_dropin_sources})
  target_include_directories(xffi_dropin_objects PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/c)
  target_compile_definitions(xffi_dropin_objects PRIVATE XFFI_BUILDING XFFI_NO_FOREIGN_RUNTIME)
  set_target_properties(xffi_dropin_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set(XFFI_DROPIN_C_OBJECTS $<TARGET_OBJECTS:xffi_dropin_objects>)
  # The link options of the drop-in and of its C part alone (below).
  function(xffi_link_dropin target)
    target_link_libraries(${target} PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
    target_link_options(${target} PRIVATE ${XFFI_SYMBOLIC_FLAG})
    if(XFFI_LINKER_HAS_NO_UNDEFINED)
      target_link_options(${target} PRIVATE ${XFFI_NO_UNDEFINED_FLAG})
    endif()
    if(XFFI_LINKER_PACKS_RELOCS)
      target_link_options(${target} PRIVATE ${XFFI_PACK_RELOCS_FLAG})
    endif()
  endfunction()
  add_library(xffi_tvm_ffi SHARED ${XFFI_DROPIN_C_OBJECTS})
  # No VERSION/SOVERSION: the file is libtvm_ffi.so and CMake gives it that
  # SONAME, the name tvm-ffi's libraries record in NEEDED.
  set_target_properties(xffi_tvm_ffi PROPERTIES OUTPUT_NAME tvm_ffi EXPORT_NAME tvm_ffi)
  target_include_directories(xffi_tvm_ffi PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  xffi_link_dropin(xffi_tvm_ffi)
  add_library(xffi::tvm_ffi ALIAS xffi_tvm_ffi)
  install(TARGETS xffi_tvm_ffi
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT tvm_ffi_dropin EXCLUDE_FROM_ALL)
endif()

# The C++ half of tvm-ffi's ABI (c/compat/cxx/, C++17, docs/tvm-ffi.md): the
# C++ functions and type info that code built with tvm-ffi's headers imports
# from libtvm_ffi.so (ModuleObj, Module::LoadFromFile, json::Parse, ...),
# compiled against the pinned wheel's headers and linked into the drop-in
# only, which then needs the C++ runtime library. libxffi stays C and
# libc-only. xffi_tvm_ffi_c is the drop-in without it, in c-part/: the
# properties test measures the C part there (size, NEEDED, allocations at
# load), tests/dropin/check_dropin.py cxx the C++ part.
option(XFFI_TVM_FFI_CXX "Link the C++ half of tvm-ffi's ABI (c/compat/cxx/) into the drop-in libtvm_ffi.so" ON)
if(XFFI_TVM_FFI_DROPIN AND XFFI_TVM_FFI_CXX AND NOT CMAKE_CROSSCOMPILING)
  include(${PROJECT_SOURCE_DIR}/tests/tvm_ffi_headers.cmake)
  include(${PROJECT_SOURCE_DIR}/tests/cmake/cxx.cmake)
  xffi_find_cxx()
  if(NOT XFFI_TVM_FFI_HEADERS)
    message(STATUS "the drop-in is built without its C++ half: ${XFFI_TVM_FFI_HEADERS_MISSING}")
  elseif(NOT CMAKE_CXX_COMPILER)
    message(STATUS "the drop-in is built without its C++ half: no C++ compiler")
  else()
    enable_language(CXX)
    file(GLOB XFFI_CXX_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/c/compat/cxx/*.cc)
    add_library(xffi_cxx_objects OBJECT ${XFFI_CXX_SOURCES})
    set_target_properties(xffi_cxx_objects PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
      CXX_EXTENSIONS OFF POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
    target_include_directories(xffi_cxx_objects PRIVATE ${PROJECT_SOURCE_DIR}/c)
    target_include_directories(xffi_cxx_objects SYSTEM PRIVATE ${XFFI_TVM_FFI_HEADERS})
    if(XFFI_SANITIZE)
      # UBSan's vptr and function checks live in its C++ runtime, which the C
      # programs that link the drop-in (C hosts, the C suite) do not link.
      set(XFFI_CXX_UNCHECKED vptr)
      if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        set(XFFI_CXX_UNCHECKED vptr,function)
      endif()
      target_compile_options(xffi_cxx_objects PRIVATE -fno-sanitize=${XFFI_CXX_UNCHECKED})
    endif()
    add_library(xffi_tvm_ffi_c SHARED ${XFFI_DROPIN_C_OBJECTS})
    set_target_properties(xffi_tvm_ffi_c PROPERTIES OUTPUT_NAME tvm_ffi
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/c-part)
    xffi_link_dropin(xffi_tvm_ffi_c)
    target_sources(xffi_tvm_ffi PRIVATE $<TARGET_OBJECTS:xffi_cxx_objects>)
    set_target_properties(xffi_tvm_ffi PROPERTIES LINKER_LANGUAGE CXX)
  endif()
endif()
