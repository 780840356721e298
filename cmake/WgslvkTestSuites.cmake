# cmake -P script, run after each test binary links when WGSLVK_TEST_PER_SUITE is ON
# (tests/CMakeLists.txt): one CTest entry per GoogleTest suite instead of one per test.
#   -D BIN=<test binary> -D OUT=<file to write> -D LABELS=<a;b> -D WORKDIR=<dir>
#   -D SOURCE_DIR=<checkout> -D EXCLUDE=<gtest patterns, ':'-separated, may be empty>
# Each entry runs `BIN --gtest_filter=Suite.*[-EXCLUDE]` and is named `Suite.*`; a suite whose
# every test matches EXCLUDE gets no entry. gtest names each failing test in the entry's output.
# A suite of more than 32 tests runs as ceil(tests / 32) entries `Suite.*-shard<i>of<k>`, each a
# gtest shard (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX): the 272 replays of the committed golden
# cases in one process would be the pass's serial tail.
# Why: each process start costs ~0.4 s of CPU with the validation layer, ~0.9 s under ASan+UBSan
# (scripts/run.sh measures what this saves).
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
  if(kept)
    if(NOT suite IN_LIST suites)
      list(APPEND suites "${suite}")
      set("count_${suite}" 0)
    endif()
    math(EXPR "count_${suite}" "${count_${suite}} + 1")
  endif()
endforeach()
set(shard_size 32)

set(filter_tail "")
if(EXCLUDE)
  set(filter_tail "-${EXCLUDE}")
endif()
set(text "")
foreach(s IN LISTS suites)
  math(EXPR shards "(${count_${s}} + ${shard_size} - 1) / ${shard_size}")
  foreach(i RANGE 1 ${shards})
    set(name "${s}.*")
    set(env "WGSLVK_SOURCE_DIR=${SOURCE_DIR}")
    if(shards GREATER 1)
      math(EXPR index "${i} - 1")
      string(APPEND name "-shard${i}of${shards}")
      string(APPEND env ";GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${index}")
    endif()
    string(APPEND text "add_test([==[${name}]==] [==[${BIN}]==] [==[--gtest_filter=${s}.*${filter_tail}]==])\n"
           "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKDIR}]==] "
           "LABELS [==[${LABELS}]==] ENVIRONMENT [==[${env}]==])\n")
  endforeach()
endforeach()
file(WRITE "${OUT}" "${text}")
