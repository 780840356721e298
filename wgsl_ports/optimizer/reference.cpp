#include "reference.hpp"

#include "wgslvk/numeric.hpp"  // header-only, no Vulkan

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace wgslvk::optimizer {
namespace {

void check_sizes(const char* fn, size_t n, std::initializer_list<size_t> others) {
  for (size_t s : others)
    if (s != n)
      throw std::invalid_argument(std::string(fn) + ": input spans differ in length (" +
                                  std::to_string(n) + " vs " + std::to_string(s) + ")");
}

// The update math in double, shared by adamw_update, adamw_update_f16 and the 8-bit kernel.
void adam_element(double w, double grad, double m, double v, double b1c, double b2c,
                  const AdamWUniforms& u, AdamWExpected& out, size_t i, bool divide_bc = false) {
  double b1 = u.beta1, b2 = u.beta2, lr = u.lr, wd = u.weight_decay, eps = u.eps;
  double m_new = b1 * m + (1.0 - b1) * grad;
  double v_new = b2 * v + (1.0 - b2) * grad * grad;
  double m_hat = divide_bc ? m_new / b1c : m_new * b1c;
  double v_hat = divide_bc ? v_new / b2c : v_new * b2c;
  double denom = std::sqrt(v_hat) + eps;
  double step = m_hat / denom + wd * w;
  double w_new = w - lr * step;
  out.w[i] = float(w_new);
  out.m[i] = float(m_new);
  out.v[i] = float(v_new);

  double m1 = std::max(std::abs(b1 * m), std::abs((1.0 - b1) * grad));
  double msum = std::abs(b1 * m) + std::abs((1.0 - b1) * grad);
  double corr = divide_bc ? 1.0 / b1c : b1c;
  double s = corr * msum / denom + std::abs(wd * w);
  out.m_tol[i] = kMBound.ulp * f32_ulp_of(m1);
  out.v_tol[i] = kVBound.ulp * f32_ulp_of(v_new);
  out.w_tol[i] = kWOldBound.ulp * f32_ulp_of(std::max(std::abs(w), std::abs(w_new))) +
                 kWStepBound.ulp * f32_ulp_of(lr * s);
}

void resize(AdamWExpected& e, size_t n) {
  for (auto* v : {&e.w, &e.m, &e.v}) v->assign(n, 0.0f);
  for (auto* v : {&e.w_tol, &e.m_tol, &e.v_tol}) v->assign(n, 0.0);
}

}  // namespace

// ---- reduce / finalize -------------------------------------------------------------------------

double reduce_norm_sq_exact(std::span<const float> data) {
  double s = 0;
  for (float x : data)
    if (is_finite_bits(x)) s += double(x) * double(x);
  return s;
}

float reduce_norm_sq_reference(std::span<const float> data) {
  return float(reduce_norm_sq_exact(data));
}

uint32_t reduce_norm_sq_ulp_bound(uint64_t n, uint64_t threads, uint64_t workgroups) {
  uint64_t k = threads ? (n + threads - 1) / threads : n;
  return uint32_t(k + 8 + workgroups + 1);
}

GradStats finalize_grad_stats_reference(float sum, float max_grad_norm) {
  double norm = std::sqrt(double(sum));
  double clip = std::min(1.0, double(max_grad_norm) / std::max(double(float(norm)), 1e-6));
  return {float(norm), float(clip)};
}

// ---- AdamW -------------------------------------------------------------------------------------

AdamWExpected adamw_update_reference(std::span<const float> w, std::span<const float> g,
                                     std::span<const float> m, std::span<const float> v, float clip,
                                     const AdamWUniforms& u) {
  const size_t n = w.size();
  check_sizes("adamw_update_reference", n, {g.size(), m.size(), v.size()});
  AdamWExpected out;
  resize(out, n);
  // the kernel computes the corrections in f32 from f32 beta^t: 1 - beta_t, then its reciprocal
  double b1c = 1.0 / std::max(1.0 - double(u.beta1_t), 1e-12);
  double b2c = 1.0 / std::max(1.0 - double(u.beta2_t), 1e-12);
  for (size_t i = 0; i < n; ++i) {
    double grad = is_finite_bits(g[i]) ? double(g[i]) : 0.0;
    grad *= double(clip);
    adam_element(w[i], grad, m[i], v[i], b1c, b2c, u, out, i);
  }
  return out;
}

AdamWExpected adamw_one_call_reference(std::span<const float> param, std::span<const float> grad,
                                       std::span<const float> m, std::span<const float> v,
                                       const OneCallParams& p) {
  const size_t n = param.size();
  check_sizes("adamw_one_call_reference", n, {grad.size(), m.size(), v.size()});
  AdamWExpected out;
  resize(out, n);
  AdamWUniforms u;
  u.lr = p.lr;
  u.beta1 = p.beta1;
  u.beta2 = p.beta2;
  u.weight_decay = p.weight_decay;
  u.eps = p.eps;
  for (size_t i = 0; i < n; ++i)  // no finite guard, no clip (seed 002)
    adam_element(param[i], grad[i], m[i], v[i], p.bias_correction1, p.bias_correction2, u, out, i,
                 /*divide_bc=*/true);
  return out;
}

// ---- 8-bit scheme ------------------------------------------------------------------------------

uint32_t q8_hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

uint32_t q8_block_exp(uint32_t max_bits) {
  uint32_t e = max_bits >> 23;
  bool bump = (max_bits & 0x7fffffu) > 0x700000u && e >= 1 && e < 254;
  return bump ? e + 1 : e;
}

uint32_t q8_encode(uint32_t xb, uint32_t emax, uint32_t top, uint32_t rnd) {
  constexpr uint32_t mb = 3;
  uint32_t ex = xb >> 23;
  if (ex == 0) return 0;
  uint32_t d = emax - ex;
  uint32_t s = (xb & 0x7fffffu) | 0x800000u;
  uint32_t shift, base;
  if (d < top) {
    shift = 23 - mb;
    base = (top - d - 1) << mb;
  } else {
    shift = d + 24 - top - mb;
    base = 0;
    if (shift > 24) return 0;
  }
  uint32_t q = s >> shift;
  uint32_t rem = s & ((1u << shift) - 1u);
  uint32_t r = rnd >> (32 - shift);
  uint32_t code = base + q;
  if (rem + r >= (1u << shift)) ++code;
  return std::min(code, (top << mb) | ((1u << mb) - 1u));
}

float q8_decode(uint32_t code, uint32_t emax, uint32_t top) {
  constexpr uint32_t mb = 3;
  uint32_t ec = code >> mb;
  uint32_t mant = code & ((1u << mb) - 1u);
  uint32_t sig = ec != 0 ? mant + (1u << mb) : mant;
  int eb = int(emax) + int(std::max(ec, 1u)) - int(top) - int(mb);
  if (sig == 0 || eb < 1) return 0.0f;
  return float(sig) * std::bit_cast<float>(uint32_t(eb) << 23);
}

uint32_t q8_encode_m(float m_new, uint32_t m_emax, uint32_t t) {
  uint32_t salt = q8_hash(t);
  uint32_t bits = std::bit_cast<uint32_t>(std::abs(m_new));
  uint32_t code = q8_encode(bits, m_emax, kQ8MTop, q8_hash(std::bit_cast<uint32_t>(m_new) ^ salt));
  if (m_new < 0.0f && code != 0) code |= 0x80u;
  return code;
}

uint32_t q8_encode_v(float v_new, uint32_t v_emax, uint32_t t) {
  uint32_t salt = q8_hash(t);
  uint32_t bits = std::bit_cast<uint32_t>(v_new);
  uint32_t code = q8_encode(bits, v_emax, kQ8VTop, q8_hash(bits ^ (salt * 0x9e3779b9u)));
  if (code == 0 && (bits >> 23) != 0) code = 1;  // never flush a normal v
  return code;
}

float q8_decode_m(uint32_t code, float m_scale) {
  float mag = q8_decode(code & 0x7fu, std::bit_cast<uint32_t>(m_scale) >> 23, kQ8MTop);
  return (code & 0x80u) ? -mag : mag;
}

float q8_decode_v(uint32_t code, float v_scale) {
  return q8_decode(code, std::bit_cast<uint32_t>(v_scale) >> 23, kQ8VTop);
}

Q8Expected adamw_8bit_update_reference(std::span<const float> w, std::span<const float> g,
                                       std::span<const uint32_t> m_packed,
                                       std::span<const uint32_t> v_packed,
                                       std::span<const float> m_scale,
                                       std::span<const float> v_scale, float clip,
                                       const AdamWUniforms& u) {
  const size_t n = w.size();
  const size_t words = (n + 3) / 4, blocks = (n + kQ8Block - 1) / kQ8Block;
  check_sizes("adamw_8bit_update_reference", n, {g.size()});
  check_sizes("adamw_8bit_update_reference (packed words)", words,
              {m_packed.size(), v_packed.size()});
  check_sizes("adamw_8bit_update_reference (block scales)", blocks,
              {m_scale.size(), v_scale.size()});
  Q8Expected out;
  resize(out.f32, n);
  double b1c = 1.0 / std::max(1.0 - double(u.beta1_t), 1e-12);
  double b2c = 1.0 / std::max(1.0 - double(u.beta2_t), 1e-12);
  for (size_t i = 0; i < n; ++i) {
    double grad = is_finite_bits(g[i]) ? double(g[i]) : 0.0;
    grad *= double(clip);
    float m_old = q8_decode_m(q8_code_at(m_packed, i), m_scale[i / kQ8Block]);
    float v_old = q8_decode_v(q8_code_at(v_packed, i), v_scale[i / kQ8Block]);
    adam_element(w[i], grad, m_old, v_old, b1c, b2c, u, out.f32, i);
  }
  out.m_packed.assign(words, 0);
  out.v_packed.assign(words, 0);
  out.m_scale.assign(blocks, 0.0f);
  out.v_scale.assign(blocks, 0.0f);
  for (size_t b = 0; b < blocks; ++b) {
    size_t lo = b * kQ8Block, hi = std::min(n, lo + kQ8Block);
    uint32_t mmax = 0, vmax = 0;
    for (size_t i = lo; i < hi; ++i) {
      mmax = std::max(mmax, std::bit_cast<uint32_t>(std::abs(out.f32.m[i])));
      vmax = std::max(vmax, std::bit_cast<uint32_t>(out.f32.v[i]));
    }
    uint32_t me = q8_block_exp(mmax), ve = q8_block_exp(vmax);
    out.m_scale[b] = std::bit_cast<float>(me << 23);
    out.v_scale[b] = std::bit_cast<float>(ve << 23);
    for (size_t i = lo; i < hi; ++i) {
      out.m_packed[i / 4] |= q8_encode_m(out.f32.m[i], me, u.t) << (8 * (i % 4));
      out.v_packed[i / 4] |= q8_encode_v(out.f32.v[i], ve, u.t) << (8 * (i % 4));
    }
  }
  return out;
}

namespace {

// Every code the kernel may write for a value the GPU computed within [x - tol, x + tol] with
// block exponent emax: exact enumeration of the f32 values when there are few of them, else the
// monotone envelope (encode is non-decreasing in the value and in the rounding bits).
bool q8_code_possible(uint32_t code, float x, double tol, uint32_t emax, uint32_t t, bool is_m) {
  auto enc = [&](float y) { return is_m ? q8_encode_m(y, emax, t) : q8_encode_v(y, emax, t); };
  double lo = double(x) - tol, hi = double(x) + tol;
  if (!is_m) lo = std::max(lo, 0.0);
  float flo = float(lo), fhi = float(hi);
  // enumerate: step through f32 values on the ordered integer line
  auto key = [](float f) -> int64_t {
    int32_t b = std::bit_cast<int32_t>(f);
    return b < 0 ? -int64_t(b & 0x7fffffff) : int64_t(b);
  };
  auto from_key = [](int64_t k) -> float {
    return k < 0 ? std::bit_cast<float>(uint32_t(-k) | 0x80000000u)
                 : std::bit_cast<float>(uint32_t(k));
  };
  int64_t klo = key(std::nextafter(flo, -INFINITY)), khi = key(std::nextafter(fhi, INFINITY));
  if (khi - klo <= 256) {
    for (int64_t k = klo; k <= khi; ++k)
      if (enc(from_key(k)) == code) return true;
    return false;
  }
  // envelope on magnitudes: round-down code of the smallest |value|, round-up code of the largest
  uint32_t top = is_m ? kQ8MTop : kQ8VTop;
  auto mag_code = [&](double a, uint32_t rnd) {
    return q8_encode(std::bit_cast<uint32_t>(float(a)), emax, top, rnd);
  };
  uint32_t mag = is_m ? (code & 0x7fu) : code;
  bool neg = is_m && (code & 0x80u);
  double amin, amax;
  if (lo >= 0) {
    if (neg) return false;
    amin = lo, amax = hi;
  } else if (hi <= 0) {
    if (!neg && mag != 0) return false;
    amin = -hi, amax = -lo;
  } else {
    amin = 0, amax = std::max(-lo, hi);
  }
  uint32_t cmin = mag_code(amin, 0), cmax = mag_code(amax, 0xffffffffu);
  if (!is_m && cmax == 0) cmax = 1;
  return mag >= cmin && mag <= cmax;
}

}  // namespace

std::string q8_check_block(const Q8Expected& ex, std::span<const uint32_t> got_m_packed,
                           std::span<const uint32_t> got_v_packed,
                           std::span<const float> got_m_scale, std::span<const float> got_v_scale,
                           size_t block, size_t n, uint32_t t) {
  char buf[512];
  size_t lo = block * kQ8Block, hi = std::min(n, lo + kQ8Block);
  const auto& f = ex.f32;
  // the block maximum the GPU may have seen
  uint32_t mmax_lo = 0, mmax_hi = 0, vmax_lo = 0, vmax_hi = 0;
  for (size_t i = lo; i < hi; ++i) {
    double am = std::abs(double(f.m[i]));
    mmax_lo = std::max(mmax_lo, std::bit_cast<uint32_t>(float(std::max(0.0, am - f.m_tol[i]))));
    mmax_hi = std::max(mmax_hi, std::bit_cast<uint32_t>(float(am + f.m_tol[i])));
    double av = double(f.v[i]);
    vmax_lo = std::max(vmax_lo, std::bit_cast<uint32_t>(float(std::max(0.0, av - f.v_tol[i]))));
    vmax_hi = std::max(vmax_hi, std::bit_cast<uint32_t>(float(av + f.v_tol[i])));
  }
  uint32_t me = std::bit_cast<uint32_t>(got_m_scale[block]) >> 23;
  uint32_t ve = std::bit_cast<uint32_t>(got_v_scale[block]) >> 23;
  if ((std::bit_cast<uint32_t>(got_m_scale[block]) & 0x807fffffu) != 0 ||
      me < q8_block_exp(mmax_lo) || me > q8_block_exp(mmax_hi)) {
    std::snprintf(buf, sizeof buf,
                  "block %zu: m_scale %a (exponent %u), expected exponent in [%u, %u]", block,
                  double(got_m_scale[block]), me, q8_block_exp(mmax_lo), q8_block_exp(mmax_hi));
    return buf;
  }
  if ((std::bit_cast<uint32_t>(got_v_scale[block]) & 0x807fffffu) != 0 ||
      ve < q8_block_exp(vmax_lo) || ve > q8_block_exp(vmax_hi)) {
    std::snprintf(buf, sizeof buf,
                  "block %zu: v_scale %a (exponent %u), expected exponent in [%u, %u]", block,
                  double(got_v_scale[block]), ve, q8_block_exp(vmax_lo), q8_block_exp(vmax_hi));
    return buf;
  }
  for (size_t i = lo; i < hi; ++i) {
    uint32_t mc = q8_code_at(got_m_packed, i), vc = q8_code_at(got_v_packed, i);
    if (!q8_code_possible(mc, f.m[i], f.m_tol[i], me, t, true)) {
      std::snprintf(buf, sizeof buf,
                    "element %zu: m code 0x%02x (= %g) is not the encoding of any m_new within "
                    "%g of %g (reference code 0x%02x)",
                    i, mc, double(q8_decode_m(mc, got_m_scale[block])), f.m_tol[i], double(f.m[i]),
                    q8_encode_m(f.m[i], me, t));
      return buf;
    }
    if (!q8_code_possible(vc, f.v[i], f.v_tol[i], ve, t, false)) {
      std::snprintf(buf, sizeof buf,
                    "element %zu: v code 0x%02x (= %g) is not the encoding of any v_new within "
                    "%g of %g (reference code 0x%02x)",
                    i, vc, double(q8_decode_v(vc, got_v_scale[block])), f.v_tol[i], double(f.v[i]),
                    q8_encode_v(f.v[i], ve, t));
      return buf;
    }
  }
  // bytes past n in the block's last word are written as 0
  for (size_t i = hi; i < std::min(lo + kQ8Block, (n + 3) / 4 * 4); ++i)
    if (q8_code_at(got_m_packed, i) != 0 || q8_code_at(got_v_packed, i) != 0) {
      std::snprintf(buf, sizeof buf, "padding byte %zu of the last packed word is not 0", i);
      return buf;
    }
  return {};
}

}  // namespace wgslvk::optimizer
