# The wheel-runtime test mode: xffi's library tests (containers and Map,
# reflection, tensors, the walks, JSON and repr: tests/c/{container,reflection,
# tensor,walk,text}) run a second time with the apache-tvm-ffi wheel's
# libtvm_ffi.so preloaded, so that the process has tvm-ffi's own runtime first
# and the library binds to it through c/runtime/foreign.c, as a plugin does
# under Python. The binaries are the suite's own (LD_PRELOAD, no rebuild): what
# passes here is the same code on another runtime. The registry, function,
# error and TVMFFI* tests (runtime/, compat/) test xffi's runtime itself and
# are left out. Each runs as <test>_on_wheel_runtime with the label
# wheel_runtime; the `plugins` step of scripts/test.sh runs them from the
# release build, and the C suites leave them out (-LE wheel_runtime).
# test_bound_to_the_wheel (tests/wheel_runtime) proves the binding happens.
# tests/wheel_runtime/known-failures.txt lists the tests that cannot pass yet,
# with a reason each: they are expected to fail (WILL_FAIL), so one that
# passes fails the run, and a name the mode does not have stops the configure.
# Only natively, on ELF systems, without sanitizers (their runtime must come
# first), and with the wheel.
get_filename_component(xffi_wheel_libdir "${XFFI_TVM_FFI_HEADERS}/../lib" ABSOLUTE)
if(XFFI_TVM_FFI_HEADERS AND EXISTS "${xffi_wheel_libdir}/libtvm_ffi.so" AND UNIX AND NOT APPLE
    AND NOT CMAKE_CROSSCOMPILING AND NOT XFFI_SANITIZE)
  set(xffi_wheel_preload "LD_PRELOAD=${xffi_wheel_libdir}/libtvm_ffi.so")

  add_executable(test_bound_to_the_wheel ${CMAKE_CURRENT_SOURCE_DIR}/wheel_runtime/test_bound_to_the_wheel.c)
  target_link_libraries(test_bound_to_the_wheel PRIVATE xffi_static ${CMAKE_DL_LIBS})
  target_include_directories(test_bound_to_the_wheel PRIVATE ${PROJECT_SOURCE_DIR}/c)
  add_test(NAME test_bound_to_the_wheel COMMAND test_bound_to_the_wheel)
  set_tests_properties(test_bound_to_the_wheel PROPERTIES ENVIRONMENT "${xffi_wheel_preload}" LABELS wheel_runtime)

  # The known failures: `reason: ...` heads each section, each other line
  # names one test; # starts a comment.
  set(xffi_wheel_known "")
  file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/wheel_runtime/known-failures.txt xffi_wheel_lines)
  set(xffi_wheel_reason "")
  foreach(line IN LISTS xffi_wheel_lines)
    string(REGEX REPLACE "#.*" "" line "${line}")
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    elseif(line MATCHES "^reason:")
      set(xffi_wheel_reason "${line}")
    elseif(xffi_wheel_reason STREQUAL "")
      message(FATAL_ERROR "tests/wheel_runtime/known-failures.txt: ${line} comes before any 'reason:' line")
    else()
      list(APPEND xffi_wheel_known ${line})
    endif()
  endforeach()

  set(xffi_wheel_names "")
  foreach(folder container reflection tensor walk text)
    file(GLOB xffi_wheel_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/c/${folder}/test_*.c)
    foreach(src ${xffi_wheel_sources})
      get_filename_component(name ${src} NAME_WE)
      if(NOT TEST ${name})
        continue() # not built here (a thread test without threads)
      endif()
      list(APPEND xffi_wheel_names ${name})
      add_test(NAME ${name}_on_wheel_runtime COMMAND ${name})
      get_test_property(${name} COST cost)
      set(xffi_wheel_env "${xffi_wheel_preload}")
      if(name STREQUAL "test_pyclass_threads")
        # No types defined while its workers run: the wheel's type table is
        # not safe to read while it grows (tests/wheel_runtime/known-failures.txt).
        list(APPEND xffi_wheel_env XFFI_TEST_PYCLASS_NEW_TYPES=0)
      endif()
      set_tests_properties(${name}_on_wheel_runtime PROPERTIES ENVIRONMENT "${xffi_wheel_env}"
        LABELS wheel_runtime)
      if(cost)
        set_tests_properties(${name}_on_wheel_runtime PROPERTIES COST ${cost})
      endif()
      if(name IN_LIST xffi_wheel_known)
        set_tests_properties(${name}_on_wheel_runtime PROPERTIES WILL_FAIL TRUE)
      endif()
    endforeach()
  endforeach()
  foreach(name IN LISTS xffi_wheel_known)
    if(NOT name IN_LIST xffi_wheel_names)
      message(FATAL_ERROR "tests/wheel_runtime/known-failures.txt lists ${name}, which the wheel-runtime mode does not run")
    endif()
  endforeach()
endif()
