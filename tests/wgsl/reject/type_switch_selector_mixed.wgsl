// reject: a u32 selector with an i32 case
@compute @workgroup_size(64) fn main() {
  let x = 1u;
  switch (x) {
    case 1i: {
    }
    default: {
    }
  }
}
