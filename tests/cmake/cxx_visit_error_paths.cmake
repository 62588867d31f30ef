# test_cxx_visit_error_paths: tvm::ffi::VisitErrorContext::FindAccessPaths
# from a C++ program built against the wheel's headers, linked to the
# drop-in (the C++ half, c/compat/cxx/) like test_cxx_half; and the same
# source linked to the wheel's own libtvm_ffi.so
# (test_cxx_visit_error_paths_wheel), so both runtimes answer the same
# expectations.
if(NOT TARGET xffi_cxx_objects)
  return()
endif()
set(XFFI_CXX_PATHS_TEST_OPTIONS -Wall -Wextra -Wno-unused-parameter)
if(XFFI_WERROR)
  list(APPEND XFFI_CXX_PATHS_TEST_OPTIONS -Werror)
endif()
function(xffi_cxx_visit_error_paths_test name runtime)
  add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/c/compat/test_cxx_visit_error_paths.cc)
  target_include_directories(${name} SYSTEM PRIVATE ${XFFI_TVM_FFI_HEADERS})
  target_compile_features(${name} PRIVATE cxx_std_17)
  set_target_properties(${name} PROPERTIES COMPILE_OPTIONS "${XFFI_CXX_PATHS_TEST_OPTIONS}")
  target_link_libraries(${name} PRIVATE ${runtime} PkgConfig::CMOCKA)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS one_runtime)
endfunction()
xffi_cxx_visit_error_paths_test(test_cxx_visit_error_paths xffi_tvm_ffi)

# The wheel's library sits beside its headers (tests/cmake/interop.cmake).
# Sanitizer builds check the drop-in's only (the comparison needs no sanitizer).
get_filename_component(XFFI_CXX_PATHS_WHEEL_LIBDIR "${XFFI_TVM_FFI_HEADERS}/../lib" ABSOLUTE)
find_library(XFFI_CXX_PATHS_WHEEL_LIBRARY NAMES tvm_ffi PATHS "${XFFI_CXX_PATHS_WHEEL_LIBDIR}" NO_DEFAULT_PATH)
if(XFFI_CXX_PATHS_WHEEL_LIBRARY AND NOT XFFI_SANITIZE)
  xffi_cxx_visit_error_paths_test(test_cxx_visit_error_paths_wheel ${XFFI_CXX_PATHS_WHEEL_LIBRARY})
  set_target_properties(test_cxx_visit_error_paths_wheel PROPERTIES BUILD_RPATH "${XFFI_CXX_PATHS_WHEEL_LIBDIR}")
endif()
