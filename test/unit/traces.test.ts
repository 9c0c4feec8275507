import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SourceIndex, type SourceSymbol } from '../../src/core/structural/sources/bytecode/sourceIndex';
import { parseTraceExport } from '../../src/core/structural/sources/traces/formats';
import { analyzeTraces } from '../../src/core/structural/sources/traces/map';
import type { Span, TraceExport } from '../../src/core/structural/sources/traces/model';
import { normaliseRoute, type RouteTable } from '../../src/core/structural/sources/traces/routes';
import { TenureError } from '../../src/shared/errors';
import { REPO_ROOT } from '../helpers/fixtures';

const EXAMPLE = path.join(REPO_ROOT, 'examples', 'settlement', 'artifacts', 'traces.otlp.jsonl');
const FIX = path.join(REPO_ROOT, 'test', 'fixtures', 'traces');
const read = (p: string) => fs.readFileSync(p, 'utf8');
const shape = (e: TraceExport) => e.spans.map((s) => `${s.traceId}/${s.spanId}<${s.parentSpanId ?? '-'} ${s.service} ${s.kind === 'unspecified' ? 'internal' : s.kind}`).sort();

describe('trace exports: format told from content', () => {
  it('reads the collector file exporter (OTLP/JSON lines), Jaeger and Zipkin v2 of the same traces alike', () => {
    const otlp = parseTraceExport(read(EXAMPLE), 'traces.otlp.jsonl');
    const jaeger = parseTraceExport(read(path.join(FIX, 'settlement.jaeger.json')), 'j');
    const zipkin = parseTraceExport(read(path.join(FIX, 'settlement.zipkin.json')), 'z');
    assert.deepEqual([otlp.format, jaeger.format, zipkin.format], ['otlp-json', 'jaeger-json', 'zipkin-json']);
    assert.equal(otlp.spans.length, 17);
    assert.deepEqual(shape(jaeger), shape(otlp));
    assert.deepEqual(shape(zipkin), shape(otlp));
    for (const e of [otlp, jaeger, zipkin]) assert.deepEqual(e.warnings, []);
    const server = otlp.spans.find((s) => s.spanId === 'b7ad6b7169203331')!;
    assert.equal(server.attributes['http.route'], '/clearing/instructions/{id}/submit');
    assert.equal(server.resource['telemetry.sdk.language'], 'java');
    const client = otlp.spans.find((s) => s.spanId === '53995c3f42cd8ad8')!;
    assert.equal(client.attributes['code.lineno'], 11, 'intValue arrives as a string in OTLP/JSON');
    assert.equal(client.startMs, Date.parse('2026-11-28T14:00:00.100Z'));
    const jclient = jaeger.spans.find((s) => s.spanId === '53995c3f42cd8ad8')!;
    assert.equal(jclient.startMs, client.startMs, 'Jaeger microseconds');
  });

  it('reads a single OTLP request with base64 ids, string kinds and the old scope field', () => {
    const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
    const doc = {
      resourceSpans: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'billing' } }] },
        instrumentationLibrarySpans: [{ spans: [
          { traceId: b64('0af7651916cd43dd8448eb211c80319c'), spanId: b64('b7ad6b7169203331'), name: 'GET /invoices', kind: 'SPAN_KIND_SERVER', startTimeUnixNano: '1795874400000000000', endTimeUnixNano: '1795874400500000000', attributes: [{ key: 'http.route', value: { stringValue: '/invoices' } }, { key: 'retry', value: { boolValue: true } }, { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '2' }] } } }] },
        ] }],
      }],
    };
    const e = parseTraceExport(JSON.stringify(doc), 'one.json');
    assert.equal(e.format, 'otlp-json');
    const s = e.spans[0]!;
    assert.equal(s.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(s.spanId, 'b7ad6b7169203331');
    assert.equal(s.kind, 'server');
    assert.equal(s.service, 'billing');
    assert.deepEqual(s.attributes, { 'http.route': '/invoices', retry: true, tags: ['a', 2] });
    assert.equal(s.endMs - s.startMs, 500);
  });

  it('skips a damaged line of a JSON-lines export and a span without ids, keeping the rest', () => {
    const lines = read(EXAMPLE).trim().split('\n');
    const broken = [lines[0], '{"resourceSpans":[{"resource":', lines[1], '{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"no ids","startTimeUnixNano":"1"}]}]}]}', lines[2]].join('\n');
    const e = parseTraceExport(broken, 'partial.jsonl');
    assert.equal(e.spans.length, 17);
    assert.equal(e.warnings.length, 2);
    assert.match(e.warnings[0]!, /^partial\.jsonl line 2: not valid JSON \(.*\); skipped$/);
    assert.match(e.warnings[1]!, /partial\.jsonl line 4: span "no ids" in unknown_service has no valid traceId\/spanId; skipped/);
  });

  it('refuses what is not a trace export, saying what it expected', () => {
    const refuse = (text: string, re: RegExp) => assert.throws(() => parseTraceExport(text, 'f.json'), (e: unknown) => TenureError.is(e, 'invalid-input') && re.test((e as Error).message));
    refuse('', /f\.json is empty/);
    refuse('[]', /empty list/);
    refuse('{"status":"UP"}', /not a trace export Tenure reads \(found status\)\. Expected OTLP\/JSON/);
    refuse('hello\nworld', /not valid JSON, nor JSON lines/);
    refuse(JSON.stringify([{ traceId: 'a1', id: 'b2', name: 'get', timestamp: 1, annotations: [{ timestamp: 1, value: 'cs', endpoint: { serviceName: 'web' } }], binaryAnnotations: [] }]), /Zipkin v1 JSON .* Export Zipkin v2/);
  });

  it('splits Zipkin shared client/server spans and reads Jaeger FOLLOWS_FROM as a link', () => {
    const z = parseTraceExport(JSON.stringify([
      { traceId: '1', id: 'a', kind: 'CLIENT', name: 'post', timestamp: 1000, duration: 10, localEndpoint: { serviceName: 'web' }, remoteEndpoint: { serviceName: 'api' } },
      { traceId: '1', id: 'a', kind: 'SERVER', shared: true, name: 'post /x', timestamp: 1002, duration: 5, localEndpoint: { serviceName: 'api' }, tags: { 'http.route': '/x' } },
    ]), 'z.json');
    const server = z.spans.find((s) => s.kind === 'server')!;
    assert.equal(server.parentSpanId, '000000000000000a');
    assert.equal(server.spanId, '000000000000000a:server');
    assert.equal(z.spans.find((s) => s.kind === 'client')!.attributes['peer.service'], 'api');
    const j = parseTraceExport(JSON.stringify({ data: [{ traceID: 'ff', processes: { p1: { serviceName: 'worker' } }, spans: [
      { traceID: 'ff', spanID: 'c1', operationName: 'consume', startTime: 5, duration: 1, processID: 'p1', tags: [{ key: 'span.kind', type: 'string', value: 'consumer' }], references: [{ refType: 'FOLLOWS_FROM', traceID: 'ee', spanID: 'b1' }] },
    ] }] }), 'j.json');
    assert.deepEqual(j.spans[0]!.links, [{ traceId: '00000000000000ee', spanId: '00000000000000b1' }]);
    assert.equal(j.spans[0]!.kind, 'consumer');
  });
});

