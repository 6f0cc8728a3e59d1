// The one place a rule's per-key state gets its cap. Rules write `stateCap(2_000)` instead of a bare
// 2_000 so that test/engine/state-bounds.test.ts can shrink every cap at once (the environment
// variable below, read once at load) and prove, by replaying a firing case over a thousand distinct
// pods, that no rule keeps a map or list that grows with the pods it has seen. At the real caps that
// proof would need tens of thousands of pods per rule.

/** Test-only: a factor in (0, 1] that every cap is multiplied by; unset or invalid means 1. */
export const STATE_CAP_SCALE_VARIABLE = 'LINKERD_DOCTOR_STATE_CAP_SCALE';

const requested = Number(process.env[STATE_CAP_SCALE_VARIABLE]);
const SCALE = requested > 0 && requested <= 1 ? requested : 1;

/** `n`, the documented cap, unless a test shrank every cap (never below 4, so a rule still has room to judge). */
export function stateCap(n: number): number {
  return SCALE === 1 ? n : Math.max(4, Math.ceil(n * SCALE));
}
