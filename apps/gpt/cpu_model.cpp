#include "cpu_model.hpp"

#include <cmath>
#include <stdexcept>

#include "attention/reference.hpp"
#include "elementwise/reference.hpp"
#include "embedding/reference.hpp"
#include "loss/reference.hpp"
#include "matmul/reference.hpp"
#include "norm/reference.hpp"
#include "optimizer/reference.hpp"

namespace wgslvk::gpt {

namespace {
using Vec = std::vector<double>;
Vec widen(const std::vector<float>& v) { return Vec(v.begin(), v.end()); }
std::vector<float> narrow(const Vec& v) { return std::vector<float>(v.begin(), v.end()); }
}  // namespace

CpuGpt::CpuGpt(ModelConfig config, uint32_t batch, optimizer::AdamWOptions adamw,
               AttentionImpl attention)
    : cfg_(std::move(config)), batch_(batch), opt_(adamw), attention_(attention) {
  cfg_.validate();
  specs_ = param_specs(cfg_);
  for (const auto& s : specs_) {
    uint64_t n = 1;
    for (auto e : s.shape) n *= e;
    w_.emplace_back(n, 0.0f);
    m_.emplace_back(n, 0.0f);
    v_.emplace_back(n, 0.0f);
    g_.emplace_back(n, 0.0);
  }
}

void CpuGpt::set_params(const std::vector<std::vector<float>>& values) {
  if (values.size() != w_.size()) throw std::invalid_argument("CpuGpt::set_params: tensor count");
  for (size_t i = 0; i < w_.size(); ++i) {
    if (values[i].size() != w_[i].size())
      throw std::invalid_argument("CpuGpt::set_params: size of " + specs_[i].name);
    w_[i] = values[i];
  }
}

double CpuGpt::forward(const Batch& b) { return run(b, false); }
double CpuGpt::forward_backward(const Batch& b) { return run(b, true); }

double CpuGpt::run(const Batch& b, bool backward) {
  const uint32_t B = batch_, T = cfg_.context, d = cfg_.d_model, F = cfg_.d_ff(), V = cfg_.vocab;
  const uint32_t R = B * T, L = cfg_.layers;
  if (b.tokens.size() != R || b.targets.size() != R)
    throw std::invalid_argument("CpuGpt: batch size does not match the model");
  // parameter index by name (param_specs order)
  size_t idx = 0;
  const size_t i_wte = idx++, i_wpe = idx++;
  struct LP {
    size_t ln1w, ln1b, qkvw, qkvb, projw, projb, ln2w, ln2b, fcw, fcb, fc2w, fc2b;
  };
  std::vector<LP> lp(L);
  for (auto& p : lp) {
    p = {idx,     idx + 1, idx + 2, idx + 3, idx + 4,  idx + 5,
         idx + 6, idx + 7, idx + 8, idx + 9, idx + 10, idx + 11};
    idx += 12;
  }
  const size_t i_lnfw = idx++, i_lnfb = idx++;
  std::vector<Vec> P;
  P.reserve(w_.size());
  for (const auto& w : w_) P.push_back(widen(w));

  const norm::Shape ns{R, d};
  const auto as = attention::make_shape(B, T, cfg_.heads, cfg_.head_dim());
  const bool fa2 = attention_ != AttentionImpl::Naive;  // FA2Wide: the same algorithm
  auto fwd = [&](uint32_t din, uint32_t dout) { return matmul::Dims::forward(R, din, dout, true); };

  // ---- forward ----
  struct Layer {
    Vec x, h1, mean1, rstd1, qkv, att, y, lse, xm, h2, mean2, rstd2, f, g;
  };
  std::vector<Layer> A(L);
  Vec x0(uint64_t(R) * d);
  {
    std::vector<float> out(x0.size());
    embedding::ref::lookup(b.tokens, w_[i_wte], out, embedding::Dims{R, d, V});
    x0 = widen(out);
    elementwise::ref::pos_embed_add(x0, P[i_wpe], R, T, d);
  }
  Vec x = x0;
  Vec t(uint64_t(R) * d);
  for (uint32_t l = 0; l < L; ++l) {
    Layer& a = A[l];
    const LP& p = lp[l];
    a.x = x;
    a.h1.resize(x.size());
    a.mean1.resize(R);
    a.rstd1.resize(R);
    norm::ref::layernorm_forward(a.x, P[p.ln1w], P[p.ln1b], cfg_.ln_eps, ns, a.h1, a.mean1,
                                 a.rstd1);
    a.qkv.resize(uint64_t(R) * 3 * d);
    matmul::ref::matmul(a.h1, P[p.qkvw], P[p.qkvb], a.qkv, fwd(d, 3 * d));
    a.y.resize(uint64_t(R) * d);
    a.lse.resize(as.lse_size());
    if (fa2) {
      attention::ref::fa2_forward(as, a.qkv, a.y, a.lse);
    } else {
      a.att.resize(as.att_size());
      attention::ref::naive_forward(as, a.qkv, a.att, a.y, a.lse);
    }
    matmul::ref::matmul(a.y, P[p.projw], P[p.projb], t, fwd(d, d));
    a.xm.resize(x.size());
    elementwise::ref::residual_add(a.x, t, a.xm);
    a.h2.resize(x.size());
    a.mean2.resize(R);
    a.rstd2.resize(R);
    norm::ref::layernorm_forward(a.xm, P[p.ln2w], P[p.ln2b], cfg_.ln_eps, ns, a.h2, a.mean2,
                                 a.rstd2);
    a.f.resize(uint64_t(R) * F);
    matmul::ref::matmul(a.h2, P[p.fcw], P[p.fcb], a.f, fwd(d, F));
    a.g.resize(a.f.size());
    elementwise::ref::gelu_forward(a.f, a.g);
    matmul::ref::matmul(a.g, P[p.fc2w], P[p.fc2b], t, fwd(F, d));
    elementwise::ref::residual_add(a.xm, t, x);
  }
  const Vec& xL = x;
  Vec hf(x.size()), meanf(R), rstdf(R);
  norm::ref::layernorm_forward(xL, P[i_lnfw], P[i_lnfb], cfg_.ln_eps, ns, hf, meanf, rstdf);
  Vec logits(uint64_t(R) * V);
  matmul::ref::matmul(hf, P[i_wte], {}, logits, matmul::Dims{R, V, d, matmul::kTransB});
  const loss::Shape ls{R, V, 0xFFFFFFFFu};
  Vec loss_rows(R), lse(R);
  loss::ref::ce_forward(logits, b.targets, ls, loss_rows, lse);
  uint32_t n_valid = 0;
  const double mean = loss::ref::ce_mean(loss_rows, b.targets, ls, &n_valid);
  if (!backward) return mean;

  // ---- backward ----
  for (auto& g : g_) std::fill(g.begin(), g.end(), 0.0);
  Vec dlogits(logits.size());
  loss::ref::ce_backward(logits, b.targets, lse, 1.0, n_valid, ls, dlogits);
  Vec dh(uint64_t(R) * d), dres(uint64_t(R) * d), dx(uint64_t(R) * d), dy(uint64_t(R) * d);
  matmul::ref::matmul(dlogits, P[i_wte], {}, dh, matmul::Dims{R, d, V, 0});
  matmul::ref::matmul(dlogits, hf, {}, g_[i_wte], matmul::Dims{V, d, R, matmul::kTransA});
  norm::ref::layernorm_backward(xL, P[i_lnfw], dh, meanf, rstdf, ns, dres, g_[i_lnfw], g_[i_lnfb]);
  Vec dfa(uint64_t(R) * F), dfb(uint64_t(R) * F), dsum(as.lse_size()), dqkv(as.qkv_size());
  for (uint32_t li = L; li-- > 0;) {
    Layer& a = A[li];
    const LP& p = lp[li];
    matmul::ref::matmul(dres, P[p.fc2w], {}, dfa, matmul::Dims::grad_input(R, F, d));
    matmul::ref::matmul(a.g, dres, {}, g_[p.fc2w], matmul::Dims::grad_weight(R, F, d));
    matmul::ref::bias_grad(dres, g_[p.fc2b], R, d, false);
    elementwise::ref::gelu_backward(a.f, dfa, dfb);
    matmul::ref::matmul(dfb, P[p.fcw], {}, dh, matmul::Dims::grad_input(R, d, F));
    matmul::ref::matmul(a.h2, dfb, {}, g_[p.fcw], matmul::Dims::grad_weight(R, d, F));
    matmul::ref::bias_grad(dfb, g_[p.fcb], R, F, false);
    norm::ref::layernorm_backward(a.xm, P[p.ln2w], dh, a.mean2, a.rstd2, ns, dx, g_[p.ln2w],
                                  g_[p.ln2b]);
    Vec sum(dres.size());
    elementwise::ref::residual_add(dres, dx, sum);
    dres.swap(sum);
    matmul::ref::matmul(dres, P[p.projw], {}, dy, matmul::Dims::grad_input(R, d, d));
    matmul::ref::matmul(a.y, dres, {}, g_[p.projw], matmul::Dims::grad_weight(R, d, d));
    matmul::ref::bias_grad(dres, g_[p.projb], R, d, false);
    if (fa2) {
      attention::ref::dsum(as, a.y, dy, dsum);
      attention::ref::fa2_backward(as, a.qkv, dy, a.lse, dsum, dqkv);
    } else {
      attention::ref::naive_backward(as, a.qkv, a.att, a.y, dy, dqkv);
    }
    matmul::ref::matmul(dqkv, P[p.qkvw], {}, dh, matmul::Dims::grad_input(R, d, 3 * d));
    matmul::ref::matmul(a.h1, dqkv, {}, g_[p.qkvw], matmul::Dims::grad_weight(R, d, 3 * d));
    matmul::ref::bias_grad(dqkv, g_[p.qkvb], R, 3 * d, false);
    norm::ref::layernorm_backward(a.x, P[p.ln1w], dh, a.mean1, a.rstd1, ns, dx, g_[p.ln1w],
                                  g_[p.ln1b]);
    elementwise::ref::residual_add(dres, dx, sum);
    dres.swap(sum);
  }
  matmul::ref::bias_grad(dres, g_[i_wpe], B, T * d, false);
  {
    auto ex = embedding::ref::backward(b.tokens, narrow(dres), narrow(g_[i_wte]),
                                       embedding::Dims{R, d, V});
    g_[i_wte] = widen(ex.value);
  }
  return mean;
}

void CpuGpt::optimizer_step(float lr) {
  ++t_;
  std::vector<std::vector<float>> g32;
  double sum = 0;
  for (const auto& g : g_) {
    g32.push_back(narrow(g));
    sum += optimizer::reduce_norm_sq_exact(g32.back());
  }
  const float mgn = opt_.max_grad_norm ? *opt_.max_grad_norm : 1e30f;
  const float clip = optimizer::finalize_grad_stats_reference(float(sum), mgn).clip_scale;
  for (size_t i = 0; i < w_.size(); ++i) {
    optimizer::AdamWUniforms u;
    u.lr = lr;
    u.beta1 = opt_.beta1;
    u.beta2 = opt_.beta2;
    u.weight_decay = specs_[i].decay ? opt_.weight_decay : 0.0f;
    u.beta1_t = float(std::pow(double(opt_.beta1), double(t_)));
    u.beta2_t = float(std::pow(double(opt_.beta2), double(t_)));
    u.eps = opt_.eps;
    u.t = uint32_t(t_);
    auto ex = optimizer::adamw_update_reference(w_[i], g32[i], m_[i], v_[i], clip, u);
    w_[i] = std::move(ex.w);
    m_[i] = std::move(ex.m);
    v_[i] = std::move(ex.v);
  }
}

double CpuGpt::train_step(const Batch& b, float lr) {
  double loss = forward_backward(b);
  optimizer_step(lr);
  return loss;
}

}  // namespace wgslvk::gpt