// ---- mapping spans to symbols ------------------------------------------------

function sym(sid: string, qname: string, kind: SourceSymbol['kind'], p: string, line: number, endLine: number, language: string, parentSid: string | null = null): SourceSymbol {
  return { sid, name: qname.split('.').pop()!, qname, kind, path: p, line, col: 4, endLine, parentSid, language };
}

const INDEX = new SourceIndex([
  sym('java app/Api#', 'app.Api', 'class', 'svc/src/main/java/app/Api.java', 3, 40, 'java'),
  sym('java app/Api#get().', 'app.Api.get', 'method', 'svc/src/main/java/app/Api.java', 10, 14, 'java', 'java app/Api#'),
  sym('java app/Api#get(+1).', 'app.Api.get', 'method', 'svc/src/main/java/app/Api.java', 16, 20, 'java', 'java app/Api#'),
  sym('java app/Store#save().', 'app.Store.save', 'method', 'svc/src/main/java/app/Store.java', 5, 9, 'java'),
  sym('java app/Listener#onOrder().', 'app.Listener.onOrder', 'method', 'svc/src/main/java/app/Listener.java', 7, 9, 'java'),
  sym('py `web.views`/checkout().', 'web.views.checkout', 'function', 'web/views.py', 12, 30, 'python'),
  sym('py `web.views`/helper().', 'web.views.helper', 'function', 'web/views.py', 32, 35, 'python'),
]);
const ROUTES: RouteTable = {
  routes: [{ method: 'POST', route: normaliseRoute('/orders/{id}'), raw: '/orders/{id}', sid: 'java app/Api#get().', how: '@PostMapping on app.Api.get' }],
  listeners: [{ destination: 'orders', group: 'orders-app', sid: 'java app/Listener#onOrder().', how: '@KafkaListener(topics = "orders", groupId = "orders-app") on app.Listener.onOrder' }],
};

