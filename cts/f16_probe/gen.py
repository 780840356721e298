#!/usr/bin/env python3
"""Writes the probe's GLSL variants: every way of reading the uniform mat4x3<f16> (load) times
every way of writing it to storage (store), plus the modules in this folder as they are (ours.comp:
wgslvk port of cts_mat4x3.wgsl; tint.spvasm: Dawn's dump_shaders SPIR-V of it). Output: DIR/*.comp
and DIR/variants.txt ("name file u|s") for build.sh and f16_probe."""
import os
import sys

HEAD = """#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
%s
layout(local_size_x = 1) in;
"""

# name: (extensions, declarations of binding 1, expression of column c of element i, storage in?)
F16VEC3 = "struct In { f16vec3 c0; f16vec3 c1; f16vec3 c2; f16vec3 c3; };\n"
LOADS = {
    # wgslvk's form: f16vec3 members at 0/8/16/24 of a std140 struct
    "f16vec3": ("", F16VEC3 + "layout(set = 0, binding = 1, std140) uniform I { In inputs[64]; };",
                "inputs[i].c%d", False),
    # the same, the array indexed by constants (the loop unrolled by the preprocessor)
    "f16vec3_const": ("", F16VEC3 + "layout(set = 0, binding = 1, std140) uniform I { In inputs[64]; };",
                      "inputs[i].c%d", False),
    # per-component reads (as the CTS's access,matrix,index, which passes)
    "elements": ("", F16VEC3 + "layout(set = 0, binding = 1, std140) uniform I { In inputs[64]; };",
                 "f16vec3(inputs[i].c%(c)d[0], inputs[i].c%(c)d[1], inputs[i].c%(c)d[2])", False),
    # f16vec4 members (the padding read too), .xyz
    "f16vec4_xyz": ("", "struct In { f16vec4 c0; f16vec4 c1; f16vec4 c2; f16vec4 c3; };\n"
                    "layout(set = 0, binding = 1, std140) uniform I { In inputs[64]; };",
                    "inputs[i].c%d.xyz", False),
    # float16_t scalar members
    "scalars": ("", "struct In { " + " ".join(f"float16_t c{c}r{r};" for c in range(4) for r in range(4)) +
                " };\nlayout(set = 0, binding = 1, std140) uniform I { In inputs[64]; };",
                "f16vec3(inputs[i].c%(c)dr0, inputs[i].c%(c)dr1, inputs[i].c%(c)dr2)", False),
    # Tint's: whole 16-byte slots as uvec4, the column's two words bitcast to f16vec4, .xyz
    "uvec4_slots": ("", "layout(set = 0, binding = 1, std140) uniform I { uvec4 slots[128]; };",
                    "f16vec4(unpackFloat2x16(slots[i * 2 + %(s)d].%(w)s.x), "
                    "unpackFloat2x16(slots[i * 2 + %(s)d].%(w)s.y)).xyz", False),
    # 32-bit word members (session 13's e6deac5)
    "uvec2_words": ("", "struct In { uvec2 c0; uvec2 c1; uvec2 c2; uvec2 c3; };\n"
                    "layout(set = 0, binding = 1, std140) uniform I { In inputs[64]; };",
                    "f16vec4(unpackFloat2x16(inputs[i].c%(c)d.x), unpackFloat2x16(inputs[i].c%(c)d.y)).xyz",
                    False),
    # scalar block layout, explicit padding members at WGSL's offsets
    "scalar_layout": ("#extension GL_EXT_scalar_block_layout : require",
                      "struct In { f16vec3 c0; float16_t p0; f16vec3 c1; float16_t p1; f16vec3 c2; "
                      "float16_t p2; f16vec3 c3; float16_t p3; };\n"
                      "layout(set = 0, binding = 1, scalar) uniform I { In inputs[64]; };",
                      "inputs[i].c%d", False),
    # a storage buffer instead of the uniform (the CTS's storage_r passes)
    "ssbo": ("", F16VEC3 + "layout(set = 0, binding = 1, std430) readonly buffer I { In inputs[]; };",
             "inputs[i].c%d", True),
}

