import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/*
 * Stdio for the MCP server, built to survive its input. The SDK's stdio
 * transport closes — and the server exits 0 without a word — on a frame over
 * 10 MiB, and answers nothing to a line that is not JSON. Here every line is
 * judged alone: too large, not JSON, not JSON-RPC, or a request before
 * `initialize` gets the JSON-RPC error a client can read, and the server
 * goes on.
 */

/** JSON-RPC 2.0 error codes (and LSP's "server not initialized", which MCP clients know). */
export const RPC = { parseError: -32700, invalidRequest: -32600, notInitialized: -32002 } as const;

/** The longest frame read: far above any tool call (inputs are capped at a few KiB). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

type Id = string | number | null;

function idOf(value: unknown): Id {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Inside a frame that is over the limit: its bytes are dropped until its newline. */
  private discarding = false;
  private initialized = false;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxFrameBytes = MAX_FRAME_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.on('end', this.onEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    this.onclose?.();
  }

  private readonly onStreamError = (e: Error) => this.onerror?.(e);
  private readonly onEnd = () => void this.close();

  private readonly onData = (chunk: Buffer | string) => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (;;) {
      const nl = buf.indexOf(0x0a);
      if (nl < 0) {
        if (!this.discarding) {
          this.chunks.push(buf);
          this.buffered += buf.length;
          if (this.buffered > this.maxFrameBytes) this.startDiscarding();
        }
        return;
      }
      const head = buf.subarray(0, nl);
      buf = buf.subarray(nl + 1);
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      const line = Buffer.concat([...this.chunks, head]);
      this.chunks = [];
      this.buffered = 0;
      if (line.length > this.maxFrameBytes) {
        this.refuseLarge(line.length);
        continue;
      }
      this.frame(line.toString('utf8').replace(/\r$/, ''));
    }
  };

  private startDiscarding(): void {
    this.refuseLarge(this.buffered);
    this.chunks = [];
    this.buffered = 0;
    this.discarding = true;
  }

  private refuseLarge(bytes: number): void {
    this.reply(null, RPC.invalidRequest, `Request too large: over ${Math.round(bytes / 1024)} KiB (the limit is ${Math.round(this.maxFrameBytes / 1024)} KiB); it was dropped and the server goes on.`);
  }

  private frame(line: string): void {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.reply(null, RPC.parseError, 'Parse error: the line is not JSON.');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.reply(idOf(value), RPC.invalidRequest, 'Invalid request: not a JSON-RPC 2.0 message.');
      return;
    }
    const message = parsed.data;
    const method = (message as { method?: unknown }).method;
    const isRequest = typeof method === 'string' && 'id' in message;
    if (method === 'initialize') this.initialized = true;
    else if (isRequest && !this.initialized && method !== 'ping') {
      this.reply(idOf(message), RPC.notInitialized, `Server not initialized: send "initialize" before "${String(method)}".`);
      return;
    }
    this.onmessage?.(message);
  }

  private reply(id: Id, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}
