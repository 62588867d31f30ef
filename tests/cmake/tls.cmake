# test_tls_dlopen loads libxffi with dlopen after filler libraries have used
# up the static TLS surplus (tests/c/platform/tls/). The fillers hold 64 KiB down to
# 8 bytes of initial-exec TLS, one library per size; the test loads them
# largest first. Like test_load, it links no libxffi: it dlopens the shared
# library. The static TLS block is the ELF loader's (glibc and others): not on
# Windows, nor where there are no shared libraries (WASI).
if(WIN32 OR APPLE OR NOT XFFI_SHARED_LIBRARIES)
  return()
endif()
set(XFFI_TLS_FILLER_LIBS "")
foreach(bytes 65536 32768 16384 8192 4096 2048 1024 512 256 128 64 32 16 8)
  set(filler test_tls_filler_${bytes})
  add_library(${filler} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/c/platform/tls/tls_filler.c)
  target_compile_definitions(${filler} PRIVATE XFFI_TLS_FILLER_BYTES=${bytes})
  string(APPEND XFFI_TLS_FILLER_LIBS "\"$<TARGET_FILE:${filler}>\",")
  list(APPEND XFFI_TLS_FILLERS ${filler})
endforeach()

add_executable(test_tls_dlopen ${CMAKE_CURRENT_SOURCE_DIR}/c/platform/tls/test_tls_dlopen.c)
target_include_directories(test_tls_dlopen PRIVATE ${XFFI_TEST_HELPERS} ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(test_tls_dlopen PRIVATE PkgConfig::CMOCKA Threads::Threads ${CMAKE_DL_LIBS})
target_compile_definitions(test_tls_dlopen PRIVATE
  XFFI_TLS_FILLER_LIBS=${XFFI_TLS_FILLER_LIBS}
  XFFI_TEST_SHARED_LIB="$<TARGET_FILE:xffi_shared>")
add_dependencies(test_tls_dlopen ${XFFI_TLS_FILLERS} xffi_shared)
add_test(NAME test_tls_dlopen COMMAND test_tls_dlopen)
