import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { MemoryFileStore, splitFilePath } from '../../../src/simulator/engine/index.ts';

const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

describe('file paths', () => {
  const good: Array<[string, string[]]> = [
    ['a.txt', ['a.txt']],
    ['dir/sub/a.txt', ['dir', 'sub', 'a.txt']],
    ['dir/', ['dir']],
  ];
  for (const [path, segments] of good)
    it(`accepts ${path}`, () => assert.deepEqual(splitFilePath(path), segments));
  const bad = ['../x', 'a/../../x', '/etc/passwd', 'C:/x', 'a\\b', 'a\0b', 'a//b', './a', ''];
  for (const path of bad) {
    it(`refuses ${JSON.stringify(path)}`, () =>
      assert.throws(() => splitFilePath(path), code('VALIDATION_ERROR')));
  }
  it('root only where allowed', () => assert.deepEqual(splitFilePath('', true), []));
});

describe('MemoryFileStore', () => {
  it('writes, reads, lists and replaces atomically', async () => {
    let now = 1_000;
    const store = new MemoryFileStore(() => now);
    const content = Buffer.from('hello');
    await store.write('recipes/r1.json', content);
    content[0] = 0x48;
    assert.equal((await store.read('recipes/r1.json')).toString(), 'hello');
    now = 2_000;
    await store.write('recipes/r1.json', Buffer.from('v2!'));
    await store.write('top.bin', Buffer.alloc(3));
    assert.deepEqual(await store.list(''), [
      { name: 'recipes', type: 'dir', size: 0, modified: new Date(2_000) },
      { name: 'top.bin', type: 'file', size: 3, modified: new Date(2_000) },
    ]);
    assert.deepEqual(await store.list('recipes'), [
      { name: 'r1.json', type: 'file', size: 3, modified: new Date(2_000) },
    ]);
    const read = await store.read('recipes/r1.json');
    read[0] = 0;
    assert.equal((await store.read('recipes/r1.json')).toString(), 'v2!');
  });
  it('FILE_NOT_FOUND and refused paths', async () => {
    const store = new MemoryFileStore();
    await store.write('d/f', Buffer.from('x'));
    await assert.rejects(store.read('missing'), code('FILE_NOT_FOUND'));
    await assert.rejects(store.read('d'), code('FILE_NOT_FOUND'));
    await assert.rejects(store.list('nope'), code('FILE_NOT_FOUND'));
    await assert.rejects(store.list('d/f'), code('VALIDATION_ERROR'));
    await assert.rejects(store.write('../escape', Buffer.from('x')), code('VALIDATION_ERROR'));
    await assert.rejects(store.write('d/f/g', Buffer.from('x')), code('VALIDATION_ERROR'));
    await assert.rejects(store.write('d', Buffer.from('x')), code('VALIDATION_ERROR'));
    await assert.rejects(store.remove('d'), code('VALIDATION_ERROR'));
    await store.remove('d/f');
    await store.remove('d');
    assert.deepEqual(await store.list(''), []);
  });
});

describe('MemoryFileStore.rename', () => {
  it('moves a file, replacing a file at the target and creating its folders', async () => {
    const store = new MemoryFileStore();
    await store.write('a/tmp.bin', Buffer.from('new'));
    await store.write('b/c/data.bin', Buffer.from('old'));
    await store.rename('a/tmp.bin', 'b/c/data.bin');
    assert.equal((await store.read('b/c/data.bin')).toString(), 'new');
    await assert.rejects(store.read('a/tmp.bin'), (e: unknown) => (e as AppError).code === 'FILE_NOT_FOUND');
    await store.rename('b/c/data.bin', 'd/e/moved.bin');
    assert.equal((await store.read('d/e/moved.bin')).toString(), 'new');
  });

  it('refuses a missing source, a folder, a folder at the target and unsafe paths', async () => {
    const store = new MemoryFileStore();
    await store.write('dir/x.txt', Buffer.from('x'));
    await store.write('y.txt', Buffer.from('y'));
    const code = (c: string) => (e: unknown) => (e as AppError).code === c;
    await assert.rejects(store.rename('none.txt', 'z.txt'), code('FILE_NOT_FOUND'));
    await assert.rejects(store.rename('dir', 'z'), code('VALIDATION_ERROR'));
    await assert.rejects(store.rename('y.txt', 'dir'), code('VALIDATION_ERROR'));
    await assert.rejects(store.rename('y.txt', '../escape.txt'), code('VALIDATION_ERROR'));
    assert.equal((await store.read('y.txt')).toString(), 'y');
  });
});
