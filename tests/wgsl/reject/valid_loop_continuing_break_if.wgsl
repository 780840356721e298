// accept: loop with continuing and break if
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  var i = 0u;
  var sum = 0u;
  loop {
    sum += i;
    continuing {
      i++;
      break if i >= 10u;
    }
  }
  out[0] = sum;
}
