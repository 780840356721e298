// The host-side multi-tensor AdamW (wgsl_ports/optimizer/adamw.hpp): a whole step against the
// references, multi-tensor == per-tensor, decay only on the decay block, padding, clipping,
// chunking under a lowered binding limit, the deterministic norm, checkpoints, and the 8-bit
// convergence problem.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>

#include "random_inputs.hpp"
#include "logreg_problem.hpp"
#include "optimizer/adamw.hpp"

using namespace wgslvk;
using namespace wgslvk::optimizer;
using namespace wgslvk::optimizer::testing;

namespace {

// A small model: decay and no-decay tensors interleaved at registration, odd sizes.
std::vector<ParamSpec> model_params() {
  return {{"embed", {37, 11}, true},  {"ln1.weight", {11}, false}, {"fc1", {11, 300}, true},
          {"fc1.bias", {300}, false}, {"fc2", {300, 3}, true},     {"head.bias", {3}, false},
          {"scalar", {}, true},       {"empty", {0, 5}, true}};
}

std::map<std::string, std::vector<float>> random_values(std::mt19937_64& r, const Layout& L,
                                                        double spread = 1.0) {
  std::map<std::string, std::vector<float>> m;
  for (const auto& p : L.params) m[p.name] = random_floats(r, p.count, spread);
  return m;
}

void set_all(MultiTensorAdamW& o, const std::map<std::string, std::vector<float>>& w,
             const std::map<std::string, std::vector<float>>* g) {
  for (const auto& [k, v] : w) {
    o.set_weights(k, v);
    if (g) o.set_grads(k, g->at(k));
  }
}

std::vector<uint8_t> bytes_of(Device& d, const Buffer& b) {
  return b ? d.read_buffer(b) : std::vector<uint8_t>{};
}

// Every state buffer's bytes (w, g, m, v, w16, codes, scales).
std::vector<std::vector<uint8_t>> snapshot(Device& d, const MultiTensorAdamW& o) {
  return {bytes_of(d, o.w()),        bytes_of(d, o.g()),       bytes_of(d, o.m()),
          bytes_of(d, o.v()),        bytes_of(d, o.w16()),     bytes_of(d, o.m_packed()),
          bytes_of(d, o.v_packed()), bytes_of(d, o.m_scale()), bytes_of(d, o.v_scale())};
}

std::string tmp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("wgslvk_opt_" + std::to_string(test_seed()) + "_" + name))
      .string();
}

}  // namespace

TEST(MultiTensorAdamW, LayoutAlignsEverySubRange) {
  for (auto prec : {StatePrecision::FP32, StatePrecision::F16Mirror, StatePrecision::Float8Blocks})
    for (uint32_t align : {16u, 256u, 1024u}) {
      auto params = model_params();
      Layout L = make_layout(params, prec, align, 1 << 20);
      EXPECT_EQ(L.params.front().name, "embed");
      bool seen_nodecay = false;
      for (const auto& p : L.params) {
        seen_nodecay |= !p.decay;
        EXPECT_FALSE(seen_nodecay && p.decay) << "decay block must come first";
        EXPECT_EQ(p.offset % L.unit, 0u);
        EXPECT_EQ(p.offset * 4 % align, 0u) << p.name << " f32";
        if (prec == StatePrecision::F16Mirror) {
          EXPECT_EQ(p.offset * 2 % align, 0u) << p.name << " f16";
        }
        if (prec == StatePrecision::Float8Blocks) {
          EXPECT_EQ(p.offset % align, 0u) << p.name << " codes";
          EXPECT_EQ(p.offset % 256, 0u) << p.name << " quantization block";
          EXPECT_EQ(p.offset / 256 * 4 % align, 0u) << p.name << " scales";
        }
      }
      EXPECT_EQ(L.no_decay_begin % L.unit, 0u);
      EXPECT_EQ(L.chunk % L.unit, 0u);
    }
}

// Issue 15's decision: the default step is the fastest correct one, the two-level norm.
TEST(MultiTensorAdamW, DefaultNormIsTheTwoLevelNorm) {
  EXPECT_EQ(AdamWOptions{}.norm, NormMode::Deterministic);
}

