// Invocation frames rendered once per event, not once per client: an event fanned out to hundreds of hub
// connections is turned into its frame by the first of them to write it, and a whole scan's run of events (the
// same array handed to every client) into one Buffer that every connection writes as it is. One cache per hub and
// protocol.
import type { StreamEvent } from '../outbox.ts';
import type { Frame, WireProtocol } from './wire-protocols.ts';

/**
 * Server-to-client methods by the stream event name the feature sends (others are not sent to hub clients): a
 * method name, whose one argument is the event data, or a method with a function reshaping the data's JSON into
 * its argument (or, as an array, its arguments).
 */
export type ServerMethods = Readonly<
  Record<
    string,
    string | { readonly method: string; readonly argument: (json: string) => string | readonly string[] }
  >
>;

export class FrameCache {
  readonly #methods: ServerMethods;
  readonly #protocol: WireProtocol;
  readonly #frames = new WeakMap<StreamEvent, Frame>();
  readonly #runs = new WeakMap<readonly StreamEvent[], Buffer>();

  constructor(methods: ServerMethods, protocol: WireProtocol) {
    this.#methods = methods;
    this.#protocol = protocol;
  }

  /** Whether hub clients get this event at all. */
  sends(event: StreamEvent): boolean {
    return this.#methods[event.name] !== undefined;
  }

  /** The event's invocation frame; undefined when hub clients do not get it. */
  frame(event: StreamEvent, method?: string): Frame | undefined {
    let frame = this.#frames.get(event);
    if (frame !== undefined) return frame;
    const m = method ?? this.#methods[event.name];
    if (m === undefined) return undefined;
    frame =
      typeof m === 'string'
        ? this.#protocol.invocation(m, event.data)
        : this.#protocol.invocation(m.method, m.argument(event.data));
    this.#frames.set(event, frame);
    return frame;
  }

  /** One message holding the frames of every event in `run` (each of which hub clients get). */
  run(run: readonly StreamEvent[]): Buffer {
    let buffer = this.#runs.get(run);
    if (buffer === undefined) {
      const joined = this.#protocol.join(run.map((e) => this.frame(e) ?? ''));
      buffer = typeof joined === 'string' ? Buffer.from(joined) : joined;
      this.#runs.set(run, buffer);
    }
    return buffer;
  }
}

const caches = new WeakMap<ServerMethods, Map<WireProtocol, FrameCache>>();

/** The cache of a hub's server methods in one protocol, shared by all of its connections speaking it. */
export function frameCacheFor(methods: ServerMethods, protocol: WireProtocol): FrameCache {
  let byProtocol = caches.get(methods);
  if (byProtocol === undefined) {
    byProtocol = new Map();
    caches.set(methods, byProtocol);
  }
  let cache = byProtocol.get(protocol);
  if (cache === undefined) {
    cache = new FrameCache(methods, protocol);
    byProtocol.set(protocol, cache);
  }
  return cache;
}
