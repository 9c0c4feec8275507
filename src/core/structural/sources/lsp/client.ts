import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CancellationTokenSource,
  createProtocolConnection,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type InitializeParams,
  type ProtocolConnection,
  type ServerCapabilities,
} from 'vscode-languageserver-protocol/node';
import { toolEnv } from '../../enrichment/toolProcess.js';
import { CodeIntelError, ResolverUnavailableError } from '../../enrichment/types.js';
import type { LanguageServerSpec } from './servers.js';

/*
 * A headless language-server client: one server process per language, over
 * JSON-RPC on stdio. It owns the process's whole life: initialize, wait for
 * the project to load, open documents on demand (and close them again),
 * per-request timeouts with $/cancelRequest, restart with backoff after a
 * crash, a memory cap, and shutdown. It never throws anything but
 * LspTimeoutError, LspCancelledError, CodeIntelError (one line) and
 * ResolverUnavailableError, so the enrichment pass can degrade instead of
 * failing.
 */

export class LspTimeoutError extends Error {
  override readonly name = 'LspTimeoutError';
}
export class LspCancelledError extends Error {
  override readonly name = 'LspCancelledError';
}

/** The line of a server's error that says what went wrong: tsserver sends a header, the message, then its stack. */
export function serverErrorLine(message: string): string {
  const lines = message.split('\n').map((l) => l.trim()).filter(Boolean);
  const meaningful = lines.find((l) => !/^<\w+>\s*TypeScript Server Error|^Error processing request|^at\s/.test(l)) ?? lines[0] ?? message;
  return meaningful.replace(/^Error:\s*/, '').slice(0, 300);
}

/** A server's error answer as a typed error, one line, with the advice that fits it. */
export function toServerError(method: string, e: unknown): CodeIntelError {
  const line = serverErrorLine(e instanceof Error ? e.message : String(e));
  if (/Could not find source file|No Project|Could not find sourceFile/i.test(line)) {
    return new CodeIntelError(
      'no-project',
      `${method}: the server has no project for this file (${line}); it is outside every tsconfig.json's include, or its project is too large and was switched off: add the file to a tsconfig.json (or exclude large generated JavaScript) and run tenure enrich again`,
      { cause: e },
    );
  }
  return new CodeIntelError('server-error', `${method}: ${line}`, { cause: e });
}

export interface LspClientOptions {
  readonly root: string;
  /** Per-request time limit (default 15 s). */
  readonly requestTimeoutMs?: number;
  /** How long to wait for the server's project to load (default 120 s). */
  readonly readyTimeoutMs?: number;
  /** Resident memory cap for the server's process tree, in MiB (default from the spec, else 3072). */
  readonly memoryCapMb?: number;
  /** Restarts allowed after crashes before the server is declared unavailable (default 3). */
  readonly maxRestarts?: number;
  /** First backoff delay; doubles each restart (default 500 ms). */
  readonly backoffMs?: number;
  /** Documents kept open at once (default 32); older ones are closed. */
  readonly maxOpenDocuments?: number;
  readonly log?: (message: string) => void;
}

type State = 'idle' | 'starting' | 'running' | 'crashed' | 'unavailable' | 'disposed';

interface Running {
  readonly child: ChildProcess;
  readonly connection: ProtocolConnection;
  readonly capabilities: ServerCapabilities;
  readonly exited: Promise<void>;
}

export class LspClient {
  private state: State = 'idle';
  private running: Running | undefined;
  private starting: Promise<Running> | undefined;
  private restarts = 0;
  private lastError: string | undefined;
  private readonly open = new Map<string, number>(); // abs path → version, in LRU order
  private readonly activeProgress = new Set<string | number>();
  private lastProgressAt = 0;
  private memoryTimer: NodeJS.Timeout | undefined;
  private readonly opts: Required<Omit<LspClientOptions, 'log'>> & { log: (m: string) => void };
  /** Requests answered and failed, for the pass's report. */
  readonly stats = { requests: 0, timeouts: 0, crashes: 0, restarts: 0 };

