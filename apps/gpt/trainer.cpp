#include "trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "wgslvk/png.hpp"
#include "wgslvk/output_file.hpp"
#include "wgslvk/validate/untrusted.hpp"

namespace wgslvk::gpt {

namespace {
constexpr const char* kFormat = "wgslvk-gpt-1";
constexpr uint64_t kValSeedMix = 0x5eed0fa11ull;
}  // namespace

std::string config_json(const TrainConfig& tc) {
  const ModelConfig m = tc.model();
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["model"] = {{"name", m.name},          {"vocab", m.vocab},
                {"context", m.context},    {"d_model", m.d_model},
                {"heads", m.heads},        {"layers", m.layers},
                {"mlp_mult", m.mlp_mult},  {"ln_eps", m.ln_eps},
                {"tied_embeddings", true}, {"parameters", m.parameter_count()}};
  j["train"] = {{"preset", tc.preset},
                {"steps", tc.steps},
                {"batch", tc.batch},
                {"context", tc.context},
                {"lr", tc.lr},
                {"min_lr_ratio", tc.min_lr_ratio},
                {"warmup_steps", tc.warmup_steps},
                {"schedule", std::string(schedule_name(tc.schedule))},
                {"beta1", tc.beta1},
                {"beta2", tc.beta2},
                {"eps", tc.eps},
                {"weight_decay", tc.weight_decay},
                {"max_grad_norm", tc.max_grad_norm ? nlohmann::ordered_json(*tc.max_grad_norm)
                                                   : nlohmann::ordered_json(nullptr)},
                {"precision", precision_label(tc)},
                {"attention", std::string(attention_name(tc.attention))},
                {"seed", tc.seed},
                {"log_every", tc.log_every},
                {"eval_every", tc.eval_every},
                {"eval_batches", tc.eval_batches},
                {"checkpoint_every", tc.checkpoint_every},
                {"val_fraction", tc.val_fraction}};
  if (tc.mixed) j["train"]["loss_scale"] = tc.loss_scale;  // only with it: older files stay valid
  return j.dump();
}

namespace {
using ojson = nlohmann::ordered_json;

// The fields of one object of a checkpoint's .json, read strictly: the JSON type each field must
// have (an integer is not a float: 256.0 is refused), its range, and no field this format does
// not define. Errors name the field and the value ("train.val_fraction = 2 is outside [0.001,
// 0.5]").
class Fields {
 public:
  Fields(const ojson& obj, std::string where, std::initializer_list<const char*> known)
      : obj_(obj), where_(std::move(where)) {
    if (!obj_.is_object()) fail("", "is " + validate::show(obj_) + ", not an object");
    for (const auto& [k, v] : obj_.items()) {
      bool ok = false;
      for (const char* n : known) ok |= k == n;
      if (!ok)
        fail("." + validate::bounded(validate::utf8_safe(k), 60),
             "is not a field of " + std::string(kFormat));
    }
  }
  const ojson& at(const char* k) const {
    if (!obj_.contains(k)) fail(std::string(".") + k, "is missing");
    return obj_[k];
  }
  uint64_t uint(const char* k, uint64_t lo, uint64_t hi) const {
    const ojson& v = at(k);
    if (!v.is_number_unsigned() || v.get<uint64_t>() < lo || v.get<uint64_t>() > hi)
      fail(std::string(".") + k, "= " + validate::show(v) + " is not an integer in [" +
                                     std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v.get<uint64_t>();
  }
  double real(const char* k) const {
    const ojson& v = at(k);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      fail(std::string(".") + k, "= " + validate::show(v) + " is not a finite number");
    return v.get<double>();
  }
  std::string str(const char* k) const {
    const ojson& v = at(k);
    if (!v.is_string()) fail(std::string(".") + k, "= " + validate::show(v) + " is not a string");
    return v.get<std::string>();
  }
  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw std::runtime_error(where_ + field + " " + why);
  }

