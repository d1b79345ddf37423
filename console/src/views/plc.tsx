// PLC view: the symbol tree (expanded on demand) and server-side search; the selected symbol's type, size,
// comment and live value, pinning it to the watch list, and writing it when the token permits.
import { useEffect, useState } from 'preact/hooks';
import { api, describeError, plcPath } from '../api/http.ts';
import type { PlcStatus, SymbolNode } from '../api/types.ts';
import { session } from '../auth/session.ts';
import { ConnectionBadge } from '../components/badges.tsx';
import { LiveValue } from '../components/live-value.tsx';
import { ValueEditor } from '../components/value-editor.tsx';
import { useLive, usePoll } from '../live/use-live.ts';
import { isPinned, pin, unpin } from '../live/watch-list.ts';
import { href } from '../router.ts';
import type { View } from './view.ts';

const searchLimit = 200;

/** The part of `path` below `parent`: `.nSpeed` of MAIN -> `nSpeed`, `[1]` of an array stays `[1]`. */
function below(path: string, parent: string): string {
  return path.slice(parent.length).replace(/^\./, '');
}

interface NodeProps {
  plcId: string;
  node: SymbolNode;
  label: string;
  selected: string | undefined;
}

function TreeNode({ plcId, node, label, selected }: NodeProps) {
  const [open, setOpen] = useState(false);
  const hasChildren = node.children !== null && node.children.length > 0;
  const isSelected = selected?.toLowerCase() === node.instancePath.toLowerCase();
  return (
    <li>
      <span class="row-inline">
        {hasChildren ? (
          <button
            type="button"
            class="twisty"
            aria-expanded={open}
            aria-label={`Expand ${node.instancePath}`}
            onClick={() => setOpen(!open)}
          >
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span class="twisty" aria-hidden="true" />
        )}
        <a
          class="node"
          href={href('plc', plcId, node.instancePath)}
          aria-current={isSelected ? 'true' : undefined}
        >
          {label}
        </a>{' '}
        <small class="muted">{node.typeName}</small>
      </span>
      {open && hasChildren && (
        <ul class="tree">
          {node.children?.map((child) => (
            <TreeNode
              key={child.instancePath}
              plcId={plcId}
              node={child}
              label={below(child.instancePath, node.instancePath)}
              selected={selected}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

/** Top-level symbols are `MAIN.x`, `GVL.y`: shown under one folder per program or global variable list. */
function TreeGroup({
  plcId,
  name,
  nodes,
  selected,
}: {
  plcId: string;
  name: string;
  nodes: SymbolNode[];
  selected: string | undefined;
}) {
  const [open, setOpen] = useState(false);
  return (
    <li>
      <span class="row-inline">
        <button
          type="button"
          class="twisty"
          aria-expanded={open}
          aria-label={`Expand ${name}`}
          onClick={() => setOpen(!open)}
        >
          {open ? '▾' : '▸'}
        </button>
        <strong>{name}</strong> <small class="muted">{nodes.length}</small>
      </span>
      {open && (
        <ul class="tree">
          {nodes.map((node) => (
            <TreeNode
              key={node.instancePath}
              plcId={plcId}
              node={node}
              label={below(node.instancePath, name)}
              selected={selected}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

function groups(nodes: SymbolNode[]): Array<[string, SymbolNode[]]> {
  const byPrefix = new Map<string, SymbolNode[]>();
  for (const node of nodes) {
    const dot = node.instancePath.indexOf('.');
    const prefix = dot < 0 ? '' : node.instancePath.slice(0, dot);
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), node]);
  }
  return [...byPrefix.entries()];
}

function SymbolBrowser({ plcId, selected }: { plcId: string; selected: string | undefined }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<SymbolNode[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const tree = usePoll(() => api.get<SymbolNode[]>(plcPath(plcId, 'symbols')), 60_000, `tree-${plcId}`);
  const search = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    if (query.trim() === '') {
      setResults(undefined);
      return;
    }
    try {
      const found = await api.get<SymbolNode[]>(
        `${plcPath(plcId, 'symbols')}?search=${encodeURIComponent(query.trim())}&flat=true`,
      );
      setResults(found);
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <div class="panel">
      <form role="search" class="row" onSubmit={(e) => void search(e)}>
        <label class="inline-label" for="symbol-search">
          Search symbols
        </label>
        <input
          id="symbol-search"
          type="search"
          value={query}
          placeholder="e.g. rPosition"
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      {error !== undefined && (
        <p role="alert" class="error-text">
          {error}
        </p>
      )}
      {results !== undefined ? (
        <>
          <p role="status" class="muted">
            {results.length} match{results.length === 1 ? '' : 'es'}
            {results.length > searchLimit ? `, the first ${searchLimit} shown` : ''}
          </p>
          <ul class="tree tree-root" aria-label="Search results">
            {results.slice(0, searchLimit).map((node) => (
              <li key={node.instancePath}>
                <a href={href('plc', plcId, node.instancePath)}>{node.instancePath}</a>{' '}
                <small class="muted">{node.typeName}</small>
              </li>
            ))}
          </ul>
        </>
      ) : tree.error !== undefined ? (
        <p role="alert" class="error-text">
          {describeError(tree.error)}
        </p>
      ) : tree.data === undefined ? (
        <p class="muted">Loading symbols…</p>
      ) : (
        <ul class="tree tree-root" aria-label="Symbols">
          {groups(tree.data).map(([prefix, nodes]) =>
            prefix === '' ? (
              nodes.map((node) => (
                <TreeNode
                  key={node.instancePath}
                  plcId={plcId}
                  node={node}
                  label={node.instancePath}
                  selected={selected}
                />
              ))
            ) : (
              <TreeGroup key={prefix} plcId={plcId} name={prefix} nodes={nodes} selected={selected} />
            ),
          )}
        </ul>
      )}
    </div>
  );
}

function SymbolDetails({ plcId, path }: { plcId: string; path: string }) {
  const [node, setNode] = useState<SymbolNode | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const cell = useLive(plcId, node?.instancePath);
  useEffect(() => {
    let alive = true;
    setNode(undefined);
    setError(undefined);
    api
      .get<SymbolNode>(plcPath(plcId, 'symbols', path))
      .then((n) => alive && setNode(n))
      .catch((err: unknown) => alive && setError(describeError(err)));
    return () => void (alive = false);
  }, [plcId, path]);
  if (error !== undefined)
    return (
      <p role="alert" class="error-text">
        {error}
      </p>
    );
  if (node === undefined) return <p class="muted">Loading {path}…</p>;
  const target = { plcId, symbol: node.instancePath };
  const pinned = isPinned(target);
  const canWrite = session.value?.permissions.write === true;
  return (
    <div class="panel" aria-labelledby="symbol-title">
      <h2 id="symbol-title" class="mono">
        {node.instancePath}
      </h2>
      <dl class="facts">
        <dt>Type</dt>
        <dd class="mono">{node.typeName}</dd>
        <dt>Size</dt>
        <dd>{node.size} bytes</dd>
        <dt>Comment</dt>
        <dd>{node.comment || <span class="muted">none</span>}</dd>
        <dt>Value</dt>
        <dd>
          <LiveValue plcId={plcId} symbol={node.instancePath} />
        </dd>
      </dl>
      <p>
        <button type="button" aria-pressed={pinned} onClick={() => (pinned ? unpin(target) : pin(target))}>
          {pinned ? 'Unpin from watch list' : 'Pin to watch list'}
        </button>
      </p>
      {node.children !== null && (
        <>
          <h3>Members</h3>
          <ul>
            {node.children.map((c) => (
              <li key={c.instancePath}>
                <a href={href('plc', plcId, c.instancePath)} class="mono">
                  {c.instancePath.slice(node.instancePath.length)}
                </a>{' '}
                <small class="muted">{c.typeName}</small>
              </li>
            ))}
          </ul>
        </>
      )}
      {canWrite && node.children === null && (
        <ValueEditor
          plcId={plcId}
          symbol={node.instancePath}
          typeName={node.typeName}
          current={cell?.sample.value?.value}
        />
      )}
    </div>
  );
}

function PlcPage({ plcId, path }: { plcId: string; path: string | undefined }) {
  const status = usePoll(() => api.get<PlcStatus>(plcPath(plcId, 'status')), 3000, `status-${plcId}`);
  return (
    <section aria-labelledby="plc-title">
      <div class="view-head">
        <h1 id="plc-title">
          {status.data?.displayName || plcId} <small class="muted">{plcId}</small>
        </h1>
        <p>
          <ConnectionBadge state={status.data?.state ?? 'Unknown'} /> ADS state {status.data?.adsState ?? '—'}
          {status.data?.mode === 'Simulated' && (
            <>
              {' · '}
              <a href={href('sim', plcId)}>Simulation</a>
            </>
          )}
        </p>
      </div>
      {status.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(status.error)}
        </p>
      )}
      <div class="split">
        <SymbolBrowser plcId={plcId} selected={path} />
        {path !== undefined ? (
          <SymbolDetails plcId={plcId} path={path} />
        ) : (
          <p class="panel muted">Select a symbol to see its value.</p>
        )}
      </div>
    </section>
  );
}

export const plcView: View = {
  id: 'plc',
  title: 'PLC',
  nav: false,
  allowed: (s, features) => s.permissions.read && features.Symbols === true,
  render: ([plcId, path]) =>
    plcId === undefined ? <p>No PLC named.</p> : <PlcPage plcId={plcId} path={path} />,
};
