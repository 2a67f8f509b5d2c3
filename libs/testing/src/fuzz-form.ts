// Bad multipart/form-data bodies for the fuzzer (fuzz.ts): forms written by
// hand, so that they can also be written wrong.
import { NASTY_STRINGS, pick, type Schema, validValue } from './fuzz-values.ts';

// A 1×1 PNG: a form that is right but for one thing reaches the image checks and the handler.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const BAD_FILES: readonly [string, Buffer][] = [
  ['an empty file', Buffer.alloc(0)],
  ['a PDF', Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj')],
  ['random bytes', Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37) % 256))],
  ['a truncated PNG', PNG.subarray(0, 30)],
  [
    'a PNG header claiming 100000×100000',
    Buffer.concat([PNG.subarray(0, 16), Buffer.from([0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0]), PNG.subarray(24)]),
  ],
];

interface FormPart {
  name: string;
  data: Buffer | string;
  filename?: string;
}

/** A multipart/form-data body written by hand, so that it can also be written wrong. */
function multipart(parts: FormPart[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const file = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.filename === undefined ? '' : '\r\nContent-Type: application/octet-stream';
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file}${type}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** A form that is valid but for one part, or wrong as a whole (the image in `binary` fields). */
export function badForm(
  schema: Schema | undefined,
  random: () => number,
): { payload: Buffer; contentType: string; what: string } {
  const boundary = `fuzz${Math.floor(random() * 1e9)}`;
  const contentType = `multipart/form-data; boundary=${boundary}`;
  const properties = (schema?.properties ?? {}) as Record<string, Schema>;
  const parts: FormPart[] = Object.entries(properties).map(([name, property]) =>
    property.format === 'binary'
      ? { name, data: PNG, filename: 'image.png' }
      : { name, data: String(validValue(property, random)) },
  );
  const roll = random();
  if (roll < 0.1) {
    const raw = pick(random, [
      '',
      'garbage',
      `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx`,
      `--${boundary}`,
    ]);
    return { payload: Buffer.from(raw), contentType, what: 'a malformed form' };
  }
  if (roll < 0.15)
    return { payload: multipart(parts, boundary), contentType: 'multipart/form-data', what: 'no boundary' };
  if (roll < 0.25)
    return {
      payload: multipart(
        [...parts, { name: pick(random, ['admin', 'tenantId', '__proto__']), data: '1' }],
        boundary,
      ),
      contentType,
      what: 'an unknown field',
    };
  if (roll < 0.3)
    return { payload: multipart([...parts, ...parts], boundary), contentType, what: 'every field twice' };
  const index = Math.floor(random() * parts.length);
  const part = parts[index];
  if (!part) return { payload: multipart(parts, boundary), contentType, what: 'an empty form' };
  const others = parts.filter((_, i) => i !== index);
  if (roll < 0.4) return { payload: multipart(others, boundary), contentType, what: `${part.name} missing` };
  if (Buffer.isBuffer(part.data)) {
    if (roll < 0.5)
      return {
        payload: multipart([...others, { ...part, name: 'image' }], boundary),
        contentType,
        what: `the file in another field`,
      };
    if (roll < 0.55)
      return {
        payload: multipart([...others, { ...part, filename: undefined, data: 'text' }], boundary),
        contentType,
        what: `${part.name} as a text field`,
      };
    if (roll < 0.6) return { payload: multipart(parts, boundary), contentType, what: 'a valid form' };
    const [what, data] = pick(random, BAD_FILES);
    return {
      payload: multipart([...others, { ...part, data }], boundary),
      contentType,
      what: `${part.name}: ${what}`,
    };
  }
  const value = pick(
    random,
    NASTY_STRINGS.filter((v) => v.length < 1000),
  );
  return {
    payload: multipart([...others, { name: part.name, data: value }], boundary),
    contentType,
    what: `${part.name} = ${JSON.stringify(value).slice(0, 40)}`,
  };
}
