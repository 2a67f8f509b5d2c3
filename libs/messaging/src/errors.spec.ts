import { describe, expect, it } from 'vitest';
import { isDependencyUnavailable, PermanentError } from './errors.ts';

const withCode = (message: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(message), fields);

describe('isDependencyUnavailable', () => {
  it('recognises a peer that is down, restarting or unreachable', () => {
    for (const error of [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
      withCode('read ECONNRESET', { code: 'ECONNRESET' }),
      withCode('write EPIPE', { code: 'EPIPE' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('Connection is closed.'),
      withCode('terminating connection due to administrator command', { code: '57P01' }),
      withCode('the database system is starting up', { code: '57P03' }),
      withCode('sorry, too many clients already', { code: '53300' }),
      withCode('connection failure', { code: '08006' }),
      // MikroORM's exceptions copy the driver's fields; SQLSTATE may sit in sqlState.
      withCode('wrapped', { sqlState: '08001' }),
      withCode('adding job x to y timed out after 5000 ms', { name: 'TimeoutError', code: 'ETIMEDOUT' }),
      new Error('handler failed', { cause: withCode('read ECONNRESET', { code: 'ECONNRESET' }) }),
    ]) {
      expect(isDependencyUnavailable(error), error.message).toBe(true);
    }
  });

  it('leaves everything else to count as a failure', () => {
    for (const error of [
      new Error('boom'),
      withCode('duplicate key value violates unique constraint', { code: '23505' }),
      withCode('deadlock detected', { code: '40P01' }),
      withCode('syntax error', { code: '42601' }),
      new PermanentError('bad image'),
      'ECONNRESET',
      undefined,
    ]) {
      expect(isDependencyUnavailable(error)).toBe(false);
    }
  });
});
