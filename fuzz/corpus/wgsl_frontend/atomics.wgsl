// Seed: atomics, pointers to function variables, bitcast, an array of structs, for/while loops.
struct Bucket {
  count : atomic<u32>,
  sum : atomic<i32>,
}

@group(0) @binding(0) var<storage, read> keys : array<u32>;
@group(0) @binding(1) var<storage, read_write> buckets : array<Bucket, 16>;
@group(0) @binding(2) var<storage, read_write> bits : array<u32>;

fn bump(p : ptr<function, u32>, by : u32) {
  *p = *p + by;
}

@compute @workgroup_size(64)
fn histogram(@builtin(global_invocation_id) gid : vec3<u32>) {
  let n = arrayLength(&keys);
  if (gid.x >= n) {
    return;
  }
  let k = keys[gid.x];
  _ = atomicAdd(&buckets[k & 15u].count, 1u);
  atomicAdd(&buckets[k & 15u].sum, bitcast<i32>(k));
  var hops = 0u;
  for (var i = 0u; i < 4u; i++) {
    bump(&hops, i);
  }
  var m = k;
  while (m != 0u) {
    m = m >> 1u;
    hops++;
  }
  bits[gid.x] = bitcast<u32>(f32(hops) * 0.5f) ^ (k << 3u);
}
