// The build-time half of wgslvk: GLSL port -> SPIR-V (glslang), spirv-val, spirv-opt, reflection
// (SPIRV-Cross), the WGSL declaration reader and the ABI check between the two. Used by the
// wgslvk-translate build tool, by `wgslvk inspect` and by the translator tests. Nothing here is
// needed at run time: kernels reach the runtime through wgslvk/kernel.hpp only.
#pragma once

#include <array>
#include <map>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "wgslvk/kernel.hpp"

namespace wgslvk::translator {

// Every failure: glslang errors, spirv-val, a WGSL it cannot read, an ABI mismatch. The message
// names the kernel and, where there is one, the binding and both sides.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- GLSL -> SPIR-V --------------------------------------------------------------------------

struct CompileOptions {
  std::string kernel;                     // "optimizer/adamw_update", for messages
  std::string source_path;                // the .comp; includes resolve relative to its folder
  std::vector<std::string> include_dirs;  // searched after the including file's folder
  std::vector<std::string> defines;       // "NAME" or "NAME=VALUE"
  bool optimize = true;                   // also produce spirv_opt
};

struct CompiledModule {
  std::vector<uint32_t> spirv;      // glslang output, validated
  std::vector<uint32_t> spirv_opt;  // spirv-opt -O output, validated (empty if !optimize)
  // The source with every #include expanded in place and the defines written after #version:
  // compiles on its own with no include path and no defines.
  std::string expanded_source;
  std::vector<std::string> dependencies;  // every file read: the .comp, then each include
};

// Vulkan 1.1 / SPIR-V 1.3. Throws Error with glslang's log.
CompiledModule compile_glsl(std::string_view source, const CompileOptions& options);
// Reads options.source_path and compiles it.
CompiledModule compile_glsl_file(const CompileOptions& options);
// spirv-val with the Vulkan 1.1 environment; throws Error "<what>: spirv-val: <message>".
void validate_spirv(std::span<const uint32_t> spirv, std::string_view what);
// spirv-opt's performance recipe (-O); the result is validated.
std::vector<uint32_t> optimize_spirv(std::span<const uint32_t> spirv, std::string_view what);

// ---- Types and layouts (shared by the WGSL and SPIR-V sides so they compare) ------------------

struct TypeDesc {
  enum class Kind : uint8_t { Scalar, Vector, Matrix, Array, Struct };
  enum class Scalar : uint8_t { None, F32, F16, U32, I32, Bool, Other };
  struct Member;

  Kind kind = Kind::Scalar;
  Scalar scalar = Scalar::None;  // of a scalar, vector or matrix
  bool atomic = false;           // WGSL atomic<T>; SPIR-V has no such type, so it never compares
  uint32_t vec = 1, cols = 1;    // vector width / matrix columns (rows are `vec`)
  uint32_t array_len = 0;        // 0 with runtime_array
  bool runtime_array = false;
  uint32_t stride = 0;            // array stride
  std::vector<TypeDesc> element;  // one entry for arrays
  std::vector<Member> members;    // structs
  std::string name;               // struct name
  uint64_t size = 0;              // runtime arrays count one element
  uint32_t align = 0;

