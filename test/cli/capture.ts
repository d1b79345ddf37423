// Captured stdout/stderr for calling runCli in process.
import type { CliIo } from '../../src/cli/io.ts';

export interface Captured {
  io: Partial<CliIo>;
  out(): string;
  err(): string;
}

export function capture(overrides: Partial<CliIo> = {}): Captured {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      env: {},
      ...overrides,
    },
    out: () => out,
    err: () => err,
  };
}
