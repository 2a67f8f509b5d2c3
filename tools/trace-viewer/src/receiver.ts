// The OTLP/HTTP trace endpoint, as the OTLP specification has it: POST
// /v1/traces in protobuf or JSON, answered in the same encoding.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import { type DecodedExport, OtlpDecodeError } from './model.ts';
import { decodeJsonTraces } from './otlp-json.ts';
import { decodeProtobufTraces } from './otlp-protobuf.ts';

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

type Encoding = 'protobuf' | 'json';

/** Handles one request to the OTLP port; accepted spans go to `accept`. */
export async function handleOtlpRequest(
  req: IncomingMessage,
  res: ServerResponse,
  accept: (decoded: DecodedExport) => void,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/v1/traces') {
    res
      .writeHead(404, { 'content-type': 'text/plain' })
      .end('not found: this port takes OTLP traces at POST /v1/traces\n');
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('POST OTLP traces here\n');
    return;
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const encoding: Encoding | undefined =
    type === 'application/x-protobuf' ? 'protobuf' : type === 'application/json' ? 'json' : undefined;
  if (!encoding) {
    req.resume();
    res
      .writeHead(415, { 'content-type': 'text/plain' })
      .end(`unsupported content-type "${type}": send application/x-protobuf or application/json\n`);
    return;
  }
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (error) {
    const tooLarge = error instanceof BodyTooLargeError;
    return failure(res, encoding, tooLarge ? 413 : 400, (error as Error).message);
  }
  let decoded: DecodedExport;
  try {
    decoded = encoding === 'protobuf' ? decodeProtobufTraces(body) : decodeJsonTraces(body.toString('utf8'));
  } catch (error) {
    if (error instanceof OtlpDecodeError) return failure(res, encoding, 400, error.message);
    throw error;
  }
  accept(decoded);
  const rejected =
    decoded.rejected > 0
      ? { count: decoded.rejected, message: `${decoded.rejected} spans with an invalid trace or span id` }
      : undefined;
  if (encoding === 'json') {
    const response = rejected
      ? { partialSuccess: { rejectedSpans: String(rejected.count), errorMessage: rejected.message } }
      : {};
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response));
  } else {
    // An ExportTraceServiceResponse; empty when everything was accepted.
    const response = rejected
      ? message([
          field(1, message([varintField(1, rejected.count), field(2, Buffer.from(rejected.message))])),
        ])
      : Buffer.alloc(0);
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(response);
  }
}

class BodyTooLargeError extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError(`body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  const contentEncoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  try {
    if (contentEncoding === 'gzip') return await gunzipAsync(raw, { maxOutputLength: MAX_BODY_BYTES });
    if (contentEncoding === 'deflate') return await inflateAsync(raw, { maxOutputLength: MAX_BODY_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BodyTooLargeError(`body over ${MAX_BODY_BYTES} bytes once decompressed`);
    }
    throw new Error(`cannot ${contentEncoding}-decompress the body: ${(error as Error).message}`);
  }
  if (contentEncoding !== 'identity') throw new Error(`unsupported content-encoding "${contentEncoding}"`);
  return raw;
}

/** A google.rpc.Status in the request's encoding, as OTLP asks for failures. */
function failure(res: ServerResponse, encoding: Encoding, status: number, text: string): void {
  const code = 3; // INVALID_ARGUMENT
  if (encoding === 'json') {
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ code, message: text }));
  } else {
    res
      .writeHead(status, { 'content-type': 'application/x-protobuf' })
      .end(message([varintField(1, code), field(2, Buffer.from(text))]));
  }
}

// The few protobuf writes the responses need.
function message(parts: Buffer[]): Buffer {
  return Buffer.concat(parts);
}

function field(number: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint(number * 8 + 2), varint(bytes.length), bytes]);
}

function varintField(number: number, value: number): Buffer {
  return Buffer.concat([varint(number * 8), varint(value)]);
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}
