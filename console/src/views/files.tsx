// Files on a PLC (flag Files): browse folders, download a file, upload one (WriteAccess).
import { useState } from 'preact/hooks';
import { api, describeError, plcPath } from '../api/http.ts';
import type { DirListing, PlcSummary } from '../api/types.ts';
import { session } from '../auth/session.ts';
import { usePoll } from '../live/use-live.ts';
import { href } from '../router.ts';
import type { View } from './view.ts';
import { download as saveBlob } from '../components/download.ts';
import { Outcome, type Result } from '../components/outcome.tsx';

const join = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);
const filePath = (plcId: string, path: string): string =>
  `${plcPath(plcId, 'files')}/${path.split('/').map(encodeURIComponent).join('/')}`;

function FileBrowser({ plcId, dir }: { plcId: string; dir: string }) {
  const listing = usePoll(
    () => api.get<DirListing>(`${plcPath(plcId, 'files')}?dir=${encodeURIComponent(dir)}`),
    10_000,
    `files-${plcId}-${dir}`,
  );
  const [outcome, setOutcome] = useState<Result | undefined>(undefined);
  const canWrite = session.value?.permissions.write === true;
  const download = async (name: string): Promise<void> => {
    try {
      // The raw form: a file of any size up to Files.MaxBytes, never held as base64.
      const path = join(dir, name);
      const bytes = await api.bytes(filePath(plcId, path));
      saveBlob(name, bytes);
      setOutcome({ ok: true, message: `Downloaded ${path} (${bytes.size} bytes).` });
    } catch (err) {
      setOutcome({ ok: false, message: describeError(err) });
    }
  };
  const upload = async (event: Event): Promise<void> => {
    event.preventDefault();
    const input = (event.currentTarget as HTMLFormElement).elements.namedItem('upload') as HTMLInputElement;
    const file = input.files?.[0];
    if (file === undefined) return;
    try {
      const written = await api.put<{ path: string; size: number }>(filePath(plcId, join(dir, file.name)), {
        bytes: file,
      });
      setOutcome({ ok: true, message: `Uploaded ${written.path} (${written.size} bytes).` });
      input.value = '';
      listing.refresh();
    } catch (err) {
      setOutcome({ ok: false, message: describeError(err) });
    }
  };
  const parent = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
  return (
    <div class="panel">
      <h2>
        <code>/{dir}</code>
      </h2>
      {listing.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(listing.error)}
        </p>
      )}
      <div class="table-wrap">
        <table aria-label={`Files in /${dir}`}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {dir !== '' && (
              <tr>
                <td colSpan={4}>
                  <a href={href('files', plcId, ...(parent ? [parent] : []))}>.. (up)</a>
                </td>
              </tr>
            )}
            {listing.data?.entries.map((e) => (
              <tr key={e.name} data-file={e.name}>
                <td>
                  {e.type === 'dir' ? (
                    <a href={href('files', plcId, join(dir, e.name))}>{e.name}/</a>
                  ) : (
                    <span class="mono">{e.name}</span>
                  )}
                </td>
                <td class="num">{e.type === 'dir' ? '' : e.size}</td>
                <td>{new Date(e.modified).toLocaleString()}</td>
                <td>
                  {e.type === 'file' && (
                    <button
                      type="button"
                      onClick={() => void download(e.name)}
                      aria-label={`Download ${e.name}`}
                    >
                      Download
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {canWrite && (
        <form class="row" onSubmit={(e) => void upload(e)}>
          <label class="inline-label" for="upload">
            Upload to /{dir}
          </label>
          <input id="upload" name="upload" type="file" />
          <button type="submit">Upload</button>
        </form>
      )}
      <Outcome result={outcome} />
    </div>
  );
}

function Files({ plcId, dir }: { plcId: string | undefined; dir: string }) {
  const plcs = usePoll(() => api.get<PlcSummary[]>('/api/plcs'), 30_000, 'plcs');
  return (
    <section aria-labelledby="files-title">
      <h1 id="files-title">Files</h1>
      <nav aria-label="PLCs" class="row">
        {plcs.data?.map((p) => (
          <a
            key={p.plcId}
            href={href('files', p.plcId)}
            aria-current={p.plcId === plcId ? 'page' : undefined}
          >
            {p.displayName || p.plcId}
          </a>
        ))}
      </nav>
      {plcId !== undefined && <FileBrowser plcId={plcId} dir={dir} />}
    </section>
  );
}

export const filesView: View = {
  id: 'files',
  title: 'Files',
  nav: true,
  allowed: (s, features) => s.permissions.read && features.Files === true,
  render: ([plcId, dir]) => <Files plcId={plcId} dir={dir ?? ''} />,
};