 private:
  const ojson& obj_;
  std::string where_;
};
}  // namespace

TrainConfig config_from_json(const std::string& text) { return sidecar_from_json(text).config; }

CheckpointSidecar sidecar_from_json(const std::string& text) {
  ojson j;
  try {
    j = validate::parse_json_strict(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("not valid JSON: ") + e.what());
  }
  Fields top(j, "", {"format", "model", "train", "history"});
  if (top.str("format") != kFormat)
    top.fail("format", "= " + validate::show(j["format"]) + ", expected '" + kFormat + "'");
  using L = TrainLimits;
  Fields t(top.at("train"), "train",
           {"preset",       "steps",        "batch",         "context",      "lr",
            "min_lr_ratio", "warmup_steps", "schedule",      "beta1",        "beta2",
            "eps",          "weight_decay", "max_grad_norm", "precision",    "attention",
            "seed",         "log_every",    "eval_every",    "eval_batches", "checkpoint_every",
            "val_fraction", "loss_scale"});
  CheckpointSidecar out;
  TrainConfig& tc = out.config;
  // Names and enums through the command line's own parsers; ranges through check_train_config.
  auto named = [&](const char* field, auto parse) {
    try {
      return parse(t.str(field));
    } catch (const std::invalid_argument& e) { t.fail(std::string(".") + field, e.what()); }
  };
  tc.preset = t.str("preset");
  tc.steps = uint32_t(t.uint("steps", 1, L::max_steps));
  tc.batch = uint32_t(t.uint("batch", 1, L::max_batch));
  tc.context = uint32_t(t.uint("context", 0, L::max_context));
  tc.lr = float(t.real("lr"));
  tc.min_lr_ratio = float(t.real("min_lr_ratio"));
  tc.warmup_steps = uint32_t(t.uint("warmup_steps", 0, L::max_steps));
  tc.schedule = named("schedule", [](const std::string& s) { return parse_schedule(s); });
  tc.beta1 = float(t.real("beta1"));
  tc.beta2 = float(t.real("beta2"));
  tc.eps = float(t.real("eps"));
  tc.weight_decay = float(t.real("weight_decay"));
  if (t.at("max_grad_norm").is_null())
    tc.max_grad_norm.reset();
  else
    tc.max_grad_norm = float(t.real("max_grad_norm"));
  named("precision", [&](const std::string& s) {
    set_precision(tc, s);
    return 0;
  });
  if (tc.mixed) tc.loss_scale = float(t.real("loss_scale"));
  tc.attention = named("attention", [](const std::string& s) { return parse_attention(s); });
  tc.seed = t.uint("seed", 0, UINT64_MAX);
  tc.log_every = uint32_t(t.uint("log_every", 1, L::max_steps));
  tc.eval_every = uint32_t(t.uint("eval_every", 0, L::max_steps));
  tc.eval_batches = uint32_t(t.uint("eval_batches", 1, L::max_eval_batches));
  tc.checkpoint_every = uint32_t(t.uint("checkpoint_every", 0, L::max_steps));
  tc.val_fraction = t.real("val_fraction");
  try {
    check_train_config(tc);
  } catch (const std::invalid_argument& e) { t.fail("", e.what()); }
  // The model section is what the preset and context give (it is written for readers; a file
  // whose model disagrees with its own train section is not one this tool wrote).
  const ojson want = ojson::parse(config_json(tc))["model"];
  // Compared as unordered objects: a tool that rewrites the file may reorder its keys.
  if (nlohmann::json::parse(top.at("model").dump()) != nlohmann::json::parse(want.dump()))
    top.fail("model", "= " + validate::show(j["model"]) + " does not match the preset '" +
                          tc.preset + "' with context " + std::to_string(tc.context) +
                          " of the train section (" + want.dump() + ")");
  if (j.contains("history")) {
    Fields h(j["history"], "history", {"train", "val"});
    const ojson& tr = h.at("train");
    const ojson& va = h.at("val");
    if (!tr.is_array() || !va.is_array() || tr.size() > kMaxHistoryPoints ||
        va.size() > kMaxHistoryPoints)
      h.fail("", "holds no arrays train and val of at most " + std::to_string(kMaxHistoryPoints) +
                     " points");
    // [step, loss, lr] and [step, val_loss]; a loss that was NaN or inf is written as null.
    auto loss_of = [](const ojson& v, float& out) {
      if (v.is_null()) return out = std::numeric_limits<float>::quiet_NaN(), true;
      if (!v.is_number()) return false;
      out = float(v.get<double>());
      return true;
    };
    uint64_t last = 0;
    for (const auto& p : tr) {
      LogPoint lp;
      if (!p.is_array() || p.size() != 3 || !p[0].is_number_unsigned() ||
          p[0].get<uint64_t>() <= last || p[0].get<uint64_t>() > tc.steps ||
          !loss_of(p[1], lp.loss) || !loss_of(p[2], lp.lr))
        h.fail(".train", "point " + validate::show(p) +
                             " is not [step, loss, lr] with steps rising in [1, train.steps]");
      lp.step = uint32_t(last = p[0].get<uint64_t>());
      out.history.train.push_back(lp);
    }
    last = 0;
    for (const auto& p : va) {
      EvalPoint ep;
      if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() ||
          p[0].get<uint64_t>() <= last || p[0].get<uint64_t>() > tc.steps ||
          !loss_of(p[1], ep.val_loss))
        h.fail(".val", "point " + validate::show(p) +
                           " is not [step, val_loss] with steps rising in [1, train.steps]");
      ep.step = uint32_t(last = p[0].get<uint64_t>());
      out.history.val.push_back(ep);
    }
  }
  return out;
}

