import type { EventLane } from '@hireflow/contracts';
import { ATTR_LANE } from './attributes.ts';

/**
 * The lane of the work an event causes (docs/fairness.md): bulk when the event
 * says so (an import's, through its `lane` extension attribute) or its
 * message does (a replay's `lane` attribute); interactive otherwise.
 */
export function laneOf(
  event: { lane?: EventLane | undefined },
  message?: { attributes: Record<string, string> },
): EventLane {
  return event.lane === 'bulk' || message?.attributes[ATTR_LANE] === 'bulk' ? 'bulk' : 'interactive';
}
