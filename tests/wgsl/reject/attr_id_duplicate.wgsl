// reject: two overrides with the same @id
@id(1) override a: u32 = 1u;
@id(1) override b: u32 = 2u;
@compute @workgroup_size(64) fn main() {
}