void save_checkpoint(GpuGpt& model, const TrainConfig& tc, const std::string& path,
                     const TrainLog* history) {
  // The sidecar first: a failure leaves the previous pair as it was.
  ojson j = ojson::parse(config_json(tc));
  if (history) {
    ojson tr = ojson::array(), va = ojson::array();
    // The most recent kMaxHistoryPoints points (a longer run keeps its tail).
    const size_t t0 =
        history->train.size() > kMaxHistoryPoints ? history->train.size() - kMaxHistoryPoints : 0;
    for (size_t i = t0; i < history->train.size(); ++i) {
      const auto& p = history->train[i];
      tr.push_back({p.step, p.loss, p.lr});  // NaN/inf dump as null
    }
    const size_t v0 =
        history->val.size() > kMaxHistoryPoints ? history->val.size() - kMaxHistoryPoints : 0;
    for (size_t i = v0; i < history->val.size(); ++i)
      va.push_back({history->val[i].step, history->val[i].val_loss});
    j["history"] = {{"train", std::move(tr)}, {"val", std::move(va)}};
  }
  const std::string text = j.dump(-1, ' ', false, ojson::error_handler_t::replace) + "\n";
  try {
    write_output_file_atomic(path + ".json", text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("cannot write the checkpoint's config: ") + e.what());
  }
  model.optimizer().save(path);
}

CheckpointSidecar read_checkpoint_sidecar(const std::string& path) {
  const std::string p = path + ".json";
  std::vector<uint8_t> bytes;
  try {
    bytes = validate::read_regular_file(p, kMaxSidecarBytes);
  } catch (const std::exception& e) {
    throw std::runtime_error("the checkpoint's config " + std::string(e.what()));
  }
  try {
    return sidecar_from_json(std::string(bytes.begin(), bytes.end()));
  } catch (const std::exception& e) {
    throw std::runtime_error(p + ": " + validate::utf8_safe(e.what()));
  }
}

TrainConfig read_checkpoint_config(const std::string& path) {
  return read_checkpoint_sidecar(path).config;
}

void load_checkpoint(GpuGpt& model, const std::string& path) { model.optimizer().load(path); }

float validation_loss(GpuGpt& model, const TrainConfig& tc, const Corpus& corpus) {
  double s = 0;
  const uint32_t n = std::max<uint32_t>(1, tc.eval_batches);
  for (uint32_t i = 0; i < n; ++i) {
    Batch b =
        make_batch(corpus.val, model.batch(), model.config().context, tc.seed ^ kValSeedMix, i);
    s += model.eval_loss(b);
  }
  return float(s / n);
}

