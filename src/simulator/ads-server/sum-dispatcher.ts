// Sum commands: each sub-command runs through the same index-group access as a single command; one
// failing sub-command reports its own error code and does not fail the others.

import { adsCodeOf } from './error-map.ts';
import { IndexGroup, AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import {
  decodeSumRead,
  decodeSumReadWrite,
  decodeSumWrite,
  encodeSumReadResponse,
  encodeSumReadWriteResponse,
  encodeSumWriteResponse,
  type SumResult,
} from './protocol/sum-commands.ts';
import type { RequestContext } from './client-session.ts';

/** Single-command access to the index groups, which each sub-command goes through. */
export interface IndexGroupAccess {
  read(ig: number, io: number, length: number, ctx: RequestContext): Buffer;
  write(ig: number, io: number, data: Buffer, ctx: RequestContext): void;
  readWrite(ig: number, io: number, readLength: number, data: Buffer, ctx: RequestContext): Buffer;
}

/** Largest answer one sum command may build. */
const MAX_SUM_RESPONSE_BYTES = 16 * 1024 * 1024;

const sumGroups = new Set<number>([IndexGroup.SumRead, IndexGroup.SumWrite, IndexGroup.SumReadWrite]);

function attempt(ig: number, run: () => Buffer): SumResult {
  // A sum command inside a sum command would let one request fan out without bound.
  if (sumGroups.has(ig)) return { error: AdsErrorCode.ServiceNotSupported, data: Buffer.alloc(0) };
  try {
    return { error: 0, data: run() };
  } catch (err) {
    return { error: adsCodeOf(err), data: Buffer.alloc(0) };
  }
}

export class SumDispatcher {
  constructor(
    private readonly access: IndexGroupAccess,
    private readonly maxCommands: number,
  ) {}

  read(count: number, data: Buffer, ctx: RequestContext): Buffer {
    const items = decodeSumRead(count, data, this.maxCommands);
    const total = items.reduce((sum, item) => sum + 4 + item.length, 0);
    if (total > MAX_SUM_RESPONSE_BYTES) {
      throw new AdsError(
        AdsErrorCode.InvalidSize,
        `A sum read of ${total} bytes exceeds ${MAX_SUM_RESPONSE_BYTES}`,
      );
    }
    const results = items.map((item) =>
      attempt(item.indexGroup, () => this.access.read(item.indexGroup, item.indexOffset, item.length, ctx)),
    );
    return encodeSumReadResponse(items, results);
  }

  write(count: number, data: Buffer, ctx: RequestContext): Buffer {
    const items = decodeSumWrite(count, data, this.maxCommands);
    const results = items.map((item) =>
      attempt(item.indexGroup, () => {
        this.access.write(item.indexGroup, item.indexOffset, item.data, ctx);
        return Buffer.alloc(0);
      }),
    );
    return encodeSumWriteResponse(results);
  }

  readWrite(count: number, data: Buffer, ctx: RequestContext): Buffer {
    const items = decodeSumReadWrite(count, data, this.maxCommands);
    let total = 0;
    const results = items.map((item) => {
      const result = attempt(item.indexGroup, () =>
        this.access.readWrite(item.indexGroup, item.indexOffset, item.readLength, item.data, ctx),
      );
      total += result.data.length;
      if (total > MAX_SUM_RESPONSE_BYTES) return { error: AdsErrorCode.InvalidSize, data: Buffer.alloc(0) };
      return result;
    });
    return encodeSumReadWriteResponse(results);
  }
}
