// reject: a keyword (loop) as a name
@compute @workgroup_size(64) fn main() {
  let loop = 1;
}