OUT_MAT = "struct Output { f16mat4x3 value; };\nlayout(set = 0, binding = 0, std430) buffer O { Output outputs[64]; };"
OUT_WORDS = "layout(set = 0, binding = 0, std430) buffer O { uint ow[512]; };"
STORES = {
    "mat": (OUT_MAT, "outputs[i].value = m;"),  # the whole matrix
    "cols": (OUT_MAT, "for (int k = 0; k < 4; ++k) outputs[i].value[k] = m[k];"),  # Tint's
    # 32-bit words: no 16-bit store at all (the padding half written)
    "words": (OUT_WORDS, "for (int k = 0; k < 4; ++k) { ow[i * 8 + k * 2] = packFloat2x16(m[k].xy); "
              "ow[i * 8 + k * 2 + 1] = packFloat2x16(f16vec2(m[k].z, float16_t(0))); }"),
    # the same, the padding half read and written back
    "words_rmw": (OUT_WORDS, "for (int k = 0; k < 4; ++k) { ow[i * 8 + k * 2] = packFloat2x16(m[k].xy); "
                  "ow[i * 8 + k * 2 + 1] = (ow[i * 8 + k * 2 + 1] & 0xFFFF0000u) | "
                  "(packFloat2x16(f16vec2(m[k].z, float16_t(0))) & 0xFFFFu); }"),
    # each column as an f16vec2 store of .xy and a scalar store of .z
    "xy_z": (OUT_MAT, "for (int k = 0; k < 4; ++k) { outputs[i].value[k].xy = m[k].xy; "
             "outputs[i].value[k].z = m[k].z; }"),
    # three scalar stores per column
    "scalars": (OUT_MAT, "for (int k = 0; k < 4; ++k) { outputs[i].value[k].x = m[k].x; "
                "outputs[i].value[k].y = m[k].y; outputs[i].value[k].z = m[k].z; }"),
    # the columns as vec3<f16> array elements (a WGSL array<vec3<f16>>: stride 8), not a matrix
    "vec3": ("layout(set = 0, binding = 0, std430) buffer O { f16vec3 ov[256]; };",
             "for (int k = 0; k < 4; ++k) ov[i * 4 + k] = m[k];"),
    "vec3_xy_z": ("layout(set = 0, binding = 0, std430) buffer O { f16vec3 ov[256]; };",
                  "for (int k = 0; k < 4; ++k) { ov[i * 4 + k].xy = m[k].xy; ov[i * 4 + k].z = m[k].z; }"),
}
# The value negated before the store (the CTS's f16_arithmetic negation): f16_probe expects the
# sign flipped for variants named *-neg-*.
NEG = ("f16vec3", "ssbo", "uvec4_slots")


