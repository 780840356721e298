// accept: workgroupBarrier under a branch on a uniform buffer value
struct Params { n: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@compute @workgroup_size(64) fn main() {
  if (params.n > 4u) {
    workgroupBarrier();
  }
}
