# test_tvm_type_cxx: C++ types declared with tvm-ffi's macros, compiled
# against the wheel's headers (tests/tvm_ffi_headers.cmake) and linked with
# xffi's static library only, so tvm-ffi's inline type code (index
# allocation, IsInstance) runs on xffi's registry. Not built without the
# headers or a C++ compiler (with a warning), nor when cross compiling (the
# wheel's headers are the host's).
if(XFFI_TVM_FFI_HEADERS AND EXISTS "${XFFI_TVM_FFI_HEADERS}/tvm/ffi/object.h" AND NOT CMAKE_CROSSCOMPILING)
  include(CheckLanguage)
  check_language(CXX)
  if(CMAKE_CXX_COMPILER)
    enable_language(CXX)
    set(XFFI_TVM_TYPE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/c/compat/tvm_type)
    add_library(xffi_tvm_type_cxx OBJECT ${XFFI_TVM_TYPE_DIR}/cxx_types.cc)
    target_include_directories(xffi_tvm_type_cxx SYSTEM PRIVATE ${XFFI_TVM_FFI_HEADERS})
    target_compile_features(xffi_tvm_type_cxx PRIVATE cxx_std_17)
    # The project's warning options are C ones: C++ gets its own.
    set(XFFI_TVM_TYPE_CXX_OPTIONS -Wall -Wextra)
    if(XFFI_SANITIZE)
      list(APPEND XFFI_TVM_TYPE_CXX_OPTIONS -fsanitize=${XFFI_SANITIZE} -fno-omit-frame-pointer
        -fno-sanitize-recover=all)
    endif()
    set_target_properties(xffi_tvm_type_cxx PROPERTIES COMPILE_OPTIONS "${XFFI_TVM_TYPE_CXX_OPTIONS}")
    add_executable(test_tvm_type_cxx ${XFFI_TVM_TYPE_DIR}/test_tvm_type_cxx.c $<TARGET_OBJECTS:xffi_tvm_type_cxx>)
    target_include_directories(test_tvm_type_cxx PRIVATE ${PROJECT_SOURCE_DIR}/c ${XFFI_TEST_HELPERS})
    target_link_libraries(test_tvm_type_cxx PRIVATE xffi_static PkgConfig::CMOCKA)
    set_target_properties(test_tvm_type_cxx PROPERTIES LINKER_LANGUAGE CXX)
    add_test(NAME test_tvm_type_cxx COMMAND test_tvm_type_cxx)
  else()
    message(WARNING "tvm_type_cxx: no C++ compiler; test_tvm_type_cxx is not built")
  endif()
endif()
