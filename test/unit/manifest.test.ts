import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

interface LmToolContribution {
  name: string;
  toolReferenceName: string;
  inputSchema: { type?: string; properties?: Record<string, unknown> };
}
interface ManifestModule {
  compare(): { expected: LmToolContribution[]; actual: LmToolContribution[]; drift: string[] };
  describeDrift(expected: unknown[], actual: unknown[]): string[];
}

// out/test/unit → repository root
const repoRoot = path.resolve(__dirname, '..', '..', '..');

async function loadManifest(): Promise<ManifestModule> {
  // A computed specifier: the script is plain ESM and stays out of the type check.
  const url = pathToFileURL(path.join(repoRoot, 'scripts', 'manifest.mjs')).href;
  return (await import(url)) as ManifestModule;
}

describe('package.json languageModelTools', () => {
  it('matches the tool catalog (regenerate with `node scripts/manifest.mjs`)', async () => {
    const { compare } = await loadManifest();
    const { expected, actual, drift } = compare();
    assert.deepEqual(drift, [], `package.json has drifted from the catalog:\n${drift.join('\n')}`);
    assert.equal(actual.length, expected.length);
    assert.ok(expected.length > 0, 'the catalog has no tools');
  });

  it('names every tool tenure_<name> with an object input schema', async () => {
    const { compare } = await loadManifest();
    for (const t of compare().expected) {
      assert.match(t.name, /^tenure_[a-z][a-z0-9_]*$/);
      assert.match(t.toolReferenceName, /^[a-z][A-Za-z0-9]*$/);
      assert.equal(t.inputSchema.type, 'object');
    }
  });

  it('reports a changed, a missing and an extra tool', async () => {
    const { describeDrift } = await loadManifest();
    const a = { name: 'tenure_a', modelDescription: 'x' };
    const b = { name: 'tenure_b', modelDescription: 'y' };
    assert.deepEqual(describeDrift([a, b], [a, b]), []);
    assert.deepEqual(describeDrift([a], [{ ...a, modelDescription: 'z' }]), ['tenure_a.modelDescription differs']);
    assert.deepEqual(describeDrift([a, b], [a]), ['missing from package.json: tenure_b']);
    assert.deepEqual(describeDrift([a], [a, b]), ['in package.json but not in the catalog: tenure_b']);
  });
});
