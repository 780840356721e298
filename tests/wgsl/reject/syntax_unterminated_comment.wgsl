// reject: an unterminated block comment
@compute @workgroup_size(64) fn main() {
}
/* never closed
