// The application/octet-stream body of an upload, read with its own limit: a declared length over it is
// refused before a byte is read, and a body growing past it is cut off as soon as it does.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { FeatureApp } from '../../feature-kit/feature-context.ts';
import { tooLarge } from './service.ts';

export function acceptRawUploads(app: FeatureApp, maxBytes: number): void {
  app.addContentTypeParser('application/octet-stream', (request: FastifyRequest, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      done(tooLarge('The upload', maxBytes), undefined);
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: Error | null, body?: Buffer): void => {
      if (settled) return;
      settled = true;
      payload.removeListener('data', onData);
      done(err, body);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        finish(tooLarge('The upload', maxBytes));
        payload.resume();
        return;
      }
      parts.push(chunk);
    };
    payload.on('data', onData);
    payload.on('end', () => finish(null, Buffer.concat(parts, size)));
    // A connection cut mid-body errors or closes the stream without 'end': the upload never reaches the handler.
    const interrupted = (): void => finish(new AppError('VALIDATION_ERROR', 'The upload was interrupted.'));
    payload.on('error', interrupted);
    payload.on('close', interrupted);
  });
}
