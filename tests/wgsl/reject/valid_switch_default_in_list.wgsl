// accept: default among case selectors
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  switch (lid.x) {
    case 1u, default: {
      out[lid.x] = 1u;
    }
    case 2u: {
      out[lid.x] = 2u;
    }
  }
}
