// accept: an override without a default that no entry point uses
override unused_value: u32;
@compute @workgroup_size(64) fn main() {
}
