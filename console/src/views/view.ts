// What a view of the console declares: where it lives, whether it shows in the navigation, and who may open it.
// Adding a view is one module exporting a View and one line in views/index.ts.
import type { VNode } from 'preact';
import type { Session } from '../auth/session.ts';

export interface View {
  /** First path segment: `#/<id>/...`; '' for the home view. */
  readonly id: string;
  readonly title: string;
  /** Shown in the navigation bar. */
  readonly nav: boolean;
  /** Whether the signed-in user may open it, given the gateway's feature flags. */
  allowed(session: Session, features: Record<string, boolean>): boolean;
  /** Renders the view for the path segments after the id. */
  render(params: string[]): VNode;
}