  constructor(
    readonly spec: LanguageServerSpec,
    options: LspClientOptions,
  ) {
    this.opts = {
      root: path.resolve(options.root),
      requestTimeoutMs: options.requestTimeoutMs ?? 15_000,
      readyTimeoutMs: options.readyTimeoutMs ?? 120_000,
      memoryCapMb: options.memoryCapMb ?? spec.memoryMb ?? 3072,
      maxRestarts: options.maxRestarts ?? 3,
      backoffMs: options.backoffMs ?? 500,
      maxOpenDocuments: options.maxOpenDocuments ?? 32,
      log: options.log ?? (() => undefined),
    };
  }

  get status(): { state: State; restarts: number; lastError?: string } {
    return { state: this.state, restarts: this.restarts, ...(this.lastError ? { lastError: this.lastError } : {}) };
  }

  /** The server's process id while it runs (tests kill it to simulate a crash). */
  get pid(): number | undefined {
    return this.running?.child.pid;
  }

  get capabilities(): ServerCapabilities | undefined {
    return this.running?.capabilities;
  }

  /** Starts the server if it is not running; restarts it with backoff after a crash. */
  async ensureStarted(signal?: AbortSignal): Promise<Running> {
    if (this.state === 'disposed') throw new ResolverUnavailableError(this.spec.source, `${this.spec.displayName} was shut down.`);
    if (this.state === 'unavailable') throw this.unavailable();
    if (this.running && this.state === 'running') return this.running;
    if (this.starting) return this.starting;
    this.starting = (async () => {
      if (this.state === 'crashed') {
        if (this.restarts >= this.opts.maxRestarts) {
          this.state = 'unavailable';
          throw this.unavailable();
        }
        const delay = this.opts.backoffMs * 2 ** this.restarts;
        this.restarts++;
        this.stats.restarts++;
        this.opts.log(`${this.spec.displayName}: restarting in ${delay} ms (restart ${this.restarts} of ${this.opts.maxRestarts}) after: ${this.lastError ?? 'a crash'}`);
        await sleep(delay, signal);
      }
      this.state = 'starting';
      try {
        const r = await this.launch();
        this.running = r;
        this.state = 'running';
        return r;
      } catch (e) {
        this.lastError = errorText(e);
        this.state = this.restarts >= this.opts.maxRestarts ? 'unavailable' : 'crashed';
        if (this.state === 'unavailable' || ResolverUnavailableError.is(e)) {
          this.state = 'unavailable';
          throw ResolverUnavailableError.is(e) ? e : this.unavailable();
        }
        throw e;
      }
    })();
    try {
      return await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  private unavailable(): ResolverUnavailableError {
    return new ResolverUnavailableError(
      this.spec.source,
      `${this.spec.displayName} is not available${this.lastError ? ` (${this.lastError})` : ''}; edges it would resolve keep their inventory tier. ${this.spec.hint}`,
    );
  }

  private async launch(): Promise<Running> {
    const cmd = this.spec.command(this.opts.root);
    if (!cmd) throw new ResolverUnavailableError(this.spec.source, `${this.spec.displayName} was not found. ${this.spec.hint}`);
    let child: ChildProcess;
    try {
      child = spawn(cmd.command, cmd.args, {
        cwd: this.opts.root,
        env: toolEnv(this.opts.root, cmd.env),
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (e) {
      throw new ResolverUnavailableError(this.spec.source, `${this.spec.displayName} could not be started: ${errorText(e)}. ${this.spec.hint}`, { cause: e });
    }
    const spawnError = new Promise<never>((_, reject) =>
      child.once('error', (e) => reject(new ResolverUnavailableError(this.spec.source, `${this.spec.displayName} could not be started: ${errorText(e)}. ${this.spec.hint}`, { cause: e }))),
    );
    spawnError.catch(() => undefined);
    let stderrTail = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      stderrTail = (stderrTail + d).slice(-2000);
    });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    child.stdin!.on('error', () => undefined);
    const exited = new Promise<void>((resolve) =>
      child.once('exit', (code, sig) => {
        if (this.running?.child === child && this.state === 'running') {
          this.state = 'crashed';
          this.stats.crashes++;
          this.lastError = `the server exited (${sig ?? `code ${code}`})${stderrTail ? `: ${stderrTail.trim().split('\n').pop()}` : ''}`;
          this.opts.log(`${this.spec.displayName}: ${this.lastError}`);
          this.running = undefined;
          this.open.clear();
          this.activeProgress.clear();
        }
        this.stopMemoryWatch();
        connection.dispose();
        resolve();
      }),
    );
    connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) => params.items.map((i) => this.spec.configuration(i.section)));
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('client/unregisterCapability', () => null);
    connection.onRequest('workspace/workspaceFolders', () => [{ uri: pathToFileURL(this.opts.root).href, name: path.basename(this.opts.root) }]);
    connection.onRequest('window/showMessageRequest', () => null);
    connection.onNotification('$/progress', (p: { token: string | number; value: { kind: string } }) => {
      this.lastProgressAt = Date.now();
      if (p.value?.kind === 'begin') this.activeProgress.add(p.token);
      else if (p.value?.kind === 'end') this.activeProgress.delete(p.token);
    });
    connection.onNotification('window/logMessage', () => undefined);
    connection.onNotification('window/showMessage', () => undefined);
    connection.onNotification('textDocument/publishDiagnostics', () => undefined);
    connection.onNotification('telemetry/event', () => undefined);
    connection.onError(() => undefined);
    connection.listen();

    const params: InitializeParams = {
      processId: process.pid,
      rootUri: pathToFileURL(this.opts.root).href,
      workspaceFolders: [{ uri: pathToFileURL(this.opts.root).href, name: path.basename(this.opts.root) }],
      capabilities: {
        window: { workDoneProgress: true },
        workspace: { configuration: true, workspaceFolders: true },
        textDocument: {
          synchronization: { didSave: false, dynamicRegistration: false },
          definition: { linkSupport: false },
          references: {},
          documentHighlight: {},
          implementation: { linkSupport: false },
          callHierarchy: {},
        },
      },
      initializationOptions: this.spec.initializationOptions(this.opts.memoryCapMb),
    };
    const init = connection.sendRequest(InitializeRequest.type, params);
    let initTimer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      init,
      spawnError,
      exited.then(() => {
        throw new Error(`the server exited during initialize${stderrTail ? `: ${stderrTail.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
      }),
      new Promise<never>((_, reject) => {
        initTimer = setTimeout(() => reject(new LspTimeoutError(`initialize did not answer within ${this.opts.readyTimeoutMs} ms`)), this.opts.readyTimeoutMs);
      }),
    ])
      .catch((e: unknown) => {
        child.kill('SIGKILL');
        throw e;
      })
      .finally(() => clearTimeout(initTimer));
    await connection.sendNotification(InitializedNotification.type, {});
    const running: Running = { child, connection, capabilities: result.capabilities, exited };
    this.startMemoryWatch(child);
    this.opts.log(`${this.spec.displayName}: started (pid ${child.pid})`);
    return running;
  }

  /**
   * Waits until the server has loaded the project: the given file is open,
   * no work-done progress is active and none was reported for `quietMs`, and
   * `probe` (a request known to have an answer) answers non-empty.
   */
  async waitReady(firstFile: string | undefined, probe: (() => Promise<boolean>) | undefined, signal: AbortSignal, quietMs = 400): Promise<void> {
    await this.ensureStarted(signal);
    const deadline = Date.now() + this.opts.readyTimeoutMs;
    if (firstFile) await this.openDocument(firstFile);
    for (;;) {
      if (signal.aborted) throw new LspCancelledError('cancelled');
      const quiet = this.activeProgress.size === 0 && Date.now() - this.lastProgressAt >= quietMs;
      if (quiet) {
        if (!probe) return;
        try {
          if (await probe()) return;
        } catch (e) {
          if (ResolverUnavailableError.is(e) || e instanceof LspCancelledError) throw e;
        }
      }
      if (Date.now() > deadline) {
        throw new ResolverUnavailableError(this.spec.source, `${this.spec.displayName} did not finish loading the project within ${Math.round(this.opts.readyTimeoutMs / 1000)} s; its empty answers cannot be trusted, so edges keep their inventory tier.`);
      }
      await sleep(quiet ? 500 : 100, signal);
    }
  }

  /** Opens a document (reading it from disk) unless it is open; closes the least recently used beyond the cap. */
  async openDocument(abs: string): Promise<void> {
    const r = await this.ensureStarted();
    if (this.open.has(abs)) {
      const v = this.open.get(abs)!;
      this.open.delete(abs);
      this.open.set(abs, v);
      return;
    }
    let text: string;
    try {
      text = await fs.promises.readFile(abs, 'utf8');
    } catch {
      return;
    }
    this.open.set(abs, 1);
    await r.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: pathToFileURL(abs).href, languageId: this.spec.languageId(abs), version: 1, text },
    });
    while (this.open.size > this.opts.maxOpenDocuments) {
      const oldest = this.open.keys().next().value as string;
      await this.closeDocument(oldest);
    }
  }

  async closeDocument(abs: string): Promise<void> {
    if (!this.open.delete(abs) || !this.running) return;
    await this.running.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: pathToFileURL(abs).href } });
  }

  /**
   * Sends a request with a time limit and cancellation. On timeout or abort
   * the server gets $/cancelRequest. A crash mid-request rejects it; the next
   * request restarts the server (with backoff).
   */
  async request<R>(method: string, params: unknown, signal?: AbortSignal, timeoutMs = this.opts.requestTimeoutMs): Promise<R> {
    if (signal?.aborted) throw new LspCancelledError('cancelled');
    const r = await this.ensureStarted(signal);
    const cts = new CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    this.stats.requests++;
    try {
      return await Promise.race([
        r.connection.sendRequest(method, params, cts.token) as Promise<R>,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            this.stats.timeouts++;
            cts.cancel();
            reject(new LspTimeoutError(`${this.spec.displayName}: ${method} did not answer within ${timeoutMs} ms`));
          }, timeoutMs);
          onAbort = () => {
            cts.cancel();
            reject(new LspCancelledError('cancelled'));
          };
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
        r.exited.then(() => {
          throw new Error(`${this.spec.displayName} exited while answering ${method}`);
        }),
      ]);
    } catch (e) {
      if (e instanceof LspTimeoutError || e instanceof LspCancelledError) throw e;
      // A connection torn down by a crash: say so, the caller's next request restarts it.
      const gone = await withTimeout(r.exited.then(() => true), 200, false);
      if (gone) throw new Error(`${this.spec.displayName} exited while answering ${method}${this.lastError ? `: ${this.lastError}` : ''}`, { cause: e });
      throw toServerError(method, e);
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }

  /** A notification, if the server is running (none is queued for a server that is not). */
  async notify(method: string, params: unknown): Promise<void> {
    if (this.state !== 'running' || !this.running) return;
    await this.running.connection.sendNotification(method, params);
  }

  private startMemoryWatch(child: ChildProcess): void {
    if (process.platform !== 'linux' || !child.pid) return;
    const pid = child.pid;
    this.memoryTimer = setInterval(() => {
      const mb = treeRssMb(pid);
      if (mb > this.opts.memoryCapMb) {
        this.lastError = `it used ${Math.round(mb)} MiB, over the ${this.opts.memoryCapMb} MiB cap`;
        this.opts.log(`${this.spec.displayName}: ${this.lastError}; stopping it`);
        killTree(pid);
      }
    }, 2000);
    this.memoryTimer.unref();
  }

  private stopMemoryWatch(): void {
    if (this.memoryTimer) clearInterval(this.memoryTimer);
    this.memoryTimer = undefined;
  }

  /** shutdown → exit → kill after a grace period. Idempotent. */
  async dispose(): Promise<void> {
    const r = this.running;
    this.state = 'disposed';
    this.running = undefined;
    this.stopMemoryWatch();
    if (!r) return;
    const pid = r.child.pid;
    try {
      await withTimeout(r.connection.sendRequest(ShutdownRequest.type), 3000);
      await r.connection.sendNotification(ExitNotification.type);
    } catch {
      // The server may already be gone.
    }
    const gone = await withTimeout(r.exited.then(() => true), 3000, false);
    if (!gone && pid) killTree(pid);
    r.connection.dispose();
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LspCancelledError('cancelled'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new LspCancelledError('cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A promise's value, or `fallback` after `ms`; the timer never outlives the race (so the process can exit). */
async function withTimeout<T>(p: Promise<T>, ms: number, fallback?: T): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T | undefined>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function childrenOf(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
    return out;
  } catch {
    return [];
  }
}

function treeRssMb(pid: number): number {
  let kb = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      continue;
    }
    stack.push(...childrenOf(p));
  }
  return kb / 1024;
}

function killTree(pid: number): void {
  const all: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    all.push(p);
    stack.push(...childrenOf(p));
  }
  for (const p of all.reverse()) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
