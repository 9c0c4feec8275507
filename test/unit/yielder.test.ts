import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discover } from '../../src/core/structural/inventory/discover';
import { Yielder } from '../../src/shared/yielder';
import { tempDir, write } from '../helpers/fixtures';

/**
 * The core shares its thread with a host (the extension host, an MCP server):
 * long loops give it back. Checked by the host's view: a 10 ms timer must keep
 * firing while the work runs, not once after it.
 */
async function ticksDuring(work: () => Promise<unknown>): Promise<{ ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const t0 = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { ticks, ms: performance.now() - t0 };
}

describe('giving the host thread back', () => {
  it('a busy loop with a Yielder lets timers run during it', async () => {
    const busy = async (withYields: boolean) => {
      const y = new Yielder(10);
      const end = performance.now() + 300;
      while (performance.now() < end) {
        if (withYields && y.due()) await y.yield();
      }
    };
    const without = await ticksDuring(() => busy(false));
    const withYields = await ticksDuring(() => busy(true));
    assert.equal(without.ticks, 0, 'a loop without yields starves timers (the check can fail)');
    assert.ok(withYields.ticks >= 5, `only ${withYields.ticks} timer ticks in ${withYields.ms.toFixed(0)} ms of yielding work`);
  });

  it('discover walks a large tree without holding the thread, and finds every file', async function () {
    this.timeout(60_000);
    const t = tempDir('tenure-discover-');
    try {
      for (let d = 0; d < 40; d++) for (let f = 0; f < 100; f++) write(t.root, `pkg${d}/mod${f}.py`, 'x = 1\n');
      fs.writeFileSync(path.join(t.root, '.gitignore'), 'pkg3/\n');
      let found = 0;
      const { ticks, ms } = await ticksDuring(async () => {
        found = (await discover(t.root)).files.length;
      });
      assert.equal(found, 3900);
      // A 10 ms timer: at least one tick per 100 ms of walking (a loaded machine delays timers too).
      assert.ok(ticks >= Math.floor(ms / 100), `${ticks} ticks in ${ms.toFixed(0)} ms`);
    } finally {
      t.cleanup();
    }
  });
});