TEST(MultiTensorAdamW, DefaultInt8UpdateIsTheVec4Kernel) {
  EXPECT_EQ(AdamWOptions{}.int8_update, Int8Update::Vec4);
}

TEST(MultiTensorAdamW, Int8Vec4StepBitIdenticalToSeedKernel) {
  // The API's 8-bit step with adamw_8bit_update_vec4 (default) and with the seed's
  // adamw_8bit_update: every buffer (w, g, codes, scales, padding included) equal after each of
  // 5 steps, multi-tensor and per-tensor, whole and chunked (64 KiB bindings: chunk ends inside a
  // tensor), NaN/+-inf gradients, with clipping (the two-level norm: the same clipScale bits).
  Device& d = device();
  std::vector<ParamSpec> params = model_params();
  params.push_back({"big", {150, 170}, true});  // 25500 floats: several chunks at 64 KiB
  for (auto mode : {UpdateMode::MultiTensor, UpdateMode::PerTensor})
    for (uint64_t binding : {uint64_t(0), uint64_t(65536)}) {
      SCOPED_TRACE(std::string(mode == UpdateMode::MultiTensor ? "multi-tensor" : "per-tensor") +
                   (binding ? ", 64 KiB bindings" : ""));
      auto r = rng(int(mode) * 2 + (binding != 0));
      AdamWOptions a;
      a.precision = StatePrecision::Float8Blocks;
      a.mode = mode;
      a.lr = 0.02f;
      a.max_binding_bytes = binding;
      AdamWOptions b = a;
      b.int8_update = Int8Update::Seed;
      MultiTensorAdamW ours(d, params, a), seed(d, params, b);
      if (binding) { ASSERT_LT(ours.layout().chunk, 25500u); }
      auto w = random_values(r, ours.layout());
      set_all(ours, w, nullptr);
      set_all(seed, w, nullptr);
      for (int s = 0; s < 5; ++s) {
        auto g = random_values(r, ours.layout(), 0.5 + s);
        for (auto& [k, gv] : g) {
          if (gv.size() > 10) sprinkle_nonfinite(r, gv, 0.005);
          ours.set_grads(k, gv), seed.set_grads(k, gv);
        }
        ours.step();
        seed.step();
        auto so = snapshot(d, ours), ss = snapshot(d, seed);
        const char* names[9] = {"w",        "g",        "m",       "v",      "w16",
                                "m_packed", "v_packed", "m_scale", "v_scale"};
        for (int k = 0; k < 9; ++k)
          ASSERT_EQ(so[k], ss[k]) << names[k] << " differs after step " << s + 1;
      }
      EXPECT_NE(ours.read_weights("fc1"), w.at("fc1")) << "the steps moved the weights";
    }
}

