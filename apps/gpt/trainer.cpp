#include "trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "wgslvk/bench/png.hpp"

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
                {"precision", std::string(optimizer::precision_name(tc.precision))},
                {"attention", std::string(attention_name(tc.attention))},
                {"seed", tc.seed},
                {"log_every", tc.log_every},
                {"eval_every", tc.eval_every},
                {"eval_batches", tc.eval_batches},
                {"checkpoint_every", tc.checkpoint_every},
                {"val_fraction", tc.val_fraction}};
  return j.dump();
}

TrainConfig config_from_json(const std::string& text) {
  auto j = nlohmann::json::parse(text);
  if (j.value("format", "") != kFormat)
    throw std::runtime_error("checkpoint config: format is not " + std::string(kFormat));
  const auto& t = j.at("train");
  TrainConfig tc;
  tc.preset = t.at("preset");
  tc.steps = t.at("steps");
  tc.batch = t.at("batch");
  tc.context = t.at("context");
  tc.lr = t.at("lr");
  tc.min_lr_ratio = t.at("min_lr_ratio");
  tc.warmup_steps = t.at("warmup_steps");
  tc.schedule = t.at("schedule") == "cosine" ? Schedule::Cosine : Schedule::Constant;
  tc.beta1 = t.at("beta1");
  tc.beta2 = t.at("beta2");
  tc.eps = t.at("eps");
  tc.weight_decay = t.at("weight_decay");
  if (t.at("max_grad_norm").is_null())
    tc.max_grad_norm.reset();
  else
    tc.max_grad_norm = t.at("max_grad_norm").get<float>();
  const std::string p = t.at("precision");
  tc.precision = p == "int8"         ? optimizer::StatePrecision::Float8Blocks
                 : p == "f16_mirror" ? optimizer::StatePrecision::F16Mirror
                                     : optimizer::StatePrecision::FP32;
  tc.attention = parse_attention(t.at("attention").get<std::string>());
  tc.seed = t.at("seed");
  tc.log_every = t.at("log_every");
  tc.eval_every = t.at("eval_every");
  tc.eval_batches = t.at("eval_batches");
  tc.checkpoint_every = t.at("checkpoint_every");
  tc.val_fraction = t.at("val_fraction");
  return tc;
}

void save_checkpoint(GpuGpt& model, const TrainConfig& tc, const std::string& path) {
  model.optimizer().save(path);
  std::ofstream f(path + ".json", std::ios::trunc);
  f << config_json(tc) << "\n";
  if (!f) throw std::runtime_error("cannot write " + path + ".json");
}

TrainConfig read_checkpoint_config(const std::string& path) {
  std::ifstream f(path + ".json");
  if (!f) throw std::runtime_error("missing " + path + ".json (the checkpoint's config)");
  std::stringstream ss;
  ss << f.rdbuf();
  return config_from_json(ss.str());
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
      if (hooks.progress)
        std::fprintf(
            hooks.progress,
            "step %6u/%u  loss %.4f (interval mean %.4f)  lr %.2e  %.0f tok/s  %.2f ms/step\n", t,
            tc.steps, losses[n - 1], mean, double(lrs.back()), tok_s, ms);
      if (hooks.json) {
        nlohmann::ordered_json j{{"event", "train"},      {"step", t},
                                 {"loss", losses[n - 1]}, {"interval_mean_loss", mean},
                                 {"lr", lrs.back()},      {"tokens_per_s", tok_s},
                                 {"step_ms", ms}};
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
        save_checkpoint(model, tc, hooks.checkpoint_path);
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
      save_checkpoint(model, tc, hooks.checkpoint_path);
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
  using bench::Canvas;
  using bench::Rgb;
  const int W = 900, H = 500, L = 70, R = W - 20, Tp = 40, Bt = H - 50;
  Canvas c(W, H);
  const Rgb black{0, 0, 0}, grid{220, 220, 220}, blue{40, 90, 200}, red{210, 50, 40};
  c.text(10, 10, title, black, 2);
  if (log.train.empty()) {
    c.text(L + 10, H / 2, "NO DATA", black, 2);
    return c.write_png(path);
  }
  double x0 = log.train.front().step, x1 = log.train.back().step;
  if (x1 <= x0) x1 = x0 + 1;
  double ymin = 1e300, ymax = -1e300;
  for (auto& p : log.train)
    if (std::isfinite(p.loss)) {
      ymin = std::min<double>(ymin, p.loss);
      ymax = std::max<double>(ymax, p.loss);
    }
  for (auto& p : log.val)
    if (std::isfinite(p.val_loss)) {
      ymin = std::min<double>(ymin, p.val_loss);
      ymax = std::max<double>(ymax, p.val_loss);
    }
  if (!(ymax > ymin)) {
    ymin -= 1;
    ymax += 1;
  }
  ymin = std::floor(ymin * 2) / 2;
  ymax = std::ceil(ymax * 2) / 2;
  auto px = [&](double x) { return L + int((x - x0) / (x1 - x0) * (R - L)); };
  auto py = [&](double y) { return Bt - int((y - ymin) / (ymax - ymin) * (Bt - Tp)); };
  for (double y = ymin; y <= ymax + 1e-9; y += 0.5) {
    c.line(L, py(y), R, py(y), grid);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", y);
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
    c.line(px(log.train[i - 1].step), py(log.train[i - 1].loss), px(log.train[i].step),
           py(log.train[i].loss), blue);
  for (size_t i = 0; i < log.val.size(); ++i) {
    int x = px(log.val[i].step), y = py(log.val[i].val_loss);
    c.rect(x - 3, y - 3, x + 3, y + 3, red);
    if (i) c.line(px(log.val[i - 1].step), py(log.val[i - 1].val_loss), x, y, red, 0, 6);
  }
  c.text(R - 200, Tp, "TRAIN LOSS", blue, 1);
  c.text(R - 200, Tp + 12, "VAL LOSS", red, 1);
  return c.write_png(path);
}

}  // namespace wgslvk::gpt
