// WGSL's uniformity analysis (translator/wgsl/src/uniformity.cpp): every shipped WGSL file is
// accepted, and a table of accepted and rejected snippets with the rule, the line:col and the
// message of the rejection. Each verdict and position in the table is Dawn's (dawn.node, webgpu
// 0.6.2, checked when the table was written); tests/wgsl/reject/ compares a larger corpus with
// Dawn's committed verdicts.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "wgslvk/wgsl/frontend.hpp"

namespace wgslvk::wgsl {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The diagnostics check_module reports (empty when the module is accepted).
std::vector<Diagnostic> diagnose(const std::string& source) {
  try {
    check_module(source, "snippet.wgsl");
  } catch (const Error& e) { return e.diagnostics; }
  return {};
}

TEST(WgslUniformity, EveryShippedWgslFileIsAccepted) {
  const char* root = std::getenv("WGSLVK_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "WGSLVK_SOURCE_DIR is set by CTest";
  int files = 0;
  for (const auto& family : fs::directory_iterator(fs::path(root) / "wgsl_ports")) {
    if (!family.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(family.path())) {
      if (f.path().extension() != ".wgsl") continue;
      ++files;
      std::string text = read_file(f.path());
      try {
        check_module(text, f.path().string());
      } catch (const Error& e) { ADD_FAILURE() << e.what(); }
    }
  }
  EXPECT_GE(files, 10) << "the shipped WGSL files were not found under " << root;
}

struct Snippet {
  const char* name;
  const char* source;
  // Rejected: the first error's line and column (1-based) and a part of its message;
  // accepted: line 0.
  uint32_t line = 0, col = 0;
  const char* message = "";
};

// `lid` is local_invocation_id (non-uniform), `wid` workgroup_id (uniform).
const Snippet kSnippets[] = {
    {"barrier_under_local_id_branch",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    workgroupBarrier();
  }
})",
     3, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"barrier_under_workgroup_id_branch",
     R"(@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  if (wid.x == 0u) {
    workgroupBarrier();
  }
})"},
    {"notes_name_the_branch_and_the_source",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i: u32) {
  if (i < 8u) { storageBarrier(); }
})",
     2, 17,
     "'storageBarrier' must only be called from uniform control flow; 2:3: control flow depends "
     "on possibly non-uniform value; 2:7: builtin 'i' of 'main' may be non-uniform"},
    {"barrier_after_non_uniform_early_return",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    return;
  }
  workgroupBarrier();
})",
     5, 3, "'workgroupBarrier' must only be called from uniform control flow"},
    {"barrier_after_uniform_early_return",
     R"(@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  if (wid.x == 0u) {
    return;
  }
  workgroupBarrier();
})"},
    {"barrier_in_loop_with_non_uniform_break",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var i = 0u;
  loop {
    if (lid.x < i) {
      break;
    }
    workgroupBarrier();
    i = i + 1u;
  }
})",
     7, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"barrier_after_loop_with_non_uniform_break",
     R"(@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var i = 0u;
  for (; i < 64u; i++) {
    if (lid.x == i) {
      break;
    }
  }
  workgroupBarrier();
  out[lid.x] = i;
})"},
    {"barrier_in_loop_with_uniform_trip_count",
     R"(@compute @workgroup_size(64) fn main() {
  for (var i = 0u; i < 4u; i++) {
    workgroupBarrier();
  }
})"},
    {"barrier_in_loop_with_non_uniform_condition",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  for (var i = 0u; i < lid.x; i++) {
    workgroupBarrier();
  }
})",
     3, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"barrier_after_non_uniform_continue",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  for (var i = 0u; i < 4u; i++) {
    if (lid.x == i) {
      continue;
    }
    workgroupBarrier();
  }
})",
     6, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"barrier_in_loop_left_by_non_uniform_break_if",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var i = 0u;
  loop {
    workgroupBarrier();
    continuing {
      i = i + 1u;
      break if i > lid.x;
    }
  }
})",
     4, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"loop_carried_non_uniform_variable",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var x = 0u;
  loop {
    if (x > 4u) {
      break;
    }
    workgroupBarrier();
    x = lid.x;
  }
})",
     7, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"barrier_through_parameter",
     R"(fn sync_if(x: u32) {
  if (x == 0u) {
    workgroupBarrier();
  }
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  sync_if(lid.x);
})",
     3, 5,
     "'workgroupBarrier' must only be called from uniform control flow; 2:3: control flow "
     "depends on possibly non-uniform value; 1:12: parameter 'x' of 'sync_if' may be "
     "non-uniform; 7:11: possibly non-uniform value passed here"},
    {"barrier_through_parameter_given_uniform_value",
     R"(fn sync_if(x: u32) {
  if (x == 0u) {
    workgroupBarrier();
  }
}
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid: vec3u) {
  sync_if(wid.x);
})"},
    {"barrier_through_two_functions",
     R"(fn inner(x: u32) {
  if (x > 3u) {
    workgroupBarrier();
  }
}
fn outer(y: u32) {
  inner(y + 1u);
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  outer(lid.y);
})",
     3, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"function_with_barrier_called_in_non_uniform_flow",
     R"(fn sync() {
  workgroupBarrier();
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    sync();
  }
})",
     2, 3,
     "'workgroupBarrier' must only be called from uniform control flow; 6:5: called by 'sync' "
     "from 'main'; 5:3: control flow depends on possibly non-uniform value"},
    {"non_uniform_value_through_function_pointer",
     R"(fn store_to(p: ptr<function, u32>, v: u32) {
  *p = v;
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var x: u32;
  store_to(&x, lid.x);
  if (x == 0u) {
    workgroupBarrier();
  }
})",
     8, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"uniform_value_through_function_pointer",
     R"(fn store_to(p: ptr<function, u32>, v: u32) {
  *p = v;
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var x: u32;
  store_to(&x, 4u);
  if (x == 0u) {
    workgroupBarrier();
  }
})"},
    {"read_through_let_pointer_to_workgroup",
     R"(var<workgroup> w: array<u32, 4>;
@compute @workgroup_size(64) fn main() {
  let p = &w[1];
  if (*p == 0u) {
    workgroupBarrier();
  }
})",
     5, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"read_through_storage_pointer_parameter",
     R"(@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn first(p: ptr<storage, array<u32>, read_write>) -> u32 {
  return p[0];
}
@compute @workgroup_size(64) fn main() {
  if (first(&buf) == 0u) {
    workgroupBarrier();
  }
})",
     7, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"workgroup_uniform_load_makes_a_value_uniform",
     R"(var<workgroup> flag: u32;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    flag = 1u;
  }
  let f = workgroupUniformLoad(&flag);
  if (f == 1u) {
    workgroupBarrier();
  }
})"},
    {"plain_workgroup_read_is_non_uniform",
     R"(var<workgroup> flag: u32;
@compute @workgroup_size(64) fn main() {
  if (flag == 1u) {
    workgroupBarrier();
  }
})",
     4, 5,
     "'workgroupBarrier' must only be called from uniform control flow; 3:3: control flow "
     "depends on possibly non-uniform value; 3:7: reading from workgroup storage variable "
     "'flag' may result in a non-uniform value"},
    {"read_write_storage_texture_load_is_non_uniform",
     R"(@group(0) @binding(0) var t: texture_storage_2d<r32uint, read_write>;
@compute @workgroup_size(64) fn main() {
  if (textureLoad(t, vec2i(0, 0)).x == 0u) {
    workgroupBarrier();
  }
})",
     4, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"read_only_storage_texture_load_is_uniform",
     R"(@group(0) @binding(0) var t: texture_storage_2d<r32uint, read>;
