// Replays the recorded CTS transcripts of tests/cts/replay (data, not CTS code: its README says
// what they are) through `wgslvk serve` and compares, case by case, the server's output with the
// output recorded when the CTS judged the case passing. Any difference fails, naming the case.
//
// usage: node cts/replay.mjs [--bin WGSLVK] [--jobs N] [--timeout-s S] CORPUS_DIR_OR_FILE...
//        node cts/replay.mjs --make OUT_DIR [--query Q] RECORD_DIR...   (build a corpus, below)
//
// A transcript (one `wgslvk serve` process: one WebGPU device) is a JSON-lines file:
//   line 1: {"corpus": "wgslvk-serve-replay/1", "query", "cts", "wgslvk_commit", "date"}
//   then [">", REQUEST] and ["<", OUTPUT]: a JSON line the provider sent to the server, and one
//   it received (a passing case's only).
// The provider (WGSLVK_CTS_RECORD=DIR) sends a mark after each case: a request that changes
// nothing and is answered in order ({"op":"getCompilationInfo","id":0,"r",...,"mark":CASE,
// "status"}: object 0 never exists), so the server's output is cut into cases exactly at the
// mark's answer. --make keeps every request (a later case can use an earlier case's objects) and
// the output of the passing cases only (a failing case's output is wgslvk's bug, not a
// reference).
//
// Compared: every output object of a passing case, with "message" texts (wording), line numbers
// of compilation messages and the adapter's name/driver/ids left out; mapped bytes exactly (more
// than 64 bytes as their SHA-256 and length, "sha256:HEX:N", to keep the corpus small). Files are
// gzip'd (.jsonl.gz: the shader sources repeat a lot).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import readline from 'node:readline';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const bin = flag('--bin', process.env.WGSLVK_BIN || path.join(repo, 'build/cli/wgslvk'));
const jobs = Number(flag('--jobs', '2'));
const timeoutS = Number(flag('--timeout-s', '300'));
const makeOut = flag('--make');
const query = flag('--query', '');
const ctsCommit = flag('--cts-commit', '');
const commit = flag('--commit', '');
const keepArg = flag('--keep');
const keepRe = keepArg ? new RegExp(keepArg) : null;
if (args.length === 0 || args.some(a => a.startsWith('--'))) {
  console.error('usage: node cts/replay.mjs [--bin B] [--jobs N] [--timeout-s S] CORPUS...\n' +
                '       node cts/replay.mjs --make OUT [--query Q --cts-commit C --commit W] RECORD_DIR...');
  process.exit(2);
}

const kHeader = 'wgslvk-serve-replay/1';

// Mapped bytes of more than 64 bytes are compared through their digest.
function digestData(o) {
  if (o && typeof o.data === 'string' && !o.data.startsWith('sha256:')) {
    const b = Buffer.from(o.data, 'base64');
    if (b.length > 64) o = { ...o, data: `sha256:${crypto.createHash('sha256').update(b).digest('hex')}:${b.length}` };
  }
  return o;
}
const readLines = f => (f.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(f)).toString('utf8')
                                          : fs.readFileSync(f, 'utf8')).split('\n').filter(Boolean);

