// Online changes keep the symbol version but may move variables: watch TwinCAT's online-change counter.
import type { Session } from './link-session.ts';

const onlineChangeCounter = 'TwinCAT_SystemInfoVarList._AppInfo.OnlineChangeCnt';

/** The ads-client subscription object, reduced to what we use. */
interface CounterNotification {
  unsubscribe(): Promise<void>;
}

/**
 * Subscribes to the counter when the PLC publishes it (TwinCAT 3 does; older systems and simulators may
 * not) and calls `onChange` whenever it moves. Armed again after every program download (which drops
 * every notification of the connection), so changes are followed for the life of the connection.
 */
export class OnlineChangeWatch {
  readonly #onChange: (session: Session) => void;
  #session: Session | undefined;
  #notification: CounterNotification | undefined;
  #generation = 0;
  #armed = false;
  #changes = 0;

  constructor(onChange: (session: Session) => void) {
    this.#onChange = onChange;
  }

  /** True once the counter's current value arrived on the live connection. */
  get armed(): boolean {
    return this.#armed && this.#session?.alive === true;
  }

  /** Online changes followed since the target was created. */
  get changes(): number {
    return this.#changes;
  }

  /**
   * (Re)subscribes on `session`, releasing any earlier notification first. Resolves false when the PLC
   * has no counter; throws what the subscription failed with.
   */
  async arm(session: Session): Promise<boolean> {
    const generation = ++this.#generation;
    await this.#release();
    this.#session = session;
    this.#armed = false;
    const own = {
      amsNetId: session.client.settings.targetAmsNetId,
      adsPort: session.client.settings.targetAdsPort,
    };
    let symbol;
    try {
      symbol = await session.run('Looking up the online-change counter', (c) =>
        c.getSymbol(onlineChangeCounter, own),
      );
    } catch {
      return false;
    }
    let last: number | undefined;
    const notification = await session.run('Watching the online-change counter', (c) =>
      c.subscribeRaw(
        symbol.indexGroup,
        symbol.indexOffset,
        Math.min(symbol.size, 4),
        (data) => {
          if (generation !== this.#generation || !session.alive || data.value.length < 4) return;
          const value = data.value.readUInt32LE(0);
          this.#armed = true;
          if (last !== undefined && value !== last) {
            this.#changes++;
            this.#onChange(session);
          }
          last = value;
        },
        1000,
        true,
      ),
    );
    if (generation !== this.#generation) {
      await notification.unsubscribe().catch(() => undefined);
      return true;
    }
    this.#notification = notification;
    return true;
  }

  /** Lets go of the notification without deleting it: a program download already removed it on the PLC. */
  forget(): void {
    this.#generation++;
    this.#notification = undefined;
    this.#armed = false;
  }

  async #release(): Promise<void> {
    const notification = this.#notification;
    const session = this.#session;
    this.#notification = undefined;
    if (notification && session?.alive) {
      await session.run('Deleting the online-change notification', () => notification.unsubscribe());
    }
  }
}
