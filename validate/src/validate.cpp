#include "wgslvk/validate/validate.hpp"

#include <cmath>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "wgslvk/validate/generators.hpp"
#include "wgslvk/validate/golden.hpp"
#include "wgslvk/validate/untrusted.hpp"

namespace wgslvk::validate {

namespace fs = std::filesystem;

bool kernel_matches(const std::vector<std::string>& filters, const std::string& q) {
  if (filters.empty()) return true;
  std::string bare = q.substr(q.find('/') + 1), file = q.substr(0, q.find('/'));
  for (const auto& f : filters)
    if (f == q || f == bare || f == file) return true;
  return false;
}

bool ValidateReport::ok() const {
  if (!layer_messages.empty()) return false;
  for (const auto& r : rows)
    if (r.status == "FAIL") return false;
  return !rows.empty();
}

std::string ValidateReport::verdict() const {
  int cases = 0, kernels = 0, skipped = 0, failed = 0, errors = 0;
  for (const auto& r : rows) {
    cases += r.cases;
    errors += r.errors;
    ++kernels;
    if (r.status == "SKIP") ++skipped;
    if (r.status == "FAIL") ++failed;
  }
  std::string s = ok() ? "PASS" : "FAIL";
  s += ": " + std::to_string(kernels - failed - skipped) + " of " + std::to_string(kernels) +
       " kernels pass";
  if (failed) s += ", " + std::to_string(failed) + " fail";
  if (skipped) s += ", " + std::to_string(skipped) + " skipped";
  if (errors) s += ", " + std::to_string(errors) + " case(s) ERROR";
  if (device_abandoned) s += ", device abandoned after a time-out";
  if (!layer_messages.empty())
    s += ", validation layer reported " + std::to_string(layer_messages.size()) + " message(s)";
  s += " (" + std::to_string(cases) + " cases) on " + device;
  return s;
}

struct Validator::Impl {
  ValidateOptions opt;
  Instance instance;
  Adapter adapter;
  Device device;
  std::unique_ptr<Runner> runner;
  std::string abandoned_by;  // the case that ran past the time limit

