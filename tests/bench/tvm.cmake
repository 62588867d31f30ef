# bench_vs_tvm measures xffi against tvm-ffi 0.1 through the C API of the
# apache-tvm-ffi wheel (headers and libtvm_ffi.so), found as in
# tests/cmake/interop.cmake. Included from tests/bench/CMakeLists.txt after
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
  # The library facts: each library's first load, in a fresh process of a
  # loader linked to neither runtime.
  add_executable(bench_vs_tvm_loader ${PROJECT_SOURCE_DIR}/tests/bench/bench_vs_tvm.c ${PROJECT_SOURCE_DIR}/tests/bench/bench_harness.c)
  target_include_directories(bench_vs_tvm_loader PRIVATE ${PROJECT_SOURCE_DIR}/tests/bench ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(bench_vs_tvm_loader PRIVATE BENCH_VS_TVM_LOADER_ONLY=1)
  target_link_libraries(bench_vs_tvm_loader PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(bench_vs_tvm_loader PROPERTIES ENABLE_EXPORTS ON C_VISIBILITY_PRESET default
    RUNTIME_OUTPUT_DIRECTORY $<TARGET_FILE_DIR:bench_vs_tvm>)
  add_dependencies(bench_vs_tvm bench_vs_tvm_loader bench_empty_lib bench_deps_lib xffi_shared)
elseif(TARGET bench_vs_tvm)
  set_target_properties(bench_vs_tvm PROPERTIES EXCLUDE_FROM_ALL ON)
  message(WARNING "bench_vs_tvm: no apache-tvm-ffi wheel found; not built")
endif()
