# test_load dlopens the shared library and an empty one and counts heap
# allocations by interposing malloc. Sanitizers own malloc themselves, so the
# test runs in the plain builds (gcc and clang) only.
if(NOT XFFI_SANITIZE)
  add_executable(test_load ${CMAKE_CURRENT_SOURCE_DIR}/c/load/test_load.c)
  target_include_directories(test_load PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/c)
  target_link_libraries(test_load PRIVATE PkgConfig::CMOCKA ${CMAKE_DL_LIBS})
  target_include_directories(test_load PRIVATE ${PROJECT_SOURCE_DIR}/include)
  add_library(test_load_empty_lib SHARED ${PROJECT_SOURCE_DIR}/tests/bench/bench_empty_lib.c)
  target_compile_definitions(test_load PRIVATE
    XFFI_TEST_EMPTY_LIB="$<TARGET_FILE:test_load_empty_lib>"
    XFFI_TEST_SHARED_LIB="$<TARGET_FILE:xffi_shared>")
  add_dependencies(test_load test_load_empty_lib xffi_shared)
  add_test(NAME test_load COMMAND test_load)
endif()
