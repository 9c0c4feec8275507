import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeExecutable, ownPackageFile, toolEnv } from '../../enrichment/toolProcess.js';
import {
  ResolverUnavailableError,
  type EdgeResolver,
  type ImplementationFact,
  type Loc,
  type ResolutionBatch,
  type ResolverContext,
  type ResolverUnit,
  type SiteVerdict,
  type SymbolAnchor,
} from '../../enrichment/types.js';
import type { FromTscWorker, TscTarget, ToTscWorker } from './protocol.js';

/*
 * The TypeScript compiler as a first-pass resolver: the checker tsserver
 * runs, asked directly in a child process, a file at a time, about every name
 * in the file. Same trust as the language server (the same checker), several
 * times faster over a whole workspace, because nothing is asked per site over
 * JSON-RPC and nothing is opened or closed. It is not incremental: the
 * programs are built once per pass, so after an edit the language server
 * answers for what changed (EdgeResolver.firstPass).
 */

const TSC_SOURCE = 'tsc';
/** Files the compiler analyses ahead of the one being written. */
const AHEAD = 3;
const LANGUAGES = ['typescript', 'tsx', 'javascript'];

export interface TscResolverOptions {
  /** Heap of the compiler process, MiB (default 4096). */
  readonly memoryMb?: number;
  /** How long building the programs may take (default 10 min). */
  readonly startTimeoutMs?: number;
  /** How long one file may take (default 60 s). */
  readonly fileTimeoutMs?: number;
}

interface Waiting {
  resolve(m: FromTscWorker): void;
  reject(e: Error): void;
}

/** Whether the compiler resolver can run here (Tenure's own typescript package and the worker script beside this module). */
export function tscAvailable(): boolean {
  return !!ownPackageFile('typescript') && fs.existsSync(workerScript());
}

function workerScript(): string {
  // Beside this module, in the bundle (dist/) and in the compiled tree alike.
  return path.join(__dirname, 'tscWorker.js');
}

/** The compiler's answer for one file as a batch: a verdict per use, the implementations, the file covered. */
function toBatch(unit: Extract<ResolverUnit, { kind: 'file' }>, answer: Extract<FromTscWorker, { type: 'file' }>): ResolutionBatch {
  const anchor = (t: TscTarget): SymbolAnchor => (t.length === 3 ? { at: { path: t[0], line: t[1], col: t[2] } } : { external: t[0] });
  const where = (t: TscTarget) => (t.length === 3 ? `${t[0]}:${t[1]}` : path.basename(t[0]));
  const sites: SiteVerdict[] = answer.uses.map((u) => ({
    site: { path: unit.path, line: u.line, col: u.col },
    targets: u.targets.map(anchor),
    complete: true,
    kind: u.kind,
    use: u.kind,
    ...(u.kind === 'read' || u.kind === 'write' ? { role: u.kind } : {}),
    ...(u.binding ? { binding: u.binding } : {}),
    reason: `declaration (${TSC_SOURCE}) at ${[...new Set(u.targets.map(where))].slice(0, 3).join(', ')}`,
  }));
  // Uses of locals and libraries matter where the inventory guessed a workspace symbol: they refute it.
  const inventoryAt = new Set(unit.sites.map((s) => `${s.at.line}:${s.at.col}`));
  for (const [line, col, file] of answer.elsewhere) {
    if (!inventoryAt.has(`${line}:${col}`)) continue;
    sites.push({
      site: { path: unit.path, line, col },
      targets: [{ external: file || 'a local or parameter' }],
      complete: true,
      reason: file ? `declaration (${TSC_SOURCE}) outside the workspace: ${path.basename(file)}` : `declaration (${TSC_SOURCE}): a local or parameter`,
    });
  }
  const implementations: ImplementationFact[] = answer.implementations.map((i) => ({
    impl: { at: { path: i.impl[0], line: i.impl[1], col: i.impl[2] } },
    base: { at: { path: i.base[0], line: i.base[1], col: i.base[2] } },
    reason: `implements \`${i.name}\` of ${i.base[0]}:${i.base[1]} (${TSC_SOURCE})`,
  }));
  const unanswered: Loc[] = answer.unanswered.filter(([line, col]) => inventoryAt.has(`${line}:${col}`)).map(([line, col]) => ({ path: unit.path, line, col }));
  return { sites, implementations, coveredFiles: [unit.path], ...(unanswered.length ? { unanswered } : {}) };
}

export class TscResolver implements EdgeResolver {
  readonly source = TSC_SOURCE;
  readonly tier = 'resolved' as const;
  readonly units = ['file'] as const;
  readonly languages = LANGUAGES;
  readonly checker = 'typescript';
  readonly findsAllUses = true;
  readonly firstPass = true;
  private child: ChildProcess | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private held = new Set<string>();
  /** The files in the order the pass asks for them (the inventory's order), for reading ahead. */
  private order: string[] = [];
  private position = new Map<string, number>();
  private readonly fetched = new Map<string, Promise<FromTscWorker>>();
  private exitReason: string | undefined;

