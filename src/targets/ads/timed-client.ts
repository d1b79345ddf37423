// ads-client with a timeout per request. Its own timeout is one shared setting, and the timeout it reports carries
// no ADS code. Here each request gets its own limit, chosen by what it asks for: the symbol and data-type uploads
// wait SymbolBrowseTimeoutMs, every other request the connection's Timeout. A request is judged by its command
// alone (no async context to carry), so the read path pays one timer and nothing else.
import { Client, type AdsClientSettings, type AdsCommandToSend, type AmsTcpPacket } from 'ads-client';
import { AdsCommand, IndexGroup } from '../../plc/ads/index.ts';

/** ADS code by which a request that got no answer is known, through every wrapper ads-client puts around it. */
export const noAnswerCode = -1;

/**
 * What a request with no answer is rejected with. A plain object, not an Error: ads-client's ClientError keeps a
 * plain object's `errorCode` when it wraps a failure, and drops an Error's.
 */
interface NoAnswer {
  readonly errorCode: typeof noAnswerCode;
  readonly errorStr: string;
}

/** ads-client's own timer is only a backstop, armed a little after ours. */
const backstopMs = 50;

// The uploads a symbol or type table is read with (ADS spec: ADSIGRP_SYM_UPLOAD 0xF00B, ADSIGRP_SYM_UPLOADINFO
// 0xF00C, ADSIGRP_SYM_DT_UPLOAD 0xF00E, ADSIGRP_SYM_UPLOADINFO2 0xF00F): large answers, built by the PLC on demand.
const uploadGroups: ReadonlySet<number> = new Set([
  IndexGroup.SymbolUpload,
  IndexGroup.SymbolUploadInfo,
  IndexGroup.DataTypeUpload,
  IndexGroup.SymbolUploadInfo2,
]);

function isUpload(command: AdsCommandToSend): boolean {
  const payload = command.payload;
  if (command.adsCommand !== AdsCommand.Read || payload === undefined || payload.byteLength < 4) return false;
  return uploadGroups.has(payload.readUInt32LE(0));
}

export class TimedClient extends Client {
  readonly #timeoutMs: number;
  readonly #uploadTimeoutMs: number;

  constructor(settings: AdsClientSettings & { timeoutDelay: number }, uploadTimeoutMs: number) {
    super(settings);
    this.#timeoutMs = settings.timeoutDelay;
    this.#uploadTimeoutMs = Math.max(uploadTimeoutMs, settings.timeoutDelay);
  }

  override sendAdsCommand<T>(command: AdsCommandToSend): Promise<AmsTcpPacket<T>> {
    const ms = isUpload(command) ? this.#uploadTimeoutMs : this.#timeoutMs;
    let sent: Promise<AmsTcpPacket<T>>;
    // ads-client arms the request's own timer synchronously inside sendAdsCommand.
    this.settings.timeoutDelay = ms + backstopMs;
    try {
      sent = super.sendAdsCommand<T>(command);
    } finally {
      this.settings.timeoutDelay = this.#timeoutMs;
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const noAnswer: NoAnswer = { errorCode: noAnswerCode, errorStr: `no answer within ${ms} ms` };
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- see NoAnswer
        reject(noAnswer);
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
