// What the append script publishes on the push channel: the entries it added, by journal, as frames
// `<byte length>:<bytes>`: per journal its key and entry count, then per entry its seq, epoch, user ('' for none,
// else 'u' and the user) and JSON. Frames rather than JSON: the entry's JSON travels as the stream stores it
// instead of escaped once more inside a JSON string, so each replica (every push reaches every replica) takes it
// without parsing it twice.
import { entryText } from '../journal.ts';
import type { SharedEntry } from './journal-mirror.ts';

const colon = 0x3a;
/** Digits of a frame's length: enough for any message Redis accepts (512 MB). */
const maxDigits = 9;

/** The message's entries by journal key, or undefined when it is not made of the append script's frames. */
export function decodeAlarmPush(message: Buffer): Map<string, SharedEntry[]> | undefined {
  const frames = new Frames(message);
  const pushed = new Map<string, SharedEntry[]>();
  while (!frames.done) {
    const key = frames.next();
    const count = Number(frames.next());
    if (key === undefined || !Number.isSafeInteger(count) || count < 1) return undefined;
    const entries: SharedEntry[] = [];
    for (let i = 0; i < count; i++) {
      const seq = Number(frames.next());
      const epoch = Number(frames.next());
      const user = frames.next();
      const json = frames.next();
      if (
        !Number.isSafeInteger(seq) ||
        !Number.isSafeInteger(epoch) ||
        user === undefined ||
        json === undefined
      )
        return undefined;
      entries.push({ seq, epoch, text: entryText(json, user === '' ? undefined : user.slice(1)) });
    }
    const earlier = pushed.get(key);
    if (earlier === undefined) pushed.set(key, entries);
    else earlier.push(...entries);
  }
  return pushed;
}

class Frames {
  readonly #bytes: Buffer;
  #at = 0;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  get done(): boolean {
    return this.#at >= this.#bytes.length;
  }

  /** The next frame's text, or undefined when there is none or it is malformed. */
  next(): string | undefined {
    const bytes = this.#bytes;
    const end = bytes.indexOf(colon, this.#at);
    if (end <= this.#at || end - this.#at > maxDigits) return undefined;
    let length = 0;
    for (let i = this.#at; i < end; i++) {
      const digit = (bytes[i] as number) - 0x30;
      if (digit < 0 || digit > 9) return undefined;
      length = length * 10 + digit;
    }
    const start = end + 1;
    if (start + length > bytes.length) return undefined;
    this.#at = start + length;
    return bytes.toString('utf8', start, this.#at);
  }
}
