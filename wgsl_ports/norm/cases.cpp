// Golden cases of 04_norm.wgsl: layernorm forward (odd row counts, d = 80 / 96 / 768, rows with a
// large offset, a constant row, a 2-D grid) and backward (dx, and dgamma/dbeta through the
// partials and the finalize kernel, several rows_per_block); the same for norm_native.wgsl's
// lean pair (ours) and its finalize alone. Expected values and bounds:
// wgsl_ports/norm/reference.hpp.
#include <algorithm>
#include <cmath>

#include "norm/cases.hpp"
#include "norm/reference.hpp"
#include "wgslvk/kernels/norm/layernorm_backward.hpp"
#include "wgslvk/kernels/norm/layernorm_backward_dparams.hpp"
#include "wgslvk/kernels/norm/layernorm_backward_lean_dparams.hpp"
#include "wgslvk/kernels/norm/layernorm_forward.hpp"
#include "wgslvk/validate/case_builder.hpp"

namespace wgslvk::validate {
namespace {

namespace nref = wgslvk::norm::ref;
using wgslvk::norm::Shape;

namespace lnf = wgslvk::kernels::norm::layernorm_forward;
// The backward pair: the lean main kernel (norm_native.wgsl) has the port's bindings, names and
// LnParams; each finalize has its own header.
namespace lnb = wgslvk::kernels::norm::layernorm_backward;
namespace lnd = wgslvk::kernels::norm::layernorm_backward_dparams;
namespace lnd_lean = wgslvk::kernels::norm::layernorm_backward_lean_dparams;

constexpr float kEps = 1e-5f;

// LnParams (04_norm.wgsl and norm_native.wgsl declare the same struct: each kernel's header has
// its own copy, with the same layout).
template <class P>
P ln_params(Shape s, float eps, uint32_t rpb) {
  return P{.rows = s.rows, .d = s.d, .eps = eps, .rows_per_block = rpb};
}

// An f32 output checked within its per-element bound, then (when `tail`) the poisoned elements
// past it unchanged.
void check(CaseBuilder& b, const std::string& buf, const nref::Expected& e, uint64_t tail,
           const std::string& reason) {
  b.check_expected(buf, e, tail, reason,
                   "rows past `rows` store nothing: the poison after the output stays");
}

// Rows of x: uniform(-2, 2) scaled by a random binade, some rows shifted by a large offset (the
// mean's cancellation), one constant row (var = 0: rstd = 1/sqrt(eps)).
std::vector<float> random_x(Rng& r, Shape s) {
  std::vector<float> x(uint64_t(s.rows) * s.d);
  for (uint32_t row = 0; row < s.rows; ++row) {
    const double scale = std::ldexp(1.0, int(r.below(6)) - 3);
    const double offset = row % 5 == 3 ? 16.0 * (r.unit() - 0.5) : 0.0;
    for (uint32_t j = 0; j < s.d; ++j)
      x[uint64_t(row) * s.d + j] = float(offset + scale * (4 * r.unit() - 2));
  }
  if (s.rows > 2) std::fill_n(x.begin() + uint64_t(s.rows / 2) * s.d, s.d, 0.75f);
  return x;
}

std::vector<float> random_params(Rng& r, uint32_t n, double lo, double hi, bool sign) {
  std::vector<float> v(n);
  for (auto& x : v) {
    x = float(lo + (hi - lo) * r.unit());
    if (sign && (r.bits() & 1)) x = -x;
  }
  return v;
}

void set_grid(DispatchSpec& d, uint64_t n, const std::array<uint32_t, 3>* grid) {
  if (grid)
    d.workgroups = *grid;
  else
    d.workgroups_1d = n;
}

Case forward_case(uint64_t seed, Shape s, const std::array<uint32_t, 3>* grid,
                  const std::string& what) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  auto x = random_x(r, s);
  auto gamma = random_params(r, s.d, 0.5, 1.5, true);
  auto beta = random_params(r, s.d, -1, 1, false);
  const uint32_t rpw = norm::rows_per_workgroup(s.d);
  // Surplus segments of the last workgroup (and of an explicit grid) must write nothing.
  const uint64_t wgs = grid ? uint64_t((*grid)[0]) * (*grid)[1] : norm::forward_workgroups(s);
  const uint64_t rows_cover = wgs * rpw;
  const uint64_t tail_rows = rows_cover > s.rows ? std::min<uint64_t>(rows_cover - s.rows, 3) : 0;
  auto e = nref::forward_expected(x, gamma, beta, kEps, s);
  b.input("x", DType::F32, x);
  b.input("gamma", DType::F32, gamma);
  b.input("beta", DType::F32, beta);
  b.output("y", DType::F32, uint64_t(s.rows + tail_rows) * s.d);
  b.output("mean", DType::F32, s.rows + tail_rows);
  b.output("rstd", DType::F32, s.rows + tail_rows);
  auto& d = b.dispatch(lnf::Kernel{});
  CaseBuilder::bind(d, lnf::binding::lf_x, "x");
  CaseBuilder::bind(d, lnf::binding::lf_gamma, "gamma");
  CaseBuilder::bind(d, lnf::binding::lf_beta, "beta");
  CaseBuilder::bind(d, lnf::binding::lf_y, "y");
  CaseBuilder::bind(d, lnf::binding::lf_mean, "mean");
  CaseBuilder::bind(d, lnf::binding::lf_rstd, "rstd");
  CaseBuilder::bind_uniform(d, lnf::binding::lf, ln_params<lnf::LnParams>(s, kEps, 1));
  set_grid(d, norm::forward_workgroups(s), grid);
  check(b, "y", e.y, tail_rows * s.d,
        "y within 1.5 h + 19 + q/u ULPs of |gamma| rstd (|x - mean| + mean|x|) + |beta| "
        "(reference.hpp: row sums of depth h, the mean's error through rstd)");
  check(b, "mean", e.mean, tail_rows,
        "mean within h + 6 ULPs of mean|x| (a sum of depth h, a division)");
  check(b, "rstd", e.rstd, tail_rows,
        "rstd within h/2 + 10 + q/u ULPs of rstd (positive sum, division, inverseSqrt 2 ULP)");
  return b.c;
}

// The backward pairs: 04_norm.wgsl's port and norm_native.wgsl's (ours), same ABI, same
// reference; the bounds differ only in the summation depths (reference.hpp).
// Lean: layernorm_backward_lean (the port's layernorm_backward past kLeanMaxD) +
// layernorm_backward_lean_dparams.
enum class Bwd { Port, Lean };

Case backward_case(uint64_t seed, Shape s, uint32_t rpb, const std::array<uint32_t, 3>* grid,
                   const std::string& what, Bwd variant = Bwd::Port, uint32_t finalize_rows = 0) {
  const bool lean = variant == Bwd::Lean;
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  auto x = random_x(r, s);
  auto gamma = random_params(r, s.d, 0.5, 1.5, true);
  std::vector<float> dy(uint64_t(s.rows) * s.d);
  for (auto& v : dy) v = r.uniform(-1, 1);
  std::vector<float> mean(s.rows), rstd(s.rows);
  nref::saved_row_stats(x, s, kEps, mean, rstd);
  auto e = lean ? nref::lean_backward_expected(x, gamma, dy, mean, rstd, s, rpb)
                : nref::backward_expected(x, gamma, dy, mean, rstd, s, rpb);
  b.input("x", DType::F32, x);
  b.input("gamma", DType::F32, gamma);
  b.input("dy", DType::F32, dy);
  b.input("mean", DType::F32, mean);
  b.input("rstd", DType::F32, rstd);
  b.output("dx", DType::F32, x.size());
  b.output("partials", DType::F32, norm::partials_count(s, rpb));
  b.output("dgamma", DType::F32, s.d);
  b.output("dbeta", DType::F32, s.d);
  auto& d = b.dispatch(lean ? std::string(norm::lean_main_kernel(s.d)) : std::string(lnb::name),
                       "dx and the blocks' partials");
  CaseBuilder::bind(d, lnb::binding::lb_x, "x");
  CaseBuilder::bind(d, lnb::binding::lb_gamma, "gamma");
  CaseBuilder::bind(d, lnb::binding::lb_dy, "dy");
  CaseBuilder::bind(d, lnb::binding::lb_mean, "mean");
  CaseBuilder::bind(d, lnb::binding::lb_rstd, "rstd");
  CaseBuilder::bind(d, lnb::binding::lb_dx, "dx");
  CaseBuilder::bind(d, lnb::binding::lb_partials, "partials");
  CaseBuilder::bind_uniform(d, lnb::binding::lb, ln_params<lnb::LnParams>(s, kEps, rpb));
  set_grid(d, norm::backward_blocks(s, rpb), grid);
  // finalize_rows (tests only): a host that tells the finalize another row count.
  const Shape fs{finalize_rows ? finalize_rows : s.rows, s.d};
  if (lean) {
    auto& f = b.dispatch(lnd_lean::Kernel{}, "dgamma, dbeta from the partials");
    CaseBuilder::bind(f, lnd_lean::binding::ld_partials, "partials");
    CaseBuilder::bind(f, lnd_lean::binding::ld_dgamma, "dgamma");
    CaseBuilder::bind(f, lnd_lean::binding::ld_dbeta, "dbeta");
    CaseBuilder::bind_uniform(f, lnd_lean::binding::ld,
                              ln_params<lnd_lean::LnParams>(fs, kEps, rpb));
  } else {
    auto& f = b.dispatch(lnd::Kernel{}, "dgamma, dbeta from the partials");
    CaseBuilder::bind(f, lnd::binding::ld_partials, "partials");
    CaseBuilder::bind(f, lnd::binding::ld_dgamma, "dgamma");
    CaseBuilder::bind(f, lnd::binding::ld_dbeta, "dbeta");
    CaseBuilder::bind_uniform(f, lnd::binding::ld, ln_params<lnd::LnParams>(fs, kEps, rpb));
  }
  auto& f = b.c.dispatches.back();
  f.workgroups_1d = lean ? norm::lean_dparams_workgroups(s) : norm::dparams_workgroups(s);
  check(b, "dx", e.dx, 0,
        "dx within h + 15 ULPs of rstd (|g| + mean|g| + |xhat| mean|g xhat|) (two row sums of "
        "depth h, divisions, subtractions; reference.hpp)");
  check(b, "dgamma", e.dgamma, 0,
        "dgamma within H + 5 ULPs of sum|dy xhat| (H: the kernels' fixed order of adds over rows)");
  check(b, "dbeta", e.dbeta, 0, "dbeta within H + 2 ULPs of sum|dy|");
  return b.c;
}

// A finalize alone, on given partials: per column the sum over blocks of the dgamma (and dbeta)
// partials, within depth + 1 ULPs of the sum of |partials| (reference.hpp dparams_expected).
// Depths: layernorm_backward_dparams ceil(n_blocks / 16) per lane + 15 over lanes;
// layernorm_backward_lean_dparams
// ceil(n_blocks / 256) + 8 (lean_finalize_depth).
enum class Fin { Port, Lean };

Case dparams_case(uint64_t seed, Shape s, uint32_t rpb, const std::string& what, Fin kind) {
  Rng r(seed);
  CaseBuilder b;
  b.c.description = what;
  const uint64_t nb = norm::backward_blocks(s, rpb);
  std::vector<float> partials(norm::partials_count(s, rpb));
  for (auto& v : partials) v = r.log_uniform(-6, 4);
  const double depth =
      kind == Fin::Lean ? double(norm::lean_finalize_depth(s, rpb)) : double((nb + 15) / 16 + 15);
  auto e = nref::dparams_expected(partials, s, nb, depth);
  b.input("partials", DType::F32, partials);
  b.output("dgamma", DType::F32, s.d + 4);
  b.output("dbeta", DType::F32, s.d + 4);
  if (kind == Fin::Lean) {
    auto& f = b.dispatch(lnd_lean::Kernel{});
    CaseBuilder::bind(f, lnd_lean::binding::ld_partials, "partials");
    CaseBuilder::bind(f, lnd_lean::binding::ld_dgamma, "dgamma");
    CaseBuilder::bind(f, lnd_lean::binding::ld_dbeta, "dbeta");
    CaseBuilder::bind_uniform(f, lnd_lean::binding::ld,
                              ln_params<lnd_lean::LnParams>(s, kEps, rpb));
  } else {
    auto& f = b.dispatch(lnd::Kernel{});
    CaseBuilder::bind(f, lnd::binding::ld_partials, "partials");
    CaseBuilder::bind(f, lnd::binding::ld_dgamma, "dgamma");
    CaseBuilder::bind(f, lnd::binding::ld_dbeta, "dbeta");
    CaseBuilder::bind_uniform(f, lnd::binding::ld, ln_params<lnd::LnParams>(s, kEps, rpb));
  }
  auto& f = b.c.dispatches.back();
  f.workgroups_1d =
      kind == Fin::Lean ? norm::lean_dparams_workgroups(s) : norm::dparams_workgroups(s);
  check(b, "dgamma", e.dgamma, 4,
        "sum over blocks in the kernel's fixed order: depth + 1 ULPs of sum|partials| (depth: " +
            std::to_string(int(depth)) + " adds on a term's path)");
  check(b, "dbeta", e.dbeta, 4, "the same for the dbeta partials");
  return b.c;
}

const uint32_t kDs[] = {80, 96, 768};

// Random partials over binades for a finalize: rows 1..300, d from kDs, rows_per_block in
// [rpb_lo, rpb_lo + rpb_span).
Case dparams_random(uint64_t seed, uint64_t salt, uint32_t rpb_lo, uint32_t rpb_span, Fin kind) {
  Rng r(seed ^ salt);
  const Shape s{1 + r.below(300), kDs[r.below(3)]};
  const uint32_t rpb = rpb_lo + r.below(rpb_span);
  return dparams_case(seed, s, rpb,
                      "random partials over binades, " +
                          std::to_string(norm::backward_blocks(s, rpb)) + " blocks, d " +
                          std::to_string(s.d) + " (columns past d write nothing)",
                      kind);
}

Case forward_basic(uint64_t seed) {
  Rng r(seed ^ 0x4e31);
  Shape s{1 + r.below(12), kDs[r.below(3)]};
  return forward_case(seed, s, nullptr,
                      "random rows (binades, offsets, one constant row), d " + std::to_string(s.d) +
                          ", rows " + std::to_string(s.rows));
}
Case forward_d80(uint64_t seed) {
  return forward_case(seed, {37, 80}, nullptr,
                      "d = 80 (20 vec4s over 8 lanes, 32 rows per workgroup), 37 rows: the last "
                      "workgroup's 27 surplus segments write nothing");
}
Case forward_d96(uint64_t seed) {
  return forward_case(seed, {29, 96}, nullptr, "d = 96 (the Small preset), 29 rows");
}
Case forward_d768(uint64_t seed) {
  return forward_case(
      seed, {3, 768}, nullptr,
      "d = 768 (GPT-2 small): 64 lanes per row holding 3 vec4s each, 4 rows per workgroup");
}
Case forward_d1040(uint64_t seed) {
  return forward_case(
      seed, {2, 1040}, nullptr,
      "d = 1040: 260 vec4s over 128 lanes (3 per lane, the third only for lanes < 4)");
}
Case forward_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 2, 1};
  return forward_case(seed, {100, 96}, &grid,
                      "a 2 x 2 workgroup grid (row = (wid.y * nwg.x + wid.x) * 32 + segment): 128 "
                      "row slots for 100 rows");
}

