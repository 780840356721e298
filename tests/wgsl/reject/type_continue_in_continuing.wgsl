// reject: continue inside a continuing block
@compute @workgroup_size(64) fn main() {
  loop {
    continuing {
      continue;
      break if true;
    }
  }
}
