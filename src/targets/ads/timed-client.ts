// ads-client with per-call timeouts. Its timeout is one shared setting and a timeout it reports carries no
// ADS code, so each call runs in a scope that gives its requests their own limit and records whether one
// went unanswered: only an upload's requests wait SymbolBrowseTimeoutMs, and timeouts are known, not parsed.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client, type AdsCommandToSend, type AmsTcpPacket } from 'ads-client';

export interface CallScope {
  /** The limit of each request sent in this scope; undefined: the client's default. */
  readonly timeoutMs: number | undefined;
  timedOut: boolean;
  readonly parent: CallScope | undefined;
}

const scopes = new AsyncLocalStorage<CallScope>();
/** ads-client's own timer is only a backstop, armed a little after ours. */
const backstopMs = 50;

/** Runs `fn` in a fresh call scope; `timeoutMs` (if given) limits each request it sends. */
export function inCallScope<T>(
  fn: (scope: CallScope) => Promise<T>,
  timeoutMs?: number,
): { scope: CallScope; work: Promise<T> } {
  const scope: CallScope = { timeoutMs, timedOut: false, parent: scopes.getStore() };
  return { scope, work: scopes.run(scope, () => fn(scope)) };
}

export class NoAnswer extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'NoAnswer';
  }
}

export class TimedClient extends Client {
  override sendAdsCommand<T>(command: AdsCommandToSend): Promise<AmsTcpPacket<T>> {
    const scope = scopes.getStore();
    // ads-client's own requests (connecting, connection checks) keep its settings.
    if (!scope) return super.sendAdsCommand<T>(command);
    const normal = this.settings.timeoutDelay;
    const ms = scope.timeoutMs ?? normal;
    let sent;
    // The request's own timer is armed synchronously inside sendAdsCommand.
    this.settings.timeoutDelay = ms + backstopMs;
    try {
      sent = super.sendAdsCommand<T>(command);
    } finally {
      this.settings.timeoutDelay = normal;
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        for (let s: CallScope | undefined = scope; s; s = s.parent) s.timedOut = true;
        reject(new NoAnswer(ms));
      }, ms);
      // A request still waiting when the connection closes must not keep the process alive.
      timer.unref();
      sent.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}
