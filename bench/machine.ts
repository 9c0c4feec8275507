import * as os from 'node:os';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly ramGB: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: (cpus[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim(),
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    ramGB: os.totalmem() / 1024 ** 3,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}
