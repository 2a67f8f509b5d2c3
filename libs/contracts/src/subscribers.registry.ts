// The subscriber services of this repository, one entry each. `pnpm
// new:subscriber` appends an entry before the closing line; the topology
// (`topology.ts`) turns each into its inbox, DLQ and filter policy, which
// `pnpm provision`, `pnpm start` and the AWS stack then create
// (docs/subscribing.md). Edit an entry's `events` to change what it receives.
import type { SubscriberDefinition } from './subscribers.ts';

export const registeredSubscribers = [
  // new:subscriber appends here
] as const satisfies readonly SubscriberDefinition[];

/** The name of a registered subscriber service. */
export type SubscriberName = (typeof registeredSubscribers)[number]['name'];
