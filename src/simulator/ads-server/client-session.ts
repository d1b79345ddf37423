// What a port service may use of the client connection a request came in on.

import type { AmsHeader } from './protocol/frame.ts';
import type { AmsAddress } from './protocol/net-id.ts';
import type { FileHandleTable } from './file-service.ts';

/** One connected ADS client: its resources and a way to push DeviceNotification frames to it. */
export interface ClientSession {
  readonly id: number;
  readonly files: FileHandleTable;
  /** Bytes written to the socket but not yet sent: notification delivery backs off above a limit. */
  readonly bufferedBytes: number;
  readonly closed: boolean;
  /** Sends a DeviceNotification payload from `source` (the server's address) to `target` (the client's). */
  sendNotification(source: AmsAddress, target: AmsAddress, payload: Buffer): void;
}

export interface RequestContext {
  session: ClientSession;
  header: AmsHeader;
}
