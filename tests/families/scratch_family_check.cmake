# Copies the source tree (without builds, goldens, tests and .git) into WORK, adds one new folder
# wgsl_ports/scratch/ (WGSL, port, reference, cases, bench, CMakeLists.txt), builds the CLI and
# checks that every command sees the new kernel.
#   cmake -DWGSLVK_SOURCE_DIR=.. -DWORK=.. -DGENERATOR=.. [-DLAUNCHER=ccache] [-DBUILD_TYPE=..
#         -DCXX_FLAGS=.. -DCXX_FLAGS_TYPE=.. -DSANITIZE=.. -DWERROR=..] -P scratch_family_check.cmake
set(src ${WORK}/src)
file(REMOVE_RECURSE ${src})
file(MAKE_DIRECTORY ${src})
foreach(item CMakeLists.txt cmake core translator runtime validate bench cli wgsl_ports apps)
  if(EXISTS ${WGSLVK_SOURCE_DIR}/${item})
    file(COPY ${WGSLVK_SOURCE_DIR}/${item} DESTINATION ${src} PATTERN "build" EXCLUDE PATTERN "build-*" EXCLUDE)
  endif()
endforeach()

file(MAKE_DIRECTORY ${src}/golden)  # no committed cases: validate runs the randomized check
set(f ${src}/wgsl_ports/scratch)
file(MAKE_DIRECTORY ${f})
file(WRITE ${f}/CMakeLists.txt [=[
wgslvk_add_port(WGSL scratch.wgsl KERNEL scratch_double)
wgslvk_add_family(scratch REFERENCE reference.cpp CASES cases.cpp BENCH bench.cpp)
]=])
file(WRITE ${f}/scratch.wgsl [=[
struct Params { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
@compute @workgroup_size(64)
fn scratch_double(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < params.n) { dst[g.x] = 2.0 * src[g.x]; }
}
]=])
file(WRITE ${f}/scratch_double.comp [=[
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) buffer Dst { float dst[]; };
layout(set = 0, binding = 2, std140) uniform Params { uint n; uint pad0; uint pad1; uint pad2; } params;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.n) dst[i] = 2.0 * src[i];
}
]=])
file(WRITE ${f}/reference.hpp "#pragma once\n#include <vector>\nnamespace scratch { std::vector<float> doubled(const std::vector<float>& x); }\n")
file(WRITE ${f}/reference.cpp "#include \"scratch/reference.hpp\"\nnamespace scratch {\nstd::vector<float> doubled(const std::vector<float>& x) { std::vector<float> y(x); for (auto& v : y) v *= 2.0f; return y; }\n}\n")
file(WRITE ${f}/cases.cpp [=[
#include "scratch/reference.hpp"
#include "wgslvk/validate/case_builder.hpp"
namespace scratch {
using namespace wgslvk::validate;
Case make(uint64_t seed, uint32_t n) {
  Rng r(seed);
  std::vector<float> x(n);
  for (auto& v : x) v = r.log_uniform(-8, 8);
  CaseBuilder b;
  b.input("src", DType::F32, x);
  b.output("dst", DType::F32, n);
  auto& d = b.dispatch("scratch/scratch_double");
  CaseBuilder::bind(d, 0, "src");
  CaseBuilder::bind(d, 1, "dst");
  CaseBuilder::bind_values(d, 2, CaseBuilder::u32s({n, 0, 0, 0}));
  d.workgroups_1d = (n + 63) / 64;
  b.check_exact("dst", Array::of(DType::F32, doubled(x)), "2x is exact in f32");
  return b.c;
}
Case basic(uint64_t seed) { return make(seed, 1000); }
void register_scratch(std::vector<Generator>& g) {
  g.push_back({"scratch/scratch_double", "basic", 7, true, basic, "wgsl_ports/scratch/cases.cpp"});
}
WGSLVK_REGISTER_GENERATORS(register_scratch);
}  // namespace scratch
]=])
file(WRITE ${f}/bench.cpp [=[
#include "wgslvk/bench/bench.hpp"
#include "wgslvk/validate/case.hpp"
namespace scratch {
wgslvk::validate::Case make(uint64_t seed, uint32_t n);
void bench_scratch(wgslvk::bench::Ctx& c) {
  if (!c.selected("scratch", "scratch_double")) return;
  wgslvk::bench::Row row;
  row.kernel = "scratch_double";
  row.label = "n=4096";
  row.bytes = 8 * 4096;
  wgslvk::bench::time_case(c, make(1, 4096), row);
}
WGSLVK_REGISTER_BENCH("scratch", bench_scratch);
}  // namespace scratch
]=])

# The copy builds at the calling tree's build type and flags, in a folder `build` directly inside
# the copy: its compile commands are then the calling tree's (whose build folder, like run.sh's
# build/, sits directly inside the checkout) once ccache writes the paths under CCACHE_BASEDIR
# relative to the build folder (../core/src/x.cpp in both), and with CCACHE_NOHASHDIR the build
# folder's own path is not hashed either: the libraries' and the CLI's objects are the calling
# tree's, from the cache, and so are the generated kernel sources (wgslvk-translate runs again
# for each, but names the .comp/.wgsl relative to the checkout: --source-root, so their text is
# the same in the copy). Compiled again: what the new family changes (its own sources, its
# kernel, the kernel index, the families' registration).
# Without that ccache setup it is a whole second build, as correct and slower. The environment
# (CCACHE_*) comes from ctest's.
set(build ${src}/build)
set(args -DWGSLVK_TESTS=OFF)
if(LAUNCHER)
  list(APPEND args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(BUILD_TYPE)
  string(TOUPPER "${BUILD_TYPE}" type)
  list(APPEND args -DCMAKE_BUILD_TYPE=${BUILD_TYPE} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
       "-DCMAKE_CXX_FLAGS_${type}=${CXX_FLAGS_TYPE}" -DWGSLVK_SANITIZE=${SANITIZE} -DWGSLVK_WERROR=${WERROR})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${src} -B ${build} -G ${GENERATOR} ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "configuring the copy with a scratch family failed:\n${out}")
endif()
# ccache's counts for this build alone (its stats log), printed with the test's output.
set(ENV{CCACHE_STATSLOG} ${WORK}/ccache-stats.log)
file(REMOVE ${WORK}/ccache-stats.log)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} --target wgslvk
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "building the copy with a scratch family failed:\n${out}")
endif()
if(LAUNCHER MATCHES "ccache" AND EXISTS ${WORK}/ccache-stats.log)
  execute_process(COMMAND ${LAUNCHER} --show-log-stats OUTPUT_VARIABLE stats ERROR_QUIET)
  message(STATUS "ccache, the copy's build:\n${stats}")
endif()

set(cli ${build}/cli/wgslvk)
function(expect what pattern)
  execute_process(COMMAND ${cli} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc OR NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: `wgslvk ${ARGN}` exited ${rc}, output lacks /${pattern}/:\n${out}${err}")
  endif()
  message(STATUS "${what}: ok")
endfunction()
expect("inspect --list" "scratch/scratch_double +scratch.wgsl +64x1x1 +3" inspect --list)
expect("golden list" "scratch/scratch_double/basic +seed 7 +\\(randomized check\\)" golden list)
expect("validate" "scratch/scratch_double[^\n]*PASS" validate --kernel scratch)
expect("bench --quick" "scratch/scratch_double +n=4096[^\n]*ok \\(worst 0 ULP\\)" bench --quick --only scratch)