def col(expr, c):
    if "%(" in expr:
        return expr % {"c": c, "s": c // 2, "w": "xy" if c % 2 == 0 else "zw"}
    return expr % c


def main(out):
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    lines = ["# name file binding-1 (u: uniform, s: storage) [v3: vec3 layout] [neg: negated]",
             "tint tint.spv u"]
    # wgslvk port of each cts_*.wgsl by the front end before (old: d12d10f) and after the fix
    for m, extra in (("mat4x3", ""), ("neg_vec3", " v3 neg"), ("const_mat4x3", ""),
                     ("const_vec3", " v3")):
        for when in ("old", "new"):
            lines.append(f"port-{m}-{when} port-{m}-{when}.spv u{extra}")
    combos = [(ln, sn, False) for ln in LOADS for sn in STORES]
    combos += [(ln, sn, True) for ln in NEG for sn in STORES]
    for ln, sn, neg in combos:
            ext, decl, expr, storage = LOADS[ln]
            odecl, store = STORES[sn]
            m = ("-" if neg else "") + "f16mat4x3(%s)" % ", ".join(col(expr, c) for c in range(4))
            body = "  f16mat4x3 m = %s;\n  %s\n" % (m, store)
            if ln.endswith("_const"):
                main_fn = ("#define S(I) { const int i = I;\\\n%s}\nvoid main() {\n" % body.replace("\n", "\\\n") +
                           "".join("  S(%d)\n" % i for i in range(64)) + "}\n")
            else:
                main_fn = "void main() {\n for (int i = 0; i < 64; ++i) {\n%s }\n}\n" % body
            name = f"{ln}-neg-{sn}" if neg else f"{ln}-{sn}"
            with open(os.path.join(out, name + ".comp"), "w") as f:
                f.write(HEAD % ext + odecl + "\n" + decl + "\n" + main_fn)
            lines.append(f"{name} {name}.spv {'s' if storage else 'u'}" + (" m43 neg" if neg else ""))
    # quantizeToF16 spellings (test_wgsl_emit's SelectBitcastPackUnpackDotPackedQuantize fails on
    # the H200 with the first): f32 in binding 1 (storage), f32 out; one invocation looping (the
    # CTS's shape) or one invocation per value.
    qs = {"pack": "unpackHalf2x16(packHalf2x16(vec2(v))).x",
          "pack_mask": "unpackHalf2x16(packHalf2x16(vec2(v, 0.0)) & 0xFFFFu).x",
          "f16": "float(float16_t(v))",
          "spv": "wgsl_quantize_to_f16(v)",
          "control_none": "v"}  # negative control: must be wrong in all 512
    for qn, qe in qs.items():
        for shape in ("loop", "wide"):
            ext = "#extension GL_EXT_spirv_intrinsics : require\n" if qn == "spv" else ""
            src = (HEAD % ext).replace("local_size_x = 1", "local_size_x = %d" % (64 if shape == "wide" else 1))
            src += ("layout(set = 0, binding = 0, std430) buffer O { float o[512]; };\n"
                    "layout(set = 0, binding = 1, std430) readonly buffer I { float x[512]; };\n")
            if qn == "spv":
                src += "spirv_instruction(id = 116) float wgsl_quantize_to_f16(float v);  // OpQuantizeToF16\n"
            src += "float q(float v) { return %s; }\n" % qe
            if shape == "loop":
                src += "void main() { for (uint i = 0u; i < 512u; ++i) o[i] = q(x[i]); }\n"
            else:
                src += "void main() { uint i = gl_GlobalInvocationID.x; o[i] = q(x[i]); }\n"
            name = f"control_quantize-{shape}" if qn == "control_none" else f"quantize-{qn}-{shape}"
            with open(os.path.join(out, name + ".comp"), "w") as f:
                f.write(src)
            lines.append(f"{name} {name}.spv s q32")
    # Negative control: rows 0 and 1 swapped must be reported wrong (128 + 128 per column).
    with open(os.path.join(out, "control_swapped.comp"), "w") as f:
        f.write(HEAD % "" + OUT_MAT + "\n" + LOADS["f16vec3"][1] + "\nvoid main() {\n"
                " for (int i = 0; i < 64; ++i) outputs[i].value = f16mat4x3(" +
                ", ".join("inputs[i].c%d.yxz" % c for c in range(4)) + ");\n}\n")
    lines.append("control_swapped control_swapped.spv u")
    with open(os.path.join(out, "variants.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def input_half(i, c, r):  # f16_probe's input_half()
    mant = (i * 37 + c * 11 + r * 5 + 1) & 0x3FF
    return (0xC000 if (i + c + r) & 1 else 0x4000) | mant


def f16_text(bits):  # these are normal f16 in [2, 4): exact in decimal
    v = (1 + (bits & 0x3FF) / 1024) * 2
    return ("-" if bits & 0x8000 else "") + repr(v) + "h"


def const_wgsl(here):
    """The CTS's const input source (its 'loop' mode): the values in a module-scope const array."""
    vec = ",\n  ".join("vec3<f16>(%s)" % ", ".join(f16_text(input_half(i, 0, r)) for r in range(3))
                       for i in range(128))
    mat = ",\n  ".join("mat4x3<f16>(%s)" % ", ".join(f16_text(input_half(i, c, r))
                                                      for c in range(4) for r in range(3))
                       for i in range(64))
    for name, ty, size, n, values in (("vec3", "vec3<f16>", 8, 128, vec),
                                      ("mat4x3", "mat4x3<f16>", 32, 64, mat)):
        with open(os.path.join(here, f"cts_const_{name}.wgsl"), "w") as f:
            f.write(f"""enable f16;

struct Output {{
  @size({size}) value : {ty}
}};
@group(0) @binding(0) var<storage, read_write> outputs : array<Output, {n}>;

const values = array(
  {values}
);

@compute @workgroup_size(1)
fn main() {{
  for (var i = 0u; i < {n}; i++) {{
    outputs[i].value = values[i];
  }}
}}
""")


if __name__ == "__main__":
    if sys.argv[1] == "--const-wgsl":
        const_wgsl(os.path.dirname(os.path.abspath(__file__)))
    else:
        main(sys.argv[1])
