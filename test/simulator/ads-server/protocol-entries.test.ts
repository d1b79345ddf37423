// Symbol and data-type entries checked with the parser of the real ads-client (no network involved).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from 'ads-client';
import { ProgramBuilder } from '../../../src/simulator/engine/program.ts';
import { typeKey } from '../../../src/simulator/ads-server/protocol/ads-types.ts';
import {
  encodeDataTypeEntry,
  encodeSymbolEntry,
} from '../../../src/simulator/ads-server/protocol/type-entries.ts';
import {
  buildSymbolCatalog,
  encodeHandleInfo,
  encodeUploadInfo,
} from '../../../src/simulator/ads-server/protocol/symbol-catalog.ts';
import { decodeFindRecord, encodeFindRecord, FIND_RECORD_LENGTH } from '../../../src/plc/ads/file-records.ts';

interface ParsedType {
  name: string;
  type: string;
  size: number;
  offset: number;
  adsDataType: number;
  flagsStr: string[];
  arrayInfos: Array<{ startIndex: number; length: number }>;
  subItems: ParsedType[];
  enumInfos: Array<{ name: string; value: Buffer }>;
  rpcMethods: Array<{
    name: string;
    retunDataType: string;
    returnTypeSize: number;
    attributes: Array<{ name: string; value: string }>;
    parameters: Array<{ name: string; type: string; size: number; flags: number }>;
  }>;
  reserved: Buffer;
}

interface ParsedSymbol {
  name: string;
  type: string;
  comment: string;
  indexGroup: number;
  indexOffset: number;
  size: number;
  adsDataType: number;
  reserved: Buffer;
}

// The parsers are internal methods of ads-client; reaching them directly tests byte compatibility.
const client = new Client({ targetAmsNetId: '127.0.0.1.1.1', targetAdsPort: 851, hideConsoleWarnings: true });
const internals = client as unknown as {
  metaData: { adsSymbolsUseUtf8: boolean };
  parseAdsResponseDataType(data: Buffer): ParsedType;
  parseAdsResponseSymbol(data: Buffer): ParsedSymbol;
};
internals.metaData.adsSymbolsUseUtf8 = true;
const parseType = (entry: Buffer): ParsedType => internals.parseAdsResponseDataType(entry.subarray(4));
const parseSymbol = (entry: Buffer): ParsedSymbol => internals.parseAdsResponseSymbol(entry.subarray(4));

function program() {
  const b = new ProgramBuilder();
  b.enum('E_Mode', [
    { name: 'IDLE', value: 0 },
    { name: 'RUN', value: 5 },
    { name: 'FAULT', value: -3 },
  ]);
  b.struct('ST_Point', [
    { name: 'x', type: 'LREAL', comment: 'metres' },
    { name: 'ok', type: 'BOOL' },
  ]);
  b.struct('ST_Line', [
    { name: 'a', type: 'ST_Point' },
    { name: 'b', type: 'ST_Point' },
    { name: 'label', type: 'STRING(15)' },
    { name: 'grid', type: 'ARRAY [0..1,1..3] OF INT' },
    { name: 'mode', type: 'E_Mode' },
  ]);
  b.functionBlock(
    'FB_Alarms',
    [{ name: 'nCount', type: 'UDINT' }],
    [
      {
        name: 'Acknowledge',
        returnType: 'BOOL',
        parameters: [
          { name: 'sKey', type: 'STRING(80)' },
          { name: 'nLeft', type: 'DINT', direction: 'out' },
        ],
        comment: 'acknowledges one alarm',
      },
      { name: 'Reset', returnType: null, attributes: [] },
    ],
  );
  b.symbol('MAIN.line', 'ST_Line', { comment: 'the line' });
  b.symbol('MAIN.lines', 'ARRAY [1..4] OF ST_Line');
  b.symbol('MAIN.fbAlarms', 'FB_Alarms');
  b.symbol('GVL.sName', 'WSTRING(20)');
  return b.build();
}

