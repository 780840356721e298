// reject: an h-suffixed literal without enable f16
@compute @workgroup_size(64) fn main() {
  let x = 1.0h;
}
