# `wgslvk port`: the GLSL of a WGSL entry point, its refusals, and --case-skeleton.
# cmake -DWGSLVK=<wgslvk> -DWORK=<dir> -P port_cli_check.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/user.wgsl [=[
struct Params { n: u32, scale: f32, offset: vec2<f32>, count: i32 }
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < params.n) { dst[g.x] = params.scale * src[g.x].x + params.offset.y; }
}
]=])
execute_process(COMMAND ${WGSLVK} port ${WORK}/user.wgsl --case-skeleton ${WORK}/case
                RESULT_VARIABLE rc OUTPUT_VARIABLE glsl ERROR_VARIABLE err)
if(rc OR NOT glsl MATCHES "void main\\(\\)" OR NOT glsl MATCHES "local_size_x = 64")
  message(FATAL_ERROR "wgslvk port failed (${rc}):\n${glsl}${err}")
endif()
file(READ ${WORK}/case/case.json skel)
# Every used binding, the uniform's fields at their offsets in their own types, the padding
# between offset (8) and count (16) as zero words, FILL placeholders.
foreach(want "\"kernel\": \"user/scale\"" "\"buffer\": \"src\"" "\"buffer\": \"dst\""
             "FILL params.n @0" "\"f32\"" "FILL params.scale @4" "FILL params.offset\\[1\\] @12"
             "FILL params.count @16" "\"i32\"" "\"fill\": \"poison\"")
  if(NOT skel MATCHES "${want}")
    message(FATAL_ERROR "the case skeleton lacks ${want}:\n${skel}")
  endif()
endforeach()
# The skeleton does not run until filled: validate refuses it, naming the field.
execute_process(COMMAND ${WGSLVK} validate --wgsl ${WORK}/user.wgsl --cases ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc OR NOT "${out}${err}" MATCHES "case.json")
  message(FATAL_ERROR "an unfilled skeleton was not refused (${rc}):\n${out}${err}")
endif()
# Invalid WGSL: file:line:col and the rule, exit 1.
file(WRITE ${WORK}/bad.wgsl "@compute @workgroup_size(1)\nfn main() {\n  let x: u32 = 1.5;\n}\n")
execute_process(COMMAND ${WGSLVK} port ${WORK}/bad.wgsl RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "bad.wgsl:3:[0-9]+: error: .*\\[type\\]")
  message(FATAL_ERROR "invalid WGSL: expected exit 1 and file:line:col [type], got ${rc}:\n${err}")
endif()
# The front end's warnings (here an unknown diagnostic rule name) go to stderr with
# file:line:col, whether the module translates (exit 0) or is refused (exit 1, the error too).
file(WRITE ${WORK}/warn.wgsl
     "diagnostic(off, no_such_rule);\n@compute @workgroup_size(1)\nfn main() {\n}\n")
execute_process(COMMAND ${WGSLVK} port ${WORK}/warn.wgsl RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(rc OR NOT out MATCHES "void main\\(\\)" OR NOT err MATCHES "warn.wgsl:1:[0-9]+: warning: [^\n]*no_such_rule")
  message(FATAL_ERROR "a warning: expected exit 0, the GLSL and file:line:col: warning, got ${rc}:\n${err}")
endif()
file(WRITE ${WORK}/warn_bad.wgsl
     "diagnostic(off, no_such_rule);\n@group(0) @binding(0) var<storage, read_write> b: array<u32>;\n"
     "@compute @workgroup_size(1)\nfn main(@builtin(local_invocation_index) i: u32) {\n"
     "  if (b[i] == 0u) { workgroupBarrier(); }\n}\n")
execute_process(COMMAND ${WGSLVK} port ${WORK}/warn_bad.wgsl RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "warn_bad.wgsl:1:[0-9]+: warning: .*warn_bad.wgsl:5:[0-9]+: error: [^\n]*\\[uniformity\\]")
  message(FATAL_ERROR "a warning and an error: expected exit 1 and both, got ${rc}:\n${err}")
endif()
message(STATUS "wgslvk port: ok")