TrainLog train(GpuGpt& model, const TrainConfig& tc, const Corpus& corpus,
               const TrainHooks& hooks) {
  TrainLog log;
  const uint32_t T = model.config().context, B = model.batch();
  if (hooks.prior) {  // the steps before the checkpoint this run resumed from
    const uint32_t at = uint32_t(model.optimizer().step_count());
    for (const auto& p : hooks.prior->train)
      if (p.step <= at) log.train.push_back(p);
    for (const auto& p : hooks.prior->val)
      if (p.step <= at) log.val.push_back(p);
  }
  const uint32_t every = std::clamp<uint32_t>(tc.log_every, 1, GpuGpt::kLossLogSlots);
  using clock = std::chrono::steady_clock;
  uint32_t t = uint32_t(model.optimizer().step_count());
  double train_seconds = 0;
  uint32_t trained = 0;
  auto interval_start = clock::now();
  uint32_t interval_first = t + 1;
  std::vector<float> lrs;
  const uint32_t end = hooks.stop_at ? std::min(hooks.stop_at, tc.steps) : tc.steps;
  while (t < end) {
    ++t;
    const float lr = lr_at(tc, t);
    lrs.push_back(lr);
    Batch b = make_batch(corpus.train, B, T, tc.seed, t);
    if (t == hooks.profile_step)
      log.profile = model.profile_step(b, lr, (t - interval_first) % every);
    else
      model.train_step(b, lr, (t - interval_first) % every);
    const bool last = t == end;
    if ((t - interval_first + 1) == every || last) {
      const uint32_t n = t - interval_first + 1;
      auto losses = model.read_loss_log(n);  // the interval's one read-back (waits)
      const double secs = std::chrono::duration<double>(clock::now() - interval_start).count();
      train_seconds += secs;
      trained += n;
      double mean = 0;
      for (uint32_t i = 0; i < n; ++i) {
        log.train.push_back({interval_first + i, losses[i], lrs[i]});
        mean += losses[i];
      }
      mean /= n;
      const double tok_s = double(n) * B * T / secs, ms = secs * 1e3 / n;
      // Mixed precision: f16 casts that overflowed so far (a loss scale too large for the
      // gradients: those elements are dropped by the optimizer, which skips non-finite ones).
      const bool mixed = !model.mixed_kernel_name().empty();
      const uint32_t overflow = mixed ? model.read_f16_overflow() : 0;
      if (hooks.progress)
        std::fprintf(
            hooks.progress,
            "step %6u/%u  loss %.4f (interval mean %.4f)  lr %.2e  %.0f tok/s  %.2f ms/step%s\n", t,
            tc.steps, losses[n - 1], mean, double(lrs.back()), tok_s, ms,
            overflow ? ("  f16 overflows " + std::to_string(overflow)).c_str() : "");
      if (hooks.json) {
        nlohmann::ordered_json j{{"event", "train"},      {"step", t},
                                 {"loss", losses[n - 1]}, {"interval_mean_loss", mean},
                                 {"lr", lrs.back()},      {"tokens_per_s", tok_s},
                                 {"step_ms", ms}};
        if (mixed) j["f16_overflow"] = overflow;
        std::fprintf(hooks.json, "%s\n", j.dump().c_str());
      }
      lrs.clear();
      const bool do_eval = tc.eval_every && (t % tc.eval_every == 0 || last);
      if (do_eval) {
        float v = validation_loss(model, tc, corpus);
        log.val.push_back({t, v});
        if (hooks.progress) std::fprintf(hooks.progress, "step %6u  val_loss %.4f\n", t, v);
        if (hooks.json) {
          nlohmann::ordered_json j{{"event", "val"}, {"step", t}, {"val_loss", v}};
          std::fprintf(hooks.json, "%s\n", j.dump().c_str());
        }
      }
      const bool do_ckpt = !hooks.checkpoint_path.empty() &&
                           ((tc.checkpoint_every && t % tc.checkpoint_every == 0) || last);
      if (do_ckpt) {
        save_checkpoint(model, tc, hooks.checkpoint_path, &log);
        if (hooks.progress)
          std::fprintf(hooks.progress, "step %6u  checkpoint %s\n", t,
                       hooks.checkpoint_path.c_str());
        if (hooks.json) {
          nlohmann::ordered_json j{
              {"event", "checkpoint"}, {"step", t}, {"path", hooks.checkpoint_path}};
          std::fprintf(hooks.json, "%s\n", j.dump().c_str());
        }
      }
      if (hooks.progress) std::fflush(hooks.progress);
      if (hooks.json) std::fflush(hooks.json);
      interval_first = t + 1;
      interval_start = clock::now();
    } else if (tc.checkpoint_every && t % tc.checkpoint_every == 0 &&
               !hooks.checkpoint_path.empty()) {
      // A checkpoint inside a logging interval: the interval's losses stay in the loss log.
      save_checkpoint(model, tc, hooks.checkpoint_path, &log);
    }
  }
  if (trained) {
    log.tokens_per_s = double(trained) * B * T / train_seconds;
    log.step_ms = train_seconds * 1e3 / trained;
  }
  return log;
}

void print_profile(std::FILE* out, const std::vector<GpuGpt::ProfileRow>& rows) {
  double total = 0;
  uint32_t n = 0;
  for (const auto& r : rows) total += r.ms, n += r.dispatches;
  std::fprintf(out, "| kernel | dispatches | ms | %% of step |\n|---|---:|---:|---:|\n");
  std::vector<GpuGpt::ProfileRow> sorted = rows;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.ms > b.ms; });
  for (const auto& r : sorted)
    std::fprintf(out, "| %s | %u | %.3f | %.1f |\n", r.kernel.c_str(), r.dispatches, r.ms,
                 total > 0 ? 100 * r.ms / total : 0.0);
  std::fprintf(out, "| **step** | %u | %.3f | 100 |\n", n, total);
}