Case backward_basic(uint64_t seed) {
  Rng r(seed ^ 0x4e32);
  Shape s{1 + r.below(16), kDs[r.below(3)]};
  const uint32_t rpw = norm::rows_per_workgroup(s.d);
  const uint32_t rpb = r.below(2) ? norm::default_rows_per_block(s) : 1 + r.below(3 * rpw);
  return backward_case(seed, s, rpb, nullptr,
                       "random rows, d " + std::to_string(s.d) + ", rows " +
                           std::to_string(s.rows) + ", rows_per_block " + std::to_string(rpb));
}
Case backward_blocks_d96(uint64_t seed) {
  return backward_case(seed, {53, 96}, 5, nullptr,
                       "d = 96, 53 rows in blocks of 5 (fewer than the 32 segments: 27 idle; a "
                       "partial last block), 11 partials summed");
}
Case backward_d80_two_rows(uint64_t seed) {
  return backward_case(seed, {80, 80}, 64, nullptr,
                       "d = 80, 80 rows in blocks of 64: each of the 32 segments adds 2 rows in "
                       "order; the last block has 16 rows (16 segments idle)");
}
Case backward_d768(uint64_t seed) {
  return backward_case(seed, {7, 768}, 8, nullptr,
                       "d = 768 (4 segments of 64 lanes): 7 rows in one block of 8, two rows per "
                       "segment for 3 segments");
}
Case backward_d1040(uint64_t seed) {
  return backward_case(seed, {3, 1040}, 2, nullptr,
                       "d = 1040: 128 lanes, register slots k = 0..2 (k = 2 only for lanes < 4)");
}
Case backward_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 3, 1};
  return backward_case(seed, {40, 128}, 8, &grid,
                       "a 2 x 3 grid for 5 blocks of 8 rows (8 of 32 segments busy): block = "
                       "wid.y * nwg.x + wid.x, the 6th exits");
}

