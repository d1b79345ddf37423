// What is cached per ADS connection: the type and symbol uploads, enum answers, file-service facts.
// A program download or an online change replaces the uploads; enum answers last as long as the connection.
import type { EnumMembers } from '../target.ts';
import type { LinkFileState } from './files.ts';
import type { Session } from './link-session.ts';
import type { AdsLinkSettings } from './settings.ts';
import { SymbolTable } from './symbol-table.ts';
import { TypeCatalog } from './type-catalog.ts';

/** Enum answers and the type upload they are resolved from, both fixed at the first enum request. */
interface EnumCache {
  types: Promise<TypeCatalog> | undefined;
  catalog?: TypeCatalog;
  members: Map<string, EnumMembers>;
}

interface ConnectionCache {
  types?: Promise<TypeCatalog>;
  /** The type upload once loaded. */
  catalog?: TypeCatalog;
  table?: Promise<SymbolTable>;
  files: LinkFileState;
  /** The PLC's symbol version the uploads belong to, when known. */
  symbolVersion?: number;
}

export class MetadataCache {
  readonly #settings: AdsLinkSettings;
  readonly #caches = new WeakMap<Session, ConnectionCache>();
  readonly #enums = new WeakMap<Session, EnumCache>();
  #symbolUploads = 0;

  constructor(settings: AdsLinkSettings) {
    this.#settings = settings;
  }

  /** How often the symbol table was uploaded (diagnostics). */
  get symbolUploads(): number {
    return this.#symbolUploads;
  }

  of(session: Session): ConnectionCache {
    let cache = this.#caches.get(session);
    if (!cache) {
      cache = { files: {} };
      this.#caches.set(session, cache);
    }
    return cache;
  }

  flush(session: Session): void {
    this.#caches.delete(session);
  }

  /** The whole data-type upload, on first need per connection; a failed upload is retried next time. */
  types(session: Session): Promise<TypeCatalog> {
    const cache = this.of(session);
    if (!cache.types) {
      const loading = session.client
        .getDataTypes(false, this.#ownTarget())
        .then((types) => (cache.catalog = new TypeCatalog(Object.values(types))));
      cache.types = loading;
      loading.catch(() => {
        if (cache.types === loading) delete cache.types;
      });
    }
    return cache.types;
  }

  /**
   * Enum answers are cached for the life of the connection, so a changed enum shows only after reconnecting
   * (the API's promise): unlike the uploads, a download does not flush them.
   */
  enums(session: Session): { members: Map<string, EnumMembers>; types(): Promise<TypeCatalog> } {
    let cache = this.#enums.get(session);
    if (!cache) {
      cache = { types: undefined, members: new Map() };
      this.#enums.set(session, cache);
    }
    const own = cache;
    return {
      members: own.members,
      types: () => {
        if (!own.types) {
          const loading = this.types(session).then((catalog) => (own.catalog = catalog));
          own.types = loading;
          loading.catch(() => {
            if (own.types === loading) own.types = undefined;
          });
        }
        return own.types;
      },
    };
  }

  /** Derived types remembered by the catalogs `session` holds (diagnostics). */
  derivedTypes(session: Session): number {
    const catalogs = new Set([this.#caches.get(session)?.catalog, this.#enums.get(session)?.catalog]);
    let n = 0;
    for (const c of catalogs) n += c?.derivedCount ?? 0;
    return n;
  }

  /** Whether the uploads of `session` belong to symbol version `version` (a notice of it needs no flush). */
  holds(session: Session, version: number): boolean {
    return this.#caches.get(session)?.symbolVersion === version;
  }

  /**
   * The symbol table for the PLC's current symbol `version` (just read from the PLC): uploaded again first
   * when the cached one belongs to an older program whose download notice has not arrived yet.
   */
  tableAt(session: Session, version: number): Promise<SymbolTable> {
    const known = this.#caches.get(session)?.symbolVersion;
    if (known !== undefined && known !== version) this.flush(session);
    return this.table(session, version);
  }

  /** The symbol upload resolved against the types, on first need per connection. */
  table(session: Session, version?: number): Promise<SymbolTable> {
    const cache = this.of(session);
    if (!cache.table) {
      // Read before the upload: a download during it shows as a newer version at the next check.
      cache.symbolVersion = version ?? session.client.metaData.plcSymbolVersion;
      const loading = (async () => {
        const types = await this.types(session);
        const symbols = await session.client.getSymbols(this.#ownTarget());
        this.#symbolUploads++;
        return new SymbolTable(Object.values(symbols), types);
      })();
      cache.table = loading;
      loading.catch(() => {
        if (cache.table === loading) delete cache.table;
      });
    }
    return cache.table;
  }

  /** Naming the target explicitly keeps ads-client from keeping (and re-reading) its own copies. */
  #ownTarget(): { amsNetId: string; adsPort: number } {
    return { amsNetId: this.#settings.targetNetId, adsPort: this.#settings.targetPort };
  }
}
