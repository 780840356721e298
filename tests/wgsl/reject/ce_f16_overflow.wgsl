// reject: the f16 literal 70000.0h
enable f16;
@compute @workgroup_size(64) fn main() {
  let x = 70000.0h;
}