Case dparams_basic(uint64_t seed) { return dparams_random(seed, 0x4e33, 1, 16, Fin::Port); }
Case dparams_37_blocks(uint64_t seed) {
  return dparams_case(seed, {37, 100}, 1,
                      "37 blocks (lanes 0..4 add 3, the rest 2), d = 100: the "
                      "7th workgroup holds 4 columns, 12 idle",
                      Fin::Port);
}

// ---- norm_native.wgsl (ours): layernorm_backward_lean + layernorm_backward_lean_dparams --------

Case lean_basic(uint64_t seed) {
  Rng r(seed ^ 0x4e36);
  const uint32_t ds[] = {20, 80, 96, 100, 768};
  Shape s{1 + r.below(40), ds[r.below(5)]};
  const uint32_t rpw = norm::lean_rows_per_workgroup(s.d);
  const uint32_t rpb = r.below(2) ? norm::lean_rows_per_block(s) : 1 + r.below(3 * rpw);
  return backward_case(seed, s, rpb, nullptr,
                       "random rows, d " + std::to_string(s.d) + ", rows " +
                           std::to_string(s.rows) + ", rows_per_block " + std::to_string(rpb),
                       Bwd::Lean);
}
Case lean_d20(uint64_t seed) {
  return backward_case(seed, {61, 20}, 7, nullptr,
                       "d = 20 (5 vec4s over 8 lanes: slot 1 idle everywhere, slot 0 idle for "
                       "lanes 5..7; clamped loads discarded), 61 rows in blocks of 7 (9 blocks, "
                       "the last of 5 rows, 25 of 32 segments idle)",
                       Bwd::Lean);
}
Case lean_d100(uint64_t seed) {
  return backward_case(seed, {45, 100}, 32, nullptr,
                       "d = 100 (25 vec4s over 16 lanes: slot 1 for lanes < 9), 45 rows: a block "
                       "of 32 rows (2 row groups of 16), a second of 13",
                       Bwd::Lean);
}
Case lean_d768(uint64_t seed) {
  return backward_case(seed, {9, 768}, 8, nullptr,
                       "d = 768 (128 lanes per row, slot 1 for lanes < 64; 16 groups of 8 per "
                       "row), 9 rows in blocks of 8: block 0 walks 4 row groups, block 1 one row "
                       "and an idle segment",
                       Bwd::Lean);
}
Case lean_d1040(uint64_t seed) {
  return backward_case(seed, {3, 1040}, 2, nullptr,
                       "d = 1040: 260 vec4s over 256 lanes (slot 1 only for lanes < 4), one row "
                       "per row group",
                       Bwd::Lean);
}
Case lean_d2048(uint64_t seed) {
  return backward_case(seed, {5, 2048}, 3, nullptr,
                       "d = 2048 = kLeanMaxD: 256 lanes, both slots busy, blocks of 3 rows",
                       Bwd::Lean);
}
Case lean_d4096(uint64_t seed) {
  return backward_case(seed, {3, 4096}, 3, nullptr,
                       "d = 4096 = kMaxD, past kLeanMaxD: the port's layernorm_backward (the same "
                       "partials) finalized by layernorm_backward_lean_dparams",
                       Bwd::Lean);
}
Case lean_600_blocks(uint64_t seed) {
  return backward_case(seed, {600, 8}, 1, nullptr,
                       "600 blocks of 1 row, d = 8: the finalize's lanes < 88 add 3 blocks, the "
                       "rest 2; its 2 workgroups one vec4 column each",
                       Bwd::Lean);
}
Case lean_grid_2d(uint64_t seed) {
  static const std::array<uint32_t, 3> grid{2, 3, 1};
  return backward_case(seed, {40, 128}, 8, &grid,
                       "a 2 x 3 grid for 5 blocks of 8 rows (8 of 16 segments busy): block = "
                       "wid.y * nwg.x + wid.x, the 6th exits",
                       Bwd::Lean);
}
Case lean_dparams_basic(uint64_t seed) { return dparams_random(seed, 0x4e37, 1, 16, Fin::Lean); }
Case lean_dparams_600_blocks(uint64_t seed) {
  return dparams_case(seed, {600, 20}, 1,
                      "600 blocks (lanes < 88 add 3, the rest 2), d = 20: 5 workgroups, one vec4 "
                      "column each",
                      Fin::Lean);
}

}  // namespace

