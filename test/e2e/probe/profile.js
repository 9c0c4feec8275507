// A CPU profile of the extension host (this process) while the e2e runs, to say
// how long Tenure's own code held the event loop: the samples are grouped into
// runs of consecutive busy samples (one or more back-to-back tasks), and a run
// counts against Tenure when Tenure's bundle (…/tenure.tenure-*/dist/) is on the
// stack. Other extensions (the TypeScript one answers Tenure's enrichment
// requests in this same host) are reported apart.
'use strict';
const inspector = require('node:inspector');

const MARKER = '/tenure.tenure-';

function start() {
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
  const ready = post('Profiler.enable')
    .then(() => post('Profiler.setSamplingInterval', { interval: 1000 }))
    .then(() => post('Profiler.start'));
  return {
    async stop() {
      await ready;
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      return analyze(profile);
    },
  };
}

function analyze(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map();
  const inTenure = (id) => {
    if (memo.has(id)) return memo.get(id);
    const n = nodes.get(id);
    const v = !!n && ((n.callFrame.url || '').includes(MARKER) || (parent.has(id) && inTenure(parent.get(id))));
    memo.set(id, v);
    return v;
  };
  // The innermost frame of Tenure's bundle on the stack: where a run's time went, in Tenure's terms.
  const frameMemo = new Map();
  const tenureFrame = (id) => {
    if (frameMemo.has(id)) return frameMemo.get(id);
    const n = nodes.get(id);
    let v;
    if (n && (n.callFrame.url || '').includes(MARKER)) v = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/dist\//, 'dist/')}:${n.callFrame.lineNumber + 1}`;
    else if (parent.has(id)) v = tenureFrame(parent.get(id));
    frameMemo.set(id, v);
    return v;
  };
  const idle = (id) => nodes.get(id)?.callFrame.functionName === '(idle)';
  const runs = [];
  let run;
  let t = profile.startTime;
  const selfByFn = new Map();
  let tenureSelfUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    const n = nodes.get(id);
    if ((n?.callFrame.url || '').includes(MARKER)) {
      tenureSelfUs += dt;
      const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/dist\//, 'dist/')}:${n.callFrame.lineNumber + 1}`;
      selfByFn.set(key, (selfByFn.get(key) ?? 0) + dt);
    }
    if (idle(id)) {
      if (run) runs.push(run);
      run = undefined;
      continue;
    }
    if (!run) run = { start: t - dt, end: t, tenureUs: 0, samples: 0, frames: new Map() };
    run.end = t;
    run.samples++;
    if (inTenure(id)) {
      run.tenureUs += dt;
      const f = tenureFrame(id);
      if (f) run.frames.set(f, (run.frames.get(f) ?? 0) + dt);
    }
  }
  if (run) runs.push(run);
  const ms = (us) => Math.round(us / 100) / 10;
  const tenureRuns = runs
    .filter((r) => r.tenureUs > 0)
    .map((r) => ({
      ms: ms(r.end - r.start),
      tenureMs: ms(r.tenureUs),
      at: Math.round((r.start - profile.startTime) / 1000),
      // The innermost Tenure frames the run's samples fell in, heaviest first.
      frames: [...r.frames.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([fn, us]) => `${ms(us)} ms ${fn}`),
    }));
  tenureRuns.sort((a, b) => b.tenureMs - a.tenureMs);
  return {
    profiledMs: ms(profile.endTime - profile.startTime),
    tenureCpuMs: ms(tenureSelfUs),
    // The longest stretches of the event loop in which Tenure's code ran, by Tenure's share.
    longestTenureRuns: tenureRuns.slice(0, 8),
    runsOver50ms: tenureRuns.filter((r) => r.tenureMs > 50).length,
    topTenureFunctions: [...selfByFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([fn, us]) => ({ fn, ms: ms(us) })),
  };
}

module.exports = { start };
