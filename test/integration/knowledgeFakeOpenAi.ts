import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { offlineExtract } from '../../src/core/knowledge/offline';
import { HashingEmbedder } from '../../src/core/llm/offline';
import { REPO_ROOT } from '../helpers/fixtures';

/*
 * An OpenAI-compatible endpoint on 127.0.0.1 for tests: the real `openai`
 * client talks to it over HTTP. It replays recorded responses (the shapes
 * OpenAI returns, from test/fixtures/knowledge/openai/) from a script —
 * 429 with Retry-After, 401, 503, a stall, truncated JSON, prose — and
 * otherwise answers like a small, deterministic model so whole pipeline runs
 * can go through it: extraction, merges, reports, search and embeddings.
 * Every request is recorded for assertions.
 */

export interface RecordedRequest {
  readonly path: string;
  readonly body: { model?: string; messages?: { role: string; content: string }[]; input?: string[]; response_format?: unknown; max_tokens?: number };
  readonly at: number;
  readonly task: 'extract' | 'summarize' | 'report' | 'map' | 'reduce' | 'local' | 'embed' | 'other';
}

export type Reply =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body: unknown }
  | { readonly stallMs: number }
  | { readonly content: string; readonly finishReason?: string };

export interface ScriptEntry {
  readonly match?: (r: RecordedRequest) => boolean;
  readonly reply: Reply | ((r: RecordedRequest) => Reply);
  /** Uses left; default 1. */
  times?: number;
}

export function recorded(name: string): Reply {
  const file = path.join(REPO_ROOT, 'test', 'fixtures', 'knowledge', 'openai', `${name}.json`);
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { status?: number; headers?: Record<string, string>; body?: unknown };
  if (typeof json.status === 'number') return { status: json.status, ...(json.headers ? { headers: json.headers } : {}), body: json.body };
  return { status: 200, headers: { 'content-type': 'application/json' }, body: json };
}

function taskOf(p: string, body: RecordedRequest['body']): RecordedRequest['task'] {
  if (p.endsWith('/embeddings')) return 'embed';
  const user = body.messages?.find((m) => m.role === 'user')?.content ?? '';
  if (user.startsWith('Goal: identify every entity')) return 'extract';
  if (user.startsWith('Below are descriptions of')) return 'summarize';
  if (user.startsWith('Write a report on the community')) return 'report';
  if (user.includes('list the key points that help answer')) return 'map';
  if (user.includes('Combine the key points below')) return 'reduce';
  if (user.includes('Answer from the data below only')) return 'local';
  return 'other';
}

function fenced(user: string): string {
  const m = /<<<DATA\n([\s\S]*)\nDATA>>>/.exec(user);
  return m ? m[1]! : '';
}

/** What the stand-in model answers when no script entry matches. */
function simulate(r: RecordedRequest): unknown {
  const user = r.body.messages?.find((m) => m.role === 'user')?.content ?? '';
  const data = fenced(user);
  switch (r.task) {
    case 'extract': {
      const doc = /Document: (\w+) "([^"]*)"(?: \(([^)]+)\))?/.exec(user);
      return offlineExtract({ text: data, doc: { kind: doc?.[1] ?? 'doc', title: doc?.[2] ?? 'untitled', ...(doc?.[3] ? { ref: doc[3] } : {}) } });
    }
    case 'summarize': {
      const lines = data.split('\n').map((l) => l.replace(/^\d+\.\s*/, '')).filter(Boolean);
      return { description: lines.slice(0, 3).join(' ') };
    }
    case 'report': {
      const entities = data.split('\n').filter((l) => /^\d+,"/.test(l));
      const first = /^\d+,"([^"]*)"/.exec(entities[0] ?? '')?.[1] ?? 'Community';
      const second = /^\d+,"([^"]*)"/.exec(entities[1] ?? '')?.[1];
      return {
        title: second ? `${first} and ${second}` : first,
        summary: `The community centres on ${first}.`,
        rating: 6.5,
        rating_explanation: 'Moderate: it holds decisions that constrain the code.',
        findings: [{ summary: `${first} is central`, explanation: `${first} is related to ${entities.length - 1} other entities.`, entities: [1], relationships: [] }],
      };
    }
    case 'map':
      return { points: [{ description: 'Retries after a gateway timeout can duplicate payments.', score: 80, reports: [Number(/Report (\d+)/.exec(data)?.[1] ?? 1)] }] };
    case 'reduce':
      return { answer: 'Retrying after a gateway timeout duplicates payments [reports 1].' };
    case 'local':
      return { answer: 'Three attempts fit inside the recall window [source 1].' };
    default:
      return {};
  }
}

export class FakeOpenAi {
  readonly requests: RecordedRequest[] = [];
  private readonly script: ScriptEntry[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();
  private inFlight = 0;
  maxInFlight = 0;
  /** Extra delay before every answer, in ms (to observe concurrency). */
  delayMs = 0;
  /** Called after a request is answered. */
  onAnswered: ((r: RecordedRequest) => void) | undefined;
  private readonly embedder = new HashingEmbedder(64);
  private counter = 0;

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<FakeOpenAi> {
    const server = http.createServer();
    const fake = new FakeOpenAi(server);
    server.on('connection', (s) => {
      fake.sockets.add(s);
      s.on('close', () => fake.sockets.delete(s));
    });
    server.on('request', (req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Queues replies; each is used for the next matching request. */
  enqueue(...entries: ScriptEntry[]): void {
    this.script.push(...entries);
  }

  count(task: RecordedRequest['task']): number {
    return this.requests.filter((r) => r.task === task).length;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as RecordedRequest['body'];
    const p = req.url ?? '';
    const r: RecordedRequest = { path: p, body, at: Date.now(), task: taskOf(p, body) };
    this.requests.push(r);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      const i = this.script.findIndex((e) => !e.match || e.match(r));
      let reply: Reply | undefined;
      if (i >= 0) {
        const e = this.script[i]!;
        reply = typeof e.reply === 'function' ? e.reply(r) : e.reply;
        e.times = (e.times ?? 1) - 1;
        if (e.times <= 0) this.script.splice(i, 1);
      }
      if (reply && 'stallMs' in reply) {
        const stall = reply.stallMs;
        await new Promise((resolve) => setTimeout(resolve, stall));
        if (res.destroyed || res.writableEnded) return;
        reply = undefined;
      }
      if (reply && 'status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify(reply.body));
        return;
      }
      if (r.task === 'embed') {
        const input = Array.isArray(body.input) ? body.input : [String(body.input)];
        const data = input.map((t, index) => ({ object: 'embedding', index, embedding: [...this.embedder.vector(t)] }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: input.join(' ').length / 4, total_tokens: input.join(' ').length / 4 } }));
        return;
      }
      const content = reply && 'content' in reply ? reply.content : JSON.stringify(simulate(r));
      const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
      const completion = Math.ceil(content.length / 4);
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_fake_${++this.counter}` });
      res.end(
        JSON.stringify({
          id: `chatcmpl-fake${this.counter}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: reply && 'content' in reply ? (reply.finishReason ?? 'stop') : 'stop' }],
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
          system_fingerprint: 'fp_fake',
        }),
      );
    } finally {
      this.inFlight--;
      this.onAnswered?.(r);
    }
  }
}
