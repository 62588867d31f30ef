# Which runtime serves, one test per arrangement of docs/tvm-ffi.md (issue 15):
# - test_one_runtime_c_host: a C host on libxffi loads kernel_lib.cc (C++
#   against the wheel's headers, tvm-ffi's export macros, linked to no
#   libtvm_ffi.so) with xffi_module_load and calls it; no tvm-ffi library mapped.
# - one_runtime_overlay_mechanics: the overlay of scripts/tvm-ffi-on-xffi.sh
#   with a copy of the wheel's library maps only that copy.
# - one_runtime_overlay: the overlay on xffi's drop-in maps only the drop-in.
# - one_runtime_wheel_plugin: the wheel's runtime hosting an xffi plugin does
#   not cross-wire (LD_DEBUG=bindings).
# Those labelled one_runtime need the TVMFFI* functions of the other areas of
# issue 15 (the import of tvm_ffi needs the 38 its core and testing library
# use). The Python ones load xffi's libraries into python3, so they are not
# run under sanitizers. The Rust host is rust/xffi-tests/tests/one_runtime.rs.
if(NOT XFFI_TVM_FFI_HEADERS OR NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT TARGET xffi_shared OR CMAKE_CROSSCOMPILING)
  return()
endif()
set(XFFI_ONE_RUNTIME_DIR ${CMAKE_CURRENT_SOURCE_DIR}/one_runtime)
get_filename_component(XFFI_WHEEL_RUNTIME "${XFFI_TVM_FFI_HEADERS}/../lib/libtvm_ffi.so" ABSOLUTE)

include(${CMAKE_CURRENT_LIST_DIR}/cxx.cmake)
xffi_find_cxx()
if(CMAKE_CXX_COMPILER AND TARGET xffi_tvm_ffi)
  enable_language(CXX)
  # Built as tvm-ffi's users build: the wheel's headers, no runtime linked
  # (its TVMFFI* stay undefined until the process provides them).
  add_library(xffi_arrangement_kernel MODULE ${XFFI_ONE_RUNTIME_DIR}/kernel_lib.cc)
  target_include_directories(xffi_arrangement_kernel SYSTEM PRIVATE ${XFFI_TVM_FFI_HEADERS})
  target_compile_features(xffi_arrangement_kernel PRIVATE cxx_std_17)
  set_target_properties(xffi_arrangement_kernel PROPERTIES COMPILE_OPTIONS "-Wall;-Wextra;-Wno-unused-parameter")

  add_executable(test_one_runtime_c_host ${XFFI_ONE_RUNTIME_DIR}/test_one_runtime_c_host.c)
  target_include_directories(test_one_runtime_c_host PRIVATE ${XFFI_TEST_HELPERS})
  target_link_libraries(test_one_runtime_c_host PRIVATE xffi_tvm_ffi PkgConfig::CMOCKA ${CMAKE_DL_LIBS})
  target_compile_definitions(test_one_runtime_c_host PRIVATE
    XFFI_ARRANGEMENT_KERNEL="$<TARGET_FILE:xffi_arrangement_kernel>"
    XFFI_ARRANGEMENT_WHEEL_RUNTIME="${XFFI_WHEEL_RUNTIME}"
    XFFI_ARRANGEMENT_DROPIN="$<TARGET_FILE:xffi_tvm_ffi>")
  add_dependencies(test_one_runtime_c_host xffi_arrangement_kernel)
  if(XFFI_SANITIZE)
    # AddressSanitizer intercepts C++ throws; it finds the real __cxa_throw
    # when it starts, so the C++ runtime the kernel throws through must be
    # loaded by then, not only with the kernel.
    target_link_libraries(test_one_runtime_c_host PRIVATE -Wl,--no-as-needed stdc++ -Wl,--as-needed)
  endif()
  add_test(NAME test_one_runtime_c_host COMMAND test_one_runtime_c_host)
  set_tests_properties(test_one_runtime_c_host PROPERTIES LABELS one_runtime)
else()
  message(WARNING "arrangements: no C++ compiler or no drop-in; test_one_runtime_c_host is not built")
endif()

find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND AND NOT XFFI_SANITIZE)
  set(XFFI_ARRANGEMENTS_CHECK ${Python3_EXECUTABLE} ${XFFI_ONE_RUNTIME_DIR}/check_arrangements.py)
  add_test(NAME one_runtime_overlay_mechanics COMMAND ${XFFI_ARRANGEMENTS_CHECK} overlay
    ${CMAKE_CURRENT_BINARY_DIR}/overlay-mechanics --wheel-runtime)
  if(TARGET xffi_tvm_ffi)
    add_test(NAME one_runtime_overlay COMMAND ${XFFI_ARRANGEMENTS_CHECK} overlay
      ${CMAKE_CURRENT_BINARY_DIR}/overlay --runtime $<TARGET_FILE:xffi_tvm_ffi>)
    set_tests_properties(one_runtime_overlay PROPERTIES LABELS one_runtime)
  endif()
  if(TARGET xffi_interop_xffi_exports)
    add_test(NAME one_runtime_wheel_plugin COMMAND ${XFFI_ARRANGEMENTS_CHECK} wheel-plugin
      $<TARGET_FILE:xffi_interop_xffi_exports>)
  endif()
endif()
