import { execFileSync } from 'node:child_process';
/**
 * A test that cannot run here for want of a system package (a JDK, Debian's
 * Java jars, python3-leidenalg, git) says why, and is skipped on a
 * developer's machine — but fails where everything must run (CI sets CI=true;
 * TENURE_TEST_STRICT=1 asks for it anywhere): a skipped check must never
 * read as a passed one. `.ci/run` installs every package the suite needs.
 */
export function skipUnless(ctx: Mocha.Context, available: { ok: boolean; reason?: string } | boolean, why?: string): void {
  const ok = typeof available === 'boolean' ? available : available.ok;
  if (ok) return;
  const reason = (typeof available === 'boolean' ? undefined : available.reason) ?? why ?? 'a prerequisite is missing';
  if (process.env['CI'] === 'true' || process.env['TENURE_TEST_STRICT'] === '1') throw new Error(`cannot run here: ${reason} (.ci/run installs what the suite needs)`);
  console.log(`      (skipped: ${reason})`);
  ctx.skip();
}

/**
 * `git init` in `root`, and a runner for git there with a fixed author (its output as text). A test
 * that cannot create a repository here is skipped, with why, as `skipUnless` skips.
 */
export function gitRepo(ctx: Mocha.Context, root: string): (...args: string[]) => string {
  const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8', stdio: 'pipe' });
  try {
    git('init', '-q');
  } catch {
    skipUnless(ctx, false, 'git cannot create a repository here');
  }
  return git;
}