@compute @workgroup_size(64) fn main() {
  if (textureLoad(t, vec2i(0, 0)).x == 0u) {
    workgroupBarrier();
  }
})"},
    {"workgroup_uniform_load_in_non_uniform_flow",
     R"(var<workgroup> flag: u32;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    out[0] = workgroupUniformLoad(&flag);
  }
})",
     5, 14, "'workgroupUniformLoad' must only be called from uniform control flow"},
    {"workgroup_uniform_load_of_non_uniform_pointer",
     R"(var<workgroup> arr: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  out[lid.x] = workgroupUniformLoad(&arr[lid.x]);
})",
     4, 37, "'workgroupUniformLoad' requires argument 0 to be uniform"},
    {"uniform_and_read_only_storage_values",
     R"(struct Params { n: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
override K: u32 = 4u;
const C = 2u;
@compute @workgroup_size(64) fn main(@builtin(num_workgroups) nwg: vec3u) {
  if (params.n > counts[0] && K > C && nwg.x > 1u) {
    workgroupBarrier();
  }
})"},
    {"read_write_storage_value",
     R"(@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  while (buf[0] > 0u) {
    workgroupBarrier();
    buf[0] = buf[0] - 1u;
  }
})",
     4, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"atomic_result",
     R"(var<workgroup> counter: atomic<u32>;
@compute @workgroup_size(64) fn main() {
  let v = atomicAdd(&counter, 1u);
  if (v == 0u) {
    workgroupBarrier();
  }
})",
     5, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"private_variable",
     R"(var<private> p: u32;
