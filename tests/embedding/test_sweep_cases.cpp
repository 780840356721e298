// The bench's sweep cases (wgsl_ports/embedding/cases.hpp, timed by `wgslvk bench` through
// time_case) run and pass under validate's Runner at a small shape: the generated table and
// gradients, the renumbered tokens, the checked first rows. A broken case fails: the checked rows'
// tokens moved (lookup: other rows copied) or the backward's gradients changed after the expected
// values were computed. Bad arguments are refused naming the argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "embedding/cases.hpp"
#include "embedding/embedding.hpp"
#include "support/test_device.hpp"
#include "wgslvk/bench/stats.hpp"
#include "wgslvk/validate/runner.hpp"
#include "wgslvk/kernels/embedding/embed_backward.hpp"
#include "wgslvk/kernels/embedding/embed_backward_atomic_float.hpp"
#include "wgslvk/kernels/embedding/embed_backward_deterministic.hpp"
#include "wgslvk/kernels/embedding/embed_backward_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_rows.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16.hpp"
#include "wgslvk/kernels/embedding/embed_lookup_w16_rows.hpp"

namespace wgslvk::embedding {
namespace {

using testing::device;
using validate::CaseResult;

namespace ek = kernels::embedding;
constexpr std::string_view kKernels[] = {ek::embed_lookup::name,
                                         ek::embed_lookup_w16::name,
                                         ek::embed_lookup_rows::name,
                                         ek::embed_lookup_w16_rows::name,
                                         ek::embed_backward::name,
                                         ek::embed_backward_atomic_float::name,
                                         ek::embed_backward_deterministic::name,
                                         ek::embed_backward_rows::name};

CaseResult run(const validate::Case& c) {
  validate::Runner runner(device());
  return runner.run(c);
}

TEST(EmbeddingSweepCases, EveryKernelPassesWithGeneratedInputsAndCheckedFirstRows) {
  for (std::string_view k : kKernels) {
    SCOPED_TRACE(std::string(k));
    validate::Case c = embedding_sweep_case(std::string(k), 100, 40, 300, 16);
    if (validate::Runner(device()).case_unsupported_reason(c) != "") continue;
    // the big inputs are generated: a dump stays small at 131072 x 4096
    const validate::BufferSpec* big =
        c.find_buffer(std::string(k).find("lookup") != std::string::npos ? "table" : "grad_table");
    ASSERT_NE(big, nullptr);
    EXPECT_EQ(big->kind, validate::BufferSpec::Kind::Generate);
    uint64_t checked = 0;
    for (const auto& chk : c.checks) checked = std::max(checked, chk.range_end());
    EXPECT_EQ(checked, 16u * 40) << "the first 16 rows are checked";
    CaseResult r = run(c);
    EXPECT_EQ(r.status, CaseResult::Status::Pass) << r.message;
  }
}

TEST(EmbeddingSweepCases, ABrokenCaseFails) {
  {  // lookup: the first position's token changed after the expected rows were computed
    validate::Case c = embedding_sweep_case(std::string(ek::embed_lookup::name), 100, 40, 300, 16);
    auto& tok = const_cast<validate::BufferSpec&>(*c.find_buffer("tokens"));
    uint32_t t0;
    std::memcpy(&t0, tok.data.bytes.data(), 4);
    t0 = (t0 + 1) % 300;
    std::memcpy(tok.data.bytes.data(), &t0, 4);
    EXPECT_EQ(run(c).status, CaseResult::Status::Fail);
  }
  {  // the row-wise lookup launched with one workgroup: rows 4.. of the checked 16 never written
    validate::Case c =
        embedding_sweep_case(std::string(ek::embed_lookup_rows::name), 100, 40, 300, 16);
    ASSERT_EQ(c.dispatches.size(), 1u);
    ASSERT_EQ(c.dispatches[0].workgroups_1d, embedding::lookup_rows_workgroups(100, 40));
    c.dispatches[0].workgroups_1d = 1;
    EXPECT_EQ(run(c).status, CaseResult::Status::Fail);
  }
  {  // backward: other gradients than the reference summed
    validate::Case c =
        embedding_sweep_case(std::string(ek::embed_backward_deterministic::name), 100, 40, 300, 16);
    auto& go = const_cast<validate::BufferSpec&>(*c.find_buffer("grad_out"));
    go.gen.seed += 1;
    EXPECT_EQ(run(c).status, CaseResult::Status::Fail);
  }
}

TEST(EmbeddingSweepCases, TokensKeepTheHashedIdsDistinctCountAndFeedTheFirstRows) {
  for (auto [seq, vocab] : {std::pair{128u, 16384u}, {512u, 16384u}, {40u, 5u}}) {
    auto t = sweep_tokens(seq, vocab);
    std::set<uint32_t> hashed, got(t.begin(), t.end());
    for (uint32_t s = 0; s < seq; ++s) hashed.insert(bench::hash32(s * 0x9e3779b9u + 17) % vocab);
    EXPECT_EQ(got.size(), hashed.size()) << "a renumbering keeps the distinct count (bench bytes)";
    std::vector<uint32_t> seen;  // the first distinct ids of the first 16 positions, in order
    for (uint32_t s = 0; s < std::min(seq, 16u); ++s)
      if (std::find(seen.begin(), seen.end(), t[s]) == seen.end()) seen.push_back(t[s]);
    for (uint32_t k = 0; k < std::min<size_t>(seen.size(), 8); ++k)
      EXPECT_EQ(seen[k], k) << "the " << k << "-th distinct id is renumbered to row " << k;
  }
}

TEST(EmbeddingSweepCases, BadArgumentsAreRefused) {
  // A name no kernel has: by string, since the by-name API's refusal is what is tested.
  EXPECT_THROW(embedding_sweep_case("embedding/embed_nothing", 10, 8, 10, 4),
               std::invalid_argument);
  EXPECT_THROW(embedding_sweep_case(std::string(ek::embed_lookup::name), 0, 8, 10, 4),
               std::invalid_argument);
  EXPECT_THROW(sweep_tokens(10, 0), std::invalid_argument);
  // the row-wise lookups need whole vec4 rows
  EXPECT_THROW(embedding_sweep_case(std::string(ek::embed_lookup_rows::name), 10, 6, 10, 4),
               std::invalid_argument);
  EXPECT_THROW(embedding_sweep_case(std::string(ek::embed_lookup_w16_rows::name), 10, 6, 10, 4),
               std::invalid_argument);
}

}  // namespace
}  // namespace wgslvk::embedding
