// Under Node: everything index.mjs has, plus writing a captured case as a folder on disk.
import fs from 'node:fs';
import path from 'node:path';
export * from './index.mjs';

// writeCase(root, captured) -> the folder written: root/<kernel>/<case>/{case.json, *.npy}.
export function writeCase(root, c) {
  const dir = path.join(root, c.kernel, c.name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [f, bytes] of c.files) fs.writeFileSync(path.join(dir, f), bytes);
  return dir;
}
