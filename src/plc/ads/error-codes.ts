// The ADS error-code table: the codes a TwinCAT runtime answers with, named, with their standard texts.
// The simulator's ADS server answers with them; the ADS driver classifies and reports them.

export const AdsErrorCode = {
  NoError: 0,
  InternalError: 1,
  TargetPortNotFound: 6,
  TargetMachineNotFound: 7,
  UnknownCommandId: 8,
  InvalidAdsLength: 14,
  RouterNoLockedMemory: 1280,
  RouterResizeMemory: 1281,
  RouterMailboxFull: 1282,
  DeviceError: 1792,
  ServiceNotSupported: 1793,
  InvalidIndexGroup: 1794,
  InvalidIndexOffset: 1795,
  InvalidAccess: 1796,
  InvalidSize: 1797,
  InvalidData: 1798,
  NotReady: 1799,
  Busy: 1800,
  NoMemory: 1802,
  InvalidParameter: 1803,
  NotFound: 1804,
  Syntax: 1805,
  Incompatible: 1806,
  Exists: 1807,
  SymbolNotFound: 1808,
  SymbolVersionInvalid: 1809,
  InvalidState: 1810,
  TransModeNotSupported: 1811,
  NotificationHandleInvalid: 1812,
  ClientUnknown: 1813,
  NoMoreHandles: 1814,
  InvalidWatchSize: 1815,
  NotInitialized: 1816,
  DeviceTimeout: 1817,
  Aborted: 1820,
  InvalidArrayIndex: 1825,
  AccessDenied: 1827,
  LicenseNotFound: 1828,
  Timeout: 1861,
} as const;

const texts: Readonly<Record<number, string>> = {
  0: 'No error',
  1: 'Internal error',
  6: 'Target port not found',
  7: 'Target machine not found',
  8: 'Unknown command ID',
  14: 'Invalid ADS length',
  1280: 'No locked memory can be allocated',
  1281: 'The router memory size could not be changed',
  1282: 'The mailbox has reached the maximum number of possible messages',
  1792: 'General device error',
  1793: 'Service is not supported by server',
  1794: 'Invalid index group',
  1795: 'Invalid index offset',
  1796: 'Reading/writing not permitted',
  1797: 'Parameter size not correct',
  1798: 'Invalid parameter value(s)',
  1799: 'Device is not in a ready state',
  1800: 'Device is busy',
  1802: 'Out of memory',
  1803: 'Invalid parameter value(s)',
  1804: 'Not found (files, ...)',
  1805: 'Syntax error in command or file',
  1806: 'Objects do not match',
  1807: 'Object already exists',
  1808: 'Symbol not found',
  1809: 'Symbol version invalid',
  1810: 'Server is in invalid state',
  1811: 'AdsTransMode not supported',
  1812: 'Notification handle is invalid',
  1813: 'Notification client not registered',
  1814: 'No more notification handles',
  1815: 'Size for watch too big',
  1816: 'Device not initialized',
  1817: 'Device has a timeout',
  1820: 'Device aborted',
  1825: 'Invalid array index',
  1827: 'Access denied',
  1828: 'License not found',
  1861: 'Timeout elapsed',
};

/** The standard text of an ADS error code ("Unknown ADS error" for codes outside the table). */
export function adsErrorText(code: number): string {
  return texts[code] ?? `Unknown ADS error ${code}`;
}

/** A failed ADS service: the handler throws it and the dispatcher answers with its code. */
export class AdsError extends Error {
  readonly code: number;

  constructor(code: number, message?: string) {
    super(message ?? adsErrorText(code));
    this.name = 'AdsError';
    this.code = code;
  }
}
