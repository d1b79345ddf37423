// The one error catalog: every error code the gateway answers with, its HTTP status and default message.
// Drivers and services throw AppError with a code from here; the HTTP error handler renders the envelope.

export const errorCatalog = {
  VALIDATION_ERROR: { status: 400, message: 'The request is not valid.' },
  TYPE_MISMATCH: { status: 400, message: 'The value does not fit the PLC type.' },
  BATCH_LIMIT_EXCEEDED: { status: 400, message: 'Too many symbols in one batch.' },
  HISTORY_SYMBOL_LIMIT_EXCEEDED: { status: 400, message: 'Too many symbols in one history query.' },
  SUBSCRIPTION_LIMIT_EXCEEDED: { status: 400, message: 'Too many subscribed symbols for this client.' },
  RESERVED_FILE_NAME: {
    status: 400,
    message: 'A path segment is a Windows device name (CON, NUL, COM1, …).',
  },
  UNAUTHORIZED: { status: 401, message: 'A valid bearer token is required.' },
  TOKEN_EXPIRED: { status: 401, message: 'The token that opened this stream has expired.' },
  TOKEN_REVOKED: { status: 401, message: 'The key that signed the token of this stream was withdrawn.' },
  FORBIDDEN: { status: 403, message: 'The token lacks the role or scope this route requires.' },
  PLC_ACCESS_DENIED: { status: 403, message: 'The token does not grant access to this PLC.' },
  MQTT_WRITE_DENIED: {
    status: 403,
    message: 'MQTT writes are off (Mqtt.AllowWrites), or the symbol is not in Mqtt.WritableSymbols.',
  },
  RPC_INVOKE_DENIED: { status: 403, message: 'This method is not in the target’s Rpc.Invokable allow-list.' },
  NOT_FOUND: { status: 404, message: 'No such route.' },
  PLC_NOT_FOUND: { status: 404, message: 'No such PLC.' },
  SYMBOL_NOT_FOUND: { status: 404, message: 'No such symbol.' },
  TYPE_NOT_FOUND: { status: 404, message: 'No such type.' },
  FILE_NOT_FOUND: { status: 404, message: 'No such file.' },
  ALARM_NOT_FOUND: { status: 404, message: 'Nothing is outstanding under this alarm key.' },
  SYMBOL_NOT_RECORDED: { status: 404, message: 'This symbol is not recorded in the history.' },
  SCENARIO_NOT_CONFIGURED: { status: 404, message: 'This target has no scenario.' },
  MASTER_NOT_FOUND: { status: 404, message: 'No such EtherCAT master on this PLC.' },
  SLAVE_NOT_FOUND: { status: 404, message: 'No such EtherCAT slave on this PLC.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed on this route.' },
  FILE_TOO_LARGE_FOR_JSON: {
    status: 406,
    message: 'The file is too large for a JSON answer: ask with Accept: application/octet-stream.',
  },
  SIMULATION_CONFLICT: { status: 409, message: 'The simulation cannot do this in its current state.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type.' },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded.' },
  CONNECTION_LIMIT: { status: 429, message: 'Too many open stream connections.' },
  CONCURRENCY_LIMIT: { status: 429, message: 'Too many long-running calls at once.' },
  NEGOTIATION_LIMIT: { status: 429, message: 'Too many negotiated hub connections not yet connected.' },
  DOWNLOAD_LIMIT: { status: 429, message: 'Too many file downloads in progress for this user.' },
  ALARM_NOT_ACTIVE: {
    status: 409,
    message: 'The alarm is not outstanding: only an active (or unacknowledged) alarm can be shelved.',
  },
  ALARM_NOT_SHELVED: { status: 409, message: 'The alarm is not shelved.' },
  ALARM_NOT_OUT_OF_SERVICE: { status: 409, message: 'The alarm is not out of service.' },
  HUB_TRANSPORT_CONFLICT: { status: 409, message: 'This hub connection already uses another request.' },
  INTERNAL_ERROR: { status: 500, message: 'An unexpected error occurred.' },
  FEATURE_DISABLED: { status: 501, message: 'This feature is disabled.' },
  TYPE_NOT_SUPPORTED: { status: 501, message: 'The gateway cannot read or write values of this PLC type.' },
  ADS_ERROR: { status: 502, message: 'The PLC answered with an ADS error.' },
  ALARM_ACK_FAILED: { status: 502, message: 'The PLC refused the acknowledgement.' },
  PLC_UNAVAILABLE: { status: 503, message: 'The PLC is not connected.' },
  HISTORY_UNAVAILABLE: { status: 503, message: 'The history store is unreachable.' },
  CLUSTER_UNAVAILABLE: { status: 503, message: 'The shared store of the replicas (Redis) is unreachable.' },
  ADS_TIMEOUT: { status: 504, message: 'The PLC did not answer in time.' },
  FILE_QUOTA_EXCEEDED: { status: 507, message: "The PLC's file store has no room for this write." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;

/** An expected failure with a catalog code; its message is safe to show to the caller. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers (for example Retry-After). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    super(message ?? errorCatalog[code].message);
    this.name = 'AppError';
    this.code = code;
    this.status = errorCatalog[code].status;
    this.headers = headers;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
