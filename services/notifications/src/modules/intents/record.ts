// The inbox's write of a new email intent: the notification log row and the
// admission check in one statement (one round trip in the receive batch's
// transaction instead of two).
import { type EntityManager, executePrepared } from '@hireflow/db';
import {
  ADDRESS_LOCK,
  ADMISSION_COLUMNS,
  type AdmissionCheck,
  type AdmissionRow,
  admissionCtes,
  admissionOf,
} from '../quotas/store.ts';
import { type EmailIntent, intentInsert, intentParams } from './store.ts';

export interface AdmissionLimits {
  welcomeWithinMs: number;
  welcomeCap: number;
  quota: number;
  recipientCap: number;
}

/**
 * Records the intent as `queued` (intentInsert) and, when this call recorded
 * it, runs the admission check on it (admissionCtes), in one statement:
 * `check` is undefined when the key was recorded before (nothing was taken).
 *
 * A welcome email's count of recent welcomes must see every welcome
 * committed before it, so its address's lock must be held before this
 * statement starts: `addressLocked` says an earlier statement of the
 * transaction took it (the candidate's upsert, upsertCandidate); without it
 * this takes the lock first, in a statement of its own.
 */
export async function recordAndCheck(
  em: EntityManager,
  intent: EmailIntent,
  limits: AdmissionLimits,
  options: { addressLocked?: boolean } = {},
): Promise<{ recorded: boolean; check?: AdmissionCheck }> {
  if (intent.template === 'welcome' && !options.addressLocked) await lockAddress(em, intent.recipient);
  const admission = admissionCtes('gate', intent, limits);
  const [row] = await executePrepared<{ inserted: boolean } & AdmissionRow>(
    em,
    `WITH intent AS (
       ${intentInsert('')}
     ), gate AS (
       SELECT 1 FROM intent WHERE inserted
     ), ${admission.sql}
     SELECT coalesce((SELECT inserted FROM intent), false) AS inserted,
       ${ADMISSION_COLUMNS}`,
    [...intentParams(intent), ...admission.params],
  );
  if (!row?.inserted) return { recorded: false };
  return { recorded: true, check: admissionOf(row) };
}

/** Takes the address's lock (ADDRESS_LOCK) until the transaction ends. */
async function lockAddress(em: EntityManager, address: string): Promise<void> {
  await executePrepared(em, `SELECT 1 ${ADDRESS_LOCK}`, [address]);
}
