// @wgslvk/capture: the browser-safe entry point (no Node API). Under Node, ./node.mjs adds
// writeCase() to write a captured case folder to disk.
export { createCapture } from './capture.mjs';
export { zip } from './zip.mjs';
export { trimForEntry, entryBindings, entryPoints } from './wgsl.mjs';
export { oracleHooks } from './oracle.mjs';
export { prepareModules, runCase } from './replay.mjs';
export * as format from './format.mjs';

// In a page: offer captured cases as one zip download (wgslvk-captured/<kernel>/<case>/...).
export function downloadZip(cases, filename = 'wgslvk-captured.zip') {
  return import('./zip.mjs').then(({ zip }) => {
    const entries = [];
    for (const c of cases) for (const [f, bytes] of c.files) entries.push([`wgslvk-captured/${c.kernel}/${c.name}/${f}`, bytes]);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([zip(entries)], { type: 'application/zip' }));
    a.download = filename; a.click();
    return entries.length;
  });
}
