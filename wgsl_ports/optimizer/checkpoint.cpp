#include "checkpoint.hpp"

#include <cstdio>
#include <cstring>

#include "wgslvk/numeric.hpp"

namespace wgslvk::optimizer {
namespace {

constexpr const char* kQ8Scheme =
    "m: sign + E4M3, v: E5M3, relative to a power-of-two scale per 256-element block, stochastic "
    "rounding seeded by the value bits and the step (wgsl_ports/optimizer/12_optimizer.wgsl)";

std::string fmt_float(float f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", double(f));
  return buf;
}

}  // namespace

std::vector<uint8_t> encode_checkpoint(std::span<const CheckpointTensor> tensors,
                                       std::span<const std::vector<uint8_t>> data,
                                       const CheckpointState& st) {
  const AdamWOptions& o = st.options;
  // The order is the file format's (wgslvk.adamw.v2): format first and crc32 last come from the
  // container.
  const std::vector<std::pair<std::string, std::string>> md = {
      {"step", std::to_string(st.step)},
      {"lr", fmt_float(o.lr)},
      {"beta1", fmt_float(o.beta1)},
      {"beta2", fmt_float(o.beta2)},
      {"eps", fmt_float(o.eps)},
      {"weight_decay", fmt_float(o.weight_decay)},
      {"max_grad_norm", o.max_grad_norm ? fmt_float(*o.max_grad_norm) : "none"},
      {"state_precision", std::string(precision_name(o.precision))},
      {"norm_mode", o.norm == NormMode::Atomic ? "atomic" : "deterministic"},
      {"q8_scheme", o.precision == StatePrecision::Float8Blocks ? kQ8Scheme : "none"}};
  return encode_safetensors_checkpoint(tensors, data, kCheckpointFormat, md);
}

DecodedCheckpoint decode_checkpoint(std::span<const uint8_t> file,
                                    std::span<const CheckpointTensor> expected,
                                    const AdamWOptions& current) {
  DecodedCheckpoint out;
  auto check = [&](const CheckpointMetadata& md) {
    if (md.str("state_precision") != precision_name(current.precision))
      throw CheckpointError("state precision " + checkpoint_value(md.str("state_precision")) +
                            ", this optimizer uses '" +
                            std::string(precision_name(current.precision)) + "'");
    // Both are written by save() and describe how the state was made: a value this build never
    // writes is a corrupt or foreign file, not something to ignore.
    const std::string& norm = md.str("norm_mode");
    if (norm != "atomic" && norm != "deterministic")
      throw CheckpointError("__metadata__ 'norm_mode' = " + checkpoint_value(norm) +
                            " is neither 'atomic' nor 'deterministic'");
    const bool q8 = current.precision == StatePrecision::Float8Blocks;
    if (md.str("q8_scheme") != (q8 ? kQ8Scheme : "none"))
      throw CheckpointError("__metadata__ 'q8_scheme' = " + checkpoint_value(md.str("q8_scheme")) +
                            (q8 ? " is not this build's 8-bit scheme" : ", expected 'none'"));
    out.state.step = md.step();
    AdamWOptions o = current;
    o.lr = md.finite_float("lr");
    o.beta1 = md.finite_float("beta1");
    o.beta2 = md.finite_float("beta2");
    o.eps = md.finite_float("eps");
    o.weight_decay = md.finite_float("weight_decay");
    if (md.str("max_grad_norm") == "none")
      o.max_grad_norm.reset();
    else
      o.max_grad_norm = md.finite_float("max_grad_norm");
    try {
      check_adamw_options(o, "checkpoint");  // what the constructor refuses, load() refuses
    } catch (const std::exception& e) { throw CheckpointError(e.what()); }
    out.state.options = o;
  };
  DecodedSafetensors d =
      decode_safetensors_checkpoint(file, {kCheckpointFormat, "wgslvk.adamw.v1"}, expected, check);
  out.data_offset = d.data_offset;
  out.spans = std::move(d.spans);
  return out;
}

// ---- MultiTensorAdamW::save / load ----------------------------------------------------------------

namespace {
struct Role {
  CheckpointTensor t;
  const Buffer* buffer;
  uint64_t byte_offset;
};
}  // namespace

static std::vector<Role> checkpoint_roles(const Layout& L, StatePrecision prec, const Buffer& w,
                                          const Buffer& m, const Buffer& v, const Buffer& mq,
                                          const Buffer& vq, const Buffer& ms, const Buffer& vs) {
  std::vector<Role> t;
  for (const auto& p : L.params) {
    t.push_back({{p.name, "F32", p.shape, p.count * 4}, &w, p.offset * 4});
    if (prec == StatePrecision::Float8Blocks) {
      uint64_t nb = div_ceil(p.count, 256);
      t.push_back({{p.name + ".exp_avg.q8", "U8", {p.count}, p.count}, &mq, p.offset});
      t.push_back({{p.name + ".exp_avg.scale", "F32", {nb}, nb * 4}, &ms, p.offset / 256 * 4});
      t.push_back({{p.name + ".exp_avg_sq.q8", "U8", {p.count}, p.count}, &vq, p.offset});
      t.push_back({{p.name + ".exp_avg_sq.scale", "F32", {nb}, nb * 4}, &vs, p.offset / 256 * 4});
    } else {
      t.push_back({{p.name + ".exp_avg", "F32", p.shape, p.count * 4}, &m, p.offset * 4});
      t.push_back({{p.name + ".exp_avg_sq", "F32", p.shape, p.count * 4}, &v, p.offset * 4});
    }
  }
  return t;
}

std::vector<CheckpointTensor> checkpoint_tensors(const Layout& L, StatePrecision prec) {
  Buffer none;
  std::vector<CheckpointTensor> out;
  for (auto& r : checkpoint_roles(L, prec, none, none, none, none, none, none, none))
    out.push_back(r.t);
  return out;
}

void MultiTensorAdamW::save(const std::string& path) {
  auto roles = checkpoint_roles(layout_, opt_.precision, w_, m_, v_, mq_, vq_, ms_, vs_);
  std::vector<CheckpointTensor> tensors;
  std::vector<std::vector<uint8_t>> data;
  for (const auto& r : roles) {
    tensors.push_back(r.t);
    data.push_back(read_bytes(*r.buffer, r.byte_offset, r.t.bytes));
  }
  write_checkpoint_file(path, encode_checkpoint(tensors, data, {t_, opt_}),
                        "MultiTensorAdamW::save");
}

void MultiTensorAdamW::load(const std::string& path) {
  auto roles = checkpoint_roles(layout_, opt_.precision, w_, m_, v_, mq_, vq_, ms_, vs_);
  std::vector<CheckpointTensor> tensors;
  uint64_t data_bytes = 0;
  for (const auto& r : roles) {
    tensors.push_back(r.t);
    data_bytes += r.t.bytes;
  }
  std::vector<uint8_t> file;
  DecodedCheckpoint d;
  try {
    file = read_checkpoint_file(path, data_bytes);
    d = decode_checkpoint(file, tensors, opt_);
  } catch (const CheckpointError& e) {
    throw CheckpointError("MultiTensorAdamW::load('" + path + "'): " + e.what() +
                          "; nothing was changed");
  }
  const uint8_t* data = file.data() + d.data_offset;

  // everything checked: apply
  opt_ = d.state.options;
  t_ = d.state.step;
  for (size_t i = 0; i < roles.size(); ++i)
    write_role(*roles[i].buffer, roles[i].byte_offset, data + d.spans[i].first, roles[i].t.bytes);
  if (w16_)
    for (const auto& p : layout_.params) {
      std::vector<float> wv(p.count);
      for (size_t i = 0; i < roles.size(); ++i)
        if (roles[i].t.key == p.name && p.count)
          std::memcpy(wv.data(), data + d.spans[i].first, p.count * 4);
      write_mirror(p, wv);  // w itself was written above
    }
  CommandEncoder enc = device_.create_command_encoder({"adamw load"});
  enc.clear_buffer(g_);
  enc.clear_buffer(acc_);
  device_.queue().submit(enc.finish());
  write_uniforms();
}

}  // namespace wgslvk::optimizer