@compute @workgroup_size(64) fn main() {
  if (p == 0u) {
    workgroupBarrier();
  }
})",
     4, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"reassigned_local_becomes_uniform",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var x = lid.x;
  x = 0u;
  if (x == 0u) {
    workgroupBarrier();
  }
})"},
    {"partial_assignment_keeps_non_uniformity",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var v = vec2u(0u);
  v.x = lid.x;
  if (v.y == 0u) {
    workgroupBarrier();
  }
})",
     5, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"short_circuit_left_operand",
     R"(fn sync() -> bool {
  workgroupBarrier();
  return true;
}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  let b = lid.x == 0u || sync();
  out[lid.x] = select(0u, 1u, b);
})",
     2, 3, "'workgroupBarrier' must only be called from uniform control flow"},
    {"switch_on_non_uniform_selector",
     R"(@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  switch (lid.x) {
    case 0u: {
      workgroupBarrier();
    }
    default: {
    }
  }
})",
     4, 7, "'workgroupBarrier' must only be called from uniform control flow"},
    {"return_value_of_non_uniform_argument",
     R"(fn twice(v: u32) -> u32 {
  return v * 2u;
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (twice(lid.x) == 0u) {
    workgroupBarrier();
  }
})",
     6, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"struct_input_with_one_non_uniform_builtin",
     R"(struct In {
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
}
@compute @workgroup_size(64) fn main(input: In) {
  if (input.wid.x == 0u) {
    workgroupBarrier();
  }
})",
     7, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"unused_function_with_parameter_dependent_barrier",
     R"(fn maybe_sync(x: u32) {
  if (x == 0u) {
    workgroupBarrier();
  }
}
@compute @workgroup_size(64) fn main() {
})"},
    {"subgroup_op_in_non_uniform_flow",
     R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    out[0] = subgroupAdd(1u);
  }
})",
     5, 14, "'subgroupAdd' must only be called from subgroup uniform control flow"},
    {"subgroup_uniformity_filtered_off",
     R"(enable subgroups;
diagnostic(off, subgroup_uniformity);
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    out[0] = subgroupAdd(1u);
  }
})"},
    {"subgroup_uniformity_off_on_an_if_statement",
     R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(16) fn main(@builtin(local_invocation_id) lid: vec3u) {
  @diagnostic(off, subgroup_uniformity) if (lid.x == 0u) {
    out[0] = subgroupAdd(1u);
  }
})"},
    {"subgroup_uniformity_off_on_a_body_block",
     R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(16) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) @diagnostic(off, subgroup_uniformity) {
    out[0] = subgroupAdd(1u);
  }
})"},
    {"subgroup_uniformity_off_on_the_callee",
     R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@diagnostic(off, subgroup_uniformity) fn f() -> u32 { return subgroupAdd(1u); }
@compute @workgroup_size(16) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    out[0] = f();
  }
})"},
    {"inner_error_filter_overrides_module_off",
     R"(diagnostic(off, subgroup_uniformity);
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(16) fn main(@builtin(local_invocation_id) lid: vec3u) {
  @diagnostic(error, subgroup_uniformity) if (lid.x == 0u) {
    out[0] = subgroupAdd(1u);
  }
})",
     6, 14, "'subgroupAdd' must only be called from subgroup uniform control flow"},
    {"barrier_requirement_cannot_be_filtered",
     R"(diagnostic(off, derivative_uniformity);
diagnostic(off, subgroup_uniformity);
@compute @workgroup_size(16) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    workgroupBarrier();
  }
})",
     5, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"subgroup_result_is_subgroup_uniform_only",
     R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  let s = subgroupAdd(1u);
  if (s > 4u) {
    out[0] = subgroupMax(s);
    workgroupBarrier();
  }
})",
     7, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    {"subgroup_shuffle_delta_must_be_uniform",
     R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  out[lid.x] = subgroupShuffleDown(lid.x, lid.x & 3u);
})",
     4, 43, "'subgroupShuffleDown' requires argument 1 to be uniform"},
    // A multi-component swizzle through a pointer (pointer_composite_access) loads the vector.
    {"swizzle_through_pointer_loads",
     R"(@group(0) @binding(1) var<storage, read_write> nonuniform: u32;
@compute @workgroup_size(16) fn main() {
  var v: vec4u;
  v = vec4(nonuniform);
  let t = dot((&v).yw, vec2());
  if t > 0 {
    workgroupBarrier();
  }
})",
     7, 5, "'workgroupBarrier' must only be called from uniform control flow"},
    // The texture builtins other than the samples: a uniform result from uniform arguments.
    {"texture_load_of_uniform_coords_is_uniform",
     R"(@group(0) @binding(0) var t: texture_2d<f32>;
@compute @workgroup_size(16) fn main() {
  let c = textureLoad(t, vec2u(textureDimensions(t) / 2), 0);
  if c.x > 0 {
    workgroupBarrier();
  }
})"},
};

class UniformitySnippet : public ::testing::TestWithParam<Snippet> {};

TEST_P(UniformitySnippet, VerdictRuleAndPosition) {
  const Snippet& s = GetParam();
  std::vector<Diagnostic> d = diagnose(s.source);
  if (s.line == 0) {
    std::string all;
    for (const auto& x : d) all += x.str() + "\n";
    EXPECT_TRUE(d.empty()) << "expected the snippet to be accepted, got:\n" << all;
    return;
  }
  ASSERT_FALSE(d.empty()) << "expected a uniformity error at " << s.line << ":" << s.col;
  EXPECT_EQ(d[0].rule, "uniformity") << d[0].str();
  EXPECT_EQ(d[0].line, s.line) << d[0].str();
  EXPECT_EQ(d[0].col, s.col) << d[0].str();
  EXPECT_NE(d[0].message.find(s.message), std::string::npos)
      << "message: " << d[0].message << "\nexpected to contain: " << s.message;
}

