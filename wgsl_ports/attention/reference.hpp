// CPU references of the causal attention kernels (attention.wgsl, attention_native.wgsl;
// TinyGPT's engineering log, the FlashAttention-2 section), in double precision.
// Plain functions over spans: no Vulkan, no runtime. Every op has a double-in/double-out form
// (a later CPU training reference chains them); the tests and the golden generators round the
// results once to f32.
//
// The log's lesson, kept: both halves of FA2 are pinned here before the WGSL. naive_* is the
// textbook algorithm (scores, causal softmax, weighted sum, keeping att[B,H,T,T]); fa2_* is the
// kernels' algorithm step for step (Q tiles of 16 rows, K/V blocks of 16 up to the diagonal,
// online softmax with (m, l, O), L = m + log(l); backward recomputing P = exp(s - L)). The tests
// check fa2_* == naive_* in double before any GPU output is compared.
//
// Layouts (every kernel): qkv [B*T, 3d] as the QKV projection writes it, d = H*hd: q of head h
// at columns h*hd.., k at d + h*hd.., v at 2d + h*hd..; out and dout [B*T, d] (heads
// concatenated: what the output projection reads); dqkv [B*T, 3d] like qkv; lse and dsum
// [B, H, T]; att and dscores [B, H, T, T] (row i = query, column j = key; j > i is 0).
//
// Precision model of the bounds (wgsl_ports/RULES.md "Precision" and the WGSL spec): + - *
// correctly rounded (u = 2^-24 relative), contraction allowed, x/y 2.5 ULP, exp(x) 3 + 2|x| ULP,
// log(x) 3 ULP outside [0.5, 2] and absolute 2^-21 inside, subnormals may flush. Inputs finite.
// "ULP of M" is the f32 spacing at |M| (f32_ulp_of), which exceeds u*M, so an error <= k u M is
// <= k ULP of M. See the bound functions at the end and README.md for the derivation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wgslvk/numeric.hpp"

