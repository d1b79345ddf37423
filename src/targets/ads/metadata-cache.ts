// What is cached per ADS connection: the type and symbol uploads, enum answers, file-service facts.
// A program download or an online change replaces the cache of that connection.
import type { EnumMembers } from '../target.ts';
import type { LinkFileState } from './files.ts';
import type { Session } from './session.ts';
import type { AdsLinkSettings } from './settings.ts';
import { SymbolTable } from './symbol-table.ts';
import { TypeCatalog } from './type-catalog.ts';

interface ConnectionCache {
  types?: Promise<TypeCatalog>;
  table?: Promise<SymbolTable>;
  enums: Map<string, EnumMembers>;
  files: LinkFileState;
}

export class MetadataCache {
  readonly #settings: AdsLinkSettings;
  readonly #caches = new WeakMap<Session, ConnectionCache>();
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
      cache = { enums: new Map(), files: {} };
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
      const loading = session
        .long(this.#settings.symbolBrowseTimeoutMs, () =>
          session.client.getDataTypes(false, this.#ownTarget()),
        )
        .then((types) => new TypeCatalog(Object.values(types)));
      cache.types = loading;
      loading.catch(() => {
        if (cache.types === loading) delete cache.types;
      });
    }
    return cache.types;
  }

  /** The symbol upload resolved against the types, on first need per connection. */
  table(session: Session): Promise<SymbolTable> {
    const cache = this.of(session);
    if (!cache.table) {
      const loading = (async () => {
        const types = await this.types(session);
        const symbols = await session.long(this.#settings.symbolBrowseTimeoutMs, () =>
          session.client.getSymbols(this.#ownTarget()),
        );
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
