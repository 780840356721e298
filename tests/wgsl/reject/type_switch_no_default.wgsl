// reject: a switch without a default clause
@compute @workgroup_size(64) fn main() {
  let x = 1u;
  switch (x) {
    case 0u: {
    }
  }
}