  constructor(private readonly options: TscResolverOptions = {}) {}

  async start(ctx: ResolverContext): Promise<void> {
    if (!tscAvailable()) throw new ResolverUnavailableError(TSC_SOURCE, 'The TypeScript compiler is not installed with Tenure (npm dependency typescript); reinstall with `npm ci`. The language server answers instead.');
    const files = (await ctx.files?.(LANGUAGES)) ?? [];
    if (!files.length) throw new ResolverUnavailableError(TSC_SOURCE, 'No TypeScript or JavaScript files in the inventory.');
    const child = fork(workerScript(), [], {
      cwd: ctx.root,
      execPath: nodeExecutable(),
      execArgv: [`--max-old-space-size=${this.options.memoryMb ?? 4096}`],
      env: toolEnv(ctx.root, process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    this.child = child;
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
    child.on('message', (m: FromTscWorker) => {
      const id = m.type === 'ready' ? 0 : m.type === 'file' ? m.id : (m.id ?? 0);
      const w = this.waiting.get(id);
      if (!w) return;
      this.waiting.delete(id);
      if (m.type === 'error') w.reject(new Error(m.message));
      else w.resolve(m);
    });
    child.on('exit', (code, signal) => {
      const oom = /heap out of memory|Allocation failed/i.test(stderr);
      this.exitReason = oom
        ? `the TypeScript compiler ran out of memory (${this.options.memoryMb ?? 4096} MiB; raise it with --memory)`
        : `the TypeScript compiler process exited (${signal ?? `code ${code}`})${stderr.trim() ? `: ${stderr.trim().split('\n').pop()}` : ''}`;
      for (const w of this.waiting.values()) w.reject(new ResolverUnavailableError(TSC_SOURCE, this.exitReason));
      this.waiting.clear();
      if (this.child === child) this.child = undefined;
    });
    const onAbort = () => child.kill('SIGKILL');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const ready = await this.ask(0, { type: 'init', root: ctx.root, files }, this.options.startTimeoutMs ?? 600_000);
      if (ready.type !== 'ready') throw new Error('unexpected answer');
      this.held = new Set(ready.files);
      this.order = files.filter((f) => this.held.has(f));
      this.position = new Map(this.order.map((f, i) => [f, i]));
      ctx.log(`${ready.programs} program${ready.programs === 1 ? '' : 's'} over ${ready.files.length} of ${files.length} files built in ${(ready.ms / 1000).toFixed(1)} s`);
      for (const n of ready.notes.slice(0, 5)) ctx.log(n);
    } catch (e) {
      await this.dispose();
      if (ResolverUnavailableError.is(e)) throw e;
      throw new ResolverUnavailableError(TSC_SOURCE, `The TypeScript compiler could not load the project: ${(e as Error).message}`, { cause: e });
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  private ask(id: number, message: ToTscWorker, timeoutMs: number): Promise<FromTscWorker> {
    const child = this.child;
    if (!child?.connected) return Promise.reject(new ResolverUnavailableError(TSC_SOURCE, this.exitReason ?? 'the TypeScript compiler process is not running'));
    return new Promise<FromTscWorker>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send(message);
    });
  }

  async resolve(unit: ResolverUnit, ctx: ResolverContext): Promise<ResolutionBatch> {
    if (unit.kind !== 'file') return { sites: [], implementations: [] };
    // A file no program holds is left to the language server (it is not recorded as covered).
    if (!this.held.has(unit.path)) return { sites: [], implementations: [] };
    if (ctx.signal.aborted) throw new ResolverUnavailableError(TSC_SOURCE, 'cancelled');
    const answering = this.fetch(unit.path);
    // Keep the compiler busy on the next files while this one's answer is written (two cores, two jobs).
    const at = this.position.get(unit.path);
    if (at !== undefined) for (let k = 1; k <= AHEAD && at + k < this.order.length; k++) void this.fetch(this.order[at + k]!).catch(() => undefined);
    let answer: FromTscWorker;
    try {
      answer = await answering;
    } catch (e) {
      if (ResolverUnavailableError.is(e)) throw e;
      return { sites: [], implementations: [], notes: [`${unit.path}: ${(e as Error).message}`] };
    } finally {
      this.fetched.delete(unit.path);
    }
    if (answer.type !== 'file' || !answer.inProgram) return { sites: [], implementations: [] };
    return toBatch(unit, answer);
  }

  /** The compiler's answer for a file, asked once (a prefetch and the unit's own request share it). */
  private fetch(file: string): Promise<FromTscWorker> {
    let p = this.fetched.get(file);
    if (!p) {
      const id = this.nextId++;
      p = this.ask(id, { type: 'file', id, path: file }, (this.options.fileTimeoutMs ?? 60_000) * (AHEAD + 1));
      this.fetched.set(file, p);
    }
    return p;
  }

  async dispose(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.fetched.clear();
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    if (child.connected) child.send({ type: 'dispose' } satisfies ToTscWorker);
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  }
}
