// Why a connection attempt failed, told by ADS code or by the socket's own error, never by ads-client's text.
import { connect } from 'node:net';
import { AppError } from '../../errors.ts';
import { adsCodeOf, toAppError } from './ads-errors.ts';

/** The OS error code of a TCP connection to `host:port`, or undefined when it connects. */
function probeTcp(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (code: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(code);
    };
    const timer = setTimeout(() => done('ETIMEDOUT'), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? 'ECONNRESET'));
  });
}

/**
 * The catalog error of a failed connection attempt: the PLC's (or router's) ADS code when it answered
 * one, else what the socket says: unreachable (PLC_UNAVAILABLE) or reachable but silent (ADS_TIMEOUT).
 */
export async function connectFailure(
  err: unknown,
  where: { plcId: string; host: string; tcpPort: number; netId: string; timeoutMs: number },
): Promise<AppError> {
  const router = `${where.host}:${where.tcpPort}`;
  if (adsCodeOf(err) !== undefined) {
    const e = toAppError(err, `Connecting to ${where.netId} through ${router}`, where.plcId);
    return e;
  }
  const socketError = await probeTcp(where.host, where.tcpPort, where.timeoutMs);
  if (socketError) {
    return new AppError('PLC_UNAVAILABLE', `The ADS router at ${router} cannot be reached (${socketError}).`);
  }
  return new AppError(
    'ADS_TIMEOUT',
    `The ADS router at ${router} accepts connections but ${where.netId} did not answer in time.`,
  );
}
