import { createHash } from 'node:crypto';

/**
 * The BullMQ job id of an intent key (`welcome-email:{candidateId}`). BullMQ
 * forbids `:` in custom ids (it throws unless there are exactly three parts)
 * and numeric ids; replacing `:` alone would make `a:b` and `a_b` collide, so
 * a short hash of the exact key follows. Readable in a dashboard, stable
 * across redeliveries, at most ~120 characters.
 */
export function taskIdFor(intentKey: string): string {
  if (intentKey.length === 0) throw new Error('intent key is empty');
  const hash = createHash('sha256').update(intentKey).digest('base64url').slice(0, 12);
  const readable = intentKey.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return `${readable}.${hash}`;
}
