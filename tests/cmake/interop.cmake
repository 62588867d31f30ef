# Interoperability with tvm-ffi (the apache-tvm-ffi wheel), both ways:
# - xffi_interop_xffi_exports: a library written with xffi, exporting
#   functions for tvm-ffi's loader (Python: test_tvm_loads_xffi.py; C: the
#   host below through tvm-ffi's C API). Links the shared libxffi.
# - xffi_interop_tvm_exports: a library built against the wheel's headers and
#   libtvm_ffi.so alone, exporting functions in tvm-ffi's convention.
# - xffi_interop_list_grow: C++ built against the wheel's headers and
#   libtvm_ffi.so alone, growing xffi Lists with tvm-ffi's C++ List.
# - test_interop_host: a C host linking both runtimes, loading each library
#   with the other runtime; counts prove every deleter runs exactly once, and
#   the AddressSanitizer build proves there are no leaks.
# The wheel's headers are found by tests/tvm_ffi_headers.cmake
# (XFFI_TVM_FFI_HEADERS); its library sits in ../lib.
# Without the wheel none of this is built (with a warning).
set(XFFI_INTEROP_TVM_INCLUDE "${XFFI_TVM_FFI_HEADERS}")
get_filename_component(XFFI_INTEROP_TVM_LIBDIR "${XFFI_INTEROP_TVM_INCLUDE}/../lib" ABSOLUTE)
find_library(XFFI_TVM_FFI_LIBRARY NAMES tvm_ffi PATHS "${XFFI_INTEROP_TVM_LIBDIR}" NO_DEFAULT_PATH)

