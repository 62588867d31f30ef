# xffi_find_cxx(): the C++ compiler for the tests built against tvm-ffi's
# headers (interop, modules, one runtime). It must match the C one, because a
# sanitizer runtime is per compiler: with clang, the clang++ beside it. A
# macro, so that CMAKE_CXX_COMPILER is set in the caller's scope; the caller
# enables CXX when CMAKE_CXX_COMPILER is then set.
macro(xffi_find_cxx)
  if(NOT CMAKE_CXX_COMPILER AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    get_filename_component(XFFI_C_COMPILER_DIR "${CMAKE_C_COMPILER}" DIRECTORY)
    find_program(XFFI_CLANGXX NAMES clang++ HINTS "${XFFI_C_COMPILER_DIR}")
    if(XFFI_CLANGXX)
      set(CMAKE_CXX_COMPILER "${XFFI_CLANGXX}")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CXX)
endmacro()
