// AMS NetId: six bytes written as dotted decimal ("192.168.1.10.1.1").

import { AdsError, AdsErrorCode } from '../../../plc/ads/index.ts';

const NET_ID_LENGTH = 6;

/** Parses a dotted NetId; throws AdsError (invalid parameter) for anything but six bytes 0..255. */
export function parseNetId(text: string): Buffer {
  const parts = text.trim().split('.');
  if (parts.length !== NET_ID_LENGTH || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) {
    throw new AdsError(
      AdsErrorCode.InvalidParameter,
      `Invalid AMS NetId "${text}": expected six numbers 0-255`,
    );
  }
  return Buffer.from(parts.map(Number));
}

export function isNetId(text: string): boolean {
  try {
    parseNetId(text);
    return true;
  } catch {
    return false;
  }
}

export function formatNetId(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, NET_ID_LENGTH)).join('.');
}

/** NetId:port as ADS tools print an AMS address. */
export interface AmsAddress {
  netId: string;
  port: number;
}

export function formatAmsAddress(address: AmsAddress): string {
  return `${address.netId}:${address.port}`;
}
