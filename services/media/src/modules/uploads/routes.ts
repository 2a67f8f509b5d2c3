import type { Database } from '@hireflow/db';
import type { Logger } from '@hireflow/messaging';
import {
  HttpProblem,
  jsonResponse,
  LOCATION_HEADER,
  principalOf,
  problem,
  problemResponses,
} from '@hireflow/runtime';
import { currentTraceId } from '@hireflow/telemetry';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { uploadAcceptedExample, uploadExample, uploadFormExample } from '../../http/examples.ts';
import { type ImageLimits, isImageError } from '../images/index.ts';
import type { MediaStore } from '../storage/index.ts';
import { FILE_FIELD, readUploadForm, uploadedBytes } from './multipart.ts';
import type { ResizeQueue } from './resize-queue.ts';
import { acceptUpload, StorageQuotaError, toUploadView } from './service.ts';
import { findUpload } from './store.ts';

export interface UploadRoutesOptions {
  orm: Database;
  store: MediaStore;
  queue: ResizeQueue;
  limits: ImageLimits;
  /** Bytes of originals one tenant may keep (MEDIA_TENANT_QUOTA_BYTES). */
  quotaBytes: number;
  /** How long an upload without a known owner is kept (MEDIA_UNATTACHED_TTL_MS). */
  unattachedTtlMs: number;
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

// The form as a client sends it, for the API document (uploadForm is what
// readUploadForm makes of it, and what is validated).
const uploadRequest = z
  .object({
    file: z.string().meta({
      format: 'binary',
      description:
        'The image: JPEG, PNG, WebP, GIF or AVIF (decided from its bytes, not its name), at most 10 MiB ' +
        '(MEDIA_MAX_FILE_BYTES) and 40 megapixels',
    }),
    ownerType: ownerType
      .optional()
      .describe("What the image is for: a posting's logo (job) or a candidate's photo; with ownerId"),
    ownerId: z.uuid().optional().describe('The posting or candidate id; with ownerType'),
  })
  .meta({ description: 'The image in the field file', examples: [uploadFormExample] });

const variantView = z
  .object({
    name: z.string().describe('thumb (at most 128 px) or medium (at most 512 px)'),
    width: z.number(),
    height: z.number(),
    contentType: z.string(),
    url: z.string().describe('Public URL of the image (no API key needed)'),
  })
  .meta({ id: 'UploadVariant' });

const uploadView = z
  .object({
    id: z.uuid(),
    status: z.enum(['pending', 'ready', 'failed']),
    reason: z.string().optional().describe('Why the upload failed'),
    ownerType: ownerType.optional(),
    ownerId: z.uuid().optional(),
    ownerConfirmed: z
      .boolean()
      .optional()
      .describe(
        'With an owner: true once the posting or candidate is known to exist in the tenant. ' +
          'Until then the upload expires at expiresAt',
      ),
    uploadedAt: z.string(),
    expiresAt: z
      .string()
      .optional()
      .describe(
        'Present while the upload has no owner, or an owner not (yet) known: after this time ' +
          'it is removed (within a quarter of the time it was kept, at most 15 minutes later)',
      ),
    variants: z.array(variantView).describe('Empty until the upload is ready'),
  })
  .meta({
    id: 'Upload',
    description: 'An upload: pending until resized, then ready with its variants, or failed',
  });

const uploadAccepted = z
  .object({
    id: z.uuid(),
    status: z.string().describe('pending'),
    traceId: z.string().nullable().describe('Trace id of this request, to open it in Jaeger'),
  })
  .meta({ id: 'UploadAccepted', description: 'The upload is stored and waits to be resized' });

export const uploadRoutes: FastifyPluginAsyncZod<UploadRoutesOptions> = async (app, options) => {
  app.post(
    '/v1/uploads',
    {
      // Before validation and the Idempotency-Key plugin (preHandler): both see the form.
      preValidation: async (request) => readUploadForm(request, options.limits.maxBytes),
      schema: {
        operationId: 'createUpload',
        tags: ['uploads'],
        summary: 'Upload an image',
        description:
          'A multipart/form-data form with the image in the field `file`, and optionally what it is for ' +
          '(`ownerType` and `ownerId`, both or neither). Answers 202 once the original is stored; the ' +
          'resize happens behind it: poll `Location` until the status is ready (or failed, with a reason). ' +
          "With an owner, the posting's logo or the candidate's photo becomes this image once it is ready.",
        body: uploadForm,
        documentedAs: { body: uploadRequest, consumes: ['multipart/form-data'] },
        response: {
          202: jsonResponse('Accepted: the upload is stored and waits to be resized', uploadAccepted, {
            example: uploadAcceptedExample,
            headers: { location: LOCATION_HEADER },
          }),
          ...problemResponses(
            {
              400:
                'The form is wrong, naming the field: no file (or an empty one, or in another field), two ' +
                'files, a repeated or unknown field, a bad ownerType or ownerId, or a malformed body',
              413: "The file is larger than the limit (FILE_TOO_LARGE), or it would take the tenant's stored bytes over its quota (STORAGE_QUOTA_EXCEEDED)",
              415: 'The body is not multipart/form-data, or the file is not an accepted image type',
              422: 'The image has more pixels than the limit, or its header is corrupt',
            },
            {
              413: problem(413, 'FILE_TOO_LARGE', 'file is larger than the limit of 10485760 bytes', [
                { field: 'file', message: 'is larger than the limit of 10485760 bytes' },
              ]),
              415: problem(
                415,
                'UNSUPPORTED_IMAGE_TYPE',
                'file PDF files are not accepted; send JPEG, PNG, WebP, GIF or AVIF',
                [{ field: 'file', message: 'PDF files are not accepted; send JPEG, PNG, WebP, GIF or AVIF' }],
              ),
              422: problem(
                422,
                'TOO_MANY_PIXELS',
                'file the image has more than the limit of 40000000 pixels',
                [{ field: 'file', message: 'the image has more than the limit of 40000000 pixels' }],
              ),
            },
          ),
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
            quotaBytes: options.quotaBytes,
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
        if (error instanceof StorageQuotaError) {
          throw new HttpProblem(413, 'STORAGE_QUOTA_EXCEEDED', `${FILE_FIELD} ${error.message}`, {
            errors: [{ field: FILE_FIELD, message: error.message }],
          });
        }
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
        operationId: 'getUpload',
        tags: ['uploads'],
        summary: 'Get an upload',
        description: "An upload's status and, once ready, its variants with their public URLs.",
        params: z.strictObject({ id: z.uuid({ message: 'must be a UUID' }).describe('The upload id') }),
        response: {
          200: jsonResponse('The upload', uploadView, { example: uploadExample }),
          ...problemResponses({
            400: 'The id is not a UUID',
            404: 'No upload with this id for this API key',
          }),
        },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const upload = await findUpload(options.orm.em.fork(), tenantId, request.params.id);
      if (!upload) throw new HttpProblem(404, 'NOT_FOUND', `No upload ${request.params.id}`);
      return toUploadView(upload, options.publicUrl, options.unattachedTtlMs);
    },
  );
};
