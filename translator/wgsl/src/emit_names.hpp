// The GLSL emitter's naming rules (README "The GLSL it writes", Names): which identifiers GLSL
// reserves, so that a WGSL name that is one of them is renamed.
#pragma once

#include <string>
#include <string_view>

namespace wgslvk::wgsl::emit {

// True for a GLSL 4.50 keyword or reserved word, the name of a GLSL built-in function, `main`,
// any name that starts with `gl_` or `wgsl_` (the emitter's own helpers) or contains `__`.
bool glsl_reserved(std::string_view name);

// The GLSL spelling of a WGSL identifier before uniqueness is checked: `__` runs become `_U`,
// a `gl_` prefix becomes `wgl_`, and a name still reserved gets the suffix `_w`.
std::string mangle(std::string_view name);

}  // namespace wgslvk::wgsl::emit