  // WGSL spelling: "f32", "vec4<f32>", "array<u32>", "array<vec4<f32>, 4>", struct name.
  std::string wgsl() const;
};
struct TypeDesc::Member {
  std::string name;
  uint32_t offset = 0;
  TypeDesc type;
};

// ---- Reflection (SPIRV-Cross) -----------------------------------------------------------------

struct ReflectedBinding {
  uint32_t group = 0, binding = 0;
  BindingType type = BindingType::Storage;
  std::string glsl_name;          // block instance name ("m"), or the block name when it has none
  std::string block_name;         // block type name ("MBuf")
  TypeDesc block;                 // the block struct with its explicit layout
  uint64_t min_binding_size = 0;  // declared size, a runtime array counted as one element
  uint32_t array_stride = 0;      // of the trailing runtime array, 0 if none
  bool statically_used = false;   // an active resource of the entry point
};

struct Reflection {
  std::string entry_point;
  std::array<uint32_t, 3> workgroup_size{1, 1, 1};
  uint32_t workgroup_storage_bytes = 0;    // sum of roundUp(16, size) over Workgroup variables
  bool needs_shader_f16 = false;           // Float16 / 16-bit storage capabilities
  bool needs_float_atomics = false;        // AtomicFloat32AddEXT
  std::vector<ReflectedBinding> bindings;  // sorted by (group, binding)
  // The module's cooperative matrix types in WGSL's spelling, sorted, unique: KHR use A/B/
  // accumulator as subgroup_matrix_left<T, K, M> / _right<T, N, K> / _result<T, N, M> (columns,
  // then rows); an NV type (no use) as subgroup_matrix_?<T, columns, rows>.
  std::vector<std::string> subgroup_matrices;
};

Reflection reflect(std::span<const uint32_t> spirv);

// ---- WGSL declarations ------------------------------------------------------------------------

struct WgslBinding {
  uint32_t group = 0, binding = 0;
  std::string name;
  std::string type_text;  // as written: "array<atomic<u32>>"
  bool uniform = false;   // var<uniform>; else var<storage, ...>
  bool read_write = false;
  TypeDesc type;  // resolved, with WGSL's host-shareable layout
  uint32_t line = 0;
};

struct WgslEntryPoint {
  std::string name;
  std::array<uint32_t, 3> workgroup_size{1, 1, 1};
  // Module-scope names the entry point's body or any function it calls (transitively) mentions.
  // A token scan, so it over-approximates: a local that shadows a global, or a use in dead code,
  // still counts. Tint's static-use analysis is exact; our kernels do neither.
  std::vector<std::string> referenced;
  uint32_t line = 0;
};

struct WgslModule {
  std::string file;
  bool enables_f16 = false;
  bool enables_subgroup_matrix = false;  // enable chromium_experimental_subgroup_matrix;
  // Every subgroup_matrix_left/right/result<T, C, R> the file writes, spaces normalized as
  // "subgroup_matrix_left<f16, 16, 16>", sorted, unique (file-wide: not per entry point).
  std::vector<std::string> subgroup_matrices;
  std::vector<WgslBinding> bindings;
  std::vector<WgslEntryPoint> entry_points;

