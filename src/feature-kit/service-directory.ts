// Where a feature publishes the one stateful service it built (a monitor, a cache) so another front door to
// the same operations (the MCP tools) uses that instance instead of building a second, diverging one.

/** A typed name for a published service; the feature that owns the service declares it. */
export class ServiceKey<T> {
  declare readonly type: T;
  constructor(readonly name: string) {}
}

export interface ServiceDirectory {
  provide<T>(key: ServiceKey<T>, service: T): void;
  /** The published service, or undefined when its feature did not publish one. */
  find<T>(key: ServiceKey<T>): T | undefined;
  /** The published service; throws when it is not published, a wiring error found at start-up. */
  get<T>(key: ServiceKey<T>): T;
}

export function createServiceDirectory(): ServiceDirectory {
  const services = new Map<ServiceKey<unknown>, unknown>();
  return {
    provide(key, service) {
      if (services.has(key)) throw new Error(`The ${key.name} service is published twice.`);
      services.set(key, service);
    },
    find<T>(key: ServiceKey<T>) {
      return services.get(key) as T | undefined;
    },
    get<T>(key: ServiceKey<T>) {
      if (!services.has(key)) throw new Error(`The ${key.name} service is not published.`);
      return services.get(key) as T;
    },
  };
}
