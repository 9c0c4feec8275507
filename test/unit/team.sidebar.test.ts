import * as assert from 'node:assert/strict';
import { describeTeamSync } from '../../src/core/session/teamSync';

describe("the sidebar's team row", () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  const connection = { url: 'postgresql://bob@db.example.com/tenure', repository: 'acme/settlement', access: 'write', user: 'bob' };

  it('says nothing when the workspace is not connected', () => {
    assert.equal(describeTeamSync({ state: { kind: 'off', reason: 'not connected (tenure team connect <postgresql-url>)' }, connection: null }, now), undefined);
  });

  it('says restricted mode keeps it off', () => {
    const r = describeTeamSync({ state: { kind: 'off', reason: 'restricted mode: an untrusted folder is never synced' }, connection: null }, now);
    assert.equal(r?.description, 'off');
    assert.match(r!.tooltip, /restricted mode/);
  });

  it('names the repository, the login, the access and when it last synced', () => {
    const r = describeTeamSync({ state: { kind: 'idle', lastSync: now - 3 * 60_000, report: null }, connection }, now);
    assert.equal(r?.description, 'acme/settlement as bob (write) · synced 3 minutes ago');
    assert.equal(r?.healthy, true);
  });

  it('an unreachable server is a warning that says local work continues and when it tries again', () => {
    const r = describeTeamSync({ state: { kind: 'offline', since: now - 60_000, message: 'connect ECONNREFUSED', lastSync: null, retryAt: now + 20_000 }, connection }, now);
    assert.equal(r?.description, 'unreachable · never synced');
    assert.equal(r?.healthy, false);
    assert.match(r!.tooltip, /ECONNREFUSED.*Local work continues; next try in 20 s/);
  });
});
