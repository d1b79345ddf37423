// Writes throwaway settings files for loader and CLI tests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder with `appsettings.json` holding `settings`; returns the file path. */
export function writeSettings(settings: unknown, name = 'appsettings.json'): string {
  const dir = mkdtempSync(join(tmpdir(), 'plc-gateway-config-'));
  const file = join(dir, name);
  writeFileSync(file, typeof settings === 'string' ? settings : JSON.stringify(settings, null, 2));
  return file;
}

export const minimalSettings = { Auth: { UseDevelopmentKey: true } };
