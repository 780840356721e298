// A hang detector for the browser suite: the page fails when it makes no progress (no request to
// the suite's server) for `stallS` seconds, or when it runs past `maxS` in all. A fixed total of
// 170 s failed the suite in two of three runs on a busy 2-core machine (it took 167 s alone);
// progress, not the total, tells a hang from slowness. Node built-ins only.
export function stallWatchdog({ lastActivity, stallS, maxS, describe = () => '', now = Date.now, everyMs = 1000 }) {
  const start = now();
  let timer = null;
  const promise = new Promise((_, reject) => {
    const tick = () => {
      const t = now();
      if ((t - lastActivity()) / 1000 > stallS)
        return reject(new Error(`the page made no progress for ${stallS} s (a hang); ${describe()}`));
      if ((t - start) / 1000 > maxS)
        return reject(new Error(`the page did not finish in ${maxS} s in all; ${describe()}`));
      timer = setTimeout(tick, everyMs);
    };
    timer = setTimeout(tick, everyMs);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}
