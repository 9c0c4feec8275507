import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TeamError } from '../../src/core/team/errors';
import { TeamDb } from '../../src/core/team/pg';
import { tempDir } from '../helpers/fixtures';
import { withPostgres } from '../helpers/postgres';

/*
 * TLS to the team store with sslmode=verify-full: a server whose certificate
 * a CA of the test's own signed (for 127.0.0.1), which accepts nothing but
 * TLS. The right CA connects; another CA, or no TLS, is refused.
 */

function openssl(cwd: string, ...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

function makeCa(dir: string, name: string): void {
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`);
}

const certs = tempDir('tenure-tls-');
makeCa(certs.root, 'ca');
makeCa(certs.root, 'other-ca');
openssl(certs.root, 'req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', 'server.key', '-out', 'server.csr');
fs.writeFileSync(path.join(certs.root, 'san.ext'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n');
openssl(certs.root, 'x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'san.ext', '-out', 'server.crt');
const read = (f: string) => fs.readFileSync(path.join(certs.root, f), 'utf8');

describe('team store over TLS (sslmode=verify-full)', function () {
  this.timeout(60_000);
  const pg = withPostgres(this, {
    conf: ['ssl = on', "ssl_cert_file = 'server.crt'", "ssl_key_file = 'server.key'"],
    hba: ['hostnossl all all 127.0.0.1/32 reject', 'hostssl all all 127.0.0.1/32 trust'],
    files: { 'server.crt': read('server.crt'), 'server.key': read('server.key') },
  });
  after(() => certs.cleanup());

  const tlsUrl = (ca: string) => `${pg().url()}?sslmode=verify-full&sslrootcert=${encodeURIComponent(path.join(certs.root, ca))}`;

  it('connects when the certificate chains to the CA given and names the host', async () => {
    const db = TeamDb.open(tlsUrl('ca.crt'));
    try {
      const r = await db.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
      assert.equal(r[0]?.ssl, true);
    } finally {
      await db.close();
    }
  });

  it('refuses a certificate another CA signed', async () => {
    const db = TeamDb.open(tlsUrl('other-ca.crt'));
    try {
      await assert.rejects(db.query('SELECT 1'), (e: unknown) => TeamError.is(e, 'auth') && /certificate|sslrootcert/i.test(e.message));
    } finally {
      await db.close();
    }
  });

  it('the server accepts nothing but TLS', async () => {
    const db = TeamDb.open(pg().url());
    try {
      await assert.rejects(db.query('SELECT 1'), (e: unknown) => TeamError.is(e));
    } finally {
      await db.close();
    }
  });
});
