import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

/** An RFC 9457 problem details body. `errors` names each field at fault. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  instance?: string;
  errors?: { field: string; message: string }[];
}

/** An error a route throws to answer with a specific problem (404, 409, 422, …). */
export class HttpProblem extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly errors: Problem['errors'];
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    code: string,
    detail: string,
    options: { errors?: Problem['errors']; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
    this.statusCode = statusCode;
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function problem(status: number, code: string, detail?: string, errors?: Problem['errors']): Problem {
  return {
    type: `https://hireflow.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    code,
    ...(detail ? { detail } : {}),
    ...(errors ? { errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  return reply.code(body.status).type('application/problem+json').send(body);
}

/** `/body/skills/0` → `skills[0]`; the field a client can recognise. */
function fieldName(instancePath: string, context: string | undefined, missing?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (missing) parts.push(missing);
  const path = parts.reduce(
    (acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part),
    '',
  );
  return path || context || 'body';
}

function toProblem(error: FastifyError, request: FastifyRequest): Problem {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const errors = error.validation.flatMap((v) => {
      const params = v.params as { keys?: string[] } | undefined;
      if (v.keyword === 'unrecognized_keys' && params?.keys) {
        return params.keys.map((key) => ({
          field: fieldName(v.instancePath, error.validationContext, key),
          message: 'is not a known field',
        }));
      }
      const missing = v.keyword === 'invalid_type' && / received undefined$/.test(v.message ?? '');
      return [
        {
          field: fieldName(v.instancePath, error.validationContext),
          message: missing ? 'is required' : (v.message ?? 'is invalid'),
        },
      ];
    });
    const where = error.validationContext ?? 'request';
    return problem(
      400,
      'VALIDATION_FAILED',
      `Invalid ${where}: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`,
      errors,
    );
  }
  if (error instanceof HttpProblem) return problem(error.statusCode, error.code, error.message, error.errors);
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send application/json`,
        [{ field: 'content-type', message: 'must be application/json' }],
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, 'BODY_TOO_LARGE', 'Request body is larger than the limit', [
        { field: 'body', message: 'is too large' },
      ]);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem(400, 'EMPTY_BODY', 'Content-Type is application/json but the body is empty', [
        { field: 'body', message: 'is empty' },
      ]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return problem(400, 'MALFORMED_JSON', `Body is not valid JSON: ${error.message}`, [
        { field: 'body', message: 'is not valid JSON' },
      ]);
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && error.message.includes('JSON'))) {
    return problem(400, 'MALFORMED_JSON', `Body is not valid JSON: ${error.message}`, [
      { field: 'body', message: 'is not valid JSON' },
    ]);
  }
  const status = error.statusCode ?? 500;
  if (status === 503) {
    // Load shedding (@fastify/under-pressure) or closing: the client should come back.
    return problem(503, 'OVERLOADED', 'The service is saturated; retry after the Retry-After delay');
  }
  if (status >= 400 && status < 500) {
    return problem(status, error.code ?? 'BAD_REQUEST', error.message);
  }
  return problem(status >= 500 && status < 600 ? status : 500, 'INTERNAL', 'An unexpected error occurred');
}

/** One error handler for every service: errors with a stable code → problem+json; no 500 leaks details. */
export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const body = toProblem(error, request);
    body.instance = request.url;
    if (body.status >= 500) request.log.error({ err: error }, 'request failed');
    if (error instanceof HttpProblem) reply.headers(error.headers);
    return sendProblem(reply, body);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, {
      ...problem(404, 'NOT_FOUND', `No route for ${request.method} ${request.url}`),
      instance: request.url,
    }),
  );
}
