// util.wgsl: wgslvk's own helper kernels. Not from a seed: the copy roofline for benchmarks and
// the probes the runtime tests use (sub-range views, 2-D grids, WebGPU validation rules).
// Every kernel indexes with flat_id so it runs on a 2-D grid of more than 65535 workgroups.

const WG: u32 = 256u;

fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

// ---- copy_vec4: dst[i] = src[i] for i < n (in vec4 units): the copy roofline -------------------
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> copy_params: vec4<u32>;  // (n, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn copy_vec4(@builtin(global_invocation_id) gid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= copy_params.x) { return; }
    dst[i] = src[i];
}

// ---- fill_index: out[i] = i for i < n --------------------------------------------------------
@group(0) @binding(0) var<storage, read_write> fill_out: array<u32>;
@group(0) @binding(1) var<uniform> fill_params: vec4<u32>;  // (n, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn fill_index(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= fill_params.x) { return; }
    fill_out[i] = i;
}

// ---- fill_index_sparse: fill_index with a declared binding it never uses (R10: the auto layout
// leaves @binding(3) out; an explicit layout may still hold it)
@group(0) @binding(3) var<storage, read> sparse_unused: array<u32>;

@compute @workgroup_size(256, 1, 1)
fn fill_index_sparse(@builtin(global_invocation_id) gid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= fill_params.x) { return; }
    fill_out[i] = i;
}

// ---- count_writes: counts[i] += 1 for every i < n (each element exactly once per dispatch) -----
@group(0) @binding(0) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(1) var<uniform> count_params: vec4<u32>;  // (n, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn count_writes(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= count_params.x) { return; }
    atomicAdd(&counts[i], 1u);
}

// ---- fill_pair: two writable bindings (R11: disjoint views of one buffer are legal) ------------
@group(0) @binding(0) var<storage, read_write> pair_a: array<u32>;
@group(0) @binding(1) var<storage, read_write> pair_b: array<u32>;
@group(0) @binding(2) var<uniform> pair_params: vec4<u32>;  // (n, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn fill_pair(@builtin(global_invocation_id) gid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= pair_params.x) { return; }
    pair_a[i] = i;
    pair_b[i] = pair_params.x - i;
}

// ---- array_length: writes arrayLength of its binding (R8: the bound range, not the buffer) -----
@group(0) @binding(0) var<storage, read_write> len_data: array<u32>;

@compute @workgroup_size(1, 1, 1)
fn array_length() {
    len_data[0] = arrayLength(&len_data);
}

// ---- sized_header: a fixed-size struct before the runtime array (R7: minBindingSize 32) --------
struct Header {
    a: vec4<u32>,
    b: vec4<u32>,
    data: array<u32>,
}
@group(0) @binding(0) var<storage, read_write> sized: Header;

@compute @workgroup_size(1, 1, 1)
fn sized_header() {
    sized.a = vec4<u32>(1u, 2u, 3u, 4u);
    sized.data[0] = arrayLength(&sized.data);
}

// ---- shared_max: exactly 16384 bytes of workgroup memory (R13 boundary) ------------------------
var<workgroup> shared_words: array<u32, 4096>;
@group(0) @binding(0) var<storage, read_write> shared_out: array<u32>;

@compute @workgroup_size(256, 1, 1)
fn shared_max(@builtin(local_invocation_index) lid: u32) {
    for (var k = 0u; k < 16u; k = k + 1u) {
        shared_words[lid * 16u + k] = lid * 16u + k;
    }
    workgroupBarrier();
    var sum = 0u;
    for (var k = 0u; k < 16u; k = k + 1u) {
        sum = sum + shared_words[4095u - (lid * 16u + k)];
    }
    shared_out[lid] = sum;
}

// ---- wg_z64: workgroup size (1, 1, 64), the z limit exactly (R13 boundary) --------------------
@group(0) @binding(0) var<storage, read_write> z_out: array<u32>;

@compute @workgroup_size(1, 1, 64)
fn wg_z64(@builtin(local_invocation_id) lid: vec3<u32>) {
    z_out[lid.z] = lid.z + 1u;
}
