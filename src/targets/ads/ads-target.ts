// The PlcTarget port over ADS (ads-client): one connection per PLC shared by every caller, symbols and
// types from the PLC's upload cached per connection, values converted by the engine's codec.
import type { Client } from 'ads-client';
import { AppError } from '../../errors.ts';
import { perItem } from '../batch-item.ts';
import { NonMemberNotes } from '../enum-notes.ts';
import {
  adsStates,
  type AdsState,
  type BatchReadItem,
  type BatchWriteItem,
  type ConnectionListener,
  type ConnectionState,
  type DeviceInfo,
  type DeviceState,
  type EnumMembers,
  type MethodResult,
  type PlcFiles,
  type PlcTarget,
  type ReadResult,
  type SubscribeOptions,
  type Subscription,
  type SymbolNode,
  type MethodArguments,
  type NotificationBudgetPort,
  type TargetError,
  type TargetLog,
} from '../target.ts';
import { AdsLink } from './ads-link.ts';
import { AdsFiles } from './files.ts';
import { AdsEtherCat } from './ads-ethercat.ts';
import type { EtherCatPort } from '../ethercat-port.ts';
import { OnlineChangeWatch } from './online-change.ts';
import { ProgramChangeListeners, ProgramChangeReport } from './program-change-report.ts';
import type { ProgramChangeKind, ProgramChangeListener } from '../program-change.ts';
import { connectFailure } from './connect-failure.ts';
import { toAppError } from './ads-errors.ts';
import { FailureLog, silentLog } from '../failure-log.ts';
import { toPlcClock } from '../plc-clock.ts';
import { findMethodTarget, packInputs, resultSize, unpackResult } from './rpc.ts';
import type { Session } from './link-session.ts';
import type { AdsLinkSettings } from './settings.ts';
import { SubscriptionManager } from './subscriptions.ts';
import { MetadataCache } from './metadata-cache.ts';
import type { SymbolAddress } from './symbol-table.ts';
import {
  decodeValue,
  itemError,
  rangeWrites,
  readMany,
  readRaw,
  writeAll,
  writeMany,
  type RawWrite,
} from './value-io.ts';
import { writeRanges } from './write-ranges.ts';

const controlStates = { Run: 5, Stop: 6, Reset: 2 } as const;
const SymbolValueByHandle = 0xf005;

export class AdsTarget implements PlcTarget {
  readonly id: string;
  readonly displayName: string;
  readonly mode = 'Real' as const;
  readonly files: PlcFiles;
  readonly etherCat: EtherCatPort;
  readonly notificationBudget: NotificationBudgetPort;
  readonly #settings: AdsLinkSettings;
  readonly #link: AdsLink;
  readonly #subscriptions: SubscriptionManager;
  readonly #metadata: MetadataCache;
  readonly #log: TargetLog;
  readonly #failures: FailureLog;
  readonly #onlineChanges: OnlineChangeWatch;
  readonly #programChanges = new ProgramChangeListeners();
  /** The PLC's symbol version as last seen, across connections: a different one at reconnecting is a download. */
  #symbolVersion: number | undefined;