describe('data-type entries', () => {
  const p = program();

  it('serves a struct with full sub-items, offsets and array infos', () => {
    const t = parseType(encodeDataTypeEntry(p.types.resolve('ST_Line')));
    assert.equal(t.name, 'ST_Line');
    assert.equal(t.type, '');
    assert.equal(t.adsDataType, 65);
    assert.deepEqual(t.flagsStr, ['DataType']);
    assert.deepEqual(
      t.subItems.map((s) => [s.name, s.type, s.offset, s.size]),
      [
        ['a', 'ST_Point', 0, 16],
        ['b', 'ST_Point', 16, 16],
        ['label', 'STRING(15)', 32, 16],
        ['grid', 'ARRAY [0..1,1..3] OF INT', 48, 12],
        ['mode', 'E_Mode', 60, 2],
      ],
    );
    assert.deepEqual(t.subItems[3]?.arrayInfos, [
      { startIndex: 0, length: 2 },
      { startIndex: 1, length: 3 },
    ]);
    assert.equal(t.reserved.length, 0);
  });

  it('serves an enum with values in its base type', () => {
    const t = parseType(encodeDataTypeEntry(p.types.resolve('E_Mode')));
    assert.equal(t.type, 'INT');
    assert.deepEqual(t.flagsStr, ['DataType', 'EnumInfos']);
    assert.deepEqual(
      t.enumInfos.map((e) => [e.name, e.value.readInt16LE(0)]),
      [
        ['IDLE', 0],
        ['RUN', 5],
        ['FAULT', -3],
      ],
    );
  });

  it('serves an array under its exact TwinCAT name', () => {
    const t = parseType(encodeDataTypeEntry(p.types.resolve('ARRAY [1..4] OF ST_Line')));
    assert.equal(t.name, 'ARRAY [1..4] OF ST_Line');
    assert.equal(t.type, 'ST_Line');
    assert.equal(t.size, 4 * 64);
    assert.deepEqual(t.arrayInfos, [{ startIndex: 1, length: 4 }]);
  });

  it('serves a function block with RPC method infos and attributes', () => {
    const t = parseType(encodeDataTypeEntry(p.types.resolve('FB_Alarms')));
    assert.deepEqual(t.flagsStr, ['DataType', 'MethodInfos']);
    const [ack, reset] = t.rpcMethods;
    assert.equal(ack?.name, 'Acknowledge');
    assert.equal(ack?.retunDataType, 'BOOL');
    assert.equal(ack?.returnTypeSize, 1);
    assert.deepEqual(ack?.attributes, [{ name: 'TcRpcEnable', value: '' }]);
    assert.deepEqual(
      ack?.parameters.map((x) => [x.name, x.type, x.size, x.flags]),
      [
        ['sKey', 'STRING(80)', 81, 1],
        ['nLeft', 'DINT', 4, 2],
      ],
    );
    assert.equal(reset?.returnTypeSize, 0);
    assert.deepEqual(reset?.attributes, []);
    assert.equal(t.reserved.length, 0);
  });
});

describe('symbol entries and catalog', () => {
  const p = program();

  it('encodes a symbol entry', () => {
    const def = p.symbol('MAIN.line');
    assert.ok(def);
    const s = parseSymbol(
      encodeSymbolEntry({
        name: def.name,
        type: def.type,
        indexGroup: 0x4040,
        indexOffset: def.offset,
        comment: def.comment,
      }),
    );
    assert.deepEqual(
      [s.name, s.type, s.comment, s.indexGroup, s.indexOffset, s.size, s.adsDataType],
      ['MAIN.line', 'ST_Line', 'the line', 0x4040, def.offset, 64, 65],
    );
    assert.equal(s.reserved.length, 0);
  });

  it('uploads every symbol and every non-base type once', () => {
    const catalog = buildSymbolCatalog(p.symbols);
    const names: string[] = [];
    let rest = catalog.symbolUpload;
    while (rest.length > 0) {
      const len = rest.readUInt32LE(0);
      names.push(parseSymbol(rest.subarray(0, len)).name);
      rest = rest.subarray(len);
    }
    assert.deepEqual(names, ['MAIN.line', 'MAIN.lines', 'MAIN.fbAlarms', 'GVL.sName']);
    assert.deepEqual([...catalog.dataTypes.keys()].sort(), [
      'ARRAY[0..1,1..3]OFINT',
      'ARRAY[1..4]OFST_LINE',
      'E_MODE',
      'FB_ALARMS',
      'ST_LINE',
      'ST_POINT',
    ]);
    assert.ok(catalog.dataTypes.has(typeKey('array [1..4] of st_line')));
    const info = encodeUploadInfo(catalog);
    assert.equal(info.length, 64);
    assert.equal(info.readUInt32LE(0), 4);
    assert.equal(info.readUInt32LE(4), catalog.symbolUpload.length);
    assert.equal(info.readUInt32LE(8), 6);
    assert.equal(info.readUInt32LE(12), catalog.dataTypeUpload.length);
    assert.equal(info.readUInt32LE(28), 65001);
  });

  it('uploads declared types no symbol uses when given the declarations, as TwinCAT does', () => {
    const b = new ProgramBuilder();
    b.enum('E_Unused', [{ name: 'eA', value: 2 }], 'USINT');
    b.struct('ST_Used', [{ name: 'n', type: 'INT' }]);
    b.symbol('MAIN.st', 'ST_Used');
    const small = b.build();
    assert.deepEqual([...buildSymbolCatalog(small.symbols).dataTypes.keys()], ['ST_USED']);
    const all = buildSymbolCatalog(small.symbols, small.types.declaredTypes());
    assert.deepEqual([...all.dataTypes.keys()], ['ST_USED', 'E_UNUSED']);
    assert.equal(all.dataTypeCount, 2);
  });

  it('encodes handle info', () => {
    const b = encodeHandleInfo(7, 81, 'STRING(80)');
    assert.equal(b.readUInt32LE(0), 7);
    assert.equal(b.readUInt32LE(4), 81);
    assert.equal(b.readUInt16LE(12), 10);
    assert.equal(b.subarray(14).toString(), 'STRING(80)\0');
  });
});

describe('file records', () => {
  it('round-trips a 324-byte find record with the name at offset 48', () => {
    const modified = new Date(Date.UTC(2024, 4, 1, 12));
    const rec = encodeFindRecord({
      handle: 3,
      name: 'recipe.csv',
      isDirectory: false,
      size: 5_000_000_000,
      modified,
    });
    assert.equal(rec.length, FIND_RECORD_LENGTH);
    assert.equal(rec.subarray(48, 58).toString(), 'recipe.csv');
    assert.deepEqual(decodeFindRecord(rec), {
      handle: 3,
      name: 'recipe.csv',
      isDirectory: false,
      size: 5_000_000_000,
      modified,
    });
  });
});