// ---- building a corpus from recordings -------------------------------------------------------
if (makeOut) {
  fs.mkdirSync(makeOut, { recursive: true });
  let nFiles = 0, nPass = 0, nOther = 0;
  for (const dir of args) {
    for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.jsonl')).sort()) {
      const lines = fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
      // Case N's requests are those sent after mark N-1 and up to its mark; its outputs, those
      // received after mark N-1's answer and up to mark N's. Kept: every request, the marks,
      // and the outputs of passing cases. --keep REGEX: a case it does not match is dropped
      // whole (requests too: each CTS case makes its own objects) but for the adapter, device
      // and release requests, and its mark says "dropped".
      const marks = new Map();  // r -> the mark request
      for (const [d, line] of lines) {
        const m = JSON.parse(line);
        if (d === '>' && m.mark !== undefined) marks.set(m.r, m);
      }
      const kept = mk => !keepRe || keepRe.test(mk.mark);
      const caseOfIndex = [...marks.values()];
      const keep = [];
      let nIn = 0, nOut = 0, anyPass = false;
      for (const [d, line] of lines) {
        const m = JSON.parse(line);
        if (d === '>') {
          if (m.mark !== undefined) {
            const mk = { ...m, status: kept(m) ? m.status : 'dropped' };
            keep.push([d, JSON.stringify(mk)]);
            nIn++;
            continue;
          }
          const mk = caseOfIndex[nIn];
          if (!mk) continue;  // after the last mark: the runner's exit
          if (kept(mk) || ['adapter', 'requestDevice', 'release'].includes(m.op)) keep.push([d, line]);
          continue;
        }
        if (m.r !== undefined && marks.has(m.r)) {
          const mk = marks.get(m.r);
          if (kept(mk) && mk.status === 'pass') { anyPass = true; nPass++; } else nOther++;
          keep.push([d, line]);
          nOut++;
          continue;
        }
        const mk = caseOfIndex[nOut];
        if (mk && kept(mk) && mk.status === 'pass') keep.push([d, line]);
      }
      if (!anyPass) continue;  // a device no passing case used: nothing to compare
      const last = keep.length;
      const out = [JSON.stringify({ corpus: kHeader, query, cts: ctsCommit, wgslvk_commit: commit,
                                    date: new Date().toISOString().slice(0, 10), source: f })];
      for (const [d, line] of keep.slice(0, last))
        out.push(JSON.stringify([d, d === '<' ? digestData(JSON.parse(line)) : JSON.parse(line)]));
      const name = `${query.replace(/^webgpu:shader,/, '').replace(/[^A-Za-z0-9_]+/g, '_').replace(/_+$/, '')}-${++nFiles}.jsonl`;
      fs.writeFileSync(path.join(makeOut, name + '.gz'), zlib.gzipSync(out.join('\n') + '\n', { level: 9 }));
    }
  }
  console.log(`replay --make: ${nFiles} transcripts, ${nPass} passing cases kept for comparison, ${nOther} other cases replayed only`);
  process.exit(0);
}

// ---- replaying -------------------------------------------------------------------------------
function normalize(m, op) {
  const strip = x => {
    if (Array.isArray(x)) return x.map(strip);
    if (x && typeof x === 'object') {
      const o = {};
      for (const k of Object.keys(x).sort())
        if (!['message', 'lineNum', 'linePos'].includes(k)) o[k] = strip(x[k]);
      return o;
    }
    return x;
  };
  const o = strip(digestData(m));
  // The adapter's identity and subgroup sizes are the machine's, not what the WGSL did.
  if (op === 'adapter')
    for (const k of ['name', 'driver', 'vendorId', 'deviceId', 'type', 'subgroupMinSize', 'subgroupMaxSize']) delete o[k];
  return o;
}

function firstDifference(want, got) {
  if (typeof want === 'string' && typeof got === 'string' && want !== got &&
      (want.startsWith('sha256:') || got.startsWith('sha256:')))
    return `mapped bytes differ (expected ${want.slice(0, 23)}..:${want.split(':')[2] ?? '?'} bytes, got ${got.slice(0, 23)}..:${got.split(':')[2] ?? '?'} bytes)`;
  if (typeof want === 'string' && typeof got === 'string' && want !== got) {
    // base64 bytes: the first differing byte
    try {
      const a = Buffer.from(want, 'base64'), b = Buffer.from(got, 'base64');
      if (a.length !== b.length) return `${a.length} bytes expected, ${b.length} got`;
      for (let i = 0; i < a.length; i++)
        if (a[i] !== b[i]) return `byte ${i}: expected 0x${a[i].toString(16)}, got 0x${b[i].toString(16)}`;
    } catch {}
    return `expected ${JSON.stringify(want).slice(0, 120)}, got ${JSON.stringify(got).slice(0, 120)}`;
  }
  if (want && got && typeof want === 'object' && typeof got === 'object') {
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const d = JSON.stringify(want[k]) === JSON.stringify(got[k]) ? null : firstDifference(want[k], got[k]);
      if (d) return `${k}: ${d}`;
    }
    return null;
  }
  // String(): JSON.stringify(undefined), a key one side lacks, is undefined
  return JSON.stringify(want) === JSON.stringify(got) ? null
    : `expected ${String(JSON.stringify(want)).slice(0, 120)}, got ${String(JSON.stringify(got)).slice(0, 120)}`;
}

