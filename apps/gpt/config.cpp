#include "config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace wgslvk::gpt {

uint64_t ModelConfig::parameter_count() const {
  uint64_t d = d_model, f = d_ff();
  uint64_t layer = 2 * d + d * 3 * d + 3 * d + d * d + d + 2 * d + d * f + f + f * d + d;
  return layers * layer + uint64_t(vocab) * d + uint64_t(context) * d + 2 * d;
}

void ModelConfig::validate() const {
  auto bad = [&](const std::string& why) {
    throw std::invalid_argument("model '" + name + "': " + why);
  };
  if (d_model == 0 || d_model % 4) bad("d_model must be a positive multiple of 4 (vec4 kernels)");
  if (heads == 0 || d_model % heads) bad("d_model must be a multiple of heads");
  if (head_dim() > 128) bad("head_dim must be <= 128 (FA2 kernels)");
  if (vocab == 0 || vocab % 4) bad("vocab must be a positive multiple of 4");
  if (context == 0 || layers == 0) bad("context and layers must be positive");
}

std::vector<ModelConfig> presets() {
  return {
      {"small", 256, 64, 96, 3, 2},       {"medium", 256, 128, 128, 4, 4},
      {"large", 256, 128, 192, 6, 4},     {"xl", 256, 256, 256, 8, 6},
      {"gpt110m", 256, 256, 768, 12, 15},
  };
}

ModelConfig preset(std::string_view name) {
  std::string known;
  for (const auto& p : presets()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown preset '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<optimizer::ParamSpec> param_specs(const ModelConfig& c) {
  const uint64_t d = c.d_model, f = c.d_ff();
  std::vector<optimizer::ParamSpec> s;
  s.push_back({"wte", {c.vocab, d}, true});
  s.push_back({"wpe", {c.context, d}, true});
  for (uint32_t l = 0; l < c.layers; ++l) {
    std::string p = "h." + std::to_string(l) + ".";
    s.push_back({p + "ln1.weight", {d}, false});
    s.push_back({p + "ln1.bias", {d}, false});
    s.push_back({p + "attn.qkv.weight", {d, 3 * d}, true});
    s.push_back({p + "attn.qkv.bias", {3 * d}, false});
    s.push_back({p + "attn.proj.weight", {d, d}, true});
    s.push_back({p + "attn.proj.bias", {d}, false});
    s.push_back({p + "ln2.weight", {d}, false});
    s.push_back({p + "ln2.bias", {d}, false});
    s.push_back({p + "mlp.fc.weight", {d, f}, true});
    s.push_back({p + "mlp.fc.bias", {f}, false});
    s.push_back({p + "mlp.proj.weight", {f, d}, true});
    s.push_back({p + "mlp.proj.bias", {d}, false});
  }
  s.push_back({"lnf.weight", {d}, false});
  s.push_back({"lnf.bias", {d}, false});
  return s;
}

namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
double uniform01(uint64_t& s) { return (double(splitmix64(s) >> 11) + 0.5) * 0x1p-53; }
}  // namespace

