// reject: @workgroup_size(512): above maxComputeInvocationsPerWorkgroup (pipeline creation)
@compute @workgroup_size(512) fn main() {
}
