// ADS failures are classified by their ADS code through the table the simulator's ADS server answers
// with, and each call waits its own timeout: only the symbol upload may take SymbolBrowseTimeoutMs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, type ErrorCode } from '../../../src/errors.ts';
import { adsCodeForError, errorForAdsCode } from '../../../src/plc/ads/error-map.ts';
import { adsCodeOf as serverAnswer } from '../../../src/simulator/ads-server/error-map.ts';
import { AdsCommand, IndexGroup } from '../../../src/plc/ads/constants.ts';
import { FaultProxy, makeTarget, startPlant } from './harness.ts';

const { ReadDeviceInfo, Read, Write } = AdsCommand;
const { PlcMemory: Memory, DataTypeUpload } = IndexGroup;

const isCode = (code: ErrorCode, message?: RegExp) => (e: unknown) => {
  assert.ok(e instanceof AppError, String(e));
  assert.equal(e.code, code, e.message);
  if (message) assert.match(e.message, message);
  return true;
};

describe('ADS target: error codes and timeouts', () => {
  it('the server answers a catalog failure with the code the driver maps back to it', () => {
    for (const code of ['SYMBOL_NOT_FOUND', 'FILE_NOT_FOUND', 'TYPE_MISMATCH', 'VALIDATION_ERROR'] as const) {
      const ads = serverAnswer(new AppError(code, 'x'));
      assert.equal(ads, adsCodeForError(code));
      assert.equal(errorForAdsCode(ads).error, code, `${code} -> ${ads}`);
    }
    assert.equal(serverAnswer(new Error('bug')), 1792);
    assert.deepEqual(errorForAdsCode(1792), { error: 'ADS_ERROR', status: 502 });
    assert.deepEqual(errorForAdsCode(1817), { error: 'ADS_TIMEOUT', status: 504 });
  });

  it('a PLC answer is classified by its ADS code on a Real target', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen());
    try {
      await target.start();
      await target.symbols();
      const table: Array<[number, number, ErrorCode, RegExp]> = [
        [Write, 1798, 'TYPE_MISMATCH', /ADS error 1798/],
        [Write, 1796, 'ADS_ERROR', /ADS error 1796 \(reading\/writing not permitted\)/],
        [Read, 1817, 'ADS_TIMEOUT', /ADS error 1817/],
        [Read, 6, 'PLC_UNAVAILABLE', /ADS error 6 \(target port not found\)/],
        [Read, 1808, 'SYMBOL_NOT_FOUND', /symbol not found/],
      ];
      for (const [command, ads, code, message] of table) {
        proxy.fault = (r) => (r.command === command && r.indexGroup === Memory ? ads : undefined);
        const call = command === Write ? target.write('MAIN.nA', 5) : target.read('MAIN.nA');
        await assert.rejects(call, isCode(code, message), `${ads}`);
      }
      proxy.fault = undefined;
      assert.equal(target.connectionState(), 'Connected');
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });

  it('a call made during a slow symbol upload times out after TimeoutMs, not SymbolBrowseTimeoutMs', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen(), { TimeoutMs: 300, SymbolBrowseTimeoutMs: 3000 });
    try {
      await target.start();
      let uploading: () => void = () => undefined;
      const uploadSent = new Promise<void>((resolve) => (uploading = resolve));
      proxy.swallow = (r) => {
        const upload = r.command === Read && r.indexGroup === DataTypeUpload;
        if (upload) uploading();
        return upload || r.command === ReadDeviceInfo;
      };
      let uploadSettled = false;
      const upload = target.symbols().finally(() => {
        uploadSettled = true;
      });
      upload.catch(() => undefined);
      await uploadSent;
      await assert.rejects(target.deviceInfo(), isCode('ADS_TIMEOUT'));
      assert.equal(uploadSettled, false, 'the upload still waits for its own, longer limit');
      proxy.swallow = undefined;
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
