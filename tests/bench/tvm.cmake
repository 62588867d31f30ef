# bench_vs_tvm measures xffi against tvm-ffi 0.1 through the C API of the
# apache-tvm-ffi wheel (headers and libtvm_ffi.so), found as in
# tests/cmake/interop.cmake. Included from tests/bench/CMakeLists.txt after
# the bench_* targets exist. Without the wheel the program is not built.
include_guard(GLOBAL)
set(XFFI_BENCH_TVM_INCLUDE "${XFFI_TVM_FFI_INCLUDE_DIR}")
if(NOT XFFI_BENCH_TVM_INCLUDE)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -m tvm_ffi.config --includedir
      OUTPUT_VARIABLE XFFI_BENCH_TVM_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE XFFI_BENCH_TVM_RESULT ERROR_QUIET)
    if(NOT XFFI_BENCH_TVM_RESULT EQUAL 0)
      set(XFFI_BENCH_TVM_INCLUDE "")
    endif()
  endif()
endif()
get_filename_component(XFFI_BENCH_TVM_LIBDIR "${XFFI_BENCH_TVM_INCLUDE}/../lib" ABSOLUTE)
find_library(XFFI_BENCH_TVM_LIBRARY NAMES tvm_ffi PATHS "${XFFI_BENCH_TVM_LIBDIR}" NO_DEFAULT_PATH)

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