TEST(MultiTensorAdamW, StepAgainstReferenceWithClipAndDecay) {
  Device& d = device();
  auto r = rng();
  // Both norms: the default two-level one and the seed's CAS accumulation (still selectable).
  for (auto norm : {NormMode::Deterministic, NormMode::Atomic})
    for (auto prec : {StatePrecision::FP32, StatePrecision::F16Mirror}) {
      if (prec == StatePrecision::F16Mirror && !d.has_feature(Feature::ShaderF16)) continue;
      SCOPED_TRACE(norm == NormMode::Atomic ? "CAS norm" : "two-level norm");
      AdamWOptions opt;
      opt.norm = norm;
      opt.lr = 0.03f;
      opt.weight_decay = 0.1f;
      opt.max_grad_norm = 0.5f;  // the gradients below have norm >> 0.5: clipping on
      opt.precision = prec;
      MultiTensorAdamW o(d, model_params(), opt);
      auto w = random_values(r, o.layout()), g = random_values(r, o.layout());
      g["fc1"][5] = std::numeric_limits<float>::quiet_NaN();
      g["embed"][0] = INFINITY;
      set_all(o, w, &g);
      // state m, v = 0 at step 1: take three steps, checking each against the reference
      std::map<std::string, std::vector<float>> m, v;
      for (const auto& p : o.layout().params)
        m[p.name].assign(p.count, 0.0f), v[p.name].assign(p.count, 0.0f);
      for (int step = 1; step <= 3; ++step) {
        if (step > 1) {
          g = random_values(r, o.layout());
          for (const auto& [k, gv] : g) o.set_grads(k, gv);
        }
        o.step();
        std::vector<float> all_g;
        for (const auto& [k, gv] : g) all_g.insert(all_g.end(), gv.begin(), gv.end());
        float norm = o.read_grad_norm(), clip = o.read_clip_scale();
        double exact = std::sqrt(reduce_norm_sq_exact(all_g));
        EXPECT_LE(std::abs(norm - exact), 1e-5 * exact) << "gradient norm";
        auto fs = finalize_grad_stats_reference(norm, 0.5f);  // clip from the GPU's norm
        (void)fs;
        EXPECT_LE(ulp_distance(clip, float(std::min(1.0, 0.5 / double(norm)))),
                  kClipScaleBound.ulp);
        EXPECT_LT(clip, 1.0f);
        AdamWUniforms u;
        u.lr = opt.lr;
        // as the host computes them: from the f32 betas, in double, rounded once
        u.beta1_t = float(std::pow(double(opt.beta1), step));
        u.beta2_t = float(std::pow(double(opt.beta2), step));
        u.t = step;
        for (const auto& p : o.layout().params) {
          if (!p.count) continue;
          u.weight_decay = p.decay ? opt.weight_decay : 0.0f;
          auto want = adamw_update_reference(w[p.name], g[p.name], m[p.name], v[p.name], clip, u);
          auto gw = o.read_weights(p.name), gm = o.read_m(p.name), gv = o.read_v(p.name);
          for (size_t i = 0; i < p.count; ++i) {
            ASSERT_LE(std::abs(gw[i] - want.w[i]), want.w_tol[i])
                << p.name << "[" << i << "] step " << step << " w_old " << w[p.name][i] << " g "
                << g[p.name][i] << " m_old " << m[p.name][i] << " v_old " << v[p.name][i]
                << " clip " << clip << " got " << gw[i] << " want " << want.w[i] << " m " << gm[i]
                << " vs " << want.m[i] << " v " << gv[i] << " vs " << want.v[i];
            ASSERT_LE(std::abs(gm[i] - want.m[i]), want.m_tol[i]) << p.name << "[" << i << "] m";
            ASSERT_LE(std::abs(gv[i] - want.v[i]), want.v_tol[i]) << p.name << "[" << i << "] v";
          }
          auto gg = o.read_grads(p.name);
          for (float x : gg)
            ASSERT_EQ(std::bit_cast<uint32_t>(x), 0u) << p.name << ": g not zeroed";
          if (prec == StatePrecision::F16Mirror) {
            auto h = o.read_w16(p.name);
            for (size_t i = 0; i < p.count; ++i)
              ASSERT_LE(ulp_distance_f16(h[i], f32_to_f16_bits(gw[i])), kMirrorBound.ulp) << p.name;
          }
          w[p.name] = gw, m[p.name] = gm, v[p.name] = gv;  // continue from the GPU's state
        }
      }
    }
}

TEST(MultiTensorAdamW, DecayOnlyOnDecayBlock) {
  Device& d = device();
  auto r = rng();
  AdamWOptions opt;
  opt.lr = 0.1f;
  opt.weight_decay = 0.5f;
  MultiTensorAdamW o(d, model_params(), opt);
  auto w = random_values(r, o.layout());
  set_all(o, w, nullptr);  // g = 0: the Adam term is 0/(0+eps) = 0, only decay moves w
  o.step();
  for (const auto& p : o.layout().params) {
    auto gw = o.read_weights(p.name);
    for (size_t i = 0; i < p.count; ++i) {
      if (p.decay) {
        double want = double(w[p.name][i]) * (1.0 - 0.1 * 0.5);
        ASSERT_LE(std::abs(gw[i] - want), 3 * f32_ulp_of(w[p.name][i])) << p.name << " must decay";
      } else {
        ASSERT_EQ(gw[i], w[p.name][i]) << p.name << " is no-decay: must not change";
      }
    }
  }
}