  /** `log` is bound to the target's plcId here. */
  constructor(id: string, displayName: string, settings: AdsLinkSettings, log: TargetLog = silentLog) {
    this.id = id;
    this.displayName = displayName;
    this.#settings = settings;
    this.#log = log.child({ plcId: id });
    this.#failures = new FailureLog(this.#log, settings.now);
    this.#metadata = new MetadataCache(settings);
    this.#onlineChanges = new OnlineChangeWatch((s) => void this.#onlineChanged(s));
    this.#link = new AdsLink(settings, {
      onSession: (session) => void this.#connected(session),
      onSymbolVersionChange: (session, version) => void this.#downloaded(session, version),
      onConnectFailed: (err) => void this.#connectFailed(err),
    });
    this.#subscriptions = new SubscriptionManager(
      {
        session: () => this.#link.session,
        table: (s) => this.#metadata.table(s),
        retry: (s) => this.#link.drop(s),
        failed: (what, err) => this.#swallowed(what, err),
      },
      settings,
    );
    const subscriptions = this.#subscriptions;
    this.notificationBudget = {
      counts: () => ({
        notifications: subscriptions.notificationCount,
        polled: subscriptions.polledCount,
        refusals: subscriptions.refusals,
      }),
      report: () => subscriptions.report(),
    };
    this.#link.onState((state) => {
      if (state !== 'Connected') this.#subscriptions.detachAll();
    });
    this.files = new AdsFiles(
      (what, fn) => this.#use(what, (session, client) => fn(client, this.#metadata.of(session).files)),
      settings.maxFileBytes,
    );
    this.etherCat = new AdsEtherCat(
      (what, fn) => this.#use(what, (_, client) => fn(client)),
      settings.targetNetId,
    );
  }

  /**
   * Notifications in use, subscriptions polled (beyond the budget or refused by the PLC), refusals, how often the notifications were
   * registered again together, and how often the symbol table was uploaded (once per connection,
   * program download or online change).
   */
  get diagnostics(): {
    notifications: number;
    polled: number;
    refusals: number;
    restores: number;
    alignments: number;
    symbolUploads: number;
    onlineChangeWatch: boolean;
    onlineChanges: number;
    connectAttempts: number;
    derivedTypes: number;
  } {
    const session = this.#link.session;
    return {
      derivedTypes: session ? this.#metadata.derivedTypes(session) : 0,
      connectAttempts: this.#link.attempts,
      notifications: this.#subscriptions.notificationCount,
      polled: this.#subscriptions.polledCount,
      refusals: this.#subscriptions.refusals,
      restores: this.#subscriptions.restores,
      alignments: this.#subscriptions.alignments,
      symbolUploads: this.#metadata.symbolUploads,
      onlineChangeWatch: this.#onlineChanges.armed,
      onlineChanges: this.#onlineChanges.changes,
    };
  }

  start(): Promise<void> {
    return this.#link.start();
  }

  async close(): Promise<void> {
    this.#subscriptions.closeAll();
    await this.#link.close(() => Promise.resolve());
  }

  connectionState(): ConnectionState {
    return this.#link.state;
  }

  lastError(): TargetError | undefined {
    return this.#link.state === 'Connected' ? undefined : this.#failures.lastError;
  }

  onConnectionState(listener: ConnectionListener): () => void {
    return this.#link.onState(listener);
  }

  deviceInfo(): Promise<DeviceInfo> {
    return this.#use('Reading device info', async (_, client) => {
      const info = await client.readDeviceInfo();
      const state = await client.readState();
      return {
        deviceName: info.deviceName,
        version: `${info.majorVersion}.${info.minorVersion}.${info.versionBuild}`,
        adsState: stateName(state.adsState),
      };
    });
  }

  deviceState(): Promise<DeviceState> {
    return this.#use('Reading the device state', async (_, client) => {
      const state = await client.readState();
      return { state: stateName(state.adsState), timestamp: new Date(this.#settings.now()) };
    });
  }

  setAdsState(state: 'Run' | 'Stop' | 'Reset'): Promise<AdsState> {
    return this.#use(`Setting the PLC to ${state}`, async (_, client) => {
      await client.writeControl(controlStates[state]);
      return stateName((await client.readState()).adsState);
    });
  }

  /** Asked for rarely (the symbol index), so it checks the symbol version: a download just done is seen. */
  symbols(): Promise<SymbolNode[]> {
    return this.#use('Reading symbols', async (session, client) => {
      const version = await client.readPlcSymbolVersion(this.#ownTarget());
      return (await this.#metadata.tableAt(session, version)).tree();
    });
  }

  enumMembers(typeName: string): Promise<EnumMembers> {
    return this.#use(`Reading type ${typeName}`, async (session) => {
      const cache = this.#metadata.enums(session);
      const key = typeName.trim().toUpperCase();
      let hit = cache.members.get(key);
      if (!hit) {
        const type = (await cache.types()).resolve(typeName);
        if (type.kind !== 'enum') throw new AppError('VALIDATION_ERROR', `${type.name} is not an enum.`);
        hit = { typeName: type.name, members: type.members.map((m) => ({ ...m })) };
        cache.members.set(key, hit);
      }
      return { typeName: hit.typeName, members: hit.members.map((m) => ({ ...m })) };
    });
  }

  read(path: string): Promise<ReadResult> {
    return this.#use(`Reading ${path}`, async (session, client) => {
      const a = (await this.#metadata.table(session)).resolve(path);
      const data = await readRaw(client, a);
      return {
        symbol: path,
        value: decodeValue(a.type, data, a.path, this.#settings.plcClock),
        typeName: a.type.name,
        timestamp: new Date(this.#settings.now()),
      };
    });
  }

  readMany(paths: readonly string[]): Promise<BatchReadItem[]> {
    return this.#use('Reading symbols', async (session, client) => {
      const table = await this.#metadata.table(session);
      const out: BatchReadItem[] = new Array<BatchReadItem>(paths.length);
      const pending: Array<{ index: number; address: SymbolAddress }> = [];
      paths.forEach((path, index) => {
        const r = perItem(path, () => table.resolve(path));
        if ('error' in r) out[index] = r;
        else pending.push({ index, address: r.value });
      });
      const raw = await readMany(
        client,
        pending.map((p) => p.address),
        this.#settings.batchLimits,
      );
      const now = new Date(this.#settings.now());
      pending.forEach(({ index, address }, k) => {
        const path = paths[index] ?? address.path;
        const r = raw[k];
        if (!r) return;
        if (!r.ok) {
          out[index] = { symbol: path, error: itemError(r.code, path) };
          return;
        }
        const decoded = perItem(path, () =>
          decodeValue(address.type, r.data, address.path, this.#settings.plcClock),
        );
        out[index] =
          'error' in decoded
            ? decoded
            : { symbol: path, value: decoded.value, typeName: address.type.name, timestamp: now };
      });
      return out;
    });
  }

  write(path: string, value: unknown): Promise<void> {
    return this.#use(`Writing ${path}`, async (session, client) => {
      const a = (await this.#metadata.table(session)).resolve(path);
      // Validated in full before anything reaches the PLC: TYPE_MISMATCH leaves it untouched.
      const notes = new NonMemberNotes();
      const plcValue = toPlcClock(a.type, value, this.#settings.plcClock);
      const writes = rangeWrites(a, writeRanges(a.type, plcValue, a.path, notes.sink));
      await writeAll(client, writes, this.#settings.batchLimits);
      notes.report(this.#log);
    });
  }

  /** Each item is validated before anything is written; a bad item fails alone. One sum write for all. */
  writeMany(values: ReadonlyArray<{ symbol: string; value: unknown }>): Promise<BatchWriteItem[]> {
    return this.#use('Writing symbols', async (session, client) => {
      const table = await this.#metadata.table(session);
      const out: BatchWriteItem[] = new Array<BatchWriteItem>(values.length);
      const prepared: Array<{ index: number; writes: RawWrite[]; notes: NonMemberNotes }> = [];
      values.forEach(({ symbol, value }, index) => {
        const notes = new NonMemberNotes();
        const r = perItem(symbol, () => {
          const address = table.resolve(symbol);
          const plcValue = toPlcClock(address.type, value, this.#settings.plcClock);
          return rangeWrites(address, writeRanges(address.type, plcValue, address.path, notes.sink));
        });
        if ('error' in r) out[index] = r;
        else prepared.push({ index, writes: r.value, notes });
      });
      const codes = await writeMany(
        client,
        prepared.flatMap((p) => p.writes),
        this.#settings.batchLimits,
      );
      let k = 0;
      for (const { index, writes, notes } of prepared) {
        const symbol = values[index]?.symbol ?? '';
        const code = codes.slice(k, k + writes.length).find((c) => c !== 0) ?? 0;
        k += writes.length;
        out[index] = code === 0 ? { symbol } : { symbol, error: itemError(code, symbol) };
        if (code === 0) notes.report(this.#log);
      }
      return out;
    });
  }

  invoke(instancePath: string, method: string, parameters: MethodArguments): Promise<MethodResult> {
    return this.#use(`Calling ${instancePath}#${method}`, async (session, client) => {
      const target = findMethodTarget(await this.#metadata.table(session), instancePath, method);
      const inputs = packInputs(target, parameters);
      const handle = await client.createVariableHandle(target.handleName);
      try {
        const data = await client.readWriteRaw(
          SymbolValueByHandle,
          handle.handle,
          resultSize(target.method),
          inputs,
        );
        return unpackResult(target.method, data);
      } finally {
        await client.deleteVariableHandle(handle).catch(() => undefined);
      }
    });
  }

  subscribe(path: string, options: SubscribeOptions): Promise<Subscription> {
    return this.#subscriptions.subscribe(path, options);
  }

  onProgramChange(listener: ProgramChangeListener): () => void {
    return this.#programChanges.on(listener);
  }

  #use<T>(what: string, fn: (session: Session, client: Client) => Promise<T>): Promise<T> {
    const session = this.#link.session;
    if (!session) {
      return Promise.reject(new AppError('PLC_UNAVAILABLE', `PLC '${this.id}' is not connected.`));
    }
    return session.run(what, (client) => fn(session, client));
  }

  async #connected(session: Session): Promise<void> {
    this.#failures.recovered();
    await this.#onlineChanges.arm(session).catch((err) => this.#swallowed('Watching online changes', err));
    const version: number | undefined = session.client.metaData.plcSymbolVersion;
    const old = this.#symbolVersion;
    // A program downloaded while the gateway was away shows as another version at reconnecting.
    const report =
      old !== undefined && version !== undefined && version !== old
        ? this.#report('download', old, version)
        : undefined;
    if (version !== undefined) this.#symbolVersion = version;
    await this.#subscriptions
      .restore(session, report)
      .catch((err) => this.#swallowed('Restoring subscriptions', err));
    if (report) this.#programChanges.emit(report.finish(new Date(this.#settings.now())));
  }

  #report(kind: ProgramChangeKind, old: number | undefined, next: number | undefined): ProgramChangeReport {
    return new ProgramChangeReport(kind, { old, new: next }, this.#settings.maxProgramChangeSymbols);
  }

  async #connectFailed(err: unknown): Promise<void> {
    const s = this.#settings;
    const error = await connectFailure(err, {
      plcId: this.id,
      host: s.host,
      tcpPort: s.tcpPort,
      netId: s.targetNetId,
      timeoutMs: s.timeoutMs,
    });
    if (this.#link.state !== 'Connected') this.#failures.failed('Connecting', error, true);
  }

  /** A failure nobody awaits: logged once per distinct cause. */
  #swallowed(what: string, err: unknown): void {
    const e = toAppError(err, what, this.id);
    this.#failures.failed(what, { code: e.code, message: e.message });
  }

  /** Explicit target: ads-client then leaves the version (and its download handling) to the notification. */
  #ownTarget(): { amsNetId: string; adsPort: number } {
    return { amsNetId: this.#settings.targetNetId, adsPort: this.#settings.targetPort };
  }

  async #downloaded(session: Session, version: number): Promise<void> {
    // symbols() may have seen this version first and uploaded it already.
    if (!this.#metadata.holds(session, version)) this.#metadata.flush(session);
    // The download deletes every notification of the connection, the counter's among them: watch it again.
    this.#onlineChanges.forget();
    const report = this.#report('download', this.#symbolVersion, version);
    this.#symbolVersion = version;
    await this.#subscriptions
      .symbolVersionChanged(session, report)
      .catch((err) => this.#swallowed('Rebinding subscriptions after a download', err));
    // Told even when the link broke halfway: what was found stands (the rest is re-resolved at reconnecting).
    this.#programChanges.emit(report.finish(new Date(this.#settings.now())));
    if (!session.alive) return;
    await this.#onlineChanges
      .arm(session)
      .catch((err) => this.#swallowed('Watching online changes after a download', err));
  }

  async #onlineChanged(session: Session): Promise<void> {
    this.#metadata.flush(session);
    const report = this.#report('onlineChange', this.#symbolVersion, this.#symbolVersion);
    await this.#subscriptions
      .onlineChanged(session, report)
      .catch((err) => this.#swallowed('Rebinding subscriptions after an online change', err));
    this.#programChanges.emit(report.finish(new Date(this.#settings.now())));
  }
}

function stateName(n: number): AdsState {
  return adsStates[n] ?? 'Invalid';
}
