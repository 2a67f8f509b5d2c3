import { createHash } from 'node:crypto';
import type { Multipart } from '@fastify/multipart';
import { HttpProblem } from '@hireflow/runtime';
import type { FastifyRequest } from 'fastify';

/**
 * What the upload route's schema validates and the Idempotency-Key plugin
 * fingerprints: the text fields as sent, and the file as its SHA-256 and
 * size. The same key with another file is then "another body" (422), a
 * retry with the same file replays.
 */
export interface UploadForm {
  file: { sha256: string; size: number };
  [field: string]: unknown;
}

/** The field the image is sent in. */
export const FILE_FIELD = 'file';

const bytesOf = new WeakMap<FastifyRequest, Buffer>();

/** The bytes of the file `readUploadForm` buffered for this request. */
export function uploadedBytes(request: FastifyRequest): Buffer {
  const bytes = bytesOf.get(request);
  if (!bytes) throw new Error('the upload form was not read for this request');
  return bytes;
}

const problem = (status: number, code: string, field: string, message: string) =>
  new HttpProblem(status, code, `${field} ${message}`, { errors: [{ field, message }] });

const LIMITS = { files: 2, fields: 8, parts: 10, fieldSize: 256, fieldNameSize: 64, headerPairs: 100 };

/**
 * Reads a `multipart/form-data` upload whole (the file at most `maxBytes`,
 * in memory) and sets `request.body` to its `UploadForm`, before validation
 * and before the Idempotency-Key plugin's preHandler. Every way a form can be
 * wrong is a 4xx naming the field: not multipart (415), no `file` part or an
 * empty one, a file in another field, two files, a repeated or over-long
 * field, a malformed body (400), a file over the limit (413). Parts are read
 * to the end even when one is wrong, so the answer never cuts the upload short.
 */
export async function readUploadForm(request: FastifyRequest, maxBytes: number): Promise<void> {
  if (!request.isMultipart()) {
    throw problem(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'content-type',
      `must be multipart/form-data with the image in the field "${FILE_FIELD}"`,
    );
  }
  let file: Buffer | undefined;
  let refusal: HttpProblem | undefined;
  const fields: Record<string, string> = {};
  const refuse = (error: HttpProblem) => {
    refusal ??= error;
  };
  try {
    for await (const part of request.parts({ limits: { ...LIMITS, fileSize: maxBytes } })) {
      if (part.type === 'file') {
        const bytes = await readFilePart(part, maxBytes);
        if (part.fieldname !== FILE_FIELD) {
          refuse(
            problem(
              400,
              'VALIDATION_FAILED',
              FILE_FIELD,
              `is required; the image came in the field "${part.fieldname}"`,
            ),
          );
        } else if (file) {
          refuse(problem(400, 'VALIDATION_FAILED', FILE_FIELD, 'must be one file; the form has two'));
        } else file = bytes;
      } else if (part.valueTruncated || part.fieldnameTruncated) {
        refuse(problem(400, 'VALIDATION_FAILED', part.fieldname, 'is too long'));
      } else if (Object.hasOwn(fields, part.fieldname)) {
        refuse(problem(400, 'VALIDATION_FAILED', part.fieldname, 'must be sent once'));
      } else {
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (error) {
    throw formError(error, maxBytes);
  }
  if (refusal) throw refusal;
  if (!file) throw problem(400, 'VALIDATION_FAILED', FILE_FIELD, 'is required (a file part named "file")');
  if (file.length === 0) throw problem(400, 'VALIDATION_FAILED', FILE_FIELD, 'is empty');
  bytesOf.set(request, file);
  const form: UploadForm = {
    ...fields,
    file: { sha256: createHash('sha256').update(file).digest('hex'), size: file.length },
  };
  request.body = form;
}

/** The part's bytes; over the limit, @fastify/multipart throws its RequestFileTooLargeError. */
async function readFilePart(part: Extract<Multipart, { type: 'file' }>, maxBytes: number): Promise<Buffer> {
  const bytes = await part.toBuffer();
  if (bytes.length > maxBytes) throw formError({ code: 'FST_REQ_FILE_TOO_LARGE' }, maxBytes);
  return bytes;
}

/** @fastify/multipart's and busboy's errors as problems naming the field. */
function formError(error: unknown, maxBytes: number): HttpProblem {
  if (error instanceof HttpProblem) return error;
  const code = (error as { code?: string } | null)?.code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return problem(413, 'FILE_TOO_LARGE', FILE_FIELD, `is larger than the limit of ${maxBytes} bytes`);
    case 'FST_FILES_LIMIT':
      return problem(400, 'VALIDATION_FAILED', FILE_FIELD, 'must be one file; the form has more');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return problem(400, 'VALIDATION_FAILED', 'body', 'has too many fields');
    case 'FST_PROTO_VIOLATION':
      return problem(400, 'VALIDATION_FAILED', 'body', 'has a field with a reserved name');
    default:
      return problem(400, 'MALFORMED_MULTIPART', 'body', 'is not a well-formed multipart/form-data body');
  }
}
