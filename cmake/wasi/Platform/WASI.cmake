# CMake's platform description for CMAKE_SYSTEM_NAME WASI (CMake 3.25 has
# none): static linking only, .wasm executables, Unix-like file naming. Found
# through CMAKE_MODULE_PATH, set by cmake/toolchains/wasm32-wasi.cmake.
# Without shared library support, add_library(SHARED) in a dependency (cmocka
# builds only a shared library) becomes a static library.
set_property(GLOBAL PROPERTY TARGET_SUPPORTS_SHARED_LIBS FALSE)
set(CMAKE_EXECUTABLE_SUFFIX .wasm)
set(CMAKE_STATIC_LIBRARY_PREFIX lib)
set(CMAKE_STATIC_LIBRARY_SUFFIX .a)
set(CMAKE_FIND_LIBRARY_PREFIXES lib)
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
set(UNIX 1)
