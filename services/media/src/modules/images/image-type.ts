// The type of an upload is decided from its first bytes (magic numbers), never
// from the file name or the part's declared content type: both are whatever
// the client says. Only the formats below are accepted.

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

export const IMAGE_CONTENT_TYPES: Readonly<Record<ImageFormat, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
};

export const ACCEPTED_IMAGE_FORMATS = Object.keys(IMAGE_CONTENT_TYPES) as ImageFormat[];

/** How many leading bytes detection looks at: give it this many (or the whole file if shorter). */
export const IMAGE_TYPE_HEAD_BYTES = 128;

export type ImageTypeDetection =
  | { supported: true; format: ImageFormat; contentType: string }
  | { supported: false; reason: string };

const ACCEPTED = 'JPEG, PNG, WebP, GIF or AVIF';

/** Decides the type from a file's first bytes (the rest is ignored); anything not accepted comes back with a reason. */
export function detectImageType(bytes: Uint8Array): ImageTypeDetection {
  if (bytes.length === 0) return unsupported('the file is empty');
  const head = bytes.subarray(0, IMAGE_TYPE_HEAD_BYTES);
  const format = acceptedFormat(head);
  if (format) return { supported: true, format, contentType: IMAGE_CONTENT_TYPES[format] };
  const known = knownOtherType(head);
  return unsupported(
    known ? `${known} files are not accepted; send ${ACCEPTED}` : `the file is not a ${ACCEPTED} image`,
  );
}

function unsupported(reason: string): ImageTypeDetection {
  return { supported: false, reason };
}

function acceptedFormat(b: Uint8Array): ImageFormat | undefined {
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (ftypBrands(b).some((brand) => brand === 'avif' || brand === 'avis')) return 'avif';
  return undefined;
}

/**
 * The brands of an ISO-BMFF `ftyp` box at the start (major brand, then the
 * compatible ones), as far as the head holds them. HEIC shares the container,
 * so only the brands tell AVIF apart.
 */
function ftypBrands(b: Uint8Array): string[] {
  if (b.length < 12 || ascii(b, 4, 8) !== 'ftyp') return [];
  const boxSize = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0);
  if (boxSize < 16) return [];
  const end = Math.min(boxSize, b.length);
  const brands = [ascii(b, 8, 12)];
  // bytes 12..16 hold the minor version; compatible brands follow, 4 bytes each
  for (let at = 16; at + 4 <= end; at += 4) brands.push(ascii(b, at, at + 4));
  return brands;
}

/** Common types people send by mistake, named so the reason helps them. */
function knownOtherType(b: Uint8Array): string | undefined {
  if (ascii(b, 0, 5) === '%PDF-') return 'PDF';
  const brands = ftypBrands(b);
  if (brands.some((brand) => ['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1'].includes(brand)))
    return 'HEIC/HEIF';
  if (brands.length > 0) return 'video';
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return 'TIFF';
  if (ascii(b, 0, 2) === 'BM' && b.length >= 10 && b[6] === 0 && b[7] === 0 && b[8] === 0 && b[9] === 0)
    return 'BMP';
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04])) return 'ZIP (or Office document)';
  const text = ascii(b, 0, b.length);
  if (/^\s*(<\?xml|<svg|<!doctype svg)/i.test(text)) return 'SVG';
  if (looksLikeText(b)) return 'text';
  return undefined;
}

/** Valid UTF-8 (a character cut at the end of the head is fine) without control bytes other than whitespace. */
function looksLikeText(b: Uint8Array): boolean {
  if (!b.every((byte) => byte >= 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b, { stream: true });
    return true;
  } catch {
    return false;
  }
}

function startsWith(b: Uint8Array, magic: number[]): boolean {
  return b.length >= magic.length && magic.every((byte, i) => b[i] === byte);
}

/** Bytes `from..to` as Latin-1 text, or '' when the head is too short to hold them. */
function ascii(b: Uint8Array, from: number, to: number): string {
  if (b.length < to) return '';
  return String.fromCharCode(...b.subarray(from, to));
}
