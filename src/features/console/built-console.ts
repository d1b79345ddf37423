// The console as `npm run build` leaves it: index.html plus hashed assets under assets/. Read once at start-up,
// so the page is served from memory and a missing build is reported when the gateway starts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the build writes the console: dist/console at the package root (src/ and dist/ sit at the same depth). */
export const defaultConsoleDir = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

export interface BuiltConsole {
  readonly indexHtml: string;
  readonly assetsDir: string;
}

/** The built console in `dir`, or undefined when it has not been built there. */
export function loadBuiltConsole(dir: string): BuiltConsole | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  return { indexHtml: readFileSync(index, 'utf8'), assetsDir: join(dir, 'assets') };
}
