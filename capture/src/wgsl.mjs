// Just enough WGSL reading for the capture: the module-scope declarations, what an entry point
// reaches from them, its bindings (group, binding, address space, access, element type), and the
// f16 trimming step.
//
// Trimming (decision, tested in capture/test/wgsl.test.mjs): `enable f16;` is module-wide, so a
// device without "shader-f16" refuses every entry point of a module that has it, even those that
// never touch f16 (wgsl_ports/embedding/01_embedding.wgsl, optimizer/12_optimizer.wgsl). For such a
// device, trimForEntry() keeps only the declarations the entry point reaches (transitively, by
// identifier), drops `f16` from the `enable` list and returns the smaller module; if a reached
// declaration itself uses f16 (a type f16/vecNh/matCxRh or an `h`-suffixed literal), the entry
// point needs f16 and is reported so, naming the declaration. Reachability is by identifier over
// the declaration's text, an over-approximation (a local variable that shares a global's name
// keeps that global): it may keep too much, never too little, and a kept unused `var` changes
// nothing in the entry point's layout "auto". Everything an entry point executes is in the module
// it is compiled from, so a trimmed module computes exactly what the original does.

const KEYWORDS = new Set(['fn', 'var', 'let', 'const', 'override', 'struct', 'alias', 'return', 'if', 'else',
  'loop', 'for', 'while', 'break', 'continue', 'continuing', 'switch', 'case', 'default', 'true', 'false',
  'discard', 'enable', 'requires', 'diagnostic', 'const_assert', 'storage', 'uniform', 'workgroup', 'private',
  'function', 'read', 'write', 'read_write']);

// Comments replaced by spaces (same length, so offsets stay meaningful); block comments nest.
export function stripComments(code) {
  let out = '', i = 0;
  while (i < code.length) {
    if (code.startsWith('//', i)) { const e = code.indexOf('\n', i); const end = e < 0 ? code.length : e; out += ' '.repeat(end - i); i = end; continue; }
    if (code.startsWith('/*', i)) {
      let depth = 0, j = i;
      while (j < code.length) {
        if (code.startsWith('/*', j)) { depth++; j += 2; } else if (code.startsWith('*/', j)) { depth--; j += 2; if (!depth) break; } else j++;
      }
      out += code.slice(i, j).replace(/[^\n]/g, ' '); i = j; continue;
    }
    out += code[i++];
  }
  return out;
}

// Module-scope declarations in order: { text, kind, names, idents }.
export function parseModule(code) {
  const src = stripComments(code);
  const decls = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    while (i < n && /\s/.test(src[i])) i++;
    if (i >= n) break;
    const start = i;
    // attributes, then the keyword
    let j = i;
    for (;;) {
      while (j < n && /\s/.test(src[j])) j++;
      if (src[j] !== '@') break;
      j++;
      while (j < n && /\w/.test(src[j])) j++;
      while (j < n && /\s/.test(src[j])) j++;
      if (src[j] === '(') { let d = 0; do { if (src[j] === '(') d++; else if (src[j] === ')') d--; j++; } while (j < n && d > 0); }
    }
    const kw = /^[A-Za-z_]\w*/.exec(src.slice(j, j + 40))?.[0] || '';
    const braced = kw === 'fn' || kw === 'struct';
    let depth = 0, k = j, sawBrace = false;
    for (; k < n; ++k) {
      const c = src[k];
      if (c === '(' || c === '[' || c === '{') { depth++; if (c === '{') sawBrace = true; }
      else if (c === ')' || c === ']' || c === '}') { depth--; if (braced && sawBrace && depth === 0 && c === '}') { k++; break; } }
      else if (c === ';' && depth === 0 && !braced) { k++; break; }
    }
    if (depth > 0 || (braced && !sawBrace)) throw new Error(`wgsl: unterminated '${kw}' declaration at offset ${start}`);
    if (braced) { let m = k; while (m < n && /\s/.test(src[m])) m++; if (src[m] === ';') k = m + 1; }
    const text = src.slice(start, k);
    const body = src.slice(j, k);
    let names = [];
    const m = /^(fn|struct|alias|const|override|var(?:\s*<[^>]*>)?)\s+([A-Za-z_]\w*)/.exec(body);
    if (m) names = [m[2]];
    // identifiers, not member accesses (`hp.w`), minus the function's own locals and parameters
    const idents = new Set((body.match(/(?<![.\w])(?<!\.\s+)[A-Za-z_]\w*/g) || []).filter(t => !KEYWORDS.has(t)));
    for (const nm of names) idents.delete(nm);
    if (kw === 'fn') {
      const params = body.slice(body.indexOf('('), body.indexOf(')') + 1);
      for (const p of params.matchAll(/([A-Za-z_]\w*)\s*:/g)) idents.delete(p[1]);
      for (const l of body.matchAll(/\b(?:let|var|const)\s*(?:<[^>]*>)?\s*([A-Za-z_]\w*)/g)) idents.delete(l[1]);
    }
    decls.push({ text, kind: kw, names, idents, attrs: src.slice(start, j) });
    i = k;
  }
  return decls;
}