INSTANTIATE_TEST_SUITE_P(Table, UniformitySnippet, ::testing::ValuesIn(kSnippets),
                         [](const auto& info) { return std::string(info.param.name); });

// Warnings (check_module's `warnings`, getCompilationInfo's "warning" messages): a uniformity
// requirement takes the severity of the `diagnostic` filter in effect where it arises, the
// innermost one winning (a call site's filter does not change its callee's requirement); an
// unknown one-token rule name is a warning. The CTS's parse,diagnostic cases, as Tint answers them.
struct Checked {
  std::vector<Diagnostic> errors, warnings;
};
Checked check_with_warnings(const std::string& source) {
  Checked c;
  try {
    check_module(source, "snippet.wgsl", &c.warnings);
  } catch (const Error& e) { c.errors = e.diagnostics; }
  return c;
}

std::string fragment(const std::string& directives, const std::string& helper,
                     const std::string& body) {
  return directives + R"(
@group(0) @binding(0) var t : texture_1d<f32>;
@group(0) @binding(1) var s : sampler;
var<private> non_uniform_cond : bool;
var<private> non_uniform_coord : f32;
var<private> non_uniform_val : u32;
)" + helper +
         "\n@fragment fn main() {\n" + body + "\n}\n";
}

TEST(WgslUniformity, DiagnosticFiltersSetTheSeverityOfARequirement) {
  const std::string sample = "_ = textureSample(t,s,0.0);";
  const std::string foo = "fn foo() { " + sample + " }";
  struct Case {
    const char* name;
    std::string source;
    const char* verdict;  // "ok", "warning", "error"
  } cases[] = {
      {"override_global_off",
       fragment("diagnostic(error, derivative_uniformity);", "",
                "@diagnostic(off, derivative_uniformity) if non_uniform_cond { " + sample + " }"),
       "ok"},
      {"override_global_on",
       fragment("diagnostic(off, derivative_uniformity);", "",
                "@diagnostic(error, derivative_uniformity) if non_uniform_cond { " + sample + " }"),
       "error"},
      {"override_global_warn",
       fragment(
           "diagnostic(error, derivative_uniformity);", "",
           "@diagnostic(warning, derivative_uniformity) if non_uniform_cond { " + sample + " }"),
       "warning"},
      {"global_if_nothing_else_warn",
       fragment("diagnostic(warning, derivative_uniformity);", "",
                "if non_uniform_cond { " + sample + " }"),
       "warning"},
      {"deepest_nesting_warn",
       fragment("", "",
                "@diagnostic(error, derivative_uniformity) if non_uniform_cond {\n"
                "@diagnostic(warning, derivative_uniformity) if non_uniform_cond { " +
                    sample + " } }"),
       "warning"},
      {"other_nest_unaffected",
       fragment("diagnostic(warning, derivative_uniformity);", "",
                "@diagnostic(off, derivative_uniformity) if non_uniform_cond { " + sample +
                    " }\nif non_uniform_cond { " + sample + " }"),
       "warning"},
      {"call_unaffected_error",
       fragment("diagnostic(error, derivative_uniformity);", foo,
                "@diagnostic(off, derivative_uniformity) if non_uniform_cond { foo(); }"),
       "error"},
      {"call_unaffected_warn",
       fragment("diagnostic(warning, derivative_uniformity);", foo,
                "@diagnostic(off, derivative_uniformity) if non_uniform_cond { foo(); }"),
       "warning"},
      {"call_unaffected_off",
       fragment("diagnostic(off, derivative_uniformity);", foo,
                "@diagnostic(error, derivative_uniformity) if non_uniform_cond { foo(); }"),
       "ok"},
      {"if_condition_warn",
       fragment("", "",
                "if non_uniform_cond { @diagnostic(warning, derivative_uniformity) if "
                "textureSample(t,s,non_uniform_coord).x > 0.0 @diagnostic(error, "
                "derivative_uniformity) {} }"),
       "warning"},
      {"switch_warn",
       fragment("", "",
                "@diagnostic(warning, derivative_uniformity) switch non_uniform_val { case 0 "
                "@diagnostic(off, derivative_uniformity) {} default { " +
                    sample + " } }"),
       "warning"},
      {"info_is_not_a_warning",
       fragment("diagnostic(info, derivative_uniformity);", "",
                "if non_uniform_cond { " + sample + " }"),
       "info"},
  };
  for (const Case& c : cases) {
    Checked r = check_with_warnings(c.source);
    std::string all;
    for (const auto& x : r.errors) all += x.str() + "\n";
    for (const auto& x : r.warnings) all += x.str() + "\n";
    std::string verdict = c.verdict;
    if (verdict == "error") {
      ASSERT_FALSE(r.errors.empty()) << c.name << ":\n" << all;
      EXPECT_EQ(r.errors[0].rule, "uniformity") << c.name << ":\n" << all;
      continue;
    }
    EXPECT_TRUE(r.errors.empty()) << c.name << ":\n" << all;
    if (verdict == "ok") {
      EXPECT_TRUE(r.warnings.empty()) << c.name << ":\n" << all;
      continue;
    }
    ASSERT_EQ(r.warnings.size(), 1u) << c.name << ":\n" << all;
    EXPECT_EQ(r.warnings[0].severity, verdict) << c.name << ":\n" << all;
    EXPECT_EQ(r.warnings[0].rule, "uniformity") << c.name;
    EXPECT_NE(r.warnings[0].message.find("'textureSample' must only be called from uniform"),
              std::string::npos)
        << c.name << ":\n"
        << all;
    EXPECT_NE(r.warnings[0].str().find("snippet.wgsl:"), std::string::npos) << all;
    EXPECT_NE(r.warnings[0].str().find(std::string(": ") + verdict + ": "), std::string::npos)
        << all;
  }
}

