// accept: an override as the workgroup size
override WG: u32 = 64u;
@compute @workgroup_size(WG) fn main() {
}