namespace wgslvk::attention {

inline constexpr uint32_t kTile = 16;         // FA2: Q tile rows per workgroup = K/V block rows
inline constexpr uint32_t kMaxHeadDim = 128;  // FA2 kernels: private/workgroup arrays sized for it

// The kernels' uniform `p: AttnParams` (batch, seq, heads, head_dim, scale).
struct Shape {
  uint32_t batch = 1, seq = 1, heads = 1, head_dim = 1;
  double scale = 1.0;  // the uniform's f32 value (default_scale), widened exactly
  uint64_t d() const { return uint64_t(heads) * head_dim; }
  uint64_t rows() const { return uint64_t(batch) * seq; }
  uint64_t qkv_size() const { return rows() * 3 * d(); }
  uint64_t out_size() const { return rows() * d(); }
  uint64_t lse_size() const { return uint64_t(batch) * heads * seq; }
  uint64_t att_size() const { return lse_size() * seq; }
  uint32_t q_tiles() const { return (seq + kTile - 1) / kTile; }
};
// 1/sqrt(head_dim) rounded to f32: what the host writes into the uniform.
float default_scale(uint32_t head_dim);
// Shape with scale = double(default_scale(head_dim)).
Shape make_shape(uint32_t batch, uint32_t seq, uint32_t heads, uint32_t head_dim);

namespace ref {

using wgslvk::f32_ulp_of;
inline constexpr double kU = 0x1p-24;       // unit roundoff of f32
inline constexpr double kFlush = 0x1p-126;  // a product or exp result below it may flush to 0

// ---- naive attention (the log's starting point) -------------------------------------------------

// The three naive kernels one by one. scores[b,h,i,j] = scale * q_i . k_j for j <= i, else 0.
void naive_scores(const Shape& s, std::span<const double> qkv, std::span<double> scores);
// att = row-wise max-subtracted softmax over j <= i of `scores`, 0 above the diagonal; lse (may
// be empty) = m + log(sum exp(s - m)).
void naive_softmax(const Shape& s, std::span<const double> scores, std::span<double> att,
                   std::span<double> lse = {});
// out[b,i,h*hd+c] = sum_j<=i att[b,h,i,j] v_j[c].
void naive_weighted_sum(const Shape& s, std::span<const double> qkv, std::span<const double> att,
                        std::span<double> out);
// The three chained:
// att[b,h,i,j] = softmax_j<=i (scale * q_i . k_j), 0 for j > i (max-subtracted: no overflow for
// scores of +-1e4); out[b,i,h*hd+c] = sum_j att[b,h,i,j] v_j[c]. lse (optional, may be empty):
// L = m + log(sum_j exp(s_j - m)), the FA2 forward's saved statistic, for comparisons.
void naive_forward(const Shape& s, std::span<const double> qkv, std::span<double> att,
                   std::span<double> out, std::span<double> lse = {});
// attn_dsum: dsum[b,h,i] = sum_c dout[b,i,h*hd+c] * out[b,i,h*hd+c]  (= sum_j P_ij dP_ij).
void dsum(const Shape& s, std::span<const double> out, std::span<const double> dout,
          std::span<double> dsum_out);
// attn_dscores: dscores[b,h,i,j] = att_ij * (dout_i . v_j - dsum_i) for j <= i, else 0: the
// gradient with respect to the scaled score s_ij.
void naive_dscores(const Shape& s, std::span<const double> qkv, std::span<const double> att,
                   std::span<const double> dout, std::span<const double> dsum_in,
                   std::span<double> dscores);
// attn_dqkv: dq_i = scale sum_j<=i dS_ij k_j, dk_j = scale sum_i>=j dS_ij q_i,
// dv_j = sum_i>=j att_ij dout_i, in the packed layout.
void naive_dqkv(const Shape& s, std::span<const double> qkv, std::span<const double> att,
                std::span<const double> dout, std::span<const double> dscores,
                std::span<double> dqkv);
// The three above chained (dsum from `out`).
void naive_backward(const Shape& s, std::span<const double> qkv, std::span<const double> att,
                    std::span<const double> out, std::span<const double> dout,
                    std::span<double> dqkv);

// ---- FlashAttention-2 (the kernels' algorithm, in double) ---------------------------------------

// attn_fwd_fa2: per (b, h, Q tile of 16 rows), per row i: walk K/V blocks kb = 0 .. tile (the
// diagonal block last, keys j > i masked), s_j = scale q_i . k_j, m' = max(m, block max),
// alpha = exp(m - m'), p_j = exp(s_j - m'), l = l alpha + sum p, O = O alpha + sum p_j v_j;
// out = O / l, lse = m + log(l). No attention matrix.
void fa2_forward(const Shape& s, std::span<const double> qkv, std::span<double> out,
                 std::span<double> lse);
// attn_dscores_fa2 (dq, per Q tile walking K blocks up to the diagonal) and attn_dv_fa2 (dk and
// dv, per K tile walking Q blocks from the diagonal to the end), recomputing
// P_ij = exp(scale q_i . k_j - lse_i), dP_ij = dout_i . v_j, dS_ij = P_ij (dP_ij - dsum_i).
// Writes all of dqkv.
void fa2_backward(const Shape& s, std::span<const double> qkv, std::span<const double> dout,
                  std::span<const double> lse, std::span<const double> dsum_in,
                  std::span<double> dqkv);

// ---- bounds -------------------------------------------------------------------------------------
// Per output element: `err` is the largest |gpu - f32(reference)| the precision model allows
// (first-order propagation, derived in README.md "Bounds"), `mag` the named magnitude it is
// measured against (the sum of |terms| of the output's last reduction). A golden check's bound is
// err / ulp(mag) ULPs of mag (ulp_counts). Both the naive and the FA2 kernels are within these
// (the formulas take the larger of the two paths' terms), so |fa2 - naive| <= 2 err.
// The *_wide FA2 variants (attention_native.wgsl) are within the same bounds: the same K/V
// (Q) blocks of 16, so the same rescales; their dot products over hd are the same terms summed in
// another order (8 partial sums, then their sum), which the order-free (hd + 1)u S covers.
// attn_bwd_fa2_tiled (attention_native.wgsl) is within the backward bounds too: the same
// operations per term, its dq/dk/dv sums over blocks of 32 in another order (order-free bound).

// attn_scores: an hd-term dot product and the scale multiply, and the expected's rounding:
// err = (hd + 2) u S with S = |scale| sum_c |q_c k_c| (the magnitude); 0 (exact) above the diagonal.
void scores_bounds(const Shape& s, std::span<const double> qkv, std::span<double> err,
                   std::span<double> mag);

struct ForwardBounds {
  std::vector<double> out_err, out_mag;  // out: mag = sum_j P_ij |v_jc|
  std::vector<double> lse_err, lse_mag;  // lse: mag = |m_i| + log(l_i) (the final add's terms)
  std::vector<double> att_err;           // att (if asked for): magnitude att itself; 0 masked
};
ForwardBounds forward_bounds(const Shape& s, std::span<const double> qkv, bool with_att);

struct BackwardBounds {
  std::vector<double> dqkv_err, dqkv_mag;  // dq/dk: mag = |scale| sum P (|dP| + |dsum|) |k or q|;
                                           // dv: mag = sum_i P_ij |dout_ic|
  std::vector<double> dsum_err, dsum_mag;  // mag = sum_c |dout out|
  std::vector<double> dscores_err, dscores_mag;  // (if asked for) mag = P (|dP| + |dsum|)
};
// `fb`: the forward bounds, which also bound the f32 out/lse/att the backward kernels are given
// (rounded references or GPU forward outputs).
BackwardBounds backward_bounds(const Shape& s, std::span<const double> qkv,
                               std::span<const double> dout, const ForwardBounds& fb,
                               bool with_dscores);

// err_i / ulp(mag_i), rounded up: the per-element ULP counts of a golden check.
std::vector<float> ulp_counts(std::span<const double> err, std::span<const double> mag);

// ---- small helpers ------------------------------------------------------------------------------
std::vector<double> widen(std::span<const float> x);
std::vector<float> narrow(std::span<const double> x);  // round each to f32

}  // namespace ref
}  // namespace wgslvk::attention
