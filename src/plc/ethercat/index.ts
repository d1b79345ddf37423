// EtherCAT over ADS, shared by the ADS driver and the simulator: vocabulary, numbers and byte layouts.
export * from './model.ts';
export * from './constants.ts';
export * from './codec.ts';
