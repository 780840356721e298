
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
var<workgroup> tileA: array<f32, 64 * 8>;
var<workgroup> tileB: array<f32, 64 * 8>;

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(global_invocation_id) globalID : vec3<u32>,
    @builtin(local_invocation_id) localID : vec3<u32>,
    @builtin(workgroup_id) groupid : vec3<u32>) {

    var threadResults: array<f32, 8 * 8>;
    var localM: array<f32, 8>;
    var localN: array<f32, 8>;

    let cRow: u32 = groupid.x;
    let cCol: u32 = groupid.y;
    let numThread: u32 = (64 * 64) / (8 * 8);

    // position of the first c element computed by the thread
    let threadRow: u32 = (localID.x / (64 / 8)) * 8;
    let threadCol: u32 = (localID.x % (64 / 8)) * 8;

    // aPtr and bPtr are the starting positions of the tiles in a and b,
    // incremented in the bkidx loop. 
    // cPtr is the starting position of the tile in c which is fixed.

    var aPtr = cRow * 64 * 32;
    var bPtr = cCol * 64 * 32;
    let cPtr = cRow * 64 * 128 + cCol * 64;

    for (var bkidx = 0; bkidx < 32; bkidx += 8) {

      // Load tile
      // Load BM x BK by numThread(BM * BN / (TM * TN))
      // The number of iteration == BM * BK / (BM * BN / (TM * TN))
      for (var idx: u32 = 0; idx < 8; idx++) {
        tileA[localID.x + idx * numThread] = a[aPtr + ((localID.x + idx * numThread) / 8) * 32 + (localID.x + idx * numThread) % 8];
      }
      // Load BK x BN by numThread(BM * BN / (TM * TN))
      // The number of iteration == BK * BN / (BM * BN / (TM * TN))
      for (var idx: u32 = 0; idx < 8; idx++) {
        tileB[localID.x + idx * numThread] = b[bPtr + ((localID.x + idx * numThread) / 8) * 32 + ((localID.x + idx * numThread) % 8)];
      }

      aPtr += 8;
      bPtr += 8;

      workgroupBarrier();
      // Compute tile
      for (var dotIdx: u32 = 0; dotIdx < 8; dotIdx = dotIdx + 1) {
        for (var idx: u32 = 0; idx < 8; idx++) {
          localM[idx] = tileA[(threadRow + idx) * 8 + dotIdx];
        }
        for (var idx: u32 = 0; idx < 8; idx++) {
          localN[idx] = tileB[(threadCol + idx) * 8 + dotIdx];
        }
        for (var resIdxM: u32 = 0; resIdxM < 8; resIdxM++) {
          for (var resIdxN: u32 = 0; resIdxN < 8; resIdxN++) {
            threadResults[resIdxM * 8 + resIdxN] += localM[resIdxM] * localN[resIdxN];
          }
        }
      }
      workgroupBarrier();
    }

    for (var resIdxM: u32 = 0; resIdxM < 8; resIdxM++) {
      for (var resIdxN: u32 = 0; resIdxN < 8; resIdxN++) {
        c[cPtr + (threadRow + resIdxM) * 128 + threadCol + resIdxN] = threadResults[resIdxM * 8 + resIdxN];
      }
    }
}
