// Sparkplug B payloads (protobuf) through the Eclipse Tahu library, and the payload types it declares.
import { get } from 'sparkplug-payload';
import type { UMetric, UPayload } from 'sparkplug-payload/lib/sparkplugbpayload.js';

export type { UMetric, UPayload };

const codec = get('spBv1.0');
if (codec === null) throw new Error('sparkplug-payload has no spBv1.0 codec.');
const { encodePayload, decodePayload } = codec;

export function encode(payload: UPayload): Buffer {
  const bytes = encodePayload(payload);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function decode(payload: Uint8Array): UPayload {
  return decodePayload(payload);
}
