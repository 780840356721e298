#include "wgslvk/bench/report.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "wgslvk/png.hpp"

namespace wgslvk::bench {

void print_header() {
  std::printf("%-36s %-24s %12s %10s %9s %9s %7s %8s  %s\n", "kernel", "size", "bytes", "median_ms",
              "GB/s", "copyGB/s", "roof%", "TFLOP/s", "check");
}

void print_row(const Row& r) {
  std::string name = r.group.empty() ? r.kernel : r.group + "/" + r.kernel;
  char tf[16] = "-";
  if (r.flops > 0) std::snprintf(tf, sizeof tf, "%.2f", r.tflops());
  std::printf("%-36s %-24s %12llu %10.4f %9.1f %9.1f %6.1f%% %8s  %s\n", name.c_str(),
              r.label.c_str(), (unsigned long long)r.bytes, r.t.median, r.gbps(), r.copy.gbps(),
              100 * r.share(), tf, r.check.c_str());
  std::fflush(stdout);
}

json row_json(const Row& r) {
  json j = {{"group", r.group},
            {"kernel", r.kernel},
            {"label", r.label},
            {"dims", r.dims},
            {"bytes", r.bytes},
            {"bytes_rule", r.bytes_rule},
            {"median_ms", r.t.median},
            {"p10_ms", r.t.p10},
            {"p90_ms", r.t.p90},
            {"min_ms", r.t.min},
            {"reps", r.t.n},
            {"gbps", r.gbps()},
            {"copy_bytes", r.copy.bytes},
            {"copy_median_ms", r.copy.t.median},
            {"copy_gbps", r.copy.gbps()},
            {"roofline_share", r.share()},
            {"back_to_back_median_ms", r.back_to_back.median},
            {"restored_state", r.restored_state},
            {"check", r.check},
            {"plot", r.plot}};
  if (!r.case_id.empty()) j["case"] = r.case_id;
  if (r.flops > 0) {
    j["flops"] = r.flops;
    j["tflops"] = r.tflops();
  }
  return j;
}

void write_png(const std::string& device_name, const std::vector<Row>& rows,
               const std::string& path) {
  std::vector<std::string> kernels;
  for (const auto& r : rows)
    if (r.plot && r.t.median > 0 &&
        std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end())
      kernels.push_back(r.kernel);
  const int pw = 480, ph = 330, cols = 3;
  int nrows = std::max<int>(1, int((kernels.size() + cols - 1) / cols));
  Canvas cv(pw * cols, ph * nrows + 30);
  std::string title = "WGSLVK BENCH: " + device_name + "  GB/S VS BYTES MOVED";
  cv.text(8, 8, title, {0, 0, 0}, 2);
  for (size_t i = 0; i < kernels.size(); ++i) {
    Series k{"KERNEL GB/S", {200, 30, 30}, false, {}}, cp{"COPY ROOFLINE", {30, 60, 200}, true, {}};
    std::vector<const Row*> rs;
    for (const auto& r : rows)
      if (r.kernel == kernels[i] && r.plot && r.t.median > 0) rs.push_back(&r);
    std::stable_sort(rs.begin(), rs.end(),
                     [](const Row* a, const Row* b) { return a->bytes < b->bytes; });
    for (const Row* r : rs) {
      k.points.push_back({double(r->bytes), r->gbps()});
      cp.points.push_back({double(r->bytes), r->copy.gbps()});
    }
    draw_panel(cv, int(i % cols) * pw, 30 + int(i / cols) * ph, pw, ph, kernels[i], "BYTES",
               {k, cp});
  }
  if (!cv.write_png(path)) throw std::runtime_error("bench: cannot write " + path);
}

}  // namespace wgslvk::bench