let n = 0;
function span(p: Partial<Span> & Pick<Span, 'service' | 'kind'>): Span {
  n++;
  return { traceId: 't1', spanId: `s${n}`, links: [], name: p.kind, startMs: 1000, endMs: 2000, attributes: {}, resource: {}, ...p };
}

const edges = (a: ReturnType<typeof analyzeTraces>) => a.observations.map((o) => `${o.srcSid} -> ${o.dstSid} [${o.via}]`).sort();

describe('trace spans → symbols and observed edges', () => {
  const now = Date.parse('2026-11-30T00:00:00Z');

  it('places spans by code attributes (old and new conventions, file suffixes, line numbers) and by http.route', () => {
    const root = span({ service: 'web', kind: 'server', attributes: { 'code.filepath': '/home/ci/build/web/views.py', 'code.function': 'checkout' }, resource: { 'telemetry.sdk.language': 'python' } });
    const client = span({ service: 'web', kind: 'client', parentSpanId: root.spanId, attributes: { 'http.request.method': 'POST', 'server.address': 'api' } });
    const server = span({ service: 'api', kind: 'server', parentSpanId: client.spanId, attributes: { 'http.route': '/orders/{id}', 'http.request.method': 'POST' }, resource: { 'telemetry.sdk.language': 'java' } });
    const inner = span({ service: 'api', kind: 'internal', parentSpanId: server.spanId, attributes: { 'code.function.name': 'app.Api.get', 'code.lineno': 18 } });
    const store = span({ service: 'api', kind: 'internal', parentSpanId: inner.spanId, attributes: { 'code.namespace': 'app.Store', 'code.function': 'save' } });
    const a = analyzeTraces({ format: 'otlp-json', spans: [root, client, server, inner, store], warnings: [] }, INDEX, ROUTES, { now });
    assert.deepEqual(edges(a), [
      'java app/Api#get(). -> java app/Api#get(+1). [span server → internal]',
      'java app/Api#get(+1). -> java app/Store#save(). [span internal → internal]',
      'py `web.views`/checkout(). -> java app/Api#get(). [http POST /orders/{id}]',
    ]);
    assert.equal(a.stats.placedByCode, 3);
    assert.equal(a.stats.placedByRoute, 1);
    assert.equal(a.stats.withoutCodeAttributes, 2);
  });

  it('keeps hops with no symbol on either side as edges from or to service endpoints', () => {
    const browser = span({ service: 'spa', kind: 'client', attributes: { 'http.request.method': 'POST', 'url.full': 'https://api/orders/7' } });
    const server = span({ service: 'api', kind: 'server', parentSpanId: browser.spanId, attributes: { 'http.route': '/orders/{id}', 'http.request.method': 'POST' } });
    const out = span({ service: 'api', kind: 'client', parentSpanId: server.spanId, attributes: { 'http.request.method': 'GET', 'url.template': '/rates/{ccy}', 'peer.service': 'fx-rates' } });
    const a = analyzeTraces({ format: 'otlp-json', spans: [browser, server, out], warnings: [] }, INDEX, ROUTES, { now });
    assert.deepEqual(edges(a), [
      'endpoint spa/ -> java app/Api#get(). [http POST /orders/{id}]',
      'java app/Api#get(). -> endpoint fx-rates/`GET /rates/{}`(). [http GET /rates/{ccy}]',
    ]);
    assert.deepEqual(a.endpoints.map((e) => `${e.sid} = ${e.qname}`).sort(), [
      'endpoint fx-rates/`GET /rates/{}`(). = fx-rates GET /rates/{} (not traced, no symbol)',
      'endpoint spa/ = spa (service; its spans carry no code attributes)',
    ]);
  });

  it('follows producer → topic → consumer through parent ids and span links, and keeps a consumer with no symbol', () => {
    const producer = span({ service: 'api', kind: 'internal', attributes: { 'code.namespace': 'app.Store', 'code.function': 'save' } });
    const publish = span({ service: 'api', kind: 'producer', parentSpanId: producer.spanId, attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': 'orders' } });
    const batch = span({ traceId: 't2', service: 'worker', kind: 'consumer', links: [{ traceId: 't1', spanId: publish.spanId }], attributes: { 'messaging.destination.name': 'orders' } });
    const elsewhere = span({ service: 'ledger', kind: 'consumer', parentSpanId: publish.spanId, attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': 'orders', 'messaging.consumer.group.name': 'ledger' } });
    const a = analyzeTraces({ format: 'otlp-json', spans: [producer, publish, batch, elsewhere], warnings: [] }, INDEX, ROUTES, { now });
    assert.deepEqual(edges(a), [
      'java app/Store#save(). -> endpoint kafka/`topic orders`(). [topic orders]',
      'java app/Store#save(). -> java app/Listener#onOrder(). [topic orders]',
    ]);
    assert.equal(a.stats.placedByListener, 1, 'the ledger consumer is in another consumer group than the listener');
  });

  it('reports missing parents and clock skew, clamps future times, and never drops the hop', () => {
    const orphan = span({ service: 'api', kind: 'server', parentSpanId: 'feedface', attributes: { 'http.route': '/orders/{id}', 'http.request.method': 'POST' } });
    const child = span({ service: 'api', kind: 'internal', parentSpanId: orphan.spanId, attributes: { 'code.namespace': 'app.Store', 'code.function': 'save' } });
    const caller = span({ service: 'web', kind: 'client', startMs: 10_000, endMs: 11_000, attributes: { 'code.function': 'helper', 'code.filepath': 'web/views.py' } });
    const skewed = span({ service: 'api', kind: 'server', parentSpanId: caller.spanId, startMs: 8_500, endMs: 9_000, attributes: { 'http.route': '/orders/{id}', 'http.request.method': 'POST' } });
    const future = span({ service: 'api', kind: 'internal', parentSpanId: skewed.spanId, startMs: now + 90 * 86_400_000, endMs: now + 90 * 86_400_000 + 5, attributes: { 'code.namespace': 'app.Store', 'code.function': 'save' } });
    const a = analyzeTraces({ format: 'jaeger-json', spans: [orphan, child, caller, skewed, future], warnings: [] }, INDEX, ROUTES, { now });
    assert.equal(a.stats.missingParents, 1);
    assert.ok(a.warnings.some((w) => /server span "server" in api names parent feedface, which is not in the export: its caller is unknown/.test(w)), a.warnings.join('\n'));
    assert.ok(a.warnings.some((w) => /^clock skew web → api: spans of the callee lie up to 1500 ms outside their caller's span/.test(w)), a.warnings.join('\n'));
    assert.ok(a.warnings.some((w) => /1 hop\(s\) carry times in the future/.test(w)));
    const byEdge = Object.fromEntries(a.observations.map((o) => [`${o.srcSid} -> ${o.dstSid}`, o]));
    assert.deepEqual(Object.keys(byEdge).sort(), ['java app/Api#get(). -> java app/Store#save().', 'py `web.views`/helper(). -> java app/Api#get().']);
    assert.equal(byEdge['java app/Api#get(). -> java app/Store#save().']!.lastSeen, now, 'a time in the future is clamped to the import');
    assert.equal(byEdge['java app/Api#get(). -> java app/Store#save().']!.count, 2);
    assert.ok(a.capturedAt <= now);
  });

  it('does not guess between overloads without a line, and says so', () => {
    const s = span({ service: 'api', kind: 'internal', attributes: { 'code.namespace': 'app.Api', 'code.function': 'get' } });
    const c = span({ service: 'api', kind: 'internal', parentSpanId: s.spanId, attributes: { 'code.namespace': 'app.Store', 'code.function': 'save' } });
    const a = analyzeTraces({ format: 'otlp-json', spans: [s, c], warnings: [] }, INDEX, ROUTES, { now });
    assert.deepEqual(a.observations, []);
    assert.ok(a.warnings.some((w) => /fits 2 symbols \(app\.Api\.get, app\.Api\.get\); not placed/.test(w)));
  });

  it('normalises route templates of every framework to one form', () => {
    assert.equal(normaliseRoute('/orders/{id}/items/'), '/orders/{}/items');
    assert.equal(normaliseRoute('orders/:id'), '/orders/{}');
    assert.equal(normaliseRoute('/orders/<int:id>'), '/orders/{}');
    assert.equal(normaliseRoute('http://api:8080/orders/{id}?x=1'), '/orders/{}');
  });
});