TEST(MultiTensorAdamW, MultiTensorEqualsPerTensor) {
  Device& d = device();
  for (auto prec :
       {StatePrecision::FP32, StatePrecision::F16Mirror, StatePrecision::Float8Blocks}) {
    if (prec == StatePrecision::F16Mirror && !d.has_feature(Feature::ShaderF16)) continue;
    auto r = rng(int(prec));
    AdamWOptions a;
    a.precision = prec;
    a.lr = 0.02f;
    a.norm = NormMode::Deterministic;  // the same clipScale bits in both
    AdamWOptions b = a;
    b.mode = UpdateMode::PerTensor;
    MultiTensorAdamW om(d, model_params(), a), op(d, model_params(), b);
    auto w = random_values(r, om.layout());
    set_all(om, w, nullptr);
    set_all(op, w, nullptr);
    for (int s = 0; s < 4; ++s) {
      auto g = random_values(r, om.layout(), 0.5);
      for (const auto& [k, gv] : g) om.set_grads(k, gv), op.set_grads(k, gv);
      om.step();
      op.step();
    }
    EXPECT_EQ(snapshot(d, om), snapshot(d, op)) << precision_name(prec) << ": buffers differ";
  }
}

TEST(MultiTensorAdamW, PaddingIsInert) {
  Device& d = device();
  auto r = rng();
  for (auto mode : {UpdateMode::PerTensor, UpdateMode::MultiTensor}) {
    AdamWOptions opt;
    opt.mode = mode;
    opt.precision =
        StatePrecision::Float8Blocks;  // the largest padding; fp32 roles and codes together
    MultiTensorAdamW o(d, model_params(), opt);
    const Layout& L = o.layout();
    // poison every padding float of w, g (per-tensor) or only the tail after each block
    // (multi-tensor: the block dispatch covers the padding between its tensors, which stays 0)
    std::vector<bool> inside(L.total, false), covered(L.total, false);
    for (const auto& p : L.params)
      for (uint64_t i = p.offset; i < p.offset + p.count; ++i) inside[i] = true;
    if (mode == UpdateMode::MultiTensor) {
      for (uint64_t i = L.decay_begin; i < L.decay_end; ++i) covered[i] = true;
      for (uint64_t i = L.no_decay_begin; i < L.no_decay_end; ++i) covered[i] = true;
    }
    std::vector<float> wp(L.total, poison_f32());
    for (uint64_t i = 0; i < L.total; ++i)
      if (covered[i] && !inside[i]) wp[i] = 0.0f;
    d.queue().write_buffer(o.w(), 0, wp.data(), wp.size() * 4);
    d.queue().write_buffer(o.g(), 0, wp.data(), wp.size() * 4);
    auto w = random_values(r, L), g = random_values(r, L);
    set_all(o, w, &g);
    o.step();
    o.step();
    auto gw = read<float>(d, o.w()), gg = read<float>(d, o.g());
    for (uint64_t i = 0; i < L.total; ++i) {
      if (inside[i]) continue;
      uint32_t want = std::bit_cast<uint32_t>(wp[i]);
      ASSERT_EQ(std::bit_cast<uint32_t>(gw[i]), want) << "w padding element " << i;
      ASSERT_EQ(std::bit_cast<uint32_t>(gg[i]), want) << "g padding element " << i;
    }
  }
}

TEST(MultiTensorAdamW, ClippingOnAndOff) {
  Device& d = device();
  auto r = rng();
  for (bool on : {true, false}) {
    AdamWOptions opt;
    if (!on) opt.max_grad_norm.reset();
    MultiTensorAdamW o(d, model_params(), opt);
    auto w = random_values(r, o.layout()), g = random_values(r, o.layout());
    set_all(o, w, &g);
    o.step();
    float norm = o.read_grad_norm(), clip = o.read_clip_scale();
    ASSERT_GT(norm, 1.0f) << "test needs a gradient norm above max_grad_norm = 1";
    if (on)
      EXPECT_LE(ulp_distance(clip, float(1.0 / double(norm))), kClipScaleBound.ulp);
    else
      EXPECT_EQ(clip, 1.0f) << "clipping off must leave the gradient unscaled";
  }
}

