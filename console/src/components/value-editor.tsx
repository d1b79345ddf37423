// Writing one value: an input fitted to the PLC type (number ranges, enum drop-down, BOOL toggle, text length),
// a confirmation naming the PLC, the symbol and the value, then the value read back or the gateway's error.
import { useEffect, useState } from 'preact/hooks';
import { api, describeError, plcPath } from '../api/http.ts';
import type { EnumMembers, VariableValue } from '../api/types.ts';
import { settings } from '../auth/session.ts';
import { Confirm } from './confirm.tsx';
import { formatValue } from './live-value.tsx';
import { inputKindOf, isElementary, parseInput } from './iec-types.ts';
import { Outcome, type Result } from './outcome.tsx';

interface Props {
  plcId: string;
  symbol: string;
  typeName: string;
  /** The value shown now, to start the input from. */
  current: unknown;
}

/** The enum's members when `typeName` is an enum and type metadata is served; else undefined. */
function useEnumMembers(plcId: string, typeName: string): EnumMembers['members'] | undefined {
  const [members, setMembers] = useState<EnumMembers['members'] | undefined>(undefined);
  useEffect(() => {
    setMembers(undefined);
    if (isElementary(typeName) || settings.value.features.TypeMetadata !== true) return;
    let alive = true;
    api
      .get<EnumMembers>(plcPath(plcId, 'types', typeName, 'enum-members'))
      .then((e) => alive && setMembers(e.members))
      .catch(() => undefined);
    return () => void (alive = false);
  }, [plcId, typeName]);
  return members;
}

export function ValueEditor({ plcId, symbol, typeName, current }: Props) {
  const members = useEnumMembers(plcId, typeName);
  const kind = inputKindOf(typeName);
  const [text, setText] = useState('');
  const [touched, setTouched] = useState(false);
  const [pending, setPending] = useState<unknown>(undefined);
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<Result | undefined>(undefined);
  const shown = touched
    ? text
    : current === undefined
      ? ''
      : typeof current === 'string'
        ? current
        : JSON.stringify(current);
  const inputId = `edit-${symbol}`;

  const submit = (event: Event): void => {
    event.preventDefault();
    const parsed = members !== undefined ? { value: Number(shown) } : parseInput(kind, shown);
    if ('problem' in parsed) {
      setResult({ ok: false, message: parsed.problem });
      return;
    }
    setPending(parsed.value);
    setConfirming(true);
  };
  const write = async (): Promise<void> => {
    setConfirming(false);
    try {
      const written = await api.put<VariableValue>(plcPath(plcId, 'variables', symbol), {
        json: { value: pending },
      });
      setResult({ ok: true, message: `Written; reads back ${formatValue(written.value)}.` });
      setTouched(false);
    } catch (err) {
      setResult({ ok: false, message: describeError(err) });
    }
  };

  let input;
  if (kind.kind === 'bool') {
    const on = shown === 'true';
    input = (
      <button
        type="button"
        id={inputId}
        role="switch"
        aria-checked={on}
        class="toggle"
        onClick={() => {
          setTouched(true);
          setText(on ? 'false' : 'true');
        }}
      >
        {on ? 'TRUE' : 'FALSE'}
      </button>
    );
  } else if (members !== undefined) {
    input = (
      <select id={inputId} value={shown} onChange={(e) => (setTouched(true), setText(e.currentTarget.value))}>
        {members.map((m) => (
          <option key={m.name} value={String(m.value)}>
            {m.name} ({m.value})
          </option>
        ))}
      </select>
    );
  } else if (kind.kind === 'integer' || kind.kind === 'real') {
    input = (
      <input
        id={inputId}
        type="number"
        step={kind.kind === 'real' ? 'any' : '1'}
        min={kind.kind === 'integer' ? kind.min : undefined}
        max={kind.kind === 'integer' ? kind.max : undefined}
        value={shown}
        onInput={(e) => (setTouched(true), setText(e.currentTarget.value))}
      />
    );
  } else {
    input = (
      <input
        id={inputId}
        type="text"
        list={undefined}
        inputMode={kind.kind === 'bigint' ? 'numeric' : 'text'}
        maxLength={kind.kind === 'text' ? kind.maxLength : undefined}
        value={shown}
        onInput={(e) => (setTouched(true), setText(e.currentTarget.value))}
      />
    );
  }

  return (
    <form class="value-editor" noValidate onSubmit={submit}>
      <label for={inputId}>New value ({typeName})</label>
      <div class="row">
        {input}
        <button type="submit" class="primary">
          Write…
        </button>
      </div>
      <Outcome result={result} />
      {confirming && (
        <Confirm
          title="Write to the PLC?"
          confirmLabel="Write"
          onConfirm={() => void write()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Write <code>{JSON.stringify(pending)}</code> to <code>{symbol}</code> on PLC{' '}
            <strong>{plcId}</strong>?
          </p>
        </Confirm>
      )}
    </form>
  );
}
