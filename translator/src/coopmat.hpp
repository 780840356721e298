// Cooperative matrices with Debian 12's toolchain (wgsl_ports/subgroup_matrix/README.md,
// "Toolchain"): glslang 12 compiles GL_NV_cooperative_matrix only, SPIRV-Tools 2023.1 validates
// and optimizes SPV_NV_cooperative_matrix only, SPIRV-Cross 2021 reflects neither, and Mesa and
// WebGPU implementations (Dawn) use SPV_KHR_cooperative_matrix. So a port is written with
// GL_NV_cooperative_matrix, glslang's module is validated (and optimized) as NV by spirv-val, and
// then rewritten NV -> KHR here; reflection reads a copy with the matrix instructions removed.
// Internal to wgslvk_translator (implemented in compile.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgslvk::translator {

// True when the module declares OpCapability CooperativeMatrixNV / CooperativeMatrixKHR.
bool uses_cooperative_matrix_nv(std::span<const uint32_t> spirv);
bool uses_cooperative_matrix_khr(std::span<const uint32_t> spirv);

// SPV_NV_cooperative_matrix -> SPV_KHR_cooperative_matrix, instruction for instruction:
// OpTypeCooperativeMatrixNV gets a Use (MatrixA, MatrixB or MatrixAccumulator) from how its
// values reach OpCooperativeMatrixMulAddNV (a type used in several roles is split into one KHR
// type per role, with its pointer types); loads and stores get a MemoryLayout constant for the
// NV ColumnMajor boolean; MulAdd and Length change opcode; the capability and extension are
// renamed. Values flow through OpLoad/OpStore of Function variables, OpCopyObject, OpPhi and
// OpSelect; an f16 matrix value that is both a left and a right operand, a matrix passed to a
// function, or an array/struct of a split type is refused with an Error naming `what`.
std::vector<uint32_t> cooperative_matrix_nv_to_khr(std::span<const uint32_t> spirv,
                                                   std::string_view what);

// The inverse for reading only (`inspect --emit spvasm`, snapshots): SPIRV-Tools 2023.1 cannot
// disassemble the KHR opcodes, so the KHR module is shown as NV (the Use operand is dropped;
// MemoryLayout becomes a ColumnMajor boolean constant). Not a valid module.
std::vector<uint32_t> cooperative_matrix_khr_to_nv_for_display(std::span<const uint32_t> spirv);

// The inverse for spirv-val (validate_spirv): as above, but the NV types the rewrite split by
// use (and their pointer types) merged back and the module's own boolean constants reused, so
// the result is the valid NV module the KHR one corresponds to, instruction for instruction.
std::vector<uint32_t> cooperative_matrix_khr_to_nv_for_validation(std::span<const uint32_t> spirv);

// The module's cooperative matrix types as WGSL spells them (Reflection::subgroup_matrices).
std::vector<std::string> cooperative_matrix_types_wgsl(std::span<const uint32_t> spirv);

// A copy for SPIRV-Cross's reflection: every instruction whose type or operands involve a
// cooperative matrix (NV or KHR) removed, transitively, with the capability and extension. The
// buffers a matrix load or store reads keep their OpAccessChain, so static use is preserved.
std::vector<uint32_t> strip_cooperative_matrix_for_reflection(std::span<const uint32_t> spirv);

}  // namespace wgslvk::translator