TEST(MultiTensorAdamW, NonFiniteGradientsBecomeZero) {
  Device& d = device();
  auto r = rng();
  for (auto prec : {StatePrecision::FP32, StatePrecision::Float8Blocks}) {
    AdamWOptions opt;
    opt.precision = prec;
    MultiTensorAdamW o(d, model_params(), opt);
    auto w = random_values(r, o.layout()), g = random_values(r, o.layout());
    for (auto& [k, gv] : g) sprinkle_nonfinite(r, gv, 0.2);
    set_all(o, w, &g);
    o.step();
    EXPECT_TRUE(std::isfinite(o.read_grad_norm()));
    for (const auto& p : o.layout().params) {
      auto gm = o.read_m(p.name), gv = o.read_v(p.name), gw = o.read_weights(p.name),
           gg = o.read_grads(p.name);
      for (size_t i = 0; i < p.count; ++i) {
        ASSERT_TRUE(std::isfinite(gm[i]) && std::isfinite(gv[i]) && std::isfinite(gw[i]))
            << p.name << "[" << i << "]";
        ASSERT_EQ(std::bit_cast<uint32_t>(gg[i]), 0u);
        if (!std::isfinite(g[p.name][i])) {
          ASSERT_EQ(gm[i], 0.0f) << "non-finite grad must count as 0";
        }
      }
    }
  }
}

TEST(MultiTensorAdamW, ChunksUnderLoweredBindingLimit) {
  // 64 KiB bindings: the blocks below (up to 57000 floats) need several dispatches each. Two ways
  // to lower the limit: the device's maxStorageBufferBindingSize through required_limits (when
  // the runtime grants a value below WebGPU's default), and AdamWOptions::max_binding_bytes.
  DeviceDescriptor desc;
  desc.label = "lowered maxStorageBufferBindingSize";
  desc.required_features = adapter().features();
  desc.required_limits.max_storage_buffer_binding_size = 65536;
  Device small = make_device(desc);
  bool granted = small.limits().max_storage_buffer_binding_size == 65536;
  if (!granted)
    std::printf(
        "note: the runtime grants maxStorageBufferBindingSize %llu for a request of 65536 "
        "(requests below the WebGPU default are raised to it); chunking is covered through "
        "AdamWOptions::max_binding_bytes only\n",
        (unsigned long long)small.limits().max_storage_buffer_binding_size);
  std::vector<ParamSpec> params{
      {"big", {300, 190}, true}, {"big.bias", {20000}, false}, {"w2", {999}, true}};
  auto r = rng();
  for (bool via_device : {false, true}) {
    if (via_device && !granted) continue;
    Device& dev = via_device ? small : device();
    for (auto prec : {StatePrecision::FP32, StatePrecision::Float8Blocks}) {
      for (auto mode : {UpdateMode::MultiTensor, UpdateMode::PerTensor}) {
        AdamWOptions opt;
        opt.precision = prec;
        opt.mode = mode;
        opt.max_grad_norm
            .reset();  // clipScale exactly 1 in both: the chunked norm sums differently
        AdamWOptions lowered = opt;
        if (!via_device) lowered.max_binding_bytes = 65536;
        MultiTensorAdamW chunked(dev, params, lowered), whole(device(), params, opt);
        ASSERT_LT(chunked.layout().chunk, whole.layout().chunk);
        ASSERT_LT(chunked.layout().chunk, 57000u);
        auto w = random_values(r, chunked.layout());
        set_all(chunked, w, nullptr), set_all(whole, w, nullptr);
        for (int s = 0; s < 3; ++s) {
          auto g = random_values(r, chunked.layout(), 0.5);
          for (const auto& [k, gv] : g) chunked.set_grads(k, gv), whole.set_grads(k, gv);
          chunked.step();
          whole.step();
        }
        for (const auto& p : chunked.layout().params) {
          EXPECT_EQ(chunked.read_weights(p.name), whole.read_weights(p.name)) << p.name;
          EXPECT_EQ(chunked.read_m(p.name), whole.read_m(p.name)) << p.name;
          EXPECT_EQ(chunked.read_v(p.name), whole.read_v(p.name)) << p.name;
        }
        float a = chunked.read_grad_norm(), b = whole.read_grad_norm();
        EXPECT_LE(std::abs(a - b), 1e-5f * b);
      }
    }
  }
}

