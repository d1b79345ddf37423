// Asks before a `#token=` link for another user replaces the one signed in (see takeFragmentToken).
import { acceptSwitch, declineSwitch, pendingSwitch } from '../auth/session.ts';
import { Confirm } from './confirm.tsx';

export function SwitchUser() {
  const pending = pendingSwitch.value;
  if (pending === undefined) return null;
  return (
    <Confirm
      title="Switch user?"
      confirmLabel={`Sign in as ${pending.next}`}
      onConfirm={acceptSwitch}
      onCancel={declineSwitch}
    >
      <p>
        You are signed in as <strong data-testid="switch-current">{pending.current}</strong>. The link you
        opened signs in as <strong data-testid="switch-next">{pending.next}</strong>.
      </p>
      <p>Switching ends your session in this tab. Cancel keeps it and forgets the link.</p>
    </Confirm>
  );
}