TEST(WgslUniformity, AWarningDoesNotHideALaterError) {
  Checked r = check_with_warnings(R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@diagnostic(warning, subgroup_uniformity) fn f() {
  if (out[2] == 0u) { out[0] = subgroupAdd(1u); }
}
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  f();
  if (lid.x == 0u) { out[1] = subgroupMax(2u); }
})");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 8u) << r.errors[0].str();
  EXPECT_NE(r.errors[0].message.find("'subgroupMax' must only be called"), std::string::npos)
      << r.errors[0].str();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].line, 4u) << r.warnings[0].str();
  EXPECT_NE(r.warnings[0].message.find("'subgroupAdd' must only be called from subgroup uniform"),
            std::string::npos)
      << r.warnings[0].str();
}

TEST(WgslUniformity, UnknownDiagnosticRuleIsAWarning) {
  for (const char* rule : {"unknown", "blahblahblah", "derivative_uniform"}) {
    for (bool directive : {true, false}) {
      std::string control = std::string("diagnostic(info, ") + rule + ")";
      std::string src = directive ? control + ";\n@compute @workgroup_size(1) fn main() {}\n"
                                  : "@" + control + " @compute @workgroup_size(1) fn main() {}\n";
      Checked r = check_with_warnings(src);
      EXPECT_TRUE(r.errors.empty()) << src;
      ASSERT_EQ(r.warnings.size(), 1u) << src;
      EXPECT_EQ(r.warnings[0].severity, "warning");
      EXPECT_NE(r.warnings[0].message.find(std::string("unrecognized diagnostic rule '") + rule),
                std::string::npos)
          << r.warnings[0].str();
    }
  }
  // Two tokens (another implementation's rule) and the known rules: no warning.
  Checked r = check_with_warnings(
      "diagnostic(off, chromium.unreachable_code);\ndiagnostic(warning, derivative_uniformity);\n"
      "@diagnostic(off, subgroup_uniformity) @compute @workgroup_size(1) fn main() {}\n");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.warnings.size(), 0u);
}

// The analysis must not grow without bound on hostile input: variables live across loops make a
// graph of (variables x loops) nodes. A moderate one is analyzed; a huge one is refused with the
// "limit" rule (at the function) instead of taking gigabytes.
std::string vars_across_loops(int vars, int loops) {
  std::string src = "@compute @workgroup_size(1) fn main() {\n";
  for (int i = 0; i < vars; ++i) src += "  var v" + std::to_string(i) + " = 0u;\n";
  for (int i = 0; i < loops; ++i)
    src += "  loop { v" + std::to_string(i % vars) + " += 1u; break; }\n";
  return src + "  workgroupBarrier();\n}\n";
}

TEST(WgslUniformity, ManyVariablesAcrossLoopsIsAnalyzed) {
  std::vector<Diagnostic> d = diagnose(vars_across_loops(200, 200));
  EXPECT_TRUE(d.empty()) << d[0].str();
}

TEST(WgslUniformity, HugeGraphIsRefusedWithTheLimitRule) {
  std::vector<Diagnostic> d = diagnose(vars_across_loops(1100, 1000));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].rule, "limit") << d[0].str();
  EXPECT_EQ(d[0].line, 1u) << d[0].str();
}

// ---- Generated programs against Dawn ----------------------------------------------------------
// A deterministic generator of valid compute shaders built to stress the analysis: helpers with
// value and function-pointer parameters and return values, locals, vectors and arrays assigned
// whole and in part, let pointers, if/else, switch, for/while/loop with break, continue,
// continuing and break if, early returns, barriers, workgroupUniformLoad, atomics, subgroup
// operations, storage/uniform/workgroup/private reads and uniform and non-uniform builtins.
// tests/wgsl/uniformity_programs.json holds Dawn's verdict on each (uniformity_programs.mjs), with
// a hash of the program so a change to the generator is noticed.
class ProgramGenerator {
 public:
  explicit ProgramGenerator(uint64_t seed) : state_(seed) {}

