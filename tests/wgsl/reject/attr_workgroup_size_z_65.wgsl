// reject: @workgroup_size(1, 1, 65): above maxComputeWorkgroupSizeZ (pipeline creation)
@compute @workgroup_size(1, 1, 65) fn main() {
}
