// Loads the port at run time (checked against scale.wgsl as the wgslvk build checks its own),
// then runs the committed case on the default adapter and reports PASS/FAIL.
#include <cstdio>

#include "wgslvk/runtime.hpp"
#include "wgslvk/translator.hpp"
#include "wgslvk/validate/case.hpp"
#include "wgslvk/validate/runner.hpp"

int main() {
  try {
    wgslvk::translator::PortFiles port;
    port.comp_path = EXAMPLE_DIR "/scale.comp";
    port.wgsl_path = EXAMPLE_DIR "/scale.wgsl";
    const wgslvk::KernelInfo& k = wgslvk::translator::load_port(port);
    std::printf("loaded %s (%zu bindings)\n", k.qualified_name().c_str(), k.bindings.size());
    wgslvk::Instance instance = wgslvk::Instance::create();
    wgslvk::Adapter adapter = instance.select_adapter(std::nullopt);
    wgslvk::Device device = adapter.request_device({});
    wgslvk::validate::Case c = wgslvk::validate::load_case(EXAMPLE_DIR "/cases/scale/basic");
    wgslvk::validate::Runner runner(device);
    wgslvk::validate::CaseResult r = runner.run(c);
    std::printf("%s %s %s\n", r.id.c_str(),
                std::string(wgslvk::validate::status_name(r.status)).c_str(), r.message.c_str());
    return r.status == wgslvk::validate::CaseResult::Status::Pass ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scale_check: %s\n", e.what());
    return 2;
  }
}