TEST(MultiTensorAdamW, DeterministicNormIsBitwiseRepeatable) {
  Device& d = device();
  auto r = rng();
  std::vector<ParamSpec> params{{"a", {1000, 257}, true}, {"b", {4099}, false}};
  AdamWOptions opt;
  opt.norm = NormMode::Deterministic;
  std::vector<std::vector<uint8_t>> first;
  uint32_t first_norm = 0;
  auto w =
      random_values(r, make_layout(params, opt.precision, d.storage_offset_alignment(), 1 << 30));
  std::vector<std::map<std::string, std::vector<float>>> gs;
  for (int s = 0; s < 3; ++s)
    gs.push_back(random_values(
        r, make_layout(params, opt.precision, d.storage_offset_alignment(), 1 << 30)));
  for (int run = 0; run < 3; ++run) {
    MultiTensorAdamW o(d, params, opt);
    set_all(o, w, nullptr);
    for (const auto& g : gs) {
      for (const auto& [k, gv] : g) o.set_grads(k, gv);
      o.step();
    }
    uint32_t nb = std::bit_cast<uint32_t>(o.read_grad_norm());
    auto snap = snapshot(d, o);
    if (run == 0)
      first = snap, first_norm = nb;
    else {
      EXPECT_EQ(nb, first_norm) << "run " << run;
      EXPECT_EQ(snap, first) << "run " << run;
    }
  }
}

TEST(MultiTensorAdamW, CheckpointRoundTripAndResume) {
  Device& d = device();
  for (auto prec : {StatePrecision::FP32, StatePrecision::Float8Blocks}) {
    auto r = rng(int(prec));
    AdamWOptions opt;
    opt.precision = prec;
    opt.norm = NormMode::Deterministic;  // with clipping on, the run itself is repeatable
    opt.lr = 0.01f;
    auto params = model_params();
    Layout L = make_layout(params, prec, d.storage_offset_alignment(), 1 << 30);
    auto w = random_values(r, L);
    std::vector<std::map<std::string, std::vector<float>>> gs;
    for (int s = 0; s < 6; ++s) gs.push_back(random_values(r, L));
    auto feed = [&](MultiTensorAdamW& o, int from, int to) {
      for (int s = from; s < to; ++s) {
        for (const auto& [k, gv] : gs[s]) o.set_grads(k, gv);
        o.step();
      }
    };
    MultiTensorAdamW straight(d, params, opt);
    set_all(straight, w, nullptr);
    feed(straight, 0, 6);

    MultiTensorAdamW first(d, params, opt);
    set_all(first, w, nullptr);
    feed(first, 0, 3);
    std::string path = tmp_path(std::string(precision_name(prec)) + ".safetensors");
    first.save(path);

    AdamWOptions other = opt;
    other.lr = 0.5f;  // overwritten by the checkpoint's hyperparameters
    MultiTensorAdamW resumed(d, params, other);
    resumed.load(path);
    EXPECT_EQ(resumed.step_count(), 3u);
    EXPECT_EQ(resumed.options().lr, opt.lr);
    auto a = snapshot(d, first), b = snapshot(d, resumed);
    EXPECT_EQ(a[0], b[0]) << "w after load";
    for (int k = 2; k < 9; ++k) EXPECT_EQ(a[k], b[k]) << "state buffer " << k << " after load";
    feed(resumed, 3, 6);
    EXPECT_EQ(snapshot(d, resumed), snapshot(d, straight))
        << "resumed run differs from the straight one";
    std::remove(path.c_str());
  }
}