  std::string program() {
    std::string out = "enable subgroups;\n";
    if (chance(10)) out += "diagnostic(off, subgroup_uniformity);\n";
    out +=
        "@group(0) @binding(0) var<storage, read_write> rw: array<u32, 16>;\n"
        "@group(0) @binding(1) var<storage, read> ro: array<u32, 16>;\n"
        "@group(0) @binding(2) var<uniform> un: vec4u;\n"
        "var<workgroup> wg: array<u32, 16>;\n"
        "var<workgroup> wa: atomic<u32>;\n"
        "var<private> pv: u32;\n";
    int nfuncs = below(4);
    for (int fi = 0; fi < nfuncs; ++fi) {
      Func f{"f" + std::to_string(fi), {}, chance(50)};
      Scope scope;
      scope.ret = f.ret;
      std::string decl;
      int nparams = below(3);
      for (int j = 0; j < nparams; ++j) {
        bool ptr = below(3) == 2;
        std::string pn = "a" + std::to_string(j);
        f.params.push_back(ptr);
        decl += (j ? ", " : "") + pn + (ptr ? ": ptr<function, u32>" : ": u32");
        (ptr ? scope.ptrs : scope.vals).push_back(pn);
      }
      lines_.clear();
      depth_ = 0;
      emit("fn " + f.name + "(" + decl + ")" + (f.ret ? " -> u32" : "") + " {");
      block(scope, 0, false);
      if (f.ret) emit("  return " + expr(scope) + ";");
      emit("}");
      for (const auto& l : lines_) out += l + "\n";
      funcs_.push_back(f);
    }
    lines_.clear();
    depth_ = 0;
    Scope scope;
    scope.entry = true;
    emit(
        "@compute @workgroup_size(16) fn main(@builtin(local_invocation_id) lid: vec3u, "
        "@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, "
        "@builtin(local_invocation_index) li: u32) {");
    int n = 2 + below(5);
    for (int i = 0; i < n; ++i) {
      depth_ = 1;
      stmt(scope, 0, false);
    }
    depth_ = 0;
    emit("}");
    for (const auto& l : lines_) out += l + "\n";
    return out;
  }

 private:
  struct Func {
    std::string name;
    std::vector<bool> params;  // true: ptr<function, u32>
    bool ret;
  };
  struct Scope {
    std::vector<std::string> vars, vals, ptrs, vecs;
    bool entry = false, ret = false;
  };

  uint64_t state_;
  std::vector<Func> funcs_;
  std::vector<std::string> lines_;
  int depth_ = 0, counter_ = 0;

