# bench_vs_tvm measures xffi against tvm-ffi 0.1 through the C API of the
# apache-tvm-ffi wheel (headers and libtvm_ffi.so), found as in
# tests/cmake/interop.cmake. Included from bench/CMakeLists.txt after
# the bench_* targets exist. Without the wheel the program is not built.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/tvm_wheel.cmake)

if(TARGET bench_vs_tvm AND XFFI_BENCH_TVM_INCLUDE AND XFFI_BENCH_TVM_LIBRARY)
  target_include_directories(bench_vs_tvm PRIVATE ${XFFI_BENCH_TVM_INCLUDE})
  target_link_libraries(bench_vs_tvm PRIVATE ${XFFI_BENCH_TVM_LIBRARY} ${CMAKE_DL_LIBS})
  set_target_properties(bench_vs_tvm PROPERTIES BUILD_RPATH "${XFFI_BENCH_TVM_LIBDIR}")
  # The harness counts allocations by defining malloc in the executable:
  # export it so that libtvm_ffi's (and libstdc++'s) calls reach it too.
  # (The project builds with hidden visibility, which would keep the
  # harness's malloc out of the dynamic symbol table: default here.)
  set_target_properties(bench_vs_tvm PROPERTIES ENABLE_EXPORTS ON C_VISIBILITY_PRESET default)
  # ...but never xffi_static's own TVMFFI* (issue 15): exported from the
  # executable they would interpose the wheel's internal calls to its own
  # functions. The program calls the wheel through bench_tvm_api.h.
  target_link_options(bench_vs_tvm PRIVATE -Wl,--exclude-libs,ALL)
  # The library facts: each library's first load, in a fresh process of a
  # loader linked to neither runtime.
  add_executable(bench_vs_tvm_loader ${PROJECT_SOURCE_DIR}/bench/bench_vs_tvm.c ${PROJECT_SOURCE_DIR}/bench/bench_harness.c)
  target_include_directories(bench_vs_tvm_loader PRIVATE ${PROJECT_SOURCE_DIR}/bench ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(bench_vs_tvm_loader PRIVATE BENCH_VS_TVM_LOADER_ONLY=1)
  target_link_libraries(bench_vs_tvm_loader PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(bench_vs_tvm_loader PROPERTIES ENABLE_EXPORTS ON C_VISIBILITY_PRESET default
    RUNTIME_OUTPUT_DIRECTORY $<TARGET_FILE_DIR:bench_vs_tvm>)
  add_dependencies(bench_vs_tvm bench_vs_tvm_loader bench_empty_lib bench_deps_lib xffi_shared)
  target_compile_definitions(bench_vs_tvm PRIVATE XFFI_BENCH_XFFI_LIB="$<TARGET_FILE:xffi_shared>"
    XFFI_BENCH_TVM_LIB="${XFFI_BENCH_TVM_LIBRARY}")
  # The libtvm_ffi.so drop-in (the shared library target named tvm_ffi, or
  # with OUTPUT_NAME tvm_ffi, anywhere in the project), when it is built:
  # its library facts are measured beside libxffi's and the wheel's.
  function(xffi_bench_find_dropin dir out)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      get_target_property(name ${t} OUTPUT_NAME)
      if(NOT name)
        set(name ${t})
      endif()
      if(type STREQUAL "SHARED_LIBRARY" AND name STREQUAL "tvm_ffi")
        set(${out} ${t} PARENT_SCOPE)
        return()
      endif()
    endforeach()
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    foreach(sub IN LISTS subdirs)
      xffi_bench_find_dropin(${sub} found)
      if(found)
        set(${out} ${found} PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endfunction()
  xffi_bench_find_dropin(${PROJECT_SOURCE_DIR} XFFI_BENCH_DROPIN_TARGET)
  # With the C++ half (cmake/tvm_ffi_dropin.cmake) the row measures the
  # drop-in's C part, as the properties test does: the C++ half brings the
  # C++ runtime library, whose load the row would otherwise mostly measure.
  if(TARGET xffi_tvm_ffi_c)
    set(XFFI_BENCH_DROPIN_TARGET xffi_tvm_ffi_c)
  endif()
  if(XFFI_BENCH_DROPIN_TARGET)
    target_compile_definitions(bench_vs_tvm PRIVATE XFFI_BENCH_DROPIN_LIB="$<TARGET_FILE:${XFFI_BENCH_DROPIN_TARGET}>")
    add_dependencies(bench_vs_tvm ${XFFI_BENCH_DROPIN_TARGET})
  endif()
elseif(TARGET bench_vs_tvm)
  set_target_properties(bench_vs_tvm PROPERTIES EXCLUDE_FROM_ALL ON)
  message(WARNING "bench_vs_tvm: no apache-tvm-ffi wheel found; not built")
endif()