TEST(MultiTensorAdamW, CheckpointSafetensorsLayout) {
  // The file is plain safetensors: 8-byte LE header length, JSON with dtype/shape/data_offsets,
  // string metadata, contiguous data; what PyTorch's safetensors.torch.load_file reads.
  Device& d = device();
  MultiTensorAdamW o(d, model_params());
  std::string path = tmp_path("layout.safetensors");
  o.save(path);
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(f)), {});
  uint64_t hlen = 0;
  for (int i = 0; i < 8; ++i) hlen |= uint64_t(file[i]) << (8 * i);
  ASSERT_LE(8 + hlen, file.size());
  EXPECT_EQ((8 + hlen) % 8, 0u);
  std::string header(file.begin() + 8, file.begin() + 8 + hlen);
  EXPECT_NE(header.find("\"fc1.exp_avg_sq\":{\"dtype\":\"F32\",\"shape\":[11,300]"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("\"__metadata__\""), std::string::npos);
  EXPECT_NE(header.find("\"step\":\"0\""), std::string::npos);
  std::remove(path.c_str());
}

TEST(MultiTensorAdamW, CorruptCheckpointsAreRefusedAndChangeNothing) {
  Device& d = device();
  auto r = rng();
  MultiTensorAdamW src(d, model_params());
  set_all(src, random_values(r, src.layout()), nullptr);
  src.step();
  std::string path = tmp_path("good.safetensors");
  src.save(path);
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> good((std::istreambuf_iterator<char>(f)), {});
  std::remove(path.c_str());

  MultiTensorAdamW dst(d, model_params());
  set_all(dst, random_values(r, dst.layout()), nullptr);
  dst.step();
  auto before = snapshot(d, dst);
  uint64_t step_before = dst.step_count();

  uint64_t hlen = 0;
  for (int i = 0; i < 8; ++i) hlen |= uint64_t(good[i]) << (8 * i);
  std::vector<std::pair<std::string, std::vector<uint8_t>>> bad;
  bad.push_back({"empty", {}});
  bad.push_back({"7 bytes", std::vector<uint8_t>(good.begin(), good.begin() + 7)});
  bad.push_back(
      {"truncated header", std::vector<uint8_t>(good.begin(), good.begin() + 8 + hlen / 2)});
  bad.push_back({"truncated data", std::vector<uint8_t>(good.begin(), good.end() - 5)});
  auto flip = good;
  flip[8 + hlen + (good.size() - 8 - hlen) / 2] ^= 0x10;
  bad.push_back({"flipped data bit", flip});
  auto hj = good;
  hj[8] = '[';
  bad.push_back({"broken JSON", hj});
  auto huge = good;
  huge[7] = 0x7f;
  bad.push_back({"header length past the end", huge});
  auto extra = good;
  extra.push_back(0);
  bad.push_back({"trailing byte", extra});
  for (const auto& [what, bytes] : bad) {
    std::string p = tmp_path("bad.safetensors");
    {
      std::ofstream o(p, std::ios::binary | std::ios::trunc);
      o.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    try {
      dst.load(p);
      ADD_FAILURE() << what << ": accepted";
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find("nothing was changed"), std::string::npos) << e.what();
    }
    std::remove(p.c_str());
    EXPECT_EQ(dst.step_count(), step_before) << what;
    EXPECT_EQ(snapshot(d, dst), before) << what << ": state changed";
  }
  // a checkpoint of another precision
  AdamWOptions q;
  q.precision = StatePrecision::Float8Blocks;
  MultiTensorAdamW other(d, model_params(), q);
  std::string p8 = tmp_path("int8.safetensors");
  other.save(p8);
  EXPECT_THROW(dst.load(p8), CheckpointError);
  std::remove(p8.c_str());
  EXPECT_EQ(snapshot(d, dst), before);
  EXPECT_THROW(dst.load(tmp_path("does-not-exist")), CheckpointError);
}

