// reject: a value computed from local_invocation_id stays non-uniform even when it is always 0
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  let a = lid.x;
  let b = a - a;
  if (b == 0u) {
    workgroupBarrier();
  }
}
