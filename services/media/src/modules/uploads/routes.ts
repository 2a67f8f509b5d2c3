import type { MikroORM } from '@hireflow/db';
import type { Logger } from '@hireflow/messaging';
import { HttpProblem, principalOf, problemSchema } from '@hireflow/runtime';
import { currentTraceId } from '@hireflow/telemetry';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type ImageLimits, isImageError } from '../images/index.ts';
import type { ResizeQueue } from '../resize/queue.ts';
import type { MediaStore } from '../storage/index.ts';
import { FILE_FIELD, readUploadForm, uploadedBytes } from './multipart.ts';
import { acceptUpload, toUploadView } from './service.ts';
import { findUpload } from './store.ts';

export interface UploadRoutesOptions {
  orm: MikroORM;
  store: MediaStore;
  queue: ResizeQueue;
  limits: ImageLimits;
  publicUrl: string;
  log: Logger;
}

const ownerType = z.enum(['job', 'candidate'], { message: 'must be job or candidate' });

// What readUploadForm makes of the form: the text fields as sent, the file as its digest.
const uploadForm = z
  .strictObject({
    file: z.object({ sha256: z.string(), size: z.number() }),
    ownerType: ownerType.optional(),
    ownerId: z.uuid({ message: 'must be a UUID' }).optional(),
  })
  .refine((form) => (form.ownerType === undefined) === (form.ownerId === undefined), {
    message: 'must be sent together with ownerType',
    path: ['ownerId'],
  });

const variantView = z.object({
  name: z.string(),
  width: z.number(),
  height: z.number(),
  contentType: z.string(),
  url: z.string(),
});

const uploadView = z.object({
  id: z.uuid(),
  status: z.enum(['pending', 'ready', 'failed']),
  reason: z.string().optional(),
  ownerType: ownerType.optional(),
  ownerId: z.uuid().optional(),
  uploadedAt: z.string(),
  variants: z.array(variantView),
});

const errors = { 400: problemSchema, 401: problemSchema, 404: problemSchema, 429: problemSchema };

export const uploadRoutes: FastifyPluginAsyncZod<UploadRoutesOptions> = async (app, options) => {
  app.post(
    '/v1/uploads',
    {
      // Before validation and the Idempotency-Key plugin (preHandler): both see the form.
      preValidation: async (request) => readUploadForm(request, options.limits.maxBytes),
      schema: {
        body: uploadForm,
        response: {
          202: z.object({ id: z.uuid(), status: z.string(), traceId: z.string().nullable() }),
          ...errors,
          409: problemSchema,
          413: problemSchema,
          415: problemSchema,
          422: problemSchema,
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      const { ownerType, ownerId } = request.body;
      try {
        const upload = await acceptUpload(
          {
            em: options.orm.em.fork(),
            store: options.store,
            queue: options.queue,
            limits: options.limits,
            log: options.log,
          },
          {
            tenantId,
            bytes: uploadedBytes(request),
            owner: ownerType && ownerId ? { ownerType, ownerId } : undefined,
            idempotencyKey: request.idempotencyKey,
          },
        );
        reply.code(202).header('location', `/v1/uploads/${upload.id}`);
        return { id: upload.id, status: upload.status, traceId: currentTraceId() ?? null };
      } catch (error) {
        // What the header check refuses (type, size, a decompression bomb): the file is at fault.
        if (isImageError(error)) {
          throw new HttpProblem(error.statusCode, error.code, `${FILE_FIELD} ${error.reason}`, {
            errors: [{ field: FILE_FIELD, message: error.reason }],
          });
        }
        throw error;
      }
    },
  );

  app.get(
    '/v1/uploads/:id',
    {
      schema: {
        params: z.strictObject({ id: z.uuid({ message: 'must be a UUID' }) }),
        response: { 200: uploadView, ...errors },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const upload = await findUpload(options.orm.em.fork(), tenantId, request.params.id);
      if (!upload) throw new HttpProblem(404, 'NOT_FOUND', `No upload ${request.params.id}`);
      return toUploadView(upload, options.publicUrl);
    },
  );
};