TEST(MultiTensorAdamW, BadArgumentsNameTheProblem) {
  Device& d = device();
  MultiTensorAdamW o(d, model_params());
  try {
    o.set_weights("nope", std::vector<float>(3));
    ADD_FAILURE();
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("fc1"), std::string::npos)
        << "should list the known names";
  }
  try {
    o.set_grads("fc1", std::vector<float>(3));
    ADD_FAILURE();
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("3300"), std::string::npos) << e.what();
  }
  EXPECT_THROW(MultiTensorAdamW(d, {}), ValidationError);
  EXPECT_THROW(MultiTensorAdamW(d, {{"a", {3}, true}, {"a", {4}, true}}), ValidationError);
  AdamWOptions neg;
  neg.max_grad_norm = -1.0f;
  EXPECT_THROW(MultiTensorAdamW(d, model_params(), neg), ValidationError);
}

TEST(MultiTensorAdamW, TimestampsAroundTheStep) {
  Device& d = device();
  if (!d.has_feature(Feature::TimestampQuery)) GTEST_SKIP() << "no timestamp-query";
  MultiTensorAdamW o(d, model_params());
  QuerySet qs = d.create_query_set({.label = "step", .count = 2});
  CommandEncoder enc = d.create_command_encoder({"timed step"});
  o.record_step(enc, PassTimestampWrites{qs, 0, 1});
  d.queue().submit(enc.finish());
  auto ts = d.read_timestamps(qs);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_GE(ts[1], ts[0]);
  EXPECT_EQ(o.step_count(), 1u);
}

// ---- 8-bit quality -------------------------------------------------------------------------------

TEST(MultiTensorAdamW8bit, ConvergesWithin2PercentOfFp32) {
  // The problem (tests/optimizer/logreg_problem.hpp): logistic regression, 1024 x 255 features +
  // bias, 10% flipped labels; 2000 full-batch steps, lr 1e-2, weight decay 0.01 on the weights
  // (the bias is the no-decay block), clipping at 1.0.
  Device& d = device();
  LogRegProblem prob(test_seed());
  const int steps = 2000;
  double final_loss[2] = {0, 0}, mid_loss[2] = {0, 0}, bytes[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    AdamWOptions opt;
    opt.lr = 1e-2f;
    opt.precision = k == 0 ? StatePrecision::FP32 : StatePrecision::Float8Blocks;
    MultiTensorAdamW o(d, {{"w", {uint64_t(LogRegProblem::D)}, true}, {"b", {1}, false}}, opt);
    o.set_weights("w", prob.w0);
    o.set_weights("b", std::vector<float>{0.0f});
    std::vector<float> w = prob.w0, gw;
    float b = 0, gb = 0;
    for (int s = 0; s < steps; ++s) {
      double loss = prob.loss_grad(w, b, &gw, &gb);
      if (s == steps / 4) mid_loss[k] = loss;
      o.set_grads("w", gw);
      o.set_grads("b", std::vector<float>{gb});
      o.step();
      w = o.read_weights("w");
      b = o.read_weights("b")[0];
    }
    final_loss[k] = prob.loss_grad(w, b);
    bytes[k] = o.state_bytes_per_param();
  }
  std::printf(
      "8-bit convergence: loss after %d steps fp32 %.6f, int8 %.6f (ratio %.4f); at step "
      "%d: %.6f vs %.6f; optimizer state %.3f vs %.3f bytes per parameter\n",
      steps, final_loss[0], final_loss[1], final_loss[1] / final_loss[0], steps / 4, mid_loss[0],
      mid_loss[1], bytes[0], bytes[1]);
  EXPECT_LE(std::abs(final_loss[1] - final_loss[0]), 0.02 * final_loss[0]);
  EXPECT_LE(std::abs(mid_loss[1] - mid_loss[0]), 0.02 * mid_loss[0]);
  EXPECT_LT(final_loss[0], 0.5 * prob.loss_grad(prob.w0, 0.0f))
      << "the problem must actually train";
  EXPECT_DOUBLE_EQ(bytes[1], 2.03125);
}
