// ST_ErrorEntry, the alarm entry PLC programs written for the spec's service declare: its E_ErrorType members and
// the TIMESTRUCT member order. The simulator publishes it and the alarm monitor binds to it.

/** E_ErrorType members (INT), as DESIGN section 5 fixes them. */
export const errorTypeMembers = [
  { name: 'NONE', value: 0 },
  { name: 'INFO', value: 1 },
  { name: 'WARNING', value: 2 },
  { name: 'ERROR', value: 3 },
] as const;
export type ErrorTypeName = (typeof errorTypeMembers)[number]['name'];

/** TIMESTRUCT members (WORD each), in SYSTEMTIME order. */
export const timeStructMembers = [
  'wYear',
  'wMonth',
  'wDayOfWeek',
  'wDay',
  'wHour',
  'wMinute',
  'wSecond',
  'wMilliseconds',
] as const;

/** ST_ErrorEntry's members in declaration order (E_ErrorType and TIMESTRUCT as above). */
export const errorEntryMembers = [
  { name: 'sKey', type: 'STRING' },
  { name: 'Id', type: 'STRING' },
  { name: 'ErrorCode', type: 'DINT' },
  { name: 'ErrorType', type: 'E_ErrorType' },
  { name: 'IsActive', type: 'BOOL' },
  { name: 'NeedsAck', type: 'BOOL' },
  { name: 'IsAcked', type: 'BOOL' },
  { name: 'PLCTimeStamp', type: 'TIMESTRUCT' },
] as const;
