import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { artifactResolvers, availableArtifactResolvers, indexArtifacts } from '../../src/core/structural/sources/bytecode/artifacts';
import { EnrichmentPass } from '../../src/core/structural/enrichment/enrich';
import { importBeans } from '../../src/core/structural/sources/di/importer';
import { StructuralIndexer } from '../../src/core/structural/index/indexer';
import { TenureError } from '../../src/shared/errors';
import { CLI } from '../helpers/fixtures';
import { ask, javaExample, type JavaExample } from '../helpers/fifteen';
import { buildExampleJava, jdkAvailable } from '../helpers/java';
import { skipUnless } from '../helpers/prereq';

function tenure(args: string[], cwd?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Without blocking this process: the HTTP server answering the CLI runs here. */
function tenureAsync(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('class files, bean wiring and traces in the structural memory (examples/settlement)', function () {
  this.timeout(180_000);
  let ex: JavaExample;

  before(async function () {
    const jdk = jdkAvailable();
    skipUnless(this, jdk);
    ex = await javaExample({ bytecode: true, aot: true });
  });
  after(async () => ex?.cleanup());

  it('marks every symbol that exists only in bytecode with what generated it and what it derives from', async () => {
    const rows = await ex.ws.db.all<{ sid: string; origin: string; derived_from: string | null; path: string }>(
      `SELECT s.sid, s.origin, s.derived_from, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.origin IS NOT NULL AND s.sid LIKE 'java com/acme/clearing/Instruction%' ORDER BY s.sid`,
    );
    assert.deepEqual(rows.map((r) => `${r.sid.replace('java com/acme/clearing/', '')} ${r.origin} ← ${r.derived_from?.replace('java com/acme/clearing/', '') ?? '-'}`), [
      'Instruction#amountMinor(). compiler: record accessor ← Instruction#amountMinor.',
      'Instruction#currency(). compiler: record accessor ← Instruction#currency.',
      'Instruction#equals(). compiler: record method ← Instruction#',
      'Instruction#hashCode(). compiler: record method ← Instruction#',
      'Instruction#id(). compiler: record accessor ← Instruction#id.',
      'Instruction#rail(). compiler: record accessor ← Instruction#rail.',
      'Instruction#toString(). compiler: record method ← Instruction#',
      'InstructionDto#amountMinor(). compiler: record accessor ← InstructionDto#amountMinor.',
      'InstructionDto#currency(). compiler: record accessor ← InstructionDto#currency.',
      'InstructionDto#equals(). compiler: record method ← InstructionDto#',
      'InstructionDto#hashCode(). compiler: record method ← InstructionDto#',
      'InstructionDto#id(). compiler: record accessor ← InstructionDto#id.',
      'InstructionDto#status(). compiler: record accessor ← InstructionDto#status.',
      'InstructionDto#toString(). compiler: record method ← InstructionDto#',
      'InstructionMapperImpl# mapstruct ← InstructionMapper#',
      'InstructionMapperImpl#toDto(). mapstruct ← InstructionMapper#toDto().',
    ]);
    const bridge = await ex.ws.db.get<{ origin: string; derived_from: string }>(`SELECT origin, derived_from FROM symbols WHERE sid = 'java com/acme/clearing/ReconciliationListener#handle(+1).'`);
    assert.deepEqual(bridge, { origin: 'compiler: bridge', derived_from: 'java com/acme/clearing/ReconciliationListener#handle().' });
  });

  it('upgrades the inventory\'s edges in place and adds the ones it could not see', async () => {
    const sp = await ask(ex.ws, 'SettlementProcessor.process');
    assert.ok(sp.sources.includes('bytecode'));
    const edges = await ex.ws.db.all<{ src: string; dst: string; tier: string; source: string; base_tier: string | null; added: number }>(
      `SELECT s.qname AS src, d.qname AS dst, e.tier, e.source, e.base_tier, e.added FROM edges e JOIN symbols s ON s.id = e.src_id JOIN symbols d ON d.id = e.dst_id
         JOIN files f ON f.id = e.file_id WHERE f.path = 'java/src/main/java/com/acme/clearing/SettlementProcessor.java' AND e.kind = 'call' ORDER BY e.line, d.qname`,
    );
    assert.deepEqual(edges.map((e) => `${e.dst.replace('com.acme.clearing.', '')} ${e.tier} ${e.source} ${e.base_tier ?? 'added'}`), [
      'ClearingRail.submit resolved bytecode inferred',
      'SettlementEvents.completed resolved bytecode inferred',
      'InstructionMapper.toDto resolved bytecode inferred',
    ]);
  });

  it('links a Spring Data derived query to the entity properties its name refers to', async () => {
    const r = await ask(ex.ws, 'com.acme.clearing.SettlementRecord.createdAt');
    assert.deepEqual(r.dependents.map((d) => `${d.symbol.name} ${d.kind} ${d.tier} ${d.provenance.source}`), ['findByStatusAndRailOrderByCreatedAtDesc read resolved bytecode']);
    assert.match(r.dependents[0]!.provenance.reason, /^Spring Data derives this query from the method name: `status`, `rail`, `createdAt` of com\.acme\.clearing\.SettlementRecord$/);
    const status = await ask(ex.ws, 'com.acme.clearing.SettlementRecord.status');
    // The derived queries read the properties their names spell; the getter reads the field (`return status;`).
    assert.deepEqual(status.dependents.map((d) => d.symbol.name).sort(), ['countByStatus', 'findByStatusAndRailOrderByCreatedAtDesc', 'getStatus']);
  });

  it('reads nothing again while nothing changed, and keeps its rows through a re-index of the sources', async () => {
    const again = await indexArtifacts(ex.ws);
    assert.equal(again.bytecode.unchanged, true);
    assert.equal(again.relinked, null, 'no re-linking when the structural memory did not change');
    const indexer = await StructuralIndexer.create(ex.ws);
    try {
      const report = await indexer.indexAll();
      assert.equal(report.removed, 0, 'artifact rows are not files the inventory removes');
      assert.equal(report.parsed, 0);
    } finally {
      await indexer.dispose();
    }
    const n = await ex.ws.db.get<{ n: number }>(`SELECT count(*) AS n FROM files WHERE language = 'jvm-class'`);
    assert.equal(n!.n, 23);
  });

  it('does not trust class files older than their source, and trusts them again once rebuilt', async () => {
    const src = path.join(ex.root, 'java/src/main/java/com/acme/clearing/RailRegistry.java');
    fs.writeFileSync(src, fs.readFileSync(src, 'utf8').replace('public Receipt submitSepaDirect', '\n\n    public Receipt submitSepaDirect'));
    // Its class file was built well before this edit.
    const earlier = new Date(Date.now() - 600_000);
    fs.utimesSync(path.join(ex.root, 'java/target/classes/com/acme/clearing/RailRegistry.class'), earlier, earlier);
    const indexer = await StructuralIndexer.create(ex.ws);
    try {
      await indexer.updateFiles([src]);
    } finally {
      await indexer.dispose();
    }
    const stale = await indexArtifacts(ex.ws);
    assert.deepEqual(stale.bytecode.staleSources, ['java/src/main/java/com/acme/clearing/RailRegistry.java']);
    let r = await ask(ex.ws, 'SepaRail.submit');
    assert.deepEqual(r.dependents.filter((d) => d.symbol.name === 'submitSepaDirect').map((d) => `${d.tier} ${d.provenance.source}`), ['inferred tree-sitter'], 'falls back to the inventory');
    const into = await ask(ex.ws, 'RailRegistry.submitVia');
    assert.deepEqual(into.dependents.map((d) => `${d.symbol.name} ${d.tier} ${d.provenance.source}`), ['route inferred tree-sitter'], 'a call into the changed file falls back too, though its own class is fresh');
    buildExampleJava(ex.root);
    const rebuilt = await indexArtifacts(ex.ws);
    assert.deepEqual(rebuilt.bytecode.staleSources, []);
    r = await ask(ex.ws, 'SepaRail.submit');
    const direct = r.dependents.find((d) => d.symbol.name === 'submitSepaDirect')!;
    assert.equal(`${direct.tier} ${direct.provenance.source}`, 'resolved bytecode');
    assert.equal(direct.sites[0]!.line, 36, 'at the moved line');
  });

  it('runs in the enrichment pass: after an edit drops the artifact edges of a file, the pass brings them back', async () => {
    const src = path.join(ex.root, 'java/src/main/java/com/acme/clearing/SettlementProcessor.java');
    fs.appendFileSync(src, '\n');
    buildExampleJava(ex.root);
    const indexer = await StructuralIndexer.create(ex.ws);
    try {
      await indexer.updateFiles([src]);
    } finally {
      await indexer.dispose();
    }
    const process = async () => (await ask(ex.ws, 'ClearingRail.submit')).dependents.find((d) => d.symbol.name === 'process')!;
    assert.equal((await process()).tier, 'inferred', 'the edit put the file back to the inventory\'s answer');
    assert.deepEqual((await availableArtifactResolvers(ex.ws)).map((r) => r.source), ['bytecode', 'di:aot'], 'only those with something to read');
    const pass = new EnrichmentPass(ex.ws.db, artifactResolvers(ex.ws), { root: ex.root });
    const report = await pass.run();
    const byteReport = report.resolvers.find((r) => r.source === 'bytecode')!;
    assert.equal(byteReport.state, 'complete', JSON.stringify(byteReport));
    assert.equal(report.resolvers.find((r) => r.source === 'traces')!.state, 'unavailable', 'no traces imported here: said so, not failed');
    const p = await process();
    assert.equal(`${p.tier} ${p.provenance.source}`, 'resolved bytecode');
  });

  it('a malformed beans export is refused with where it fails, and the previous import stays', async () => {
    const file = path.join(ex.root, 'beans.json');
    fs.copyFileSync(path.join(ex.root, 'artifacts', 'actuator-beans.json'), file);
    const first = await importBeans(ex.ws, file, { profile: 'prod' });
    assert.equal(first.format, 'actuator-beans');
    const before = await ex.ws.db.get<{ n: number }>('SELECT count(*) AS n FROM di_wiring');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"dependencies": []', '"dependencies": [,]'));
    await assert.rejects(importBeans(ex.ws, file), (e: unknown) => TenureError.is(e, 'invalid-input') && /beans\.json is not valid JSON at line \d+, column \d+/.test((e as Error).message));
    assert.deepEqual(await ex.ws.db.get<{ n: number }>('SELECT count(*) AS n FROM di_wiring'), before);
  });
});

describe('tenure import, run as a user runs it', function () {
  this.timeout(180_000);
  let ex: JavaExample;
  let server: http.Server;
  let url: string;

  before(async function () {
    skipUnless(this, jdkAvailable());
    ex = await javaExample({ bytecode: true });
    const beans = fs.readFileSync(path.join(ex.root, 'artifacts', 'actuator-beans.json'));
    server = http.createServer((req, res) => {
      if (req.url === '/actuator/beans') res.writeHead(200, { 'content-type': 'application/vnd.spring-boot.actuator.v3+json' }).end(beans);
      else res.writeHead(404).end('{"status":404}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/actuator/beans`;
  });
  after(async () => {
    server?.close();
    await ex?.cleanup();
  });

  it('imports beans from a running application\'s URL', async () => {
    const r = await tenureAsync(['import', 'beans', url, '--profile', 'prod', '--cwd', ex.root]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Imported actuator beans from http:\/\/127\.0\.0\.1:\d+\/actuator\/beans \(profile prod\): 16 beans, 7 wired injection points \(types from class files\)/);
    assert.match(r.out, /com\.acme\.clearing\.SettlementProcessor\.rail \(com\.acme\.clearing\.ClearingRail\) ← bean instantRail \(com\.acme\.clearing\.InstantRail\)/);
    const missing = await tenureAsync(['import', 'beans', url.replace('/actuator/beans', '/nope'), '--cwd', ex.root]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /answered 404 Not Found\. Is the beans endpoint exposed/);
  });

  it('imports traces, and refuses a file that is not a trace export with exit code 2', () => {
    const r = tenure(['import', 'traces', path.join(ex.root, 'artifacts', 'traces.otlp.jsonl'), '--cwd', ex.root]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Imported 17 spans in 5 traces \(otlp-json\) from artifacts\/traces\.otlp\.jsonl, services clearing-service, ops-console, reconciliation: 7 observed paths, 2 endpoints with no symbol; 7 edges added\./);
    assert.match(r.out, /warning: clock skew reconciliation → clearing-service/);
    const bad = tenure(['import', 'traces', path.join(ex.root, 'README.md'), '--cwd', ex.root]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /README\.md is not valid JSON, nor JSON lines .* Nothing was imported\./);
    const w = tenure(['what-breaks', 'ClearingController.submit', '--depth', '1', '--cwd', ex.root]);
    assert.equal(w.code, 0, w.err);
    assert.match(w.out, /1 caller \(1 observed in traces only\)/);
    assert.match(w.out, /reconciliation\.client\.SettlementClient\.settle calls it at artifacts\/traces\.otlp\.jsonl:\d+ — seen in 2 span hops/);
  });

  it('says to index first, and explains a missing file', () => {
    const fresh = fs.mkdtempSync(path.join(path.dirname(ex.root), 'tenure-empty-'));
    try {
      const r = tenure(['import', 'traces', path.join(ex.root, 'artifacts', 'traces.otlp.jsonl'), '--cwd', fresh]);
      assert.equal(r.code, 3);
      assert.match(r.err, /has not indexed .* run `tenure index` first/);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
    const r = tenure(['import', 'beans', path.join(ex.root, 'no-such.json'), '--cwd', ex.root]);
    assert.equal(r.code, 2);
    assert.match(r.err, /No such file or folder: .*no-such\.json/);
  });
});
