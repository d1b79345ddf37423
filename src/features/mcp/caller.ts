// Carries the caller the /mcp route verified into the SDK's request handlers: the route puts the principal in
// the request's auth info, each handler takes it back out. Never the token itself.
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../guards/principal.ts';
import { parseAcceptLanguage } from '../alarms/index.ts';
import type { Caller } from './tool-kit.ts';

export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const principals = new WeakMap<AuthInfo, Principal>();

/** Hands the principal to the transport, which passes the auth info to every handler of this request. */
export function attachPrincipal(raw: IncomingMessage, principal: Principal): void {
  const auth: AuthInfo = { token: '', clientId: principal.sub, scopes: [...principal.scopes] };
  principals.set(auth, principal);
  (raw as IncomingMessage & { auth?: AuthInfo }).auth = auth;
}

export function callerOf(extra: HandlerExtra): Caller {
  const principal = extra.authInfo === undefined ? undefined : principals.get(extra.authInfo);
  // The route attaches a principal to every request it passes on; a handler without one is a wiring error.
  if (principal === undefined) throw new Error('An MCP request reached a handler without a verified caller.');
  const language = extra.requestInfo?.headers['accept-language'];
  return {
    principal,
    cultures: parseAcceptLanguage(typeof language === 'string' ? language : undefined),
    signal: extra.signal,
  };
}
