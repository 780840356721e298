// reject: a switch with a duplicated case selector
@compute @workgroup_size(64) fn main() {
  let x = 1u;
  switch (x) {
    case 1u: {
    }
    case 1u, 2u: {
    }
    default: {
    }
  }
}
