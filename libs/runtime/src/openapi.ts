import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { createHttpServer } from './http.ts';
import { problemSchema } from './http-schemas.ts';
import { silentLogger } from './logger.ts';
import type { Problem } from './problem.ts';

/** An OpenAPI 3.1 document, as plain JSON. */
export type OpenApiDocument = {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: Record<string, Record<string, unknown>>;
} & Record<string, unknown>;

/**
 * A response header for the document: its JSON schema with a description
 * (documentation only: Fastify does not check response headers).
 */
export type ResponseHeader = { description: string; type: string } & Record<string, unknown>;

/**
 * A JSON response with its description, an example and the headers it
 * carries: what a consumer reads in the API document. Fastify serializes the
 * body through `schema` as for a bare schema.
 */
export function jsonResponse<T extends z.ZodType>(
  description: string,
  schema: T,
  options: { example?: unknown; headers?: Record<string, ResponseHeader> } = {},
) {
  return {
    description,
    content: {
      'application/json': { schema, ...(options.example === undefined ? {} : { example: options.example }) },
    },
    ...(options.headers ? { headers: options.headers } : {}),
  };
}

/**
 * RFC 9457 problem responses a route answers itself, each with what it
 * means there (and an example where the status's usual one would mislead).
 */
export function problemResponses<S extends number>(
  descriptions: Record<S, string>,
  examples: Partial<Record<S, Problem>> = {},
) {
  return Object.fromEntries(
    Object.entries(descriptions).map(([status, description]) => {
      const example = examples[Number(status) as S];
      const media = { schema: problemSchema, ...(example ? { example } : {}) };
      return [status, { description, content: { 'application/problem+json': media } }];
    }),
  ) as Record<
    S,
    { description: string; content: { 'application/problem+json': { schema: typeof problemSchema } } }
  >;
}

/** `Location` of a 202: where to poll the resource. */
export const LOCATION_HEADER: ResponseHeader = {
  type: 'string',
  description: 'The resource, to poll (a path under the base URL)',
};

/**
 * A service's OpenAPI info. Named schemas are the zod schemas with an `id`
 * in their metadata (`.meta({ id: 'Posting' })`, zod's global registry):
 * each becomes `#/components/schemas/<id>`, so ids are unique across services.
 */
export interface OpenApiOptions {
  title: string;
  description: string;
}

/**
 * What a route documents where its schema cannot say it: the request as
 * the client sends it when what is validated is something else (a
 * multipart form read in preValidation), the path when the route's pattern
 * is looser than what it serves, responses that no schema serializes
 * (bytes, streams). Documentation only: nothing here is validated.
 */
export interface DocumentedAs {
  /** The path in OpenAPI form (`/media/{uploadId}/{variant}.webp`). */
  url?: string;
  /** The body as sent (null: none is documented); with `consumes` for its media type. */
  body?: z.ZodType | null;
  consumes?: string[];
  /** Path parameters and request headers as served (the route may check them itself). */
  params?: z.ZodType;
  headers?: z.ZodType;
  /** Plain OpenAPI responses (`{ description, content, headers }`; `type: 'null'` for none). */
  responses?: Record<string, Record<string, unknown>>;
}

declare module 'fastify' {
  interface FastifySchema {
    /** See `DocumentedAs`. */
    documentedAs?: DocumentedAs;
  }
}

interface DescribedResponse {
  headers?: Record<string, ResponseHeader>;
  content: Record<string, { example?: unknown }>;
}

const isDescribed = (value: unknown): value is DescribedResponse =>
  typeof value === 'object' && value !== null && 'content' in value;

/**
 * The zod transform keeps a content-typed response's description and
 * schema only: put back what `jsonResponse` declared for the document (the
 * example of each media type, the headers).
 */
function describedTransform(): ReturnType<typeof createJsonSchemaTransform> {
  const zodTransform = createJsonSchemaTransform({});
  return (route) => {
    const { documentedAs: as, ...schema } = (route.schema ?? {}) as Record<string, unknown> & {
      documentedAs?: DocumentedAs;
    };
    if (as?.body !== undefined) {
      if (as.body === null) delete schema.body;
      else schema.body = as.body;
    }
    if (as?.consumes) schema.consumes = as.consumes;
    if (as?.params) schema.params = as.params;
    if (as?.headers) schema.headers = as.headers;
    const result = zodTransform({ ...route, schema: route.schema ? schema : route.schema });
    if (as?.url) result.url = as.url;
    const declared = (route.schema as { response?: Record<string, unknown> } | undefined)?.response ?? {};
    const described = result.schema as { response?: Record<string, Record<string, unknown>> };
    if (as?.responses) described.response = { ...described.response, ...as.responses };
    const out = described.response ?? {};
    for (const [status, response] of Object.entries(declared)) {
      const target = out[status];
      if (!isDescribed(response) || !target) continue;
      if (response.headers) target.headers = response.headers;
      const content = target.content as Record<string, Record<string, unknown>>;
      for (const [type, media] of Object.entries(response.content)) {
        if (media.example !== undefined && content[type]) content[type].example = media.example;
      }
    }
    return result;
  };
}

/** `#/components/schemas/<id>` references anywhere in `value`. */
function schemaRefs(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) schemaRefs(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) {
        into.add(child.slice('#/components/schemas/'.length));
      } else schemaRefs(child, into);
    }
  }
  return into;
}

/**
 * Drops component schemas nothing references: the zod transform emits an
 * input and an output form of every named schema the process has loaded
 * (another service's too, where a tool loads both); a document keeps its own.
 */
export function pruneUnusedSchemas<D extends object>(document: D): D {
  const { components, ...rest } = document as { components?: Record<string, Record<string, unknown>> };
  const schemas = components?.schemas;
  if (!components || !schemas) return document;
  const { schemas: _all, ...otherComponents } = components;
  const used = schemaRefs([rest, otherComponents], new Set());
  for (let grew = true; grew; ) {
    const before = used.size;
    for (const name of [...used]) schemaRefs(schemas[name], used);
    grew = used.size > before;
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...document, components: { ...components, schemas: kept } };
}

/**
 * OpenAPI 3.1 generated from the route schemas (only tagged routes: health
 * and internal routes stay out), served at `/openapi.json`.
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const components = createJsonSchemaTransformObject({});
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: '1.0.0', description: options.description },
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: `Authorization: Bearer hf_…`',
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: describedTransform(),
    transformObject: (document) => pruneUnusedSchemas(components(document)),
    hideUntagged: true,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * A dependency of routes registered only to be described (`describeRoutes`):
 * nothing may use it (typed `never`, it fits any slot), and any use says so.
 */
export function notServed(what: string): never {
  return new Proxy(
    {},
    {
      get(_target, property) {
        if (property === 'then') return undefined;
        throw new Error(`${what} is not available: these routes are registered to be described, not served`);
      },
    },
  ) as never;
}

/**
 * The OpenAPI document of a service's public routes without running the
 * service: the routes are registered on an app that never listens nor
 * connects (their dependencies are `notServed`). What the live app serves
 * at `/openapi.json` is the same document (each service tests it).
 */
export async function describeRoutes(
  options: OpenApiOptions,
  register: (app: FastifyInstance) => Promise<void>,
): Promise<OpenApiDocument> {
  const app = createHttpServer({ log: silentLogger() });
  try {
    await registerOpenApi(app, options);
    await register(app.withTypeProvider<ZodTypeProvider>());
    await app.ready();
    return app.swagger() as unknown as OpenApiDocument;
  } finally {
    await app.close();
  }
}