  const WgslEntryPoint* find_entry(std::string_view name) const;
  bool references(const WgslEntryPoint& ep, std::string_view var) const;
};

// Throws Error naming the file and line for what it cannot read.
WgslModule parse_wgsl(std::string_view text, std::string_view file_name);

// ---- The ABI check ----------------------------------------------------------------------------

// A binding as the kernel record embeds it: WGSL name/type, GLSL name, reflected layout.
struct CheckedField {  // KernelField's owning form
  std::string name, wgsl_type;
  uint32_t offset = 0, size = 0;
};
struct CheckedBinding {
  uint32_t group = 0, binding = 0;
  BindingType type = BindingType::Storage;
  std::string name, wgsl_type, glsl_name;
  uint64_t min_binding_size = 0;
  uint32_t array_stride = 0;
  bool statically_used = false;
  std::vector<CheckedField> fields;  // a uniform's leaf fields (translate() fills them)
};

struct AbiCheckInput {
  std::string kernel;           // "optimizer/adamw_update"
  std::string entry_point;      // the WGSL entry point whose ABI the port must have
  bool native_variant = false;  // ABI_OF: not itself in the WGSL
  // Scanned for `wgslvk-abi-allow` lines. Only a native variant may carry one:
  //   // wgslvk-abi-allow @group(0) @binding(2) element-type: <why>
  // lets that binding's scalar type differ from the WGSL one as long as every size, offset and
  // stride agrees (the same bytes, read as another type: f32 for WGSL's atomic<u32> bits).
  std::string_view glsl_source;
  // The entry point's workgroup size with pipeline constants applied, when the WGSL front end
  // translated it with `--constant`s (the declaration reader sees overrides at their defaults).
  std::optional<std::array<uint32_t, 3>> workgroup_size;
};

struct AbiResult {
  std::vector<CheckedBinding> bindings;  // sorted by (group, binding)
  // WGSL's `enable f16;` is module-wide: createShaderModule needs "shader-f16" for every entry
  // point of that file, so this is true when the WGSL enables f16 or the SPIR-V uses 16-bit types.
  // A native variant (never created from WGSL) needs it only when its SPIR-V uses 16-bit types.
  bool needs_shader_f16 = false;
};

// Checks binding numbers, kind, access mode, element type and layout, uniform size, static use,
// workgroup size and the f16 enable. Throws Error listing every mismatch, one per line, each
// naming the kernel, the binding and both sides.
AbiResult check_abi(const AbiCheckInput& in, const Reflection& spv, const WgslModule& wgsl);

// ---- Everything at once (the build tool, tests) ------------------------------------------------

struct KernelSource {
  std::string file;    // folder: "optimizer"
  std::string name;    // entry point: "adamw_update"
  std::string abi_of;  // empty unless a native-only variant
  std::string glsl;    // .comp text (read from glsl_path when empty)
  std::string glsl_path;
  std::string wgsl;  // the WGSL file text (read from wgsl_path when empty)
  std::string wgsl_path;
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;
  bool optimize = true;
  std::optional<std::array<uint32_t, 3>> workgroup_size;  // see AbiCheckInput::workgroup_size
};

struct TranslatedKernel {
  CompiledModule module;
  Reflection reflection;
  WgslModule wgsl;
  AbiResult abi;
};

TranslatedKernel translate(const KernelSource& src);

// ---- Typed kernel headers (translator/README.md, "Typed kernel headers") ----------------------

// A uniform's leaf fields in offset order, WGSL's layout: a struct's members (nested structs
// flattened with dots), or the binding itself (named `name`) for a non-struct type.
std::vector<CheckedField> uniform_fields(const TypeDesc& type, const std::string& name);
// The C++ header `wgslvk/kernels/<file>/<name>.hpp` for a kernel, written from its KernelInfo
// alone (the record the build embeds and a kernel loaded at run time carries): its qualified
// name, workgroup size, workgroup counts for the flat_id grid, one BindingSlot per binding and
// each uniform struct with WGSL's layout, its size and offsets checked by static_assert.
std::string kernel_header(const KernelInfo& k);

// ---- Ports brought at run time (`--port X.comp --wgsl Y.wgsl` of validate, inspect, bench) -----

struct PortFiles {
  std::string comp_path;  // the GLSL port; its folder is on the include path
  std::string wgsl_path;  // the WGSL file declaring the entry point
  std::string family;     // default: the WGSL file's stem ("my_file" for my_file.wgsl)
  std::string entry;      // default: the .comp file's stem
  std::string abi_of;     // a native variant checked against this entry point's WGSL ABI
  std::vector<std::string> include_dirs;
};
// Runs the build's checks (glslang, spirv-val, spirv-opt, reflection, the ABI check against the
// WGSL; a mismatch throws Error with the same message the build prints) and registers the kernel
// as "<family>/<entry>" beside the embedded ones, for the life of the process.
const KernelInfo& load_port(const PortFiles& p);

// ---- WGSL brought at run time, translated by the front end (translator/wgsl/) ---------------

struct WgslFiles {
  std::string wgsl_path;
  std::string family;                       // default: the file's stem
  std::vector<std::string> entries;         // default: every @compute entry point
  std::map<std::string, double> constants;  // pipeline-overridable constants (name or @id)
};
// `--wgsl X.wgsl` alone: every (or each named) compute entry point through the WGSL front end,
// then the same checks as a hand port; registered as "<family>/<entry>". Throws Error with the
// front end's file:line:col diagnostics; registers nothing unless every entry point translates.
std::vector<const KernelInfo*> load_wgsl(const WgslFiles& w);
// `validate --translate`: a shipped kernel's WGSL entry point through the front end instead of its
// hand port. The result has the same name, WGSL and ABI; it is owned for the life of the process
// and not registered (the caller swaps it in with replace_kernel). Throws Error for a native
// variant (no WGSL entry point) and for anything the front end or the checks refuse.
const KernelInfo& translate_shipped(const KernelInfo& hand_port);

// ---- Rendering (wgslvk inspect --emit) --------------------------------------------------------

enum class EmitFormat { Spvasm, Glsl, Msl, Hlsl, ReflectJson };
std::optional<EmitFormat> parse_emit_format(std::string_view s);
// spvasm: SPIRV-Tools disassembler. glsl: SPIRV-Cross GLSL 450 Vulkan. msl: MSL 2.1, discrete
// buffers (no argument buffers). hlsl: shader model 6.2 when the module uses 16-bit types (SM
// 5.1 cannot express them), 5.1 otherwise; num_workgroups, which D3D lacks, becomes a cbuffer at
// the first free binding of set 0 (SPIRV-Cross's remap); a module with float atomic add is
// refused (SPIRV-Cross has no HLSL for it). reflect-json: SPIRV-Cross's reflection JSON.
std::string emit(std::span<const uint32_t> spirv, EmitFormat format);

}  // namespace wgslvk::translator
