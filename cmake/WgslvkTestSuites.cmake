# cmake -P script, run after each test binary links when WGSLVK_TEST_PER_SUITE is ON
# (tests/CMakeLists.txt): one CTest entry per GoogleTest suite instead of one per test.
#   -D BIN=<test binary> -D OUT=<file to write> -D LABELS=<a;b> -D WORKDIR=<dir>
#   -D SOURCE_DIR=<checkout> -D EXCLUDE=<gtest patterns, ':'-separated, may be empty>
# Each entry runs `BIN --gtest_filter=Suite.*[-EXCLUDE]` and is named `Suite.*`; a suite whose
# every test matches EXCLUDE gets no entry. gtest names each failing test in the entry's output.
# Why: under ASan+UBSan with the validation layer each process start costs ~0.9 s of CPU
# (scripts/run.sh's sanitizer pass measures what this saves).
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${BIN}" --gtest_list_tests WORKING_DIRECTORY "${WORKDIR}" TIMEOUT 60
                OUTPUT_VARIABLE listing ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} --gtest_list_tests failed (${rc}):\n${listing}\n${err}")
endif()

# gtest filter patterns to regular expressions: '*' any run, '?' one character.
set(exclude_res "")
if(EXCLUDE)
  string(REPLACE ":" ";" patterns "${EXCLUDE}")
  foreach(p IN LISTS patterns)
    string(REGEX REPLACE "([][.+^$()|\\\\{}])" "\\\\\\1" re "${p}")
    string(REPLACE "*" ".*" re "${re}")
    string(REPLACE "?" "." re "${re}")
    list(APPEND exclude_res "^${re}$")
  endforeach()
endif()

string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
set(suite "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE " *#.*" "" line "${line}")  # "  # GetParam() = ..." comments
  if(line STREQUAL "")
    continue()
  endif()
  if(line MATCHES "^[^ ].*\\.$")  # "Suite." starts a suite
    string(REGEX REPLACE "\\.$" "" suite "${line}")
    continue()
  endif()
  string(STRIP "${line}" test)
  set(kept TRUE)
  foreach(re IN LISTS exclude_res)
    if("${suite}.${test}" MATCHES "${re}")
      set(kept FALSE)
      break()
    endif()
  endforeach()
  if(kept AND NOT suite IN_LIST suites)
    list(APPEND suites "${suite}")
  endif()
endforeach()

set(filter_tail "")
if(EXCLUDE)
  set(filter_tail "-${EXCLUDE}")
endif()
set(text "")
foreach(s IN LISTS suites)
  string(APPEND text "add_test([==[${s}.*]==] [==[${BIN}]==] [==[--gtest_filter=${s}.*${filter_tail}]==])\n"
         "set_tests_properties([==[${s}.*]==] PROPERTIES WORKING_DIRECTORY [==[${WORKDIR}]==] "
         "LABELS [==[${LABELS}]==] ENVIRONMENT [==[WGSLVK_SOURCE_DIR=${SOURCE_DIR}]==])\n")
endforeach()
file(WRITE "${OUT}" "${text}")
