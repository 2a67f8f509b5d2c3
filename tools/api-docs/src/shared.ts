// What every public route shares, as OpenAPI components: the front door
// (API key, rate limits, load shedding, request timeout) and the
// Idempotency-Key of POSTs. The routes describe only what they answer
// themselves; `buildPublicApiDocument` adds these where they apply.
import { problem } from '@hireflow/runtime';

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

export const RETRY_AFTER = {
  description: 'Seconds to wait before trying again',
  schema: { type: 'integer', minimum: 0 },
  example: 5,
};

export const IDEMPOTENT_REPLAYED = {
  description: 'Present (true) when this answer is the stored answer to an earlier request with the same key',
  schema: { type: 'string', enum: ['true'] },
  example: 'true',
};

export const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: the first answer (status, body, Location) is stored for this key and ' +
    "this API key's tenant, and a retry with the same key and the same body gets it again with " +
    '`Idempotent-Replayed: true`, without doing the work twice. The same key with another body: 422; ' +
    'while the first request still runs: 409 with Retry-After. Use a new random key (a UUID) per ' +
    'intended action, the same one for its retries. Keys are kept 15 days.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  example: '6c1b0f6e-2f4e-4a3b-9d7c-3b2a1f0e9d8c',
};

const problemMedia = (example: object) => ({
  'application/problem+json': { schema: PROBLEM_REF, example },
});

/** Responses any public route can give, by component name. */
export const SHARED_RESPONSES = {
  Unauthorized: {
    description: 'The Authorization header is missing or malformed, or the API key is unknown or revoked',
    headers: {
      'WWW-Authenticate': { description: 'Bearer realm="hireflow"', schema: { type: 'string' } },
    },
    content: problemMedia(
      problem(401, 'UNAUTHORIZED', 'The API key is unknown or revoked', [
        { field: 'authorization', message: 'The API key is unknown or revoked' },
      ]),
    ),
  },
  RequestTimeout: {
    description:
      'The request did not arrive whole within the request timeout (30 s by default): the server answers ' +
      'without a body and closes the connection',
  },
  TooManyRequests: {
    description:
      "This API key's rate limit is used up (RATE_LIMITED), or this address sent too many requests with " +
      'missing or wrong credentials (TOO_MANY_FAILED_AUTHENTICATIONS): retry after Retry-After',
    headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
    content: problemMedia(
      problem(429, 'RATE_LIMITED', 'Rate limit of 1200 requests exceeded; retry in 37 seconds'),
    ),
  },
  ServiceUnavailable: {
    description: 'The service is saturated and sheds load (OVERLOADED): retry after Retry-After',
    headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
    content: problemMedia(
      problem(503, 'OVERLOADED', 'The service is saturated; retry after the Retry-After delay'),
    ),
  },
  IdempotencyInProgress: {
    description: 'A request with this Idempotency-Key is still being processed: retry after Retry-After',
    headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
    content: problemMedia({
      ...problem(
        409,
        'IDEMPOTENCY_IN_PROGRESS',
        'A request with this Idempotency-Key is still being processed; retry later.',
      ),
      title: 'Request in progress',
    }),
  },
  IdempotencyKeyReused: {
    description: 'This Idempotency-Key was already used with a different body or URL',
    content: problemMedia({
      ...problem(
        422,
        'IDEMPOTENCY_CONFLICT',
        'This Idempotency-Key was already used with a different request body or URL.',
      ),
      title: 'Idempotency-Key reused',
    }),
  },
};

type SharedResponse = keyof typeof SHARED_RESPONSES;

/** Which shared response a status is, for routes under `/v1` (API key, rate limit). */
export const FRONT_DOOR: Record<string, SharedResponse> = {
  401: 'Unauthorized',
  408: 'RequestTimeout',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};

/** What routes without an API key share (the public variant bytes): no 401 or rate limit. */
export const OPEN_DOOR: Record<string, SharedResponse> = {
  408: 'RequestTimeout',
  503: 'ServiceUnavailable',
};

/** The Idempotency-Key plugin's answers on POSTs. */
export const IDEMPOTENCY: Record<string, SharedResponse> = {
  409: 'IdempotencyInProgress',
  422: 'IdempotencyKeyReused',
};

/** What a status means besides the route's own reasons, appended where a route declared it itself. */
export const ALSO_MEANS: Record<string, { all?: string; post?: string }> = {
  400: {
    post: 'an Idempotency-Key header that is empty or longer than 255 characters (IDEMPOTENCY_KEY_INVALID)',
  },
  409: { post: 'a request with this Idempotency-Key still in progress (IDEMPOTENCY_IN_PROGRESS)' },
  422: { post: 'an Idempotency-Key already used with another body (IDEMPOTENCY_CONFLICT)' },
  429: { all: "the API key's rate limit, or too many failed credentials from this address" },
  503: { all: 'load shedding' },
};

/** Statuses whose answers carry Retry-After. */
export const RETRY_STATUSES = new Set(['409', '429', '503']);

/** Where an operation's example problems point: the first required body field, the resource by path. */
export interface ProblemContext {
  path: string;
  /** The first required field of the JSON body, if there is one. */
  bodyField: string | undefined;
  hasPathId: boolean;
}

const EXAMPLE_ID = '0b6f3c8e-4a2d-4c1e-9f57-2d8a1e6b9c40';

function notFoundDetail(path: string): string {
  if (path.startsWith('/v1/jobs')) return `No job posting ${EXAMPLE_ID}`;
  if (path.startsWith('/v1/candidates')) return `No candidate ${EXAMPLE_ID}`;
  if (path.startsWith('/v1/uploads')) return `No upload ${EXAMPLE_ID}`;
  return `No image at /media/${EXAMPLE_ID}/thumb.webp`;
}

/** An example problem for a status a route declared without one. */
export function defaultProblemExample(status: string, context: ProblemContext): object {
  switch (status) {
    case '400':
      if (context.bodyField)
        return problem(400, 'VALIDATION_FAILED', `Invalid body: ${context.bodyField} is required`, [
          { field: context.bodyField, message: 'is required' },
        ]);
      if (context.hasPathId)
        return problem(400, 'VALIDATION_FAILED', 'Invalid params: id must be a UUID', [
          { field: 'id', message: 'must be a UUID' },
        ]);
      return problem(400, 'VALIDATION_FAILED', 'Invalid querystring: limit must be between 1 and 100', [
        { field: 'limit', message: 'must be between 1 and 100' },
      ]);
    case '404':
      return problem(404, 'NOT_FOUND', notFoundDetail(context.path));
    case '413':
      return problem(413, 'BODY_TOO_LARGE', 'Request body is larger than the limit', [
        { field: 'body', message: 'is too large' },
      ]);
    case '415':
      return problem(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'Content-Type text/plain is not supported; send application/json',
        [{ field: 'content-type', message: 'must be application/json' }],
      );
    default:
      throw new Error(`no example problem for ${status}: give the route one (problemResponses' examples)`);
  }
}
