// Runs WebGPU CTS suites (issue 22's list, or --query/--list-file) on wgslvk and on Dawn, --jobs
// spec files at a time, each in a persistent runner (cts/worker.cjs: one Node process and one device
// pool for many files; a crash or hang costs the file it was running, and the runner is replaced),
// and writes one table: pass / fail / skip per suite for each provider, wall and CPU time, and the
// list of wgslvk's failures. cts/README.md says how to get the CTS and what the columns mean.
//
// usage: node cts/run.mjs [--providers wgslvk,dawn] [--cts DIR] [--jobs N] [--timeout-s S]
//          [--query Q]... [--list-file F] [--only REGEX] [--out BASE] [--expectations F] [--isolate]
//   --isolate        one `node cmdline.js` process per spec file (the CTS's own runner; slower:
//                    Node, the CTS's modules and the servers start once per file)
//   --cts DIR        the CTS checkout with out-node/ built (default: <repo>/.cts-src)
//   --query Q        a CTS query instead of the default list (repeatable; one process each)
//   --list-file F    queries, one a line (# comments)
//   --only REGEX     keep the spec files whose query matches
//   --out BASE       writes BASE.json and BASE.md (default: cts/results/<date>-<commit>[-tag])
//   --tag T          appended to the default output name (e.g. "h200")
//   --order-from J   start the spec files slowest first, by their wall time in an earlier run's
//                    JSON J (fewer idle runners at the end)
//   --deadline-s S   start no spec file after S seconds and stop those still running at S (each
//                    counted as one failure, "cut at the deadline"); the files not started are
//                    listed as not run (a bounded device call still writes its results)
//   --expectations F JSON {query: "pass"|"fail"|"skip"} of a subset (CI): exit 1 when a case
//                    expected to pass does not (a regression), and list the cases that now pass
//                    but were expected to fail
// Environment: WGSLVK_CTS_RECORD_ROOT (record serve transcripts per query: cts/make_replay.sh),
// WGSLVK_BIN (the wgslvk binary for the wgslvk provider), WGSLVK_NODE_MODULES (where
// `webgpu` is, for Dawn), DAWN_ENV (a shell file to source for Dawn's Vulkan, e.g. Mesa 25's
// lavapipe), WGSLVK_DAWN_FLAGS (more of Dawn's flags: cts/provider/dawn.cjs), NODE (the node binary).
import { spawn, execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const optAll = name => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
for (let i = 0; i < args.length; i += args[i] === '--isolate' ? 1 : 2)
  if (!['--isolate', '--providers', '--cts', '--jobs', '--timeout-s', '--query', '--list-file', '--only', '--out',
        '--tag', '--expectations', '--write-expectations', '--merge', '--deadline-s', '--order-from'].includes(args[i])) {
    console.error(`run.mjs: unknown option '${args[i]}' (see the usage at the top of cts/run.mjs)`);
    process.exit(2);
  }

// --merge A.json,B.json: no run; one table from earlier runs' JSON (e.g. wgslvk and Dawn run in two
// calls on the same kind of machine), written to --out.
const merged = opt('--merge') ? opt('--merge').split(',').map(f => JSON.parse(fs.readFileSync(f, 'utf8'))) : null;
const providers = merged ? [...new Set(merged.flatMap(m => m.providers))] : opt('--providers', 'wgslvk,dawn').split(',');
const ctsDir = path.resolve(opt('--cts', path.join(repo, '.cts-src')));
const jobs = Number(opt('--jobs', String(Math.max(1, os.cpus().length - 0))));
const timeoutS = Number(opt('--timeout-s', '900'));
const node = process.env.NODE || process.execPath;
const cmdline = path.join(ctsDir, 'out-node/common/runtime/cmdline.js');
if (!merged && !fs.existsSync(cmdline)) {
  console.error(`run.mjs: ${cmdline} not found: run cts/setup.sh first (cts/README.md)`);
  process.exit(3);
}

// Issue 22's suites. Each entry expands to one query per spec file under it.
const kDefaultSuites = [
  'shader/execution/expression',
  'shader/execution/flow_control',
  'shader/execution/statement',
  'shader/execution/memory_layout.spec.js',
  'shader/execution/padding.spec.js',
  'shader/execution/zero_init.spec.js',
  'shader/execution/robust_access.spec.js',
  'shader/execution/shader_io/compute_builtins.spec.js',
  'shader/validation',
];

function specFiles(rel) {
  const abs = path.join(ctsDir, 'out-node/webgpu', rel);
  if (!fs.existsSync(abs)) throw new Error(`no ${abs}`);
  if (fs.statSync(abs).isFile()) return [rel];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap(e =>
    e.isDirectory() ? specFiles(path.join(rel, e.name))
      : e.name.endsWith('.spec.js') ? [path.join(rel, e.name)] : []).sort();
}
const queryOf = rel => 'webgpu:' + rel.replace(/\.spec\.js$/, '').split(path.sep).join(',') + ':*';

let queries = optAll('--query');
if (opt('--list-file'))
  queries.push(...fs.readFileSync(opt('--list-file'), 'utf8').split('\n').map(l => l.replace(/#.*/, '').trim()).filter(Boolean));
if (queries.length === 0 && !merged) queries = kDefaultSuites.flatMap(specFiles).map(queryOf);
if (opt('--only')) queries = queries.filter(q => new RegExp(opt('--only')).test(q));
if (opt('--order-from')) {
  const before = new Map(JSON.parse(fs.readFileSync(opt('--order-from'), 'utf8')).results.map(r => [r.query, r.wall_s]));
  queries.sort((a, b) => (before.get(b) ?? 1e9) - (before.get(a) ?? 1e9));
}

// The table's suite of a query: issue 22's grouping, texture builtins apart (wgslvk has no
// textures; fragment-only derivatives likewise).
function suiteOf(q) {
  const parts = q.replace(/^webgpu:/, '').split(':')[0].split(',');
  if (parts[1] === 'validation') return 'shader,validation,' + (parts.length > 3 ? parts[2] : parts[2] ?? '');
  if (parts[2] === 'expression') {
    if (parts[3] === 'call' && parts[4] === 'builtin') {
      const b = parts[5] ?? '';
      if (/^texture/.test(b)) return 'expression,call,builtin (texture*)';
      if (/^(dpd|fwidth)/.test(b)) return 'expression,call,builtin (derivatives)';
      return 'expression,call,builtin';
    }
    return 'expression,' + parts[3];
  }
  return parts.slice(2).join(',');
}

function providerModule(p) {
  return path.join(repo, 'cts/provider', p === 'dawn' ? 'dawn.cjs' : 'wgslvk.cjs');
}

const t0All = Date.now();
const deadlineS = Number(opt('--deadline-s', 'Infinity'));
function runOne(provider, query, logPath) {
  return new Promise(resolve => {
    const t0 = Date.now();
    const cmd = [cmdline, '--verbose', '--gpu-provider', providerModule(provider),
                 ...(process.env.CTS_EXTRA_FLAGS ? process.env.CTS_EXTRA_FLAGS.split(' ') : []), query];
    const env = { ...process.env };
    // WGSLVK_CTS_RECORD_ROOT: the provider records each spec file's transcripts into a folder of
    // its own (cts/make_replay.sh, the replay corpus).
    if (process.env.WGSLVK_CTS_RECORD_ROOT && provider === 'wgslvk')
      env.WGSLVK_CTS_RECORD = path.join(process.env.WGSLVK_CTS_RECORD_ROOT, query.replace(/[^A-Za-z0-9_.-]/g, '_'));
    let argv0 = node, argv = cmd;
    if (provider === 'dawn' && process.env.DAWN_ENV) {
      argv0 = 'bash';
      argv = ['-c', `source "${process.env.DAWN_ENV}" && exec "$0" "$@"`, node, ...cmd];
    }
    const out = fs.openSync(logPath, 'w');
    const child = spawn(argv0, argv, { cwd: ctsDir, env, stdio: ['ignore', out, out], detached: true });
    let timedOut = false;
    const left = Math.max(1, deadlineS - (Date.now() - t0All) / 1000);
    const cut = left < timeoutS;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch {}
    }, Math.min(timeoutS, left) * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      fs.closeSync(out);
      resolve(parseLog(provider, query, logPath, code ?? signal, code, timedOut, cut, (Date.now() - t0) / 1000));
    });
  });
}

// The persistent runners (the default; --isolate: one process per file as before): cts/worker.cjs
// runs spec files one after the other in one Node process with one device pool, so Node's start,
// the CTS's module loading and `wgslvk serve`'s start are paid once per runner, not per file. A
// runner that dies or passes --timeout-s costs the file it was running (counted as before) and is
// replaced for the next file. Recording transcripts (WGSLVK_CTS_RECORD_ROOT) and CTS_EXTRA_FLAGS
// need one process per file, so they imply --isolate.
const isolate = args.includes('--isolate') || !!process.env.WGSLVK_CTS_RECORD_ROOT || !!process.env.CTS_EXTRA_FLAGS;
const workerJs = path.join(repo, 'cts/worker.cjs');
class Runner {
  constructor(provider) {
    const cmd = [workerJs, '--gpu-provider', providerModule(provider)];
    let argv0 = node, argv = cmd;
    if (provider === 'dawn' && process.env.DAWN_ENV) {
      argv0 = 'bash';
      argv = ['-c', `source "${process.env.DAWN_ENV}" && exec "$0" "$@"`, node, ...cmd];
    }
    this.child = spawn(argv0, argv, { cwd: ctsDir, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child.stdin.on('error', () => {});
    this.out = null;  // the current file's log
    this.onEnd = null;
    this.dead = false;
    const onLine = line => {
      const m = /^@@cts-worker end (\d+) node_cpu_s=([\d.]+) serve_cpu_s=([\d.]+)/.exec(line);
      if (m && this.onEnd) {
        const f = this.onEnd;
        this.onEnd = null;
        f({ code: Number(m[1]), cpu: { node: Number(m[2]), serve: Number(m[3]) } });
      } else if (this.out !== null && !line.startsWith('@@cts-worker begin')) {
        fs.writeSync(this.out, line + '\n');
      }
    };
    readline.createInterface({ input: this.child.stdout }).on('line', onLine);
    readline.createInterface({ input: this.child.stderr }).on('line', onLine);
    this.child.on('close', (code, signal) => {
      this.dead = true;
      if (this.onEnd) {
        const f = this.onEnd;
        this.onEnd = null;
        f({ code: null, exit: code ?? signal });
      }
    });
  }
  // CPU seconds per process of this runner's tree (it and its servers), from /proc: what a file
  // cut at --timeout-s had used, since its runner can no longer say.
  cpuTree() {
    const m = new Map();
    const walk = (pid, depth) => {
      try {
        const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        m.set(pid, { t: (Number(f[11]) + Number(f[12])) / 100, root: depth === 0 });
        for (const c of fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean))
          walk(Number(c), depth + 1);
      } catch {}
    };
    walk(this.child.pid, 0);
    return m;
  }
  run(query, logPath, limitS) {
    return new Promise(resolve => {
      this.out = fs.openSync(logPath, 'w');
      let timedOut = false;
      const before = this.cpuTree();
      const timer = setTimeout(() => {
        timedOut = true;
        const cpu = { node: 0, serve: 0, until_cut: true };
        for (const [pid, { t, root }] of this.cpuTree()) cpu[root ? 'node' : 'serve'] += t - (before.get(pid)?.t ?? 0);
        this.cutCpu = cpu;
        this.kill();
      }, limitS * 1000);
      this.onEnd = e => {
        clearTimeout(timer);
        fs.closeSync(this.out);
        this.out = null;
        resolve({ ...e, timedOut });
      };
      this.child.stdin.write(query + '\n');
    });
  }
  kill() { try { process.kill(-this.child.pid, 'SIGKILL'); } catch {} }
  quit() {
    if (this.dead) return Promise.resolve();
    return new Promise(resolve => {
      const t = setTimeout(() => { this.kill(); resolve(); }, 20000);
      this.child.on('close', () => { clearTimeout(t); resolve(); });
      this.child.stdin.end('\n');
    });
  }
}
async function runInRunner(slot, provider, query, logPath) {
  const t0 = Date.now();
  if (!slot[provider] || slot[provider].dead) slot[provider] = new Runner(provider);
  const left = Math.max(1, deadlineS - (Date.now() - t0All) / 1000);
  const cut = left < timeoutS;
  const e = await slot[provider].run(query, logPath, Math.min(timeoutS, left));
  const cutCpu = slot[provider].cutCpu;
  if (e.code === null) slot[provider] = null;  // died (or killed): a new one for the next file
  // Exit codes as cmdline.js gives them: 0 or 1 for a file that ran; else it died.
  const r = parseLog(provider, query, logPath, e.code ?? e.exit, e.code, e.timedOut, cut, (Date.now() - t0) / 1000);
  if (e.cpu) r.cpu_s = e.cpu;
  else if (cutCpu) r.cpu_s = cutCpu;  // until it was cut (the cases it had finished, and more)
  return r;
}

// A spec file's result from its log: counts, failures and their first reasons. `code` is the
// runner's exit code (0: all pass, 1: a failure; anything else, or no case at all: the file died).
function parseLog(provider, query, logPath, exit, code, timedOut, cut, wall_s) {
  const r = { provider, query, suite: suiteOf(query), pass: 0, fail: 0, skip: 0, warn: 0,
              failures: [], notImplemented: 0, exit, timed_out: timedOut, wall_s };
  const seen = new Set();
  r.reasons = {};
  // A failed case's reason: its first EXCEPTION (an unexpected error says most, e.g. the
  // pipeline that did not compile), else its first failed expectation; numbers and source
  // positions blanked so that alike ones add up.
  let failing = null, first = null, exception = null;
  let subcaseKind = null;  // "EXPECTATION FAILED: subcase: x": the reason is on the next line
  const commit = () => {
    const why = exception ?? first;
    if (failing && why) {
      const k = why.replace(/\d+(:\d+)*/g, 'N').replace(/'[^']*'/g, "'…'").slice(0, 260);
      r.reasons[k] = (r.reasons[k] ?? 0) + 1;
    }
    failing = first = exception = subcaseKind = null;
  };
  const lines = fs.readFileSync(logPath, 'utf8').split('\n');
  for (const line of lines) {
    const m = /^\[(pass|fail|skip|warn)\] (\S+) \(\d/.exec(line);
    if (m) commit();
    if (m && !seen.has(m[2] + m[1])) {
      seen.add(m[2] + m[1]);  // the summary repeats failures and skips
      r[m[1]]++;
      if (m[1] === 'fail') { r.failures.push(m[2]); failing = m[2]; }
    }
    let f = failing && /^ {2}- (EXPECTATION FAILED|EXCEPTION|VALIDATION FAILED): (.*)/.exec(line);
    if (f && f[2].startsWith('subcase:')) { subcaseKind = f[1]; f = null; }
    else if (failing && subcaseKind && line.trim()) { f = [null, subcaseKind, line.trim()]; subcaseKind = null; }
    if (f && f[2].endsWith(':')) { subcaseKind = f[1] + ': ' + f[2]; f = null; continue; }  // glslang's log goes on below
    if (f) {
      const why = f[0] === null && f[1].includes(': ') ? f[1] + ' ' + f[2] : f[1] + ': ' + f[2];
      first ??= why;
      if (f[1].startsWith('EXCEPTION')) exception ??= why;
    }
    if (line.includes('not implemented in wgslvk')) r.notImplemented++;
  }
  commit();
  // A file that died (not one case failing) counts as one failure, named.
  if (timedOut || (code !== 0 && code !== 1) || (r.pass + r.fail + r.skip + r.warn === 0))
    r.failures.push(`${query} (${timedOut ? (cut ? `cut at the deadline (${deadlineS} s)` : `timed out after ${timeoutS} s`) : `runner exited ${exit}`})`), r.died = true;
  return r;
}

const commit = (() => { try { return execSync('git -C ' + repo + ' rev-parse --short HEAD').toString().trim(); } catch { return 'nocommit'; } })();
const date = new Date().toISOString().slice(0, 10);
const base = path.resolve(opt('--out', path.join(repo, 'cts/results', `${date}-${commit}${opt('--tag') ? '-' + opt('--tag') : ''}`)));
const logDir = base + '.logs';
if (!merged) fs.mkdirSync(logDir, { recursive: true });

const tasks = merged ? [] : providers.flatMap(p => queries.map(q => ({ p, q })));
const results = [];
const t0 = t0All;
const notRun = [];
let next = 0;
async function worker() {
  const slot = {};  // this slot's persistent runner per provider
  while (next < tasks.length) {
    if ((Date.now() - t0) / 1000 > deadlineS) {
      notRun.push(...tasks.slice(next).map(t => `${t.p} ${t.q}`));
      next = tasks.length;
      break;
    }
    const { p, q } = tasks[next++];
    const log = path.join(logDir, `${p}--${q.replace(/[^A-Za-z0-9_.-]/g, '_')}.log`);
    const r = isolate ? await runOne(p, q, log) : await runInRunner(slot, p, q, log);
    results.push(r);
    const cpu = r.cpu_s ? ` (CPU: runner ${r.cpu_s.node.toFixed(1)} s, serve ${r.cpu_s.serve.toFixed(1)} s)` : '';
    console.log(`${p.padEnd(6)} ${q.padEnd(80)} pass ${r.pass} fail ${r.fail} skip ${r.skip}${r.died ? ' DIED' : ''} ${r.wall_s.toFixed(1)} s${cpu}`);
  }
  await Promise.all(Object.values(slot).filter(Boolean).map(w => w.quit()));
}
await Promise.all(Array.from({ length: Math.min(jobs, tasks.length) }, worker));
let wall = (Date.now() - t0) / 1000;
if (merged) {
  for (const m of merged) results.push(...m.results.filter(r => !opt('--only') || new RegExp(opt('--only')).test(r.query)));
  wall = merged.reduce((a, m) => a + m.wall_s, 0);
}

// ---- the table ----------------------------------------------------------------------------------
const suites = [...new Set(results.map(r => r.suite))].sort();
const sum = (p, s) => results.filter(r => r.provider === p && r.suite === s).reduce((a, r) => ({
  pass: a.pass + r.pass, fail: a.fail + r.fail + (r.died ? 1 : 0), skip: a.skip + r.skip, wall: a.wall + r.wall_s,
  ni: a.ni + r.notImplemented }), { pass: 0, fail: 0, skip: 0, wall: 0, ni: 0 });
const lines = [];
lines.push(`# WebGPU CTS: wgslvk and Dawn, ${date}, wgslvk commit ${commit}`, '');
if (merged) lines.push(`Merged from runs of wgslvk commits ${merged.map(m => m.commit).join(', ')} (${merged.map(m => m.date).join(', ')}).`);
lines.push(`CTS ${fs.existsSync(path.join(ctsDir, 'CTS_COMMIT')) ? fs.readFileSync(path.join(ctsDir, 'CTS_COMMIT'), 'utf8').trim() : '(commit unknown)'}; host ${os.hostname()}, ${os.cpus().length} CPUs; ${jobs} files at a time; wall ${wall.toFixed(0)} s in all.`);
lines.push(`Dawn: dawn.node (npm \`webgpu\`)${process.env.DAWN_ENV ? `, Vulkan from ${process.env.DAWN_ENV}` : ''}. Times are the sum of each file's wall time.`, '');
// The environment that changes speed or results, inherited by both providers' runners (and so by
// wgslvk serve and dawn.node alike): a speed number means something only with these beside it.
const kSpeedEnv = ['GALLIVM_PERF', 'LP_NUM_THREADS', 'MESA_SHADER_CACHE_DISABLE', 'WGSLVK_VALIDATION', 'WGSLVK_SYNC_VALIDATION'];
const speedEnv = Object.fromEntries(kSpeedEnv.map(k => [k, process.env[k] ?? null]));
if (merged)
  lines.push(`Environment of the merged runs: ${merged.map(m => m.env ? kSpeedEnv.map(k => `${k}=${m.env[k] ?? '(unset)'}`).join(', ') : '(not recorded)').join('; ')}.`, '');
else
  lines.push(`Environment (both providers): ${kSpeedEnv.map(k => `${k}=${speedEnv[k] ?? '(unset)'}`).join(', ')}; --timeout-s ${timeoutS}, --deadline-s ${deadlineS}.`, '');
// CPU seconds (persistent runners only): the runner process's and its servers' (for Dawn the
// device is inside the runner), summed over the files that finished; on a shared machine this,
// not the wall time, is what the run cost.
for (const p of providers) {
  const done = results.filter(r => r.provider === p && r.cpu_s);
  if (!done.length) continue;
  const node = done.reduce((a, r) => a + r.cpu_s.node, 0), serve = done.reduce((a, r) => a + r.cpu_s.serve, 0);
  lines.push(`CPU ${p}: ${(node + serve).toFixed(0)} s (runner ${node.toFixed(0)} s, serve ${serve.toFixed(0)} s) over the ${done.length} files that finished; load average at the end ${os.loadavg().map(x => x.toFixed(1)).join(' ')}.`, '');
}
// With both providers, a last column says whether wgslvk passes at least as many cases as Dawn
// (issue 22's target, per suite).
const both = providers.includes('wgslvk') && providers.includes('dawn');
const head = ['suite', ...providers.flatMap(p => [`${p} pass`, 'fail', 'skip', 's']), ...(both ? ['wgslvk >= dawn'] : [])];
lines.push('| ' + head.join(' | ') + ' |', '|' + head.map(() => '---').join('|') + '|');
const tot = Object.fromEntries(providers.map(p => [p, { pass: 0, fail: 0, skip: 0, wall: 0 }]));
for (const s of suites) {
  const row = [s];
  for (const p of providers) {
    const x = sum(p, s);
    row.push(x.pass, x.fail, x.skip, x.wall.toFixed(0));
    for (const k of ['pass', 'fail', 'skip', 'wall']) tot[p][k] += x[k];
  }
  if (both) row.push(sum('wgslvk', s).pass >= sum('dawn', s).pass ? 'yes' : '**no**');
  lines.push('| ' + row.join(' | ') + ' |');
}
lines.push('| **total** | ' + providers.map(p => `**${tot[p].pass}** | ${tot[p].fail} | ${tot[p].skip} | ${tot[p].wall.toFixed(0)}`).join(' | ') +
           (both ? ` | ${suites.filter(s => sum('wgslvk', s).pass >= sum('dawn', s).pass).length} of ${suites.length} suites` : '') + ' |', '');
if (notRun.length) {
  lines.push(`**Not run** (--deadline-s ${deadlineS} passed before they started): ${notRun.length} spec files:`, '');
  for (const n of notRun) lines.push('- `' + n + '`');
  lines.push('');
}
for (const p of providers.filter(p => p !== 'dawn')) {
  const failures = results.filter(r => r.provider === p).flatMap(r => r.failures).sort();
  lines.push(`## ${p} failures (${failures.length})`, '');
  const ni = results.filter(r => r.provider === p).reduce((a, r) => a + r.notImplemented, 0);
  lines.push(`Log lines naming "not implemented in wgslvk": ${ni}. Logs: ${path.relative(repo, logDir)}/ (not committed).`, '');
  const reasons = {};
  for (const r of results.filter(r => r.provider === p))
    for (const [k, n] of Object.entries(r.reasons ?? {})) reasons[k] = (reasons[k] ?? 0) + n;
  lines.push('### The commonest first reasons (numbers and quoted names blanked)', '', '| cases | reason |', '|---|---|');
  for (const [k, n] of Object.entries(reasons).sort((a, b) => b[1] - a[1]).slice(0, 40))
    lines.push(`| ${n} | ${k.replace(/\|/g, '\\|').replace(/`/g, "'")} |`);
  lines.push('', '### Every failure', '');
  const shown = failures.slice(0, 2000);
  for (const f of shown) lines.push('- `' + f + '`');
  if (failures.length > shown.length) lines.push(`- ... and ${failures.length - shown.length} more (the JSON has them all)`);
  lines.push('');
}
fs.writeFileSync(base + '.md', lines.join('\n') + '\n');
fs.writeFileSync(base + '.json', JSON.stringify({ date, commit, wall_s: wall, jobs, providers, env: merged ? undefined : speedEnv, results, not_run: notRun }, null, 1) + '\n');
console.log(`\nwrote ${path.relative(process.cwd(), base)}.md and .json`);

// ---- expectations (CI) --------------------------------------------------------------------------
// Every wgslvk case's status, from the logs (the last line for a case wins: the summary repeats).
const statusOf = new Map();
for (const r of results.filter(r => r.provider === 'wgslvk' && !merged))
  for (const line of fs.readFileSync(path.join(logDir, `wgslvk--${r.query.replace(/[^A-Za-z0-9_.-]/g, '_')}.log`), 'utf8').split('\n')) {
    const m = /^\[(pass|fail|skip|warn)\] (\S+) \(\d/.exec(line);
    if (m) statusOf.set(m[2], m[1]);
  }
if (opt('--write-expectations')) {
  const cases = Object.fromEntries([...statusOf.entries()].sort());
  fs.writeFileSync(opt('--write-expectations'), JSON.stringify({
    note: 'wgslvk\'s status per CTS case of cts/ci_subset.txt; written by cts/run.mjs --write-expectations, checked by --expectations (tests/cts)',
    cts: fs.existsSync(path.join(ctsDir, 'CTS_COMMIT')) ? fs.readFileSync(path.join(ctsDir, 'CTS_COMMIT'), 'utf8').trim() : '',
    wgslvk_commit: commit, cases }, null, 1) + '\n');
  console.log(`wrote ${opt('--write-expectations')} (${statusOf.size} cases)`);
}
if (opt('--expectations')) {
  const exp = JSON.parse(fs.readFileSync(opt('--expectations'), 'utf8'));
  let regressions = 0, fixed = 0;
  for (const [q, want] of Object.entries(exp.cases ?? exp)) {
    const got = statusOf.get(q) ?? 'missing';
    if (want === 'pass' && got !== 'pass') { console.log(`REGRESSION ${q}: expected pass, got ${got}`); regressions++; }
    if (want !== 'pass' && got === 'pass') { console.log(`NOW PASSES ${q} (expected ${want}): update the expectations`); fixed++; }
  }
  const passed = [...statusOf.values()].filter(s => s === 'pass').length;
  console.log(`cts: ${passed} passed, ${regressions} failed`);
  process.exit(regressions ? 1 : 0);
}
