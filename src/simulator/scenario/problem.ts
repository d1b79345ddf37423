// A problem found validating a scenario, and how it is printed.

/** One validation problem: where (a JSON Pointer into machine.yaml) and what. */
export interface ScenarioProblem {
  pointer: string;
  message: string;
}

/** `/axes/2/limits/vmax: must be > 0`; a problem of the file as a whole is its message alone. */
export function formatProblem(p: ScenarioProblem): string {
  return p.pointer === '' ? p.message : `${p.pointer}: ${p.message}`;
}