  CaseResult run_case(Runner& runner, const Case& c);
};

Validator::Validator(ValidateOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = std::move(options);
  impl_->instance = Instance::create();
  // No adapter matching --device is a failure to start (exit 3 in `wgslvk validate`), not a
  // usage error: select_adapter's std::invalid_argument once made it exit 2.
  try {
    impl_->adapter = impl_->instance.select_adapter(impl_->opt.device);
  } catch (const std::invalid_argument& e) { throw std::runtime_error(e.what()); }
  DeviceDescriptor desc;
  desc.label = "wgslvk validate";
  desc.required_features = impl_->adapter.features();
  impl_->device = impl_->adapter.request_device(desc);
}

Validator::~Validator() {
  // A case that ran past the time limit still has its dispatch in flight on a detached thread:
  // destroying the device under it is undefined, so the device (and the thread's runner) stay.
  if (impl_ && !impl_->abandoned_by.empty()) (void)impl_.release();
}

namespace {
struct Pending {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  CaseResult r;
};
}  // namespace

const std::string& Validator::device_name() const { return impl_->adapter.info().name; }

std::string Validator::device_description() const {
  const auto& i = impl_->adapter.info();
  std::string s = i.name + " [" + std::to_string(i.index) + "] (" +
                  std::string(adapter_type_name(i.type)) + ", " + i.driver + "); features:";
  auto f = impl_->adapter.features();
  if (f.empty()) s += " none";
  for (auto x : f) s += " " + std::string(feature_name(x));
  s += impl_->instance.validation_enabled() ? "; validation layer on" : "; validation layer off";
  return s;
}

namespace {
// The report's rows: one per kernel, in all_kernels() order, then any others the cases named.
void add_kernel_rows(ValidateReport& rep, const std::vector<std::pair<Case, CaseResult>>& done,
                     const ValidateOptions& opt, Runner* runner) {
  std::vector<std::string> order;
  for (const KernelInfo* k : all_kernels()) order.push_back(k->qualified_name());
  for (const auto& [c, r] : done)
    if (std::find(order.begin(), order.end(), r.kernel) == order.end()) order.push_back(r.kernel);
  for (const auto& name : order) {
    KernelRow row;
    row.kernel = name;
    double worst_ratio = -1;
    for (const auto& [c, r] : done) {
      if (r.kernel != name) continue;
      ++row.cases;
      switch (r.status) {
        case CaseResult::Status::Pass:
          ++row.passed;
          break;
        case CaseResult::Status::Fail:
          ++row.failed;
          break;
        case CaseResult::Status::Skip:
          ++row.skipped;
          break;
        default:
          ++row.errors;
      }
      if (r.status != CaseResult::Status::Pass)
        row.messages.push_back(std::string(status_name(r.status)) + " " + r.id + " [" + r.source +
                               "]: " + r.message);
      if (r.device_ms) row.device_ms += *r.device_ms, row.timed = true;
      for (const auto& chk : r.checks) {
        if (chk.mode != CheckSpec::Mode::Ulp) continue;
        double ratio = chk.bound_at_worst > 0 ? chk.worst_ulp / chk.bound_at_worst
                                              : (chk.worst_ulp > 0 ? INFINITY : 0);
        if (!row.any_ulp || ratio > worst_ratio) {
          worst_ratio = ratio;
          row.worst_ulp = chk.worst_ulp;
          row.worst_bound = chk.bound_at_worst;
        }
        row.any_ulp = true;
      }
    }
    if (row.cases == 0) {
      const KernelInfo* k = find_kernel(name);
      if (!k || !kernel_matches(opt.kernels, name) || opt.cases) continue;
      // A kernel this device cannot run (a subgroup-matrix kernel on lavapipe) and that has no
      // case is SKIPped with the reason, as its cases would be: not a "0 of 0" FAIL.
      const std::string why = runner ? runner->unsupported_reason(*k) : "";
      if (!why.empty()) {
        row.status = "SKIP";
        row.messages.push_back("SKIP " + name + ": " + why + " (no case ran)");
        rep.rows.push_back(std::move(row));
      } else if (k->file != "wgslvk_util") {
        rep.uncovered.push_back(name);
      }
      continue;
    }
    row.status = (row.failed || row.errors) ? "FAIL" : (row.skipped == row.cases ? "SKIP" : "PASS");
    rep.rows.push_back(std::move(row));
  }
}
}  // namespace

// One case under the time limit: run on a worker thread, waited for with a timeout. Past the
// limit the worker is detached with its dispatch in flight (Vulkan cannot cancel it) and the
// device is abandoned: every later case is reported ERROR without running.
CaseResult Validator::Impl::run_case(Runner& runner, const Case& c) {
  CaseResult r;
  r.id = c.id();
  r.kernel = c.kernel;
  r.source = c.dir.empty() ? std::string("in memory") : c.dir.string();
  r.status = CaseResult::Status::Error;
  if (!abandoned_by.empty()) {
    r.message =
        "not run: the device was abandoned after case " + abandoned_by + " ran past the time limit";
    return r;
  }
  if (!(opt.timeout_s > 0)) return runner.run(c);
  auto st = std::make_shared<Pending>();
  auto cp = std::make_shared<Case>(c);
  Runner* rp = &runner;
  std::thread worker([st, cp, rp] {
    CaseResult res;
    try {
      res = rp->run(*cp);
    } catch (const std::exception& e) {
      res.id = cp->id();
      res.kernel = cp->kernel;
      res.status = CaseResult::Status::Error;
      res.message = e.what();
    }
    std::lock_guard lk(st->m);
    st->r = std::move(res);
    st->done = true;
    st->cv.notify_all();
  });
  std::unique_lock lk(st->m);
  bool finished =
      st->cv.wait_for(lk, std::chrono::duration<double>(opt.timeout_s), [&] { return st->done; });
  if (finished) {
    lk.unlock();
    worker.join();
    return std::move(st->r);
  }
  lk.unlock();
  worker.detach();
  abandoned_by = c.id();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", opt.timeout_s);
  r.message = "ran past the time limit of " + std::string(buf) +
              " s (wgslvk validate --timeout S; 0 for none); a dispatch in flight cannot be "
              "interrupted safely, so the device was abandoned and later cases are not run";
  return r;
}

ValidateReport Validator::run(const std::function<void(const CaseResult&)>& progress) {
  const ValidateOptions& opt = impl_->opt;
  ValidateReport rep;
  rep.device = impl_->adapter.info().name;
  rep.driver = impl_->adapter.info().driver;
  rep.validation_layer = impl_->instance.validation_enabled();
  rep.seed =
      opt.seed ? *opt.seed : (uint64_t(std::random_device{}()) << 32 | std::random_device{}());
  RunOptions ro = opt.run;
  if (opt.timeout_s > 0 && !ro.max_invocations) ro.max_invocations = kDefaultMaxInvocations;
  // After an abandonment the old runner is still in use by the detached worker: keep it.
  if (impl_->abandoned_by.empty()) impl_->runner = std::make_unique<Runner>(impl_->device, ro);
  Runner& runner = *impl_->runner;
  auto run_case = [&](const Case& c) { return impl_->run_case(runner, c); };

  // (case, result) in order: golden (or --cases) first, then the randomized checks.
  std::vector<std::pair<Case, CaseResult>> done;
  auto record = [&](Case c, CaseResult r) {
    if (opt.dump && (!r.outputs.empty() || r.status == CaseResult::Status::Fail)) {
      try {
        dump_result(*opt.dump, c, r);
      } catch (const std::exception& e) {
        r.status = CaseResult::Status::Error;
        r.message = (r.message.empty() ? "" : r.message + "; ") + e.what();
      }
    }
    // Messages are for people and JSON: bounded, valid UTF-8, no control bytes (a newline in a
    // case's name once forged a "PASS: 1 of 1 kernels pass" line in the text report).
    r.message = escape_controls(utf8_safe(bounded(r.message, 4000)));
    r.id = escape_controls(utf8_safe(r.id));
    r.kernel = escape_controls(utf8_safe(r.kernel));
    r.source = escape_controls(utf8_safe(r.source));
    if (progress) progress(r);
    // Keep only what the report needs: the read-back outputs and the case's inputs and expected
    // arrays go once the case is dumped and reported (40 cases of a 256 MiB output once held
    // 7.5 GB to the end, and the last cases failed "out of host memory").
    r.outputs.clear();
    done.emplace_back(Case{}, std::move(r));
  };

  fs::path root = opt.cases ? *opt.cases : golden_dir();
  // An explicit --cases folder with nothing in it is an error (nothing would be checked); the
  // built-in golden folder may be empty or absent (a new family with generators only): its
  // randomized checks still run.
  std::vector<fs::path> dirs;
  if (opt.cases || fs::exists(root)) dirs = find_cases(root);
  if (dirs.empty() && opt.cases) throw CaseError("no case.json found under " + root.string());
  for (const auto& dir : dirs) {
    Case c;
    try {
      c = load_case(dir);
    } catch (const std::exception& e) {
      // A case that does not load still counts, under the kernel its path names.
      c.dir = dir;
      c.name = dir.filename().string();
      fs::path rel = dir.lexically_relative(root);
      auto it = rel.begin();
      std::string k = rel.has_parent_path() && std::distance(rel.begin(), rel.end()) >= 3
                          ? (it->string() + "/" + std::next(it)->string())
                          : std::string("(unknown kernel)");
      c.kernel = k;
      if (!kernel_matches(opt.kernels, k)) continue;
      CaseResult r;
      r.id = c.id();
      r.kernel = k;
      r.source = dir.string();
      r.status = CaseResult::Status::Error;
      r.message = e.what();
      record(std::move(c), std::move(r));
      continue;
    }
    if (!kernel_matches(opt.kernels, c.kernel)) continue;
    if (!find_kernel(c.kernel)) {
      // The top-level kernel files the case (and names its dump folder): it must be one we have.
      // The message names the nearest kernels (wgslvk::kernel's first line), not every kernel.
      std::string why = "unknown kernel '" + c.kernel + "'";
      try {
        (void)kernel(c.kernel);
      } catch (const std::invalid_argument& e) { why = std::string(e.what()); }
      why = why.substr(0, why.find('\n'));
      CaseResult r;
      r.id = c.id();
      r.kernel = c.kernel;
      r.source = dir.string();
      r.status = CaseResult::Status::Error;
      r.message = (dir / "case.json").string() + ": kernel: " + why +
                  " (`wgslvk inspect --list` lists every kernel)";
      record(std::move(c), std::move(r));
      continue;
    }
    CaseResult r = run_case(c);
    record(std::move(c), std::move(r));
  }
  if (opt.randomized && !opt.cases) {
    for (const auto& g : generators()) {
      if (!g.randomized || !kernel_matches(opt.kernels, g.kernel)) continue;
      uint64_t h = 1469598103934665603ull;  // FNV-1a of the case id: portable, unlike std::hash
      for (char ch : g.kernel + "/" + g.name) h = (h ^ uint8_t(ch)) * 1099511628211ull;
      uint64_t seed = splitmix64_at(rep.seed, h);
      Case c;
      CaseResult r;
      try {
        c = generate(g, seed);
        c.name = "randomized-" + g.name;
        r = run_case(c);
      } catch (const std::exception& e) {
        c.kernel = g.kernel;
        c.name = "randomized-" + g.name;
        r.id = c.id();
        r.kernel = g.kernel;
        r.status = CaseResult::Status::Error;
        r.message = std::string("generator failed: ") + e.what();
      }
      r.source = "randomized (generator seed " + std::to_string(seed) +
                 ", wgslvk validate --seed " + std::to_string(rep.seed) + ")";
      record(std::move(c), std::move(r));
    }
  }

  add_kernel_rows(rep, done, opt, impl_->runner.get());
  rep.layer_messages = impl_->instance.take_validation_messages();
  rep.device_abandoned = !impl_->abandoned_by.empty();
  for (auto& [c, r] : done) rep.results.push_back(std::move(r));
  return rep;
}

nlohmann::ordered_json report_json(const ValidateReport& r) {
  ojson j;
  j["device"] = r.device;
  j["driver"] = r.driver;
  j["validation_layer"] = r.validation_layer;
  j["seed"] = r.seed;
  j["ok"] = r.ok();
  j["verdict"] = r.verdict();
  j["device_abandoned"] = r.device_abandoned;
  auto num = [](double v) { return std::isfinite(v) ? ojson(v) : ojson("inf"); };
  ojson rows = ojson::array();
  for (const auto& k : r.rows) {
    ojson o;
    o["kernel"] = k.kernel;
    o["status"] = k.status;
    o["cases"] = k.cases;
    o["passed"] = k.passed;
    o["failed"] = k.failed;
    o["skipped"] = k.skipped;
    o["errors"] = k.errors;
    if (k.any_ulp) {
      o["worst_ulp"] = num(k.worst_ulp);
      o["bound_ulp"] = k.worst_bound;
    }
    o["device_ms"] = k.timed ? ojson(k.device_ms) : ojson(nullptr);
    o["messages"] = k.messages;
    rows.push_back(o);
  }
  j["kernels"] = rows;
  ojson cases = ojson::array();
  for (const auto& c : r.results) {
    ojson o;
    o["case"] = c.id;
    o["kernel"] = c.kernel;
    o["source"] = c.source;
    o["status"] = status_name(c.status);
    if (!c.message.empty()) o["message"] = c.message;
    o["device_ms"] = c.device_ms ? ojson(*c.device_ms) : ojson(nullptr);
    ojson checks = ojson::array();
    for (const auto& k : c.checks) {
      ojson x;
      x["buffer"] = k.buffer;
      x["range"] = {k.begin, k.end};
      x["compare"] = k.mode == CheckSpec::Mode::Exact ? "exact" : "ulp";
      if (k.mode == CheckSpec::Mode::Ulp) {
        x["worst_ulp"] = num(k.worst_ulp);
        x["bound_ulp"] = k.bound_at_worst;
        x["worst_index"] = k.worst_index;
      }
      x["mismatches"] = k.mismatches;
      if (!k.pass()) {
        x["first_index"] = k.first_index;
        x["actual"] = k.first_actual;
        x["expected"] = k.first_expected;
      }
      x["reason"] = k.reason;
      checks.push_back(x);
    }
    o["checks"] = checks;
    cases.push_back(o);
  }
  j["cases"] = cases;
  j["uncovered_kernels"] = r.uncovered;
  j["validation_layer_messages"] = r.layer_messages;
  return j;
}

}  // namespace wgslvk::validate
