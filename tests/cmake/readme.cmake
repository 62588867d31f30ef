# readme_c_example: the C example of README.md ("A taste of the C API") is
# what a newcomer reads first, so it is compiled here with the project's
# warnings (-Werror), linked with the static library and run, in every build
# of the suite (sanitizers and cross targets included). The block is taken as
# written: its #include lines go first, its other lines become the body of
# main(). The message its comment quotes, /* "..." */, is the message the
# program must print (tests/readme/check_output.cmake).
set(XFFI_README ${PROJECT_SOURCE_DIR}/README.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${XFFI_README})
file(READ ${XFFI_README} XFFI_README_TEXT)
set(XFFI_README_SECTION "## A taste of the C API")
string(FIND "${XFFI_README_TEXT}" "${XFFI_README_SECTION}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md has no section \"${XFFI_README_SECTION}\" (tests/cmake/readme.cmake compiles its C example)")
endif()
string(SUBSTRING "${XFFI_README_TEXT}" ${at} -1 XFFI_README_TEXT)
string(FIND "${XFFI_README_TEXT}" "```c\n" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "README.md's section \"${XFFI_README_SECTION}\" has no ```c block")
endif()
math(EXPR begin "${begin} + 5")
string(SUBSTRING "${XFFI_README_TEXT}" ${begin} -1 XFFI_README_TEXT)
string(FIND "${XFFI_README_TEXT}" "\n```" end)
string(SUBSTRING "${XFFI_README_TEXT}" 0 ${end} XFFI_README_C)

string(REGEX MATCHALL "#include[^\n]*" includes "${XFFI_README_C}")
string(REPLACE ";" "\n" includes "${includes}")
string(REGEX REPLACE "#include[^\n]*\n" "" body "${XFFI_README_C}")
string(REGEX MATCH "/\\* \"([^\"]+)\" \\*/" quoted "${XFFI_README_C}")
set(XFFI_README_MESSAGE "${CMAKE_MATCH_1}")
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/readme_c_example.c CONTENT
  "/* Generated from README.md by tests/cmake/readme.cmake: do not edit. */\n${includes}\n\nint main(void) {\n${body}\n  return 0;\n}\n"
  @ONLY)

add_executable(readme_c_example ${CMAKE_CURRENT_BINARY_DIR}/readme_c_example.c)
target_link_libraries(readme_c_example PRIVATE xffi_static)
# Run through a script that checks the exit status and the output both
# (PASS_REGULAR_EXPRESSION alone would ignore the status, and with it a
# sanitizer's report). ctest puts the emulator of a cross build only before a
# target, so the script is given it.
add_test(NAME readme_c_example COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:readme_c_example>
  "-DEMULATOR=${CMAKE_CROSSCOMPILING_EMULATOR}"
  "-DEXPECTED=${XFFI_README_MESSAGE}"
  -P ${CMAKE_CURRENT_SOURCE_DIR}/readme/check_output.cmake)