std::vector<std::vector<float>> init_params(const ModelConfig& c, uint64_t seed) {
  auto specs = param_specs(c);
  std::vector<std::vector<float>> out;
  uint64_t state = seed * 0x2545f4914f6cdd1dull + 0x1234567ull;
  const double proj_std = 0.02 / std::sqrt(2.0 * c.layers);
  for (const auto& sp : specs) {
    uint64_t n = 1;
    for (auto e : sp.shape) n *= e;
    std::vector<float> v(n, 0.0f);
    auto ends = [&](std::string_view suf) {
      return sp.name.size() >= suf.size() &&
             sp.name.compare(sp.name.size() - suf.size(), suf.size(), suf) == 0;
    };
    if (ends("ln1.weight") || ends("ln2.weight") || sp.name == "lnf.weight") {
      std::fill(v.begin(), v.end(), 1.0f);
    } else if (sp.shape.size() == 2) {
      double sd = (ends("attn.proj.weight") || ends("mlp.proj.weight")) ? proj_std : 0.02;
      for (uint64_t i = 0; i < n; i += 2) {  // Box-Muller: two normals per pair of uniforms
        double u1 = uniform01(state), u2 = uniform01(state);
        double r = std::sqrt(-2.0 * std::log(u1));
        v[i] = float(sd * r * std::cos(2 * M_PI * u2));
        if (i + 1 < n) v[i + 1] = float(sd * r * std::sin(2 * M_PI * u2));
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string_view schedule_name(Schedule s) { return s == Schedule::Cosine ? "cosine" : "constant"; }
Schedule parse_schedule(std::string_view s) {
  for (auto v : {Schedule::Cosine, Schedule::Constant})
    if (schedule_name(v) == s) return v;
  throw std::invalid_argument("unknown schedule '" + std::string(s) +
                              "' (known: cosine, constant)");
}
optimizer::StatePrecision parse_precision(std::string_view s) {
  using optimizer::StatePrecision;
  for (auto p : {StatePrecision::FP32, StatePrecision::F16Mirror, StatePrecision::Float8Blocks})
    if (optimizer::precision_name(p) == s) return p;
  throw std::invalid_argument("unknown precision '" + std::string(s) +
                              "' (known: fp32, f16_mirror, int8)");
}

void set_precision(TrainConfig& c, std::string_view s) {
  if (s == "mixed") {
    c.mixed = true;
    c.precision = optimizer::StatePrecision::F16Mirror;
    return;
  }
  try {
    c.precision = parse_precision(s);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("unknown precision '" + std::string(s) +
                                "' (known: fp32, f16_mirror, int8, mixed)");
  }
  c.mixed = false;
}
std::string precision_label(const TrainConfig& c) {
  return c.mixed ? "mixed" : std::string(optimizer::precision_name(c.precision));
}

void check_train_config(const TrainConfig& c) {
  using L = TrainLimits;
  auto range = [](const char* field, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi)) {
      char b[160];
      std::snprintf(b, sizeof b, "%s = %.9g is outside [%g, %g]", field, v, lo, hi);
      throw std::invalid_argument(b);
    }
  };
  (void)preset(c.preset);
  range("steps", c.steps, 1, L::max_steps);
  range("batch", c.batch, 1, L::max_batch);
  range("context", c.context, 0, L::max_context);
  range("lr", c.lr, 0, L::max_lr);
  range("min_lr_ratio", c.min_lr_ratio, 0, 1);
  range("warmup_steps", c.warmup_steps, 0, L::max_steps);
  range("weight_decay", c.weight_decay, 0, L::max_lr);
  if (c.max_grad_norm) range("max_grad_norm", *c.max_grad_norm, 1e-30, L::max_grad_norm);
  range("log_every", c.log_every, 1, L::max_steps);
  range("eval_every", c.eval_every, 0, L::max_steps);
  range("eval_batches", c.eval_batches, 1, L::max_eval_batches);
  range("checkpoint_every", c.checkpoint_every, 0, L::max_steps);
  range("val_fraction", c.val_fraction, L::min_val_fraction, L::max_val_fraction);
  if (c.mixed && c.loss_scale != 0) {  // 0: auto
    range("loss_scale", c.loss_scale, 1, 0x1p24);
    int e = 0;
    if (std::frexp(double(c.loss_scale), &e) != 0.5)
      throw std::invalid_argument("loss_scale = " + std::to_string(c.loss_scale) +
                                  " is not a power of two (its removal must be exact)");
  }
  if (c.mixed) {
    if (c.precision != optimizer::StatePrecision::F16Mirror)
      throw std::invalid_argument(
          "mixed precision keeps the f16 weight copy in the optimizer's f16 mirror: precision "
          "must be f16_mirror with it");
  }
  try {
    optimizer::check_adamw_options(c.adamw(), "train config");  // betas, eps
  } catch (const std::exception& e) { throw std::invalid_argument(e.what()); }
}
std::string_view attention_name(AttentionImpl a) {
  switch (a) {
    case AttentionImpl::FA2:
      return "fa2";
    case AttentionImpl::FA2Wide:
      return "fa2_wide";
    case AttentionImpl::FA2Tiled:
      return "fa2_tiled";
    case AttentionImpl::Naive:
      return "naive";
  }
  return "?";
}

AttentionImpl parse_attention(std::string_view s) {
  for (auto a :
       {AttentionImpl::FA2, AttentionImpl::FA2Wide, AttentionImpl::FA2Tiled, AttentionImpl::Naive})
    if (attention_name(a) == s) return a;
  throw std::invalid_argument("unknown attention '" + std::string(s) +
                              "' (known: fa2, fa2_wide, fa2_tiled, naive)");
}

uint32_t TrainConfig::effective_warmup() const {
  return warmup_steps ? warmup_steps : std::min<uint32_t>(100, steps / 10);
}

ModelConfig TrainConfig::model() const {
  ModelConfig m = gpt::preset(preset);
  if (context) m.context = context;
  m.validate();
  return m;
}

optimizer::AdamWOptions TrainConfig::adamw() const {
  optimizer::AdamWOptions o;
  o.lr = lr;
  o.beta1 = beta1;
  o.beta2 = beta2;
  o.eps = eps;
  o.weight_decay = weight_decay;
  o.max_grad_norm = max_grad_norm;
  o.precision = precision;
  o.norm = optimizer::NormMode::Deterministic;
  return o;
}

float lr_at(const TrainConfig& c, uint32_t t) {
  const uint32_t w = c.effective_warmup();
  if (w && t <= w) return float(double(c.lr) * t / w);
  if (c.schedule == Schedule::Constant || c.steps <= w) return c.lr;
  double p = double(t - w) / double(c.steps - w);
  p = std::min(1.0, std::max(0.0, p));
  double lo = double(c.lr) * c.min_lr_ratio;
  return float(lo + 0.5 * (double(c.lr) - lo) * (1 + std::cos(M_PI * p)));
}

}  // namespace wgslvk::gpt
