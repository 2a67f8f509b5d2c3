import { crc32, deflateSync } from 'node:zlib';

// The demo's company logo, drawn here so the demo needs no image file: a
// round badge with a white "H" on a diagonal gradient, as an RGBA PNG.

/** A PNG of `size`×`size` pixels (the resize worker turns it into WebP variants). */
export function demoLogo(size = 640): Buffer {
  const rows: Buffer[] = [];
  const centre = (size - 1) / 2;
  const radius = size * 0.46;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4); // filter byte 0, then RGBA
    for (let x = 0; x < size; x++) {
      const inside = Math.hypot(x - centre, y - centre) <= radius;
      const t = (x + y) / (2 * size);
      const pixel = !inside
        ? [0, 0, 0, 0]
        : isLetter(x / size, y / size)
          ? [255, 255, 255, 255]
          : [Math.round(20 + 40 * t), Math.round(110 + 80 * t), Math.round(200 - 60 * t), 255];
      row.set(pixel, 1 + x * 4);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, no filter, not interlaced
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The "H": two uprights and a bar, in coordinates relative to the image (0..1). */
function isLetter(x: number, y: number): boolean {
  const upright = (x >= 0.32 && x <= 0.42) || (x >= 0.58 && x <= 0.68);
  return (upright && y >= 0.28 && y <= 0.72) || (x > 0.42 && x < 0.58 && y >= 0.45 && y <= 0.55);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
