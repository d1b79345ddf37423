// ADS protocol numbers and records shared by the driver and the simulator: commands, index groups, error codes.
export {
  ADS_UDP_PORT,
  AdsCommand,
  AdsPort,
  AdsState,
  type AdsStateName,
  adsStateNames,
  AMS_HEADER_LENGTH,
  AMS_TCP_HEADER_LENGTH,
  AmsTcpCommand,
  IndexGroup,
  RealtimeOffset,
  REQUEST_FLAGS,
  RESPONSE_FLAGS,
  StateFlags,
  toFileTime,
  TransmissionMode,
  UDP_COOKIE,
  UDP_HEADER_LENGTH,
  UdpService,
  UdpTag,
} from './constants.ts';
export { AdsError, AdsErrorCode, adsErrorText } from './error-codes.ts';
export { adsCodeForError, errorForAdsCode } from './error-map.ts';
export {
  decodeFileName,
  decodeFileNamePair,
  decodeFindRecord,
  encodeFileName,
  encodeFileNamePair,
  encodeFindRecord,
  fileOffset,
  FileOpenMode,
  FIND_RECORD_LENGTH,
  type FindRecord,
} from './file-records.ts';
