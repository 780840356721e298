// reject: break outside a loop or switch
@compute @workgroup_size(64) fn main() {
  break;
}