void register_norm(std::vector<Generator>& g) {
  const std::string src = "wgsl_ports/norm/cases.cpp";
  auto add = [&](const char* k, const char* n, uint64_t seed, bool rnd, Case (*f)(uint64_t)) {
    g.push_back({std::string("norm/") + k, n, seed, rnd, f, src});
  };
  add("layernorm_forward", "basic", 4001, true, forward_basic);
  add("layernorm_forward", "d80_surplus_segments", 4002, false, forward_d80);
  add("layernorm_forward", "d96", 4003, false, forward_d96);
  add("layernorm_forward", "d768", 4004, false, forward_d768);
  add("layernorm_forward", "d1040", 4005, false, forward_d1040);
  add("layernorm_forward", "grid_2d", 4006, false, forward_grid_2d);
  add("layernorm_backward", "basic", 4101, true, backward_basic);
  add("layernorm_backward", "blocks_d96", 4102, false, backward_blocks_d96);
  add("layernorm_backward", "d80_two_rows_per_segment", 4103, false, backward_d80_two_rows);
  add("layernorm_backward", "d768", 4104, false, backward_d768);
  add("layernorm_backward", "d1040", 4105, false, backward_d1040);
  add("layernorm_backward", "grid_2d", 4106, false, backward_grid_2d);
  add("layernorm_backward_lean", "basic", 4401, true, lean_basic);
  add("layernorm_backward_lean", "d20_blocks_of_7", 4402, false, lean_d20);
  add("layernorm_backward_lean", "d100_partial_block", 4403, false, lean_d100);
  add("layernorm_backward_lean", "d768", 4404, false, lean_d768);
  add("layernorm_backward_lean", "d1040", 4405, false, lean_d1040);
  add("layernorm_backward_lean", "d2048", 4406, false, lean_d2048);
  add("layernorm_backward_lean", "d4096_port_main", 4407, false, lean_d4096);
  add("layernorm_backward_lean", "blocks_600_d8", 4408, false, lean_600_blocks);
  add("layernorm_backward_lean", "grid_2d", 4409, false, lean_grid_2d);
  add("layernorm_backward_lean_dparams", "basic", 4451, true, lean_dparams_basic);
  add("layernorm_backward_lean_dparams", "blocks_600_d20", 4452, false, lean_dparams_600_blocks);
  add("layernorm_backward_dparams", "basic", 4151, true, dparams_basic);
  add("layernorm_backward_dparams", "blocks_37_d100", 4152, false, dparams_37_blocks);
}
WGSLVK_REGISTER_GENERATORS(register_norm);

Case norm_lean_backward_case(uint64_t seed, norm::Shape s, uint32_t rows_per_block,
                             uint32_t finalize_rows) {
  return backward_case(seed, s, rows_per_block, nullptr,
                       "lean backward, rows " + std::to_string(s.rows) + ", d " +
                           std::to_string(s.d) + ", rows_per_block " +
                           std::to_string(rows_per_block),
                       Bwd::Lean, finalize_rows);
}

}  // namespace wgslvk::validate
