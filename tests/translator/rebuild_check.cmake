# Editing a .comp or an included .glsl rebuilds exactly the kernels that read it (depfiles).
# Copies a small ports tree into WORK (the build dir), builds it with Ninja, touches one file at a
# time and checks which kernels wgslvk-translate ran for.
#   cmake -DWGSLVK_SOURCE_DIR=.. -DWGSLVK_TRANSLATE=.. -DWORK=.. -DNINJA=.. -P rebuild_check.cmake
set(src ${WORK}/src)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${src}/alpha ${src}/common)
file(COPY_FILE ${CMAKE_CURRENT_LIST_DIR}/rebuild/CMakeLists.txt ${src}/CMakeLists.txt)
file(WRITE ${src}/alpha/CMakeLists.txt
  "wgslvk_add_port(WGSL alpha.wgsl KERNEL one)\nwgslvk_add_port(WGSL alpha.wgsl KERNEL two)\n"
  "wgslvk_add_port(WGSL alpha.wgsl KERNEL three SOURCE two.comp DEFINES SCALE=3.0)\n")
file(WRITE ${src}/alpha/alpha.wgsl [=[
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@compute @workgroup_size(64) fn one(@builtin(global_invocation_id) g: vec3<u32>) { a[g.x] = 1.0; }
@compute @workgroup_size(64) fn two(@builtin(global_invocation_id) g: vec3<u32>) { a[g.x] = 2.0; }
@compute @workgroup_size(64) fn three(@builtin(global_invocation_id) g: vec3<u32>) { a[g.x] = 6.0; }
]=])
set(head "#version 450\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 0, std430) buffer A { float a[]; };\n")
file(WRITE ${src}/alpha/local.glsl "float value() { return 1.0; }\n")
file(WRITE ${src}/common/shared.glsl "#ifndef SHARED\n#define SHARED\nfloat value() { return 2.0; }\n#endif\n")
file(WRITE ${src}/alpha/one.comp "${head}#include \"local.glsl\"\nvoid main() { a[gl_GlobalInvocationID.x] = value(); }\n")
file(WRITE ${src}/alpha/two.comp "${head}#include \"shared.glsl\"\n#ifndef SCALE\n#define SCALE 1.0\n#endif\nvoid main() { a[gl_GlobalInvocationID.x] = value() * SCALE; }\n")

execute_process(COMMAND ${CMAKE_COMMAND} -S ${src} -B ${WORK}/build -G Ninja
                        -DCMAKE_MAKE_PROGRAM=${NINJA} -DWGSLVK_SOURCE_DIR=${WGSLVK_SOURCE_DIR}
                        -DWGSLVK_TRANSLATE=${WGSLVK_TRANSLATE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "configuring the scratch ports tree failed:\n${out}")
endif()

# Builds and returns the kernels wgslvk-translate ran for, sorted ("alpha/one;alpha/two").
function(build_and_list result)
  execute_process(COMMAND ${NINJA} -C ${WORK}/build kernels
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "building the scratch ports tree failed:\n${out}")
  endif()
  string(REGEX MATCHALL "wgslvk: alpha/[a-z]+" hits "${out}")
  list(TRANSFORM hits REPLACE "wgslvk: " "")
  list(SORT hits)
  set(${result} "${hits}" PARENT_SCOPE)
endfunction()

function(expect what touched expected)
  if(touched)
    # A touch in the same timestamp tick as the last build's depfile would not look newer to
    # Ninja (file times are coarse; a person's edit is never that quick): let the clock move.
    execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
    file(TOUCH ${touched})
  endif()
  build_and_list(got)
  if(NOT "${got}" STREQUAL "${expected}")
    message(FATAL_ERROR "${what}: expected wgslvk-translate to run for [${expected}], it ran for [${got}]")
  endif()
  message(STATUS "${what}: rebuilt [${got}]")
endfunction()

expect("first build" "" "alpha/one;alpha/three;alpha/two")
expect("no change" "" "")
expect("edit alpha/one.comp" ${src}/alpha/one.comp "alpha/one")
expect("edit alpha/local.glsl (included by one)" ${src}/alpha/local.glsl "alpha/one")
expect("edit common/shared.glsl (included by two.comp)" ${src}/common/shared.glsl "alpha/three;alpha/two")
expect("edit alpha/two.comp (two, and three built from it)" ${src}/alpha/two.comp "alpha/three;alpha/two")
expect("edit alpha/alpha.wgsl (every port's WGSL)" ${src}/alpha/alpha.wgsl "alpha/one;alpha/three;alpha/two")
# The DEFINES reached kernel three and only it.
file(GLOB_RECURSE three ${WORK}/build/*/alpha/three.cpp)
file(GLOB_RECURSE two ${WORK}/build/*/alpha/two.cpp)
file(READ "${three}" three_text)
file(READ "${two}" two_text)
if(NOT three_text MATCHES "#define SCALE 3.0" OR two_text MATCHES "#define SCALE 3.0")
  message(FATAL_ERROR "DEFINES SCALE=3.0 should be in ${three} and not in ${two}")
endif()
file(REMOVE_RECURSE ${WORK})