// Replays one transcript. Resolves to { cases, compared, mismatches: [text] }.
function replay(file) {
  return new Promise(resolve => {
    const lines = readLines(file);
    const header = JSON.parse(lines[0]);
    const base = path.basename(file);
    if (header.corpus !== kHeader) {
      resolve({ file: base, cases: 0, compared: 0, mismatches: [`${base}: not a ${kHeader} transcript`] });
      return;
    }
    const inputs = [], expected = [];  // expected: per case segment, { case, status, outs }
    const opOfR = new Map();
    const marks = new Map();  // r -> the mark request
    let seg = [];
    for (const l of lines.slice(1)) {
      const [d, m] = JSON.parse(l);
      if (d === '>') {
        inputs.push(JSON.stringify(m));
        if (m.r !== undefined) opOfR.set(m.r, m.op);
        if (m.mark !== undefined) marks.set(m.r, m);
      } else {
        if (m.r !== undefined && marks.has(m.r)) {
          expected.push({ case: marks.get(m.r).mark, status: marks.get(m.r).status, outs: seg });
          seg = [];
        } else seg.push(m);
      }
    }
    const child = spawn(bin, ['serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', d => { stderr = (stderr + d).slice(-2000); });
    const got = [];
    let cur = [];
    readline.createInterface({ input: child.stdout }).on('line', line => {
      let m;
      try { m = JSON.parse(line); } catch { cur.push({ unparsable: line }); return; }
      if (m.r !== undefined && marks.has(m.r)) { got.push({ case: marks.get(m.r).mark, outs: cur }); cur = []; } else cur.push(m);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutS * 1000);
    child.stdin.on('error', () => {});
    (async () => {
      for (const l of inputs)
        if (!child.stdin.write(l + '\n')) await new Promise(r => child.stdin.once('drain', r));
      child.stdin.end(JSON.stringify({ op: 'exit' }) + '\n');
    })();
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const mismatches = [];
      let compared = 0;
      const names = [];
      for (let i = 0; i < expected.length; i++) {
        const e = expected[i];
        if (e.status !== 'pass') continue;
        const g = got[i] && got[i].case === e.case ? got[i] : undefined;
        const where = `${e.case} [${base}]`;
        if (!g) {
          mismatches.push(`${where}: no output (wgslvk serve ${signal ? 'killed by ' + signal : 'exited ' + code}${stderr ? ': ' + stderr.trim().split('\n').pop() : ''})`);
          continue;
        }
        compared++;
        if (e.outs.length) names.push(e.case);
        const n = Math.max(e.outs.length, g.outs.length);
        for (let j = 0; j < n; j++) {
          const op = e.outs[j]?.r !== undefined ? opOfR.get(e.outs[j].r) : undefined;
          const w = e.outs[j] ? normalize(e.outs[j], op) : undefined;
          const x = g.outs[j] ? normalize(g.outs[j], op) : undefined;
          const d = firstDifference(w, x);
          if (d) {
            const what = e.outs[j]?.r !== undefined ? `reply to '${op}' (r ${e.outs[j].r})` : e.outs[j]?.ev ? `event '${e.outs[j].ev}'` : `output ${j}`;
            const gotText = g.outs[j]?.error?.message ?? g.outs[j]?.message;
            mismatches.push(`${where}: ${what}: ${d}${gotText ? ` (wgslvk now says: ${String(gotText).slice(0, 200)})` : ''}`);
            break;
          }
        }
      }
      resolve({ file: base, cases: expected.length, compared, names, mismatches });
    });
  });
}

const files = args.flatMap(a => fs.statSync(a).isDirectory()
  ? fs.readdirSync(a).filter(f => /\.jsonl(\.gz)?$/.test(f)).sort().map(f => path.join(a, f)) : [a]);
if (files.length === 0) { console.error('replay: no transcripts (*.jsonl, *.jsonl.gz) given'); process.exit(2); }
if (!fs.existsSync(bin)) { console.error(`replay: no wgslvk binary at ${bin} (--bin or WGSLVK_BIN)`); process.exit(2); }
const t0 = Date.now();
const results = [];
let next = 0;
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, async () => {
  while (next < files.length) {
    const f = files[next++];
    const t = Date.now();
    const r = await replay(f);
    results.push(r);
    console.log(`${r.file}: ${r.compared} passing cases compared, ${r.mismatches.length} differ (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    for (const m of r.mismatches) console.log(`  MISMATCH ${m}`);
  }
}));
const compared = new Set(results.flatMap(r => r.names ?? [])).size;
const bad = results.reduce((a, r) => a + r.mismatches.length, 0);
console.log(`replay: ${files.length} transcripts, ${compared} passing CTS cases with output compared, ${bad} differ, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(bad ? 1 : 0);
