// The bench's sweep cases (wgsl_ports/optimizer/cases.hpp, timed by `wgslvk bench` through
// time_case) run and pass under validate's Runner at small sizes that are not multiples of 256:
// generated inputs (NaN/Inf gradients among them), the first `checked` elements checked (the
// 8-bit kernels: whole blocks), the reductions' whole result. A broken case fails (a learning rate
// other than the reference's; data changed after the reference summed it). Bad arguments are
// refused naming the argument.
#include <gtest/gtest.h>

#include <algorithm>

#include "optimizer/cases.hpp"
#include "support/test_device.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_8bit_update_vec4.hpp"
#include "wgslvk/kernels/optimizer/adamw_update.hpp"
#include "wgslvk/kernels/optimizer/adamw_update_f16.hpp"
#include "wgslvk/validate/case_builder.hpp"
#include "wgslvk/validate/runner.hpp"

namespace wgslvk::optimizer {
namespace {

using testing::device;
using validate::CaseResult;
namespace ok = kernels::optimizer;

CaseResult run(const validate::Case& c) { return validate::Runner(device()).run(c); }

uint64_t checked_end(const validate::Case& c, const std::string& buffer) {
  uint64_t end = 0;
  for (const auto& k : c.checks)
    if (k.buffer == buffer) end = std::max(end, k.range_end());
  return end;
}

TEST(OptimizerSweepCases, UpdateKernelsPassWithACheckedPrefix) {
  int ran = 0;
  for (std::string_view name : {ok::adamw_update::name, ok::adamw_update_f16::name,
                                ok::adamw_8bit_update::name, ok::adamw_8bit_update_vec4::name}) {
    const std::string k(name);
    SCOPED_TRACE(k);
    validate::Case c = adamw_sweep_case(k, 70001, 3000);
    if (validate::Runner(device()).case_unsupported_reason(c) != "") continue;
    EXPECT_EQ(c.find_buffer("w")->kind, validate::BufferSpec::Kind::Generate);
    const bool q8 = k.find("8bit") != std::string::npos;
    EXPECT_EQ(checked_end(c, "w"), q8 ? 3072u : 3000u) << "8-bit: rounded up to whole blocks";
    const bool v4 = k == ok::adamw_8bit_update_vec4::name;
    EXPECT_EQ(c.find_buffer("w")->count, v4 ? 70004u : 70001u) << "vec4: w padded to whole vec4s";
    CaseResult r = run(c);
    EXPECT_EQ(r.status, CaseResult::Status::Pass) << r.message;
    ++ran;
  }
  EXPECT_GE(ran, 3) << "adamw_update and the 8-bit kernels need no optional feature";
  // checked >= n: everything, including a partial last block and word (vec4: a partial vec4)
  for (std::string_view name : {ok::adamw_8bit_update::name, ok::adamw_8bit_update_vec4::name}) {
    const std::string k(name);
    CaseResult r = run(adamw_sweep_case(k, 1001, 1 << 20));
    EXPECT_EQ(r.status, CaseResult::Status::Pass) << k << ": " << r.message;
  }
}

TEST(OptimizerSweepCases, NormCasesPass) {
  for (auto [n, wgs] : {std::pair{100003ull, 64u}, {5000ull, 1u}, {70000ull, 300u}}) {
    SCOPED_TRACE("n " + std::to_string(n) + " wg " + std::to_string(wgs));
    CaseResult r = run(reduce_sweep_case(n, wgs));
    EXPECT_EQ(r.status, CaseResult::Status::Pass) << r.message;
    for (TwoLevelPart p : {TwoLevelPart::Both, TwoLevelPart::Reduce, TwoLevelPart::Finalize}) {
      r = run(norm_two_level_sweep_case(n, wgs, p));
      EXPECT_EQ(r.status, CaseResult::Status::Pass) << int(p) << ": " << r.message;
    }
  }
}

TEST(OptimizerSweepCases, ABrokenCaseFails) {
  {  // adamw_update with twice the reference's learning rate (its hp uniform)
    validate::Case c = adamw_sweep_case(std::string(ok::adamw_update::name), 5000, 5000);
    for (auto& b : c.dispatches[0].bindings)
      if (b.binding == ok::adamw_update::binding::hp.binding) {
        b.inline_values = validate::CaseBuilder::f32s({2e-3f, 0.9f, 0.999f, 0.01f});
        b.inline_bytes = validate::encode_inline(b.inline_values, "test");
      }
    EXPECT_EQ(run(c).status, CaseResult::Status::Fail);
  }
  {  // reduce_norm_sq over other data than the reference summed
    validate::Case c = reduce_sweep_case(20000, 8);
    const_cast<validate::BufferSpec*>(c.find_buffer("data"))->gen.seed += 1;
    EXPECT_EQ(run(c).status, CaseResult::Status::Fail);
  }
}

TEST(OptimizerSweepCases, BadArgumentsAreRefused) {
  // adamw_one_call: a kernel the sweep has no case for
  EXPECT_THROW(adamw_sweep_case("optimizer/adamw_one_call", 100, 10), std::invalid_argument);
  EXPECT_THROW(adamw_sweep_case(std::string(ok::adamw_update::name), 0, 10), std::invalid_argument);
  EXPECT_THROW(reduce_sweep_case(uint64_t(1) << 32, 4), std::invalid_argument);
  EXPECT_THROW(norm_two_level_sweep_case(100, 0, TwoLevelPart::Both), std::invalid_argument);
}

}  // namespace
}  // namespace wgslvk::optimizer
