// The built-in HS256 development key: lets `npm start` work out of the box; refused in production.

/** Publicly known, so tokens signed with it prove nothing outside a developer's machine. */
export const developmentSigningKey = 'plc-gateway-development-key-do-not-use-in-production';

/** True when `key` is the built-in development key (for example pasted into Auth.SigningKey). */
export function isDevelopmentSigningKey(key: string | undefined): boolean {
  return key === developmentSigningKey;
}

/** True when tokens are verified with the built-in key, asked for by name or pasted in as SigningKey. */
export function usesDevelopmentKey(auth: {
  readonly UseDevelopmentKey?: boolean;
  readonly SigningKey?: string;
}): boolean {
  return auth.UseDevelopmentKey === true || isDevelopmentSigningKey(auth.SigningKey);
}