if(XFFI_INTEROP_TVM_INCLUDE AND EXISTS "${XFFI_INTEROP_TVM_INCLUDE}/tvm/ffi/c_api.h" AND XFFI_TVM_FFI_LIBRARY)
  set(XFFI_INTEROP_DIR ${CMAKE_CURRENT_SOURCE_DIR}/interop)

  add_library(xffi_interop_xffi_exports MODULE ${XFFI_INTEROP_DIR}/lib_xffi_exports.c)
  target_link_libraries(xffi_interop_xffi_exports PRIVATE xffi_shared ${CMAKE_DL_LIBS})

  add_library(xffi_interop_tvm_exports MODULE ${XFFI_INTEROP_DIR}/lib_tvm_exports.c)
  target_include_directories(xffi_interop_tvm_exports PRIVATE ${XFFI_INTEROP_TVM_INCLUDE})
  target_link_libraries(xffi_interop_tvm_exports PRIVATE ${XFFI_TVM_FFI_LIBRARY})
  set_target_properties(xffi_interop_tvm_exports PROPERTIES BUILD_RPATH "${XFFI_INTEROP_TVM_LIBDIR}")

  # xffi_interop_list_grow: C++ against the wheel alone, growing xffi Lists
  # with tvm-ffi's inline C++. CXX is enabled for it only, and only when a
  # C++ compiler exists (else it is not built, with a warning).
  # The C++ compiler must match the C one (a sanitizer runtime is per compiler).
  include(${CMAKE_CURRENT_LIST_DIR}/cxx.cmake)
  xffi_find_cxx()
  if(CMAKE_CXX_COMPILER)
    enable_language(CXX)
    add_library(xffi_interop_list_grow MODULE ${XFFI_INTEROP_DIR}/lib_list_grow.cc)
    target_include_directories(xffi_interop_list_grow SYSTEM PRIVATE ${XFFI_INTEROP_TVM_INCLUDE})
    target_link_libraries(xffi_interop_list_grow PRIVATE ${XFFI_TVM_FFI_LIBRARY})
    target_compile_features(xffi_interop_list_grow PRIVATE cxx_std_17)
    # The project's warning options are C ones (-Wstrict-prototypes...): replace them.
    # tvm-ffi's export macro leaves a parameter unused in the code it expands here.
    set(XFFI_INTEROP_CXX_OPTIONS -Wall -Wextra -Wno-unused-parameter)
    if(XFFI_WERROR)
      list(APPEND XFFI_INTEROP_CXX_OPTIONS -Werror)
    endif()
    if(XFFI_SANITIZE)
      list(APPEND XFFI_INTEROP_CXX_OPTIONS -fsanitize=${XFFI_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
      if(XFFI_SANITIZE MATCHES "undefined")
        # UBSan's C++-only checks need its C++ runtime part, which the C host does not link.
        list(APPEND XFFI_INTEROP_CXX_OPTIONS -fno-sanitize=vptr)
        if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
          list(APPEND XFFI_INTEROP_CXX_OPTIONS -fno-sanitize=function)
        endif()
      endif()
    endif()
    set_target_properties(xffi_interop_list_grow PROPERTIES COMPILE_OPTIONS "${XFFI_INTEROP_CXX_OPTIONS}"
      BUILD_RPATH "${XFFI_INTEROP_TVM_LIBDIR}")

    add_executable(test_interop_list_grow ${XFFI_INTEROP_DIR}/test_interop_list_grow.c)
    target_include_directories(test_interop_list_grow PRIVATE ${XFFI_TEST_HELPERS})
    target_link_libraries(test_interop_list_grow PRIVATE xffi_shared PkgConfig::CMOCKA)
    target_compile_definitions(test_interop_list_grow PRIVATE
      XFFI_INTEROP_LIST_GROW_LIB="$<TARGET_FILE:xffi_interop_list_grow>")
    add_dependencies(test_interop_list_grow xffi_interop_list_grow)
    add_test(NAME test_interop_list_grow COMMAND test_interop_list_grow)
  else()
    message(WARNING "interop tests: no C++ compiler; test_interop_list_grow (tvm-ffi C++ growing xffi Lists) "
      "is not built")
  endif()

  add_executable(test_interop_host ${XFFI_INTEROP_DIR}/test_interop_host.c)
  target_include_directories(test_interop_host PRIVATE ${XFFI_INTEROP_TVM_INCLUDE} ${XFFI_TEST_HELPERS})
  # The wheel's library first: libxffi exports TVMFFI* too, and the first in
  # the global scope serves this program's TVMFFI* calls (meant for tvm-ffi)
  # and the wheel's own (it is not linked -Bsymbolic); docs/tvm-ffi.md.
  target_link_libraries(test_interop_host PRIVATE ${XFFI_TVM_FFI_LIBRARY} xffi_shared PkgConfig::CMOCKA
    ${CMAKE_DL_LIBS})
  set_target_properties(test_interop_host PROPERTIES BUILD_RPATH "${XFFI_INTEROP_TVM_LIBDIR}")
  target_compile_definitions(test_interop_host PRIVATE
    XFFI_INTEROP_XFFI_LIB="$<TARGET_FILE:xffi_interop_xffi_exports>"
    XFFI_INTEROP_TVM_LIB="$<TARGET_FILE:xffi_interop_tvm_exports>")
  add_dependencies(test_interop_host xffi_interop_xffi_exports xffi_interop_tvm_exports)
  add_test(NAME test_interop_host COMMAND test_interop_host)
else()
  message(WARNING "interop tests: no apache-tvm-ffi wheel found (set XFFI_TVM_FFI_INCLUDE_DIR to "
    "`python3 -m tvm_ffi.config --includedir`); test_interop_host is not built")
endif()

# bench_vs_tvm (bench) needs the wheel's headers and library:
# bench/tvm.cmake adds them once the bench targets exist (deferred to
# the end of the top-level directory, which adds bench after tests/).
if(XFFI_BUILD_BENCH AND NOT CMAKE_VERSION VERSION_LESS 3.19)
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL include ${PROJECT_SOURCE_DIR}/bench/tvm.cmake)
endif()
