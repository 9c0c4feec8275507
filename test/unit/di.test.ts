import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { looksLikeActuatorBeans, parseActuatorBeans, parseJson } from '../../src/core/structural/sources/di/actuator';
import { parseAotFiles } from '../../src/core/structural/sources/di/aot';
import { concreteType } from '../../src/core/structural/sources/di/model';
import type { DiTypeModel, InjectionPoint } from '../../src/core/structural/sources/di/typeModel';
import { computeWiring } from '../../src/core/structural/sources/di/wiring';
import { TenureError } from '../../src/shared/errors';
import { REPO_ROOT } from '../helpers/fixtures';

const DI = path.join(REPO_ROOT, 'test', 'fixtures', 'di');
const read = (f: string) => fs.readFileSync(path.join(DI, f), 'utf8');

/** A checkout service: PaymentController needs a PaymentGateway (two exist) and an AuditLog. */
function shopModel(): DiTypeModel {
  const supers: Record<string, string[]> = {
    'com.acme.shop.PaymentController': [],
    'com.acme.shop.PaymentGateway': [],
    'com.acme.shop.StripeGateway': ['com.acme.shop.PaymentGateway'],
    'com.acme.shop.AdyenGateway': ['com.acme.shop.PaymentGateway'],
    'com.acme.shop.gateways.AdyenGateway': ['com.acme.shop.PaymentGateway'],
    'com.acme.shop.AuditLog': [],
    'com.acme.shop.AuditConfig': [],
    'com.acme.shop.GatewayConfig': [],
  };
  const points: Record<string, InjectionPoint[]> = {
    'com.acme.shop.PaymentController': [
      { name: 'gateway', type: 'com.acme.shop.PaymentGateway', via: 'field' },
      { name: 'fallback', type: 'com.acme.shop.PaymentGateway', via: 'field', qualifier: 'fallback' },
      { name: 'audit', type: 'com.acme.shop.AuditLog', via: 'field' },
      { name: 'gateway', type: 'com.acme.shop.PaymentGateway', via: 'constructor' },
      { name: 'audit', type: 'com.acme.shop.AuditLog', via: 'constructor' },
    ],
  };
  return {
    description: 'test model',
    has: (q) => q in supers,
    supertypes: (q) => [q, ...(supers[q] ?? [])],
    injectionPoints: (q) => points[q] ?? [],
    isInterface: (q) => q === 'com.acme.shop.PaymentGateway',
  };
}

const rows = (r: ReturnType<typeof computeWiring>) => r.rows.map((w) => `${w.consumerType.split('.').pop()}.${w.injection} <- ${w.bean} [${w.candidates}] ${w.tier}`).sort();

describe('Spring actuator beans export', () => {
  it('reads the Boot 2/3 shape across contexts, strips proxy suffixes and keeps aliases', () => {
    const exp = parseActuatorBeans(parseJson(read('boot3-beans.json'), 'boot3-beans.json'), 'boot3-beans.json');
    assert.equal(exp.format, 'actuator-beans');
    assert.deepEqual(exp.beans.map((b) => `${b.context}/${b.name}: ${b.type}`).sort(), [
      'application/auditConfig: com.acme.shop.AuditConfig',
      'application/auditLog: com.acme.shop.AuditLog',
      'checkout/adyenGateway: com.acme.shop.AdyenGateway',
      'checkout/orderRepository: null',
      'checkout/paymentController: com.acme.shop.PaymentController',
      'checkout/stripeGateway: com.acme.shop.StripeGateway',
    ]);
    const stripe = exp.beans.find((b) => b.name === 'stripeGateway')!;
    assert.equal(stripe.rawType, 'com.acme.shop.StripeGateway$$SpringCGLIB$$0');
    assert.deepEqual(stripe.aliases, ['primaryGateway']);
    assert.match(exp.warnings.join('\n'), /orderRepository: a JDK dynamic proxy \(jdk\.proxy2\.\$Proxy112\); its concrete class is not in the export/);
  });

  it('reads the Boot 1 shape (a list of contexts)', () => {
    const exp = parseActuatorBeans(parseJson(read('boot1-beans.json'), 'b1'), 'b1');
    assert.deepEqual(exp.beans.map((b) => `${b.name}: ${b.type} <- ${b.dependencies!.join(',')}`), [
      'paymentController: com.acme.shop.PaymentController <- stripeGateway,auditLog',
      'stripeGateway: com.acme.shop.StripeGateway <- ',
      'auditLog: com.acme.shop.AuditLog <- ',
    ]);
    assert.ok(looksLikeActuatorBeans(JSON.parse(read('boot1-beans.json'))));
  });

  it('reports malformed JSON with line and column, and JSON of another kind, importing nothing', () => {
    assert.throws(() => parseJson(read('malformed-beans.json'), 'malformed-beans.json'), (e: unknown) => {
      assert.ok(TenureError.is(e, 'invalid-input'));
      assert.match((e as Error).message, /malformed-beans\.json is not valid JSON at line 7, column \d+/);
      assert.match((e as Error).message, /the previous import, if any, is unchanged/);
      return true;
    });
    const health = JSON.parse(read('health.json'));
    assert.equal(looksLikeActuatorBeans(health), false);
    assert.throws(() => parseActuatorBeans(health, 'health.json'), /health\.json is JSON but not an actuator beans export/);
    assert.throws(() => parseActuatorBeans({ contexts: { app: { beans: {} } } }, 'empty.json'), /holds no beans/);
  });

  it('keeps every readable bean when some entries are broken, and says which', () => {
    const exp = parseActuatorBeans(parseJson(read('partial-beans.json'), 'p'), 'p');
    assert.deepEqual(exp.beans.map((b) => b.name).sort(), ['mystery', 'paymentController', 'proxied', 'stripeGateway']);
    assert.deepEqual(exp.warnings, [
      'checkout/mystery: no type; kept without a class (its dependencies still count)',
      'checkout/broken: not an object; skipped',
      'checkout/proxied: a JDK dynamic proxy (com.sun.proxy.$Proxy57); its concrete class is not in the export',
      'context empty-child: no beans object; skipped',
    ]);
    const w = computeWiring({ ...exp, profiles: [] }, shopModel(), 'actuator beans of 2026-11-28');
    assert.deepEqual(rows(w), ['PaymentController.fallback <- stripeGateway [1] observed', 'PaymentController.gateway <- stripeGateway [1] observed']);
  });

  it('wires each injection point to the dependency that fits it, keeping every candidate when the export cannot tell', () => {
    const exp = parseActuatorBeans(parseJson(read('boot3-beans.json'), 'b'), 'b');
    const w = computeWiring({ ...exp, profiles: ['prod'] }, shopModel(), 'actuator beans of 2026-11-28');
    // The export has no qualifiers: for `fallback` too, both gateways stay candidates.
    assert.deepEqual(rows(w), [
      'PaymentController.audit <- auditLog [1] observed',
      'PaymentController.fallback <- adyenGateway [2] observed',
      'PaymentController.fallback <- stripeGateway [2] observed',
      'PaymentController.gateway <- adyenGateway [2] observed',
      'PaymentController.gateway <- stripeGateway [2] observed',
    ]);
    const gateway = w.rows.find((r) => r.injection === 'gateway' && r.bean === 'stripeGateway')!;
    assert.match(gateway.why, /^actuator beans of 2026-11-28 \(profile prod\): bean `paymentController` was created with `stripeGateway` \(com\.acme\.shop\.StripeGateway\); 2 of its dependencies fit field `gateway`/);
  });

  it('tells proxy types apart from concrete ones', () => {
    assert.deepEqual(concreteType('com.acme.Foo$$SpringCGLIB$$0'), { type: 'com.acme.Foo', proxy: 'CGLIB' });
    assert.deepEqual(concreteType('com.acme.Outer$Inner'), { type: 'com.acme.Outer.Inner' });
    assert.deepEqual(concreteType('jdk.proxy3.$Proxy12'), { type: null, proxy: 'JDK dynamic proxy' });
  });
});

