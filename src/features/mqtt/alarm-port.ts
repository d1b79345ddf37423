// What MQTT publishing needs of a PLC's alarms: the outstanding ones and the transition feed (an AlarmSource).
import type { AlarmSource } from '../alarms/index.ts';

export type AlarmPort = Pick<AlarmSource, 'outstanding' | 'onTransitions'>;
