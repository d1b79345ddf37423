// The ISA-18.2 (clause 16, alarm performance metrics) and EEMUA 191 benchmark values the KPI answer names
// beside its figures, and the EEMUA 191 reading of an average alarm rate.

export type RateAssessment =
  'very likely acceptable' | 'manageable' | 'likely over-demanding' | 'very likely unacceptable';

/** The benchmarks as the answer states them (figures per operator position, as the standards put them). */
export const kpiBenchmarks = {
  source: 'ANSI/ISA-18.2 (alarm performance metrics) and EEMUA 191',
  raisedPer10Minutes: { veryLikelyAcceptable: 1, maximumManageable: 2 },
  floodAbove: 10,
  floodShareBelow: 0.01,
  peakPer10MinutesAtMost: 10,
  topKeysShareBelow: 0.05,
  chatteringTarget: 0,
  standingBelow: 5,
} as const;

/**
 * EEMUA 191's reading of a long-term average rate, per 10 minutes: about 1 very likely acceptable, about 2
 * manageable, about 5 likely over-demanding, 10 or more very likely unacceptable.
 */
export function assessRate(per10Minutes: number): RateAssessment {
  if (per10Minutes <= 1) return 'very likely acceptable';
  if (per10Minutes <= 2) return 'manageable';
  if (per10Minutes < 10) return 'likely over-demanding';
  return 'very likely unacceptable';
}