  uint64_t next() {  // splitmix64
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(int n) { return int(next() % uint64_t(n)); }
  bool chance(int percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[size_t(below(int(v.size())))];
  }
  std::string name(const char* prefix) { return prefix + std::to_string(++counter_); }
  void emit(const std::string& s) { lines_.push_back(std::string(size_t(2 * depth_), ' ') + s); }
  static std::string lit(int v) { return std::to_string(v) + "u"; }

  std::string expr(const Scope& sc, int d = 0) {
    std::vector<std::string> kinds = {"lit", "lit", "val", "val", "val", "builtin", "global"};
    if (d < 2) kinds.insert(kinds.end(), {"bin", "bin", "call", "select", "min"});
    if (!sc.ptrs.empty()) kinds.push_back("deref");
    const std::string k = pick(kinds);
    if (k == "lit") return lit(below(10));
    if (k == "val" && !sc.vals.empty()) return pick(sc.vals);
    if (k == "builtin" || k == "val") {
      if (!sc.entry) return "3u";
      return pick(std::vector<std::string>{"wid.x", "nwg.x", "lid.x", "lid.y", "li"});
    }
    if (k == "global")
      return pick(std::vector<std::string>{
          "rw[1]", "ro[2]", "wg[3]", "pv", "un.x", "atomicLoad(&wa)",
          sc.entry ? "ro[lid.x & 15u]" : "ro[0]", "workgroupUniformLoad(&wg[0])"});
    if (k == "deref") return "(*" + pick(sc.ptrs) + ")";
    if (k == "bin")
      return "(" + expr(sc, d + 1) + " " + pick(std::vector<std::string>{"+", "^", "|", "*"}) +
             " " + expr(sc, d + 1) + ")";
    if (k == "min") return "min(" + expr(sc, d + 1) + ", " + expr(sc, d + 1) + ")";
    if (k == "select")
      return "select(" + expr(sc, d + 1) + ", " + expr(sc, d + 1) + ", " + cond(sc, d + 1) + ")";
    // A call of a helper returning a value (its pointer arguments: distinct whole variables).
    std::vector<const Func*> fs;
    for (const auto& f : funcs_)
      if (f.ret) fs.push_back(&f);
    if (fs.empty()) return "1u";
    std::string c = call(*pick(fs), sc, d + 1);
    return c.empty() ? "2u" : c;
  }

  std::string cond(const Scope& sc, int d = 0) {
    std::string c = expr(sc, d + 1) + " " + pick(std::vector<std::string>{"<", "==", "!=", ">"}) +
                    " " + lit(below(6));
    if (d < 1 && chance(20))
      c = "(" + c + ") " + pick(std::vector<std::string>{"&&", "||"}) + " (" + expr(sc, d + 1) +
          " > 2u)";
    return c;
  }

  // "" when the pointer arguments cannot be given: each needs its own whole variable (WGSL
  // refuses aliased pointer arguments).
  std::string call(const Func& f, const Scope& sc, int d) {
    std::vector<std::string> whole;
    for (const auto& v : sc.vars)
      if (v.find('.') == std::string::npos) whole.push_back(v);
    std::string args;
    for (bool ptr : f.params) {
      std::string a;
      if (ptr) {
        if (whole.empty()) return "";
        size_t k = size_t(below(int(whole.size())));
        a = "&" + whole[k];
        whole.erase(whole.begin() + std::ptrdiff_t(k));
      } else {
        a = expr(sc, d + 1);
      }
      args += (args.empty() ? "" : ", ") + a;
    }
    return f.name + "(" + args + ")";
  }

  void block(const Scope& sc, int loop_depth, bool in_switch) {
    ++depth_;
    Scope s = sc;
    int n = below(4);
    for (int i = 0; i < n; ++i) stmt(s, loop_depth, in_switch);
    --depth_;
  }

  void stmt(Scope& sc, int loop_depth, bool in_switch) {
    std::vector<std::string> kinds = {"var", "assign", "assign", "barrier", "callstmt",
                                      "if",  "if",     "return", "wgstore", "vec",
                                      "arr", "letptr", "let",    "subgroup"};
    if (depth_ < 4) kinds.insert(kinds.end(), {"for", "loop", "while", "switch"});
    if (loop_depth) kinds.insert(kinds.end(), {"break", "continue"});
    if (!sc.ptrs.empty()) kinds.push_back("ptrassign");
    if (!sc.vecs.empty()) kinds.insert(kinds.end(), {"vecpart", "vecfull"});
    const std::string k = pick(kinds);
    if (k == "var") {
      std::string n = name("v");
      emit("var " + n + " = " + expr(sc) + ";");
      sc.vars.push_back(n);
      sc.vals.push_back(n);
    } else if (k == "assign" && !sc.vars.empty()) {
      const std::string& v = pick(sc.vars);
      int op = below(4);
      if (op == 3)
        emit(v + "++;");
      else
        emit(v + (op == 2 ? " += " : " = ") + expr(sc) + ";");
    } else if (k == "ptrassign") {
      emit("*" + pick(sc.ptrs) + " = " + expr(sc) + ";");
    } else if (k == "wgstore") {
      emit("wg[" + expr(sc) + " & 15u] = " + expr(sc) + ";");
    } else if (k == "barrier") {
      emit(pick(std::vector<std::string>{"workgroupBarrier();", "storageBarrier();",
                                         "_ = workgroupUniformLoad(&wg[1]);"}));
    } else if (k == "callstmt" && !funcs_.empty()) {
      const Func& f = pick(funcs_);
      std::string c = call(f, sc, 0);
      if (!c.empty()) emit((f.ret ? "_ = " : "") + c + ";");
    } else if (k == "if") {
      emit("if (" + cond(sc) + ") {");
      block(sc, loop_depth, in_switch);
      if (chance(40)) {
        emit("} else {");
        block(sc, loop_depth, in_switch);
      }
      emit("}");
    } else if (k == "for") {
      std::string i = name("i");
      emit("for (var " + i + " = 0u; " + i + " < " + expr(sc, 1) + "; " + i + "++) {");
      Scope s = sc;
      s.vars.push_back(i);
      s.vals.push_back(i);
      block(s, loop_depth + 1, false);
      emit("}");
    } else if (k == "while") {
      emit("while (" + cond(sc) + ") {");
      block(sc, loop_depth + 1, false);
      emit("}");
    } else if (k == "loop") {
      emit("loop {");
      ++depth_;
      emit("if (" + cond(sc) + ") { break; }");
      --depth_;
      block(sc, loop_depth + 1, false);
      if (chance(50)) {
        ++depth_;
        emit("continuing {");
        ++depth_;
        if (!sc.vars.empty() && chance(50)) emit(pick(sc.vars) + " += 1u;");
        emit("break if " + cond(sc) + ";");
        --depth_;
        emit("}");
        --depth_;
      }
      emit("}");
    } else if (k == "switch") {
      emit("switch (" + expr(sc) + ") {");
      ++depth_;
      emit("case 0u, 1u: {");
      block(sc, loop_depth, true);
      emit("}");
      emit("default: {");
      block(sc, loop_depth, true);
      emit("}");
      --depth_;
      emit("}");
    } else if (k == "break") {
      emit("break;");
    } else if (k == "continue" && !in_switch) {
      emit("continue;");
    } else if (k == "return" && chance(30)) {
      emit(sc.ret ? "return " + expr(sc) + ";" : "return;");
    } else if (k == "vec") {
      std::string n = name("w");
      emit("var " + n + " = vec2u(" + expr(sc) + ", " + expr(sc) + ");");
      sc.vecs.push_back(n);
      sc.vals.insert(sc.vals.end(), {n + ".x", n + ".y", n + "[1]"});
      if (chance(30)) sc.vars.push_back(n + ".x");
    } else if (k == "vecpart") {
      const std::string& v = pick(sc.vecs);
      int form = below(3);
      if (form == 0)
        emit(v + ".x = " + expr(sc) + ";");
      else if (form == 1)
        emit(v + "[" + expr(sc) + " & 1u] = " + expr(sc) + ";");
      else
        emit(v + ".y += " + expr(sc) + ";");
    } else if (k == "vecfull") {
      const std::string& v = pick(sc.vecs);
      emit(chance(50) ? v + " = vec2u(" + expr(sc) + ");" : v + " = " + v + ".yx;");
    } else if (k == "arr") {
      std::string n = name("arr");
      emit("var " + n + ": array<u32, 4>;");
      emit(n + "[" + expr(sc) + " & 3u] = " + expr(sc) + ";");
      sc.vals.push_back(n + "[" + std::to_string(below(4)) + "]");
    } else if (k == "letptr") {
      std::vector<std::string> whole;
      for (const auto& v : sc.vars)
        if (v.find('.') == std::string::npos) whole.push_back(v);
      if (whole.empty()) return;
      std::string n = name("p");
      emit("let " + n + " = &" + pick(whole) + ";");
      sc.ptrs.push_back(n);
    } else if (k == "let") {
      std::string n = name("l");
      emit("let " + n + " = " + expr(sc) + ";");
      sc.vals.push_back(n);
    } else if (k == "subgroup") {
      int form = below(4);
      if (form == 0)
        emit("rw[0] = subgroupAdd(" + expr(sc) + ");");
      else if (form == 1)
        emit("rw[1] = subgroupBroadcastFirst(" + expr(sc) + ");");
      else if (form == 2)
        emit("rw[2] = subgroupShuffleXor(" + expr(sc) + ", 1u & " + expr(sc) + ");");
      else
        emit("rw[3] = u32(subgroupElect());");
    }
  }
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// WGSLVK_WRITE_GENERATED=DIR writes the programs (p00000.wgsl, ...) for uniformity_programs.mjs
// instead of checking them: as many as the committed file has, or WGSLVK_GENERATED_COUNT.
TEST(WgslUniformity, GeneratedProgramsAgreeWithDawn) {
  const char* root = std::getenv("WGSLVK_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "WGSLVK_SOURCE_DIR is set by CTest";
  const fs::path expected_path = fs::path(root) / "tests" / "wgsl" / "uniformity_programs.json";
  nlohmann::json expected;
  if (fs::exists(expected_path)) expected = nlohmann::json::parse(read_file(expected_path));
  if (const char* dir = std::getenv("WGSLVK_WRITE_GENERATED")) {
    const char* count_env = std::getenv("WGSLVK_GENERATED_COUNT");
    size_t count = count_env            ? size_t(std::strtoul(count_env, nullptr, 10))
                   : expected.is_null() ? 0
                                        : expected.at("programs").size();
    fs::create_directories(dir);
    for (size_t i = 0; i < count; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "p%05zu.wgsl", i);
      std::ofstream(fs::path(dir) / name, std::ios::binary) << ProgramGenerator(i).program();
    }
    GTEST_SKIP() << "wrote " << count << " programs to " << dir;
  }
  ASSERT_FALSE(expected.is_null()) << expected_path << " is missing";
  const auto& programs = expected.at("programs");
  ASSERT_GE(programs.size(), 500u);
  int rejected = 0, accepted = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    const auto& e = programs[i];
    const std::string src = ProgramGenerator(i).program();
    ASSERT_EQ(hex(fnv1a(src)), e.at("hash").get<std::string>())
        << "program " << i << " is not the one Dawn judged: the generator changed; rerun "
        << "tests/wgsl/uniformity_programs.mjs (see its header)";
    std::vector<Diagnostic> d = diagnose(src);
    if (e.at("verdict") == "accept") {
      ++accepted;
      EXPECT_TRUE(d.empty()) << "program " << i << ": Dawn accepts, we say " << d[0].str() << "\n"
                             << src;
      continue;
    }
    ++rejected;
    const uint32_t line = e.at("line").get<uint32_t>(), col = e.at("col").get<uint32_t>();
    ASSERT_FALSE(d.empty()) << "program " << i << ": Dawn rejects at " << line << ":" << col << " ("
                            << e.at("message").get<std::string>() << "), we accept\n"
                            << src;
    EXPECT_EQ(d[0].rule, "uniformity") << "program " << i << ": " << d[0].str();
    EXPECT_TRUE(d[0].line == line && d[0].col == col)
        << "program " << i << ": Dawn at " << line << ":" << col << " ("
        << e.at("message").get<std::string>() << "), ours " << d[0].str() << "\n"
        << src;
  }
  std::cout << programs.size() << " generated programs: " << accepted << " accepted, " << rejected
            << " rejected by the uniformity analysis, as Dawn\n";
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace wgslvk::wgsl