const F16_RE = /\bf16\b|\bvec[234]h\b|\bmat[234]x[234]h\b|(?<![\w.])(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?h\b/;
export function usesF16(text) { return F16_RE.test(text); }

// The declarations entry `entry` reaches (including itself), in module order.
export function reachable(decls, entry) {
  const byName = new Map();
  decls.forEach((d, i) => d.names.forEach(nm => byName.set(nm, i)));
  const root = byName.get(entry);
  if (root === undefined || decls[root].kind !== 'fn') throw new Error(`wgsl: no function named '${entry}'`);
  const keep = new Set([root]), todo = [root];
  while (todo.length) {
    for (const id of decls[todo.pop()].idents) {
      const k = byName.get(id);
      if (k !== undefined && !keep.has(k)) { keep.add(k); todo.push(k); }
    }
  }
  return [...keep].sort((a, b) => a - b).map(k => decls[k]);
}

// { code, trimmed, needsF16, reason }: the module to compile `entry` from on a device that has
// (hasF16) or lacks shader-f16.
export function trimForEntry(code, entry, { hasF16 = false } = {}) {
  const decls = parseModule(code);
  const enables = decls.filter(d => d.kind === 'enable');
  const wantsF16 = enables.some(d => /\bf16\b/.test(d.text));
  if (!wantsF16) return { code, trimmed: false, needsF16: false };
  const kept = reachable(decls, entry);
  const f16 = kept.find(d => usesF16(d.text));
  if (hasF16) return { code, trimmed: false, needsF16: !!f16, reason: f16 ? `uses f16 in '${f16.names[0] || f16.kind}'` : undefined };
  if (f16) return { code: null, trimmed: false, needsF16: true, reason: `needs shader-f16: '${f16.names[0] || f16.kind}' uses f16` };
  const head = [];
  for (const d of decls) {
    if (d.kind === 'enable') {
      const exts = d.text.replace(/^\s*enable\s+/, '').replace(/;\s*$/, '').split(',').map(s => s.trim()).filter(s => s && s !== 'f16');
      if (exts.length) head.push(`enable ${exts.join(', ')};`);
    } else if (d.kind === 'requires' || d.kind === 'diagnostic') head.push(d.text.trim());
  }
  const body = kept.map(d => d.text.trim());
  return {
    code: `// trimmed for entry point ${entry} by capture/src/wgsl.mjs (the half-precision extension dropped, ${decls.length - enables.length - kept.length} unreached declaration(s) removed)\n` +
      [...head, ...body].join('\n\n') + '\n',
    trimmed: true, needsF16: false,
  };
}

// The element type a binding's contents are read as: the innermost scalar of its type (structs:
// their common scalar, else u32 for the raw bits).
export function scalarOf(type, structs = new Map()) {
  const t = type.replace(/\s+/g, '');
  const m = /(f32|f16|u32|i32)/.exec(t.replace(/atomic<(u32|i32)>/g, '$1'));
  const short = /vec[234]([fhiu])|mat[234]x[234]([fh])/.exec(t);
  if (short) return { f: 'f32', h: 'f16', i: 'i32', u: 'u32' }[short[1] || short[2]];
  if (m) return m[1];
  const name = /([A-Za-z_]\w*)>*$/.exec(t.replace(/,\d+>$/, '>'))?.[1];
  const s = name && structs.get(name);
  if (s) {
    const kinds = new Set(s.map(ft => scalarOf(ft, structs)));
    return kinds.size === 1 ? [...kinds][0] : 'u32';
  }
  return 'u32';
}

// The bindings `entry` statically uses (over-approximated as above), sorted by (group, binding):
// { group, binding, name, space: 'storage'|'uniform', access: 'read'|'read_write', type, dtype }.
export function entryBindings(code, entry) {
  const decls = parseModule(code);
  const structs = new Map();
  for (const d of decls) if (d.kind === 'struct') {
    const body = d.text.slice(d.text.indexOf('{') + 1, d.text.lastIndexOf('}'));
    structs.set(d.names[0], body.split(',').map(f => f.replace(/@\w+(\([^)]*\))?/g, '').split(':')[1]?.trim()).filter(Boolean));
  }
  const out = [];
  for (const d of reachable(decls, entry)) {
    if (!d.kind.startsWith('var')) continue;
    const g = /@group\s*\(\s*(\d+)\s*\)/.exec(d.attrs), b = /@binding\s*\(\s*(\d+)\s*\)/.exec(d.attrs);
    if (!g || !b) continue;
    const m = /var\s*<\s*(\w+)\s*(?:,\s*(\w+))?\s*>\s*([A-Za-z_]\w*)\s*:\s*([^;]+);/.exec(d.text);
    if (!m) continue;
    const space = m[1], access = space === 'uniform' ? 'read' : (m[2] || 'read');
    out.push({ group: +g[1], binding: +b[1], name: m[3], space, access, type: m[4].trim(), dtype: scalarOf(m[4], structs) });
  }
  return out.sort((x, y) => x.group - y.group || x.binding - y.binding);
}

// Entry points of a module: [{ name, stage }].
export function entryPoints(code) {
  return parseModule(code).filter(d => d.kind === 'fn' && /@(compute|vertex|fragment)\b/.test(d.attrs))
    .map(d => ({ name: d.names[0], stage: /@(compute|vertex|fragment)\b/.exec(d.attrs)[1] }));
}
