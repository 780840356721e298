// reject: an override without a default used as the workgroup size (no pipeline constant: pipeline creation)
override WG: u32;
@compute @workgroup_size(WG) fn main() {
}
