// A persistent CTS runner for cts/run.mjs: one Node process that runs many spec files, one after
// the other, as the CTS's own browser runner runs a whole tree in one page (one device pool, so
// one `wgslvk serve` per device for all the files). What it runs and prints per case is what the
// CTS's `cmdline.js --verbose` does for one query (the same `[pass] <case> (<ms>ms)` lines, logs
// and summary), so run.mjs reads its output the same way.
//
// usage (cwd: the CTS checkout): node worker.cjs --gpu-provider MODULE [--gpu-provider-flag F]...
// then one query a line on stdin; for each, the output is framed by
//   @@cts-worker begin <query>
//   @@cts-worker end <exit code as cmdline.js would give> node_cpu_s=<s> serve_cpu_s=<s>
// where the CPU seconds are this process's and its `wgslvk serve` children's during the query
// (live ones: the provider's childPids() and /proc; exited ones: this process's cutime). An empty line or the end of stdin: the provider's servers are
// closed and waited for, and the worker exits.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const cts = rel => require(path.resolve('out-node', rel));
const { dataCache } = cts('common/framework/data_cache.js');
const { getResourcePath, setBaseResourcePath } = cts('common/framework/resources.js');
const { DefaultTestFileLoader } = cts('common/internal/file_loader.js');
const { prettyPrintLog } = cts('common/internal/logging/log_message.js');
const { Logger } = cts('common/internal/logging/logger.js');
const { parseQuery } = cts('common/internal/query/parseQuery.js');
const { parseExpectationsForTestQuery } = cts('common/internal/query/query.js');
const { Colors } = cts('common/util/colors.js');
const { setGPUProvider } = cts('common/util/navigator_gpu.js');

const args = process.argv.slice(2);
let providerPath = null;
const flags = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--gpu-provider') providerPath = args[++i];
  else if (args[i] === '--gpu-provider-flag') flags.push(args[++i]);
  else { console.error(`worker.cjs: unknown argument '${args[i]}'`); process.exit(2); }
}
if (!providerPath) { console.error('worker.cjs: --gpu-provider MODULE is required'); process.exit(2); }
const provider = require(path.resolve(providerPath));
setGPUProvider(() => provider.create(flags));
setBaseResourcePath('out-node/resources');
Colors.enabled = false;
dataCache.setStore({
  load: p => new Promise((resolve, reject) =>
    fs.readFile(getResourcePath(`cache/${p}`), (err, data) => (err ? reject(err.message) : resolve(data)))),
});
dataCache.setDebugLogger(console.log);  // as cmdline.js --verbose: says whether the case cache served a file

// CPU seconds of the serve children since the last call: the live ones from /proc/<pid>/stat
// (utime + stime, every thread), the exited ones from this process's cutime + cstime (Node reaps
// them: a server of a device that was replaced counts whole there), less what an exited one had
// already been counted for at the last call.
const kTick = 100;  // USER_HZ on Linux
const stat = pid => {
  const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return st.slice(st.lastIndexOf(')') + 2).split(' ').map(Number);  // f[i] is field i + 3
};
let seen = new Map();
let reaped = 0;
function serveCpuSince() {
  let s = 0;
  const now = new Map();
  for (const pid of provider.childPids?.() ?? []) {
    try {
      const f = stat(pid);
      now.set(pid, (f[11] + f[12]) / kTick);  // fields 14 and 15
    } catch {}
  }
  for (const [pid, t] of now) s += t - (seen.get(pid) ?? 0);
  for (const [pid, t] of seen) if (!now.has(pid)) s -= t;
  const self = stat('self');
  const r = (self[13] + self[14]) / kTick;  // fields 16 and 17: waited-for children
  s += r - reaped;
  reaped = r;
  seen = now;
  return s;
}
const nodeCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

function printResults(results) {
  for (const [name, r] of results) {
    console.log(`[${r.status}] ${name} (${r.timems}ms). Log:`);
    if (r.logs) for (const l of r.logs) console.log(prettyPrintLog(l));
  }
}

async function runQuery(query) {
  const loader = new DefaultTestFileLoader();
  const filterQuery = parseQuery(query);
  const testcases = await loader.loadCases(filterQuery);
  const expectations = parseExpectationsForTestQuery([], filterQuery);
  const log = new Logger();
  const failed = [], warned = [], skipped = [];
  let total = 0;
  for (const testcase of testcases) {
    const name = testcase.query.toString();
    const [rec, res] = log.record(name);
    await testcase.run(rec, expectations);
    printResults([[name, res]]);
    total++;
    if (res.status === 'fail') failed.push([name, res]);
    else if (res.status === 'warn') warned.push([name, res]);
    else if (res.status === 'skip') skipped.push([name, res]);
  }
  if (total === 0) throw new Error('found no tests!');
  if (skipped.length) { console.log('\n** Skipped **'); printResults(skipped); }
  if (warned.length) { console.log('\n** Warnings **'); printResults(warned); }
  if (failed.length) { console.log('\n** Failures **'); printResults(failed); }
  const passed = total - warned.length - failed.length - skipped.length;
  console.log(`\n** Summary **\nPassed  w/o warnings = ${passed} / ${total}\nPassed with warnings = ${warned.length} / ${total}\n` +
              `Skipped              = ${skipped.length} / ${total}\nFailed               = ${failed.length} / ${total}`);
  return failed.length || warned.length ? 1 : 0;
}

(async () => {
  const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  for (;;) {
    const { value, done } = await lines.next();
    if (done || !value.trim()) break;
    const query = value.trim();
    const n0 = nodeCpu();
    serveCpuSince();
    console.log(`@@cts-worker begin ${query}`);
    let code;
    try {
      code = await runQuery(query);
    } catch (ex) {
      console.log(ex.stack ?? String(ex));
      code = 1;
    }
    console.log(`@@cts-worker end ${code} node_cpu_s=${(nodeCpu() - n0).toFixed(2)} serve_cpu_s=${serveCpuSince().toFixed(2)}`);
  }
  await provider.shutdown?.();
  process.exit(0);
})();
