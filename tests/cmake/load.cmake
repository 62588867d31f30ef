# test_load dlopens libxffi and compares what the load costs (heap
# allocations, initialisers) with an empty library of the same shape
# (test_load_baseline) and with a negative control whose constructor
# allocates (test_load_ctor_control). Both are built here from
# tests/c/platform/load/load_baseline_lib.c, so the test does not depend on the
# benchmarks (XFFI_BUILD_BENCH=OFF). The test counts allocations through an
# exported malloc family in plain builds, and through the sanitizer
# allocator's hooks under ASan and TSan.
# It measures the ELF loader (fork, dlopen, malloc interposition): not on
# Windows, nor where there are no shared libraries (WASI).
if(WIN32 OR NOT XFFI_SHARED_LIBRARIES)
  return()
endif()
add_executable(test_load ${CMAKE_CURRENT_SOURCE_DIR}/c/platform/load/test_load.c)
target_include_directories(test_load PRIVATE ${XFFI_TEST_HELPERS})
target_link_libraries(test_load PRIVATE PkgConfig::CMOCKA ${CMAKE_DL_LIBS})
target_include_directories(test_load PRIVATE ${PROJECT_SOURCE_DIR}/include)

foreach(lib test_load_baseline test_load_ctor_control)
  add_library(${lib} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/c/platform/load/load_baseline_lib.c)
  # libxffi's shape: a SONAME (and the versioned file it names).
  set_target_properties(${lib} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
endforeach()
target_compile_definitions(test_load_ctor_control PRIVATE XFFI_TEST_LOAD_CTOR_ALLOCATES=1)

target_compile_definitions(test_load PRIVATE
  XFFI_TEST_BASELINE_LIB="$<TARGET_FILE:test_load_baseline>"
  XFFI_TEST_CTOR_CONTROL_LIB="$<TARGET_FILE:test_load_ctor_control>"
  XFFI_TEST_SHARED_LIB="$<TARGET_FILE:xffi_shared>")
add_dependencies(test_load test_load_baseline test_load_ctor_control xffi_shared)
add_test(NAME test_load COMMAND test_load)
