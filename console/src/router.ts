// Hash routes (`#/plc/line1`): the page is one document, so reloads and links land on the same view.
import { signal } from '@preact/signals';

export interface Route {
  /** Decoded path segments: `#/plc/line1` -> ['plc', 'line1']. */
  segments: string[];
  query: URLSearchParams;
}

function parse(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  return {
    segments: path
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponent(s)),
    query: new URLSearchParams(query),
  };
}

export const route = signal<Route>(parse(location.hash));

export function startRouter(): void {
  route.value = parse(location.hash);
  window.addEventListener('hashchange', () => (route.value = parse(location.hash)));
}

/** `href('plc', 'line1')` -> `#/plc/line1`. */
export function href(...segments: string[]): string {
  return `#/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
}