bool write_loss_png(const TrainLog& log, const std::string& path, const std::string& title) {
  const int W = 900, H = 500, L = 70, R = W - 20, Tp = 40, Bt = H - 50;
  Canvas c(W, H);
  const Rgb black{0, 0, 0}, grid{220, 220, 220}, blue{40, 90, 200}, red{210, 50, 40};
  c.text(10, 10, title, black, 2);
  // Non-finite losses (a diverged run: --lr 1e30) are skipped and counted; the curve breaks at
  // them. They once reached the line drawing as coordinates near INT_MIN and it never ended.
  size_t skipped = 0;
  double ymin = std::numeric_limits<double>::infinity(), ymax = -ymin;
  for (auto& p : log.train)
    if (std::isfinite(p.loss)) {
      ymin = std::min<double>(ymin, p.loss);
      ymax = std::max<double>(ymax, p.loss);
    } else {
      ++skipped;
    }
  for (auto& p : log.val)
    if (std::isfinite(p.val_loss)) {
      ymin = std::min<double>(ymin, p.val_loss);
      ymax = std::max<double>(ymax, p.val_loss);
    } else {
      ++skipped;
    }
  if (log.train.empty() || !std::isfinite(ymin)) {
    c.text(L + 10, H / 2, log.train.empty() ? "NO DATA" : "NO FINITE LOSS", black, 2);
    return c.write_png(path);
  }
  double x0 = log.train.front().step, x1 = log.train.back().step;
  if (x1 <= x0) x1 = x0 + 1;
  if (!(ymax > ymin)) {
    ymin -= 1;
    ymax += 1;
  }
  // A "nice" grid step (1, 2 or 5 times a power of ten) giving at most about 10 lines, whatever
  // the range (a fixed 0.5 step never advanced past 1e17).
  const double raw = (ymax - ymin) / 8;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {2.0, 5.0, 10.0})
    if (step < raw) step = magnitude * m;
  ymin = std::floor(ymin / step) * step;
  ymax = std::ceil(ymax / step) * step;
  // Pixel coordinates of in-range values, clamped so no cast overflows.
  auto clamp_px = [](double v) { return int(std::clamp(v, -1e6, 1e6)); };
  auto px = [&](double x) { return clamp_px(L + (x - x0) / (x1 - x0) * (R - L)); };
  auto py = [&](double y) { return clamp_px(Bt - (y - ymin) / (ymax - ymin) * (Bt - Tp)); };
  const int lines = int(std::llround((ymax - ymin) / step));
  for (int i = 0; i <= lines && i <= 20; ++i) {
    const double y = ymin + i * step;
    c.line(L, py(y), R, py(y), grid);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", y);
    c.text(L - 6 - Canvas::text_width(buf), py(y) - 3, buf, black);
  }
  c.line(L, Tp, L, Bt, black);
  c.line(L, Bt, R, Bt, black);
  for (int i = 0; i <= 4; ++i) {
    double x = x0 + (x1 - x0) * i / 4;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", x);
    c.text(px(x) - Canvas::text_width(buf) / 2, Bt + 8, buf, black);
  }
  c.text((L + R) / 2 - 12, H - 20, "STEP", black);
  for (size_t i = 1; i < log.train.size(); ++i)
    if (std::isfinite(log.train[i - 1].loss) && std::isfinite(log.train[i].loss))
      c.line(px(log.train[i - 1].step), py(log.train[i - 1].loss), px(log.train[i].step),
             py(log.train[i].loss), blue);
  for (size_t i = 0; i < log.val.size(); ++i) {
    if (!std::isfinite(log.val[i].val_loss)) continue;
    int x = px(log.val[i].step), y = py(log.val[i].val_loss);
    c.rect(x - 3, y - 3, x + 3, y + 3, red);
    if (i && std::isfinite(log.val[i - 1].val_loss))
      c.line(px(log.val[i - 1].step), py(log.val[i - 1].val_loss), x, y, red, 0, 6);
  }
  c.text(R - 200, Tp, "TRAIN LOSS", blue, 1);
  c.text(R - 200, Tp + 12, "VAL LOSS", red, 1);
  if (skipped)
    c.text(R - 200, Tp + 24, std::to_string(skipped) + " NON-FINITE LOSSES SKIPPED", red, 1);
  return c.write_png(path);
}

}  // namespace wgslvk::gpt
