// The result of an action the user took: a status when it worked, an alert (read out at once) when it did not.

export interface Result {
  ok: boolean;
  message: string;
}

export function Outcome({ result, inline }: { result: Result | undefined; inline?: boolean }) {
  if (result === undefined) return null;
  const Tag = inline ? 'span' : 'p';
  return (
    <Tag role={result.ok ? 'status' : 'alert'} class={result.ok ? 'ok-text' : 'error-text'}>
      {inline ? ' ' : ''}
      {result.message}
    </Tag>
  );
}
