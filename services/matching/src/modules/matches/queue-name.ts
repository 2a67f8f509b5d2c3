// The name of the service's BullMQ queue of computations, apart from the
// queue itself (queue.ts imports BullMQ): the service's definition names it
// for its metrics and Bull Board, and an API process, which queues nothing,
// imports it without loading BullMQ (issue 31).
export const MATCH_QUEUE = 'match';
