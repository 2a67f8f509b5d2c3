import { describe, expect, it } from 'vitest';
import { HireflowProblem, problemOf } from './problem.ts';

describe('problemOf', () => {
  it('carries a problem body: status, code, fields at fault, Retry-After', () => {
    const response = new Response(null, { status: 429, headers: { 'retry-after': '7' } });
    const problem = problemOf(response, {
      type: 'https://hireflow.dev/problems/rate-limited',
      title: 'Too Many Requests',
      status: 429,
      code: 'RATE_LIMITED',
      detail: 'Rate limit exceeded',
      errors: [{ field: 'authorization', message: 'slow down' }],
    });
    expect(problem).toBeInstanceOf(HireflowProblem);
    expect(problem).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 7 });
    expect(problem.fieldError('authorization')).toBe('slow down');
    expect(problem.message).toBe('429 RATE_LIMITED: Rate limit exceeded');
  });

  it('makes a problem of an answer without one (a bare 408, a proxy page)', () => {
    const problem = problemOf(
      new Response(null, { status: 502, statusText: 'Bad Gateway' }),
      '<html>down</html>',
    );
    expect(problem).toMatchObject({ status: 502, code: 'HTTP_502', title: 'Bad Gateway', errors: [] });
    expect(problem.detail).toBe('<html>down</html>');
    expect(problem.retryAfterSeconds).toBeUndefined();
  });
});
