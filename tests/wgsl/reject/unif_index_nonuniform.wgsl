// reject: a read-only value read at a non-uniform index decides a barrier
@group(0) @binding(0) var<storage, read> buf: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  let v = buf[lid.x];
  if (v == 0u) {
    workgroupBarrier();
  }
}
