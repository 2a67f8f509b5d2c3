import type { components } from './openapi.generated.ts';

export type Problem = components['schemas']['Problem'];

/**
 * An error answer of the API (RFC 9457 problem details) as an exception:
 * its status, stable `code`, the fields at fault and, for 409/429/503,
 * how long to wait. Answers without a problem body (a 408 from the server,
 * a 502 from a proxy) become one with the code `HTTP_<status>`.
 */
export class HireflowProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly instance: string | undefined;
  readonly errors: { field: string; message: string }[];
  /** Seconds from Retry-After (429, 503, 409), or undefined. */
  readonly retryAfterSeconds: number | undefined;

  constructor(problem: Problem, retryAfterSeconds?: number) {
    super(`${problem.status} ${problem.code}${problem.detail ? `: ${problem.detail}` : ''}`);
    this.name = 'HireflowProblem';
    this.status = problem.status;
    this.code = problem.code;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.instance = problem.instance;
    this.errors = problem.errors ?? [];
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The message of the field at fault, if the server named it (`title`, `skills[0]`, `file`). */
  fieldError(field: string): string | undefined {
    return this.errors.find((error) => error.field === field)?.message;
  }
}

const isProblem = (body: unknown): body is Problem =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as Problem).status === 'number' &&
  typeof (body as Problem).code === 'string';

/** The exception for an error answer: `body` is what openapi-fetch parsed (JSON, or the text). */
export function problemOf(response: Response, body: unknown): HireflowProblem {
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const seconds = Number.isFinite(retryAfter) ? retryAfter : undefined;
  if (isProblem(body)) return new HireflowProblem(body, seconds);
  return new HireflowProblem(
    {
      type: 'about:blank',
      title: response.statusText || 'Error',
      status: response.status,
      code: `HTTP_${response.status}`,
      ...(typeof body === 'string' && body ? { detail: body.slice(0, 500) } : {}),
    },
    seconds,
  );
}
