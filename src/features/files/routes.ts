// File routes (flag Files; FileTransfers limit): read (ReadAccess; JSON or a raw byte stream, per the Accept
// header, a few at a time per user), atomic upload (WriteAccess) and listing (ReadAccess) of files under the
// target's file root. Paths are checked before any PLC is asked.
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { targetOf } from '../../guards/install-guards.ts';
import { noteAudit } from '../../http/audit-hooks.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { contentDisposition, downloadForm, downloadStream, DownloadSlots } from './download.ts';
import { acceptRawUploads } from './raw-body.ts';
import {
  base64Length,
  collectDownload,
  listDir,
  openDownload,
  uploadDigest,
  uploadedBytes,
  writeFile,
} from './service.ts';

const FileParams = Type.Object({
  ...PlcIdParams.properties,
  '*': Type.String({ description: 'File path relative to the file root, e.g. recipes/r1.csv' }),
});

const FileContent = Type.Object({
  path: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
  contentBase64: Type.String({ description: 'The content, base64 (RFC 4648)' }),
});

const FileWritten = Type.Object({ path: Type.String(), size: Type.Integer() });

const DirListing = Type.Object({
  dir: Type.String(),
  entries: Type.Array(
    Type.Object({
      name: Type.String(),
      type: Type.Union([Type.Literal('file'), Type.Literal('dir')]),
      size: Type.Integer({ description: 'Bytes; 0 for a folder' }),
      modified: Type.String({ format: 'date-time' }),
    }),
    { description: 'Sorted by name' },
  ),
});

const UploadBody = Type.Object(
  { contentBase64: Type.String({ description: 'The content, base64 (RFC 4648)' }) },
  { additionalProperties: false },
);

const filePath = (request: { params: unknown }): string => {
  const path = (request.params as { '*'?: unknown })['*'];
  return typeof path === 'string' ? path : '';
};

const base = { feature: 'Files', plcScoped: true, limit: 'FileTransfers' } as const;

export const filesRoutes: FeaturePlugin = (app, { config }) => {
  const files = config.settings.Files;
  const maxBytes = files.MaxBytes;
  const limits = { maxBytes, maxJsonBytes: files.MaxJsonBytes };
  const slots = new DownloadSlots(files.MaxConcurrentDownloadsPerUser);
  acceptRawUploads(app, maxBytes);

  app.get(
    '/api/plcs/:plcId/files/*',
    {
      schema: {
        tags: ['Files'],
        summary: 'Read a file: base64 JSON, or the raw bytes with Accept: application/octet-stream',
        description:
          `JSON (the default) up to Files.MaxJsonBytes (${Math.min(files.MaxJsonBytes, maxBytes)} bytes), ` +
          `406 FILE_TOO_LARGE_FOR_JSON beyond; with Accept: application/octet-stream the bytes are streamed ` +
          `(Content-Length set) up to Files.MaxBytes (${maxBytes}); 413 PAYLOAD_TOO_LARGE beyond. At most ` +
          `${files.MaxConcurrentDownloadsPerUser} downloads per user at once (429 DOWNLOAD_LIMIT).`,
        params: FileParams,
        response: envelopeResponses(FileContent),
      },
      config: { ...base, policy: 'ReadAccess' },
    },
    async (request, reply) => {
      const form = downloadForm(request.headers.accept);
      const release = slots.acquire(request.principal?.sub ?? `ip:${request.ip}`);
      // 'close' comes once the answer is sent or the connection is gone, whichever form and outcome.
      reply.raw.once('close', release);
      try {
        const download = await openDownload(targetOf(request), request.params['*'], form, limits);
        if (form === 'json') return ok(await collectDownload(download));
        // The byte form is no envelope: it goes out through the reply without the JSON response schema's type.
        const raw: FastifyReply = reply;
        return raw
          .header('content-type', 'application/octet-stream')
          .header('content-length', download.reader.size)
          .header('content-disposition', contentDisposition(download.path))
          .send(downloadStream(download.reader));
      } catch (err) {
        release();
        throw err;
      }
    },
  );

  app.put(
    '/api/plcs/:plcId/files/*',
    {
      // The JSON form carries base64, a third larger than the bytes; raw bodies are bounded by their parser.
      bodyLimit: base64Length(maxBytes) + 4096,
      schema: {
        tags: ['Files'],
        summary: 'Upload or replace a file atomically: raw bytes or { contentBase64 }',
        description: `Content-Type application/octet-stream (the bytes) or application/json ({ contentBase64 }); at most ${maxBytes} bytes. A failed or interrupted upload leaves the old file intact.`,
        params: FileParams,
        // Validated per content type: a raw body has no schema (its parser bounds it), a JSON one has this.
        body: { content: { 'application/json': { schema: UploadBody } } },
        response: envelopeResponses(FileWritten),
      },
      config: { ...base, policy: 'WriteAccess', audit: { action: 'file.write', target: filePath } },
    },
    async (request) => {
      const content = uploadedBytes(request.body, maxBytes);
      noteAudit(request, { newValue: uploadDigest(content) });
      return ok(await writeFile(targetOf(request), request.params['*'], content));
    },
  );

  app.get(
    '/api/plcs/:plcId/files',
    {
      schema: {
        tags: ['Files'],
        summary: 'List a folder of the file root',
        params: PlcIdParams,
        querystring: Type.Object({
          dir: Type.String({ default: '', description: 'Folder relative to the file root; empty: the root' }),
        }),
        response: envelopeResponses(DirListing),
      },
      config: { ...base, policy: 'ReadAccess' },
    },
    async (request) => ok(await listDir(targetOf(request), request.query.dir)),
  );
};
