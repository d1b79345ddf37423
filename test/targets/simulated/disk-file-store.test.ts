// DiskFileStore.rename, which FRENAME uses over ADS on a FileRoot: a move that replaces, inside the root only.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AppError } from '../../../src/errors.ts';
import { DiskFileStore } from '../../../src/targets/simulated/index.ts';

const code = (c: string) => (e: unknown) => (e as AppError).code === c;

describe('DiskFileStore.rename', () => {
  let root: string;
  let outside: string;
  let store: DiskFileStore;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'plc-rename-'));
    outside = await mkdtemp(join(tmpdir(), 'plc-rename-outside-'));
    store = new DiskFileStore(root);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('moves a file over an existing one and creates missing folders', async () => {
    await store.write('recipes/.tmp', Buffer.from('new'));
    await store.write('recipes/r1.csv', Buffer.from('old'));
    await store.rename('recipes/.tmp', 'recipes/r1.csv');
    assert.equal((await readFile(join(root, 'recipes', 'r1.csv'))).toString(), 'new');
    assert.deepEqual(await readdir(join(root, 'recipes')), ['r1.csv']);
    await store.rename('recipes/r1.csv', 'archive/2026/r1.csv');
    assert.equal((await store.read('archive/2026/r1.csv')).toString(), 'new');
  });

  it('refuses a missing source, a folder and paths that leave the root', async () => {
    await store.write('keep.txt', Buffer.from('k'));
    await assert.rejects(store.rename('none.txt', 'x.txt'), code('FILE_NOT_FOUND'));
    await assert.rejects(store.rename('archive', 'moved'), code('VALIDATION_ERROR'));
    await assert.rejects(store.rename('keep.txt', '../escaped.txt'), code('VALIDATION_ERROR'));
    await writeFile(join(outside, 'secret'), 'nope');
    await symlink(outside, join(root, 'link'));
    await assert.rejects(store.rename('keep.txt', 'link/stolen.txt'), code('VALIDATION_ERROR'));
    await assert.rejects(store.rename('link/secret', 'taken.txt'), code('VALIDATION_ERROR'));
    assert.deepEqual(await readdir(outside), ['secret']);
    assert.equal((await store.read('keep.txt')).toString(), 'k');
  });
});