describe('Spring AOT bean definitions', () => {
  const files = () => {
    const dir = path.join(DI, 'aot', 'com', 'acme', 'shop');
    return fs.readdirSync(dir).map((f) => ({ path: `aot/com/acme/shop/${f}`, text: fs.readFileSync(path.join(dir, f), 'utf8') }));
  };

  it('reads bean names, classes, constructors, factory methods, primary, qualifiers and autowired fields', () => {
    const r = parseAotFiles(files());
    const beans = Object.fromEntries(r.beans.map((b) => [b.name, b]));
    assert.deepEqual(Object.keys(beans).sort(), ['adyenGateway', 'auditLog', 'gatewayConfig', 'paymentController', 'stripe']);
    assert.equal(beans.stripe!.type, 'com.acme.shop.StripeGateway', 'named by the registrations file, not the javadoc');
    assert.deepEqual(beans.stripe!.factory, { type: 'com.acme.shop.GatewayConfig', method: 'stripeGateway' });
    assert.deepEqual(beans.stripe!.parameterTypes, ['com.acme.shop.AuditLog']);
    assert.equal(beans.stripe!.primary, true);
    assert.equal(beans.adyenGateway!.type, 'com.acme.shop.gateways.AdyenGateway', 'resolved through the import');
    assert.deepEqual(beans.adyenGateway!.qualifiers, ['fallback']);
    assert.deepEqual(beans.paymentController!.parameterTypes, ['com.acme.shop.PaymentGateway', 'com.acme.shop.AuditLog']);
    assert.deepEqual(beans.paymentController!.autowiredFields, ['fallback']);
    assert.equal(beans.gatewayConfig!.type, 'com.acme.shop.GatewayConfig');
  });

  it('reports a file in another shape and still reads the rest', () => {
    const r = parseAotFiles(files());
    assert.deepEqual(r.warnings, ['aot/com/acme/shop/Broken__BeanDefinitions.java: no get…BeanDefinition() methods: not Spring AOT bean definitions as this version of Tenure reads them; skipped']);
    assert.equal(r.beans.length, 5);
  });

  it('resolves each injection point as the container does: qualifier, then primary, then name', () => {
    const r = parseAotFiles(files());
    const w = computeWiring({ format: 'spring-aot', beans: r.beans, profiles: [], warnings: [] }, shopModel(), 'Spring AOT output of 2026-11-28');
    assert.deepEqual(rows(w), [
      'GatewayConfig.stripeGateway(…) <- auditLog [1] resolved',
      'PaymentController.audit <- auditLog [1] resolved',
      'PaymentController.fallback <- adyenGateway [2] resolved',
      'PaymentController.gateway <- stripe [2] resolved',
    ]);
    assert.match(w.rows.find((x) => x.injection === 'gateway')!.why, /gets `stripe` \(com\.acme\.shop\.StripeGateway\), the primary one of 2 fitting beans/);
    assert.match(w.rows.find((x) => x.injection === 'fallback')!.why, /qualified "fallback" among 2 fitting beans/);
  });
});
