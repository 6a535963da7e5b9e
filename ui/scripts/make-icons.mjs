// Draws Pillbox's app icons (a two-tone capsule on a teal tile) and writes them as PNG files
// into public/. Run with `npm run icons`; the generated files are committed.
import { deflateSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const publicDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'public');

const TEAL = [15, 118, 110];
const WHITE = [255, 255, 255];
const AMBER = [251, 191, 36];
const SEAM = [17, 94, 89];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y += 1) {
    rows[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Signed distance (in pixels) to a rounded square centred in the canvas.
function roundedSquareDistance(x, y, half, radius) {
  const qx = Math.abs(x) - (half - radius);
  const qy = Math.abs(y) - (half - radius);
  const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0));
  return outside + Math.min(Math.max(qx, qy), 0) - radius;
}

// Signed distance to a capsule along the x axis: segment [-h, h] thickened by r.
function capsuleDistance(x, y, h, r) {
  const cx = Math.max(-h, Math.min(h, x));
  return Math.hypot(x - cx, y) - r;
}

const coverage = (distance) => Math.max(0, Math.min(1, 0.5 - distance));

function blend(dst, colour, alpha) {
  const a = dst[3] + alpha * (1 - dst[3]);
  if (a === 0) return [0, 0, 0, 0];
  const mix = (i) => (colour[i] * alpha + dst[i] * dst[3] * (1 - alpha)) / a;
  return [mix(0), mix(1), mix(2), a];
}

/**
 * @param {number} size  edge length in pixels
 * @param {{ fullBleed: boolean, capsuleScale: number }} options
 *   fullBleed: the tile fills the whole square (maskable, Apple touch) instead of a rounded tile
 *   capsuleScale: capsule length as a fraction of the edge
 */
function drawIcon(size, { fullBleed, capsuleScale }) {
  const rgba = Buffer.alloc(size * size * 4);
  const centre = size / 2;
  const length = size * capsuleScale;
  const radius = length * 0.21;
  const halfSegment = length / 2 - radius;
  const seamHalfWidth = Math.max(1, size * 0.008);
  const angle = -Math.PI / 4;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);

  for (let py = 0; py < size; py += 1) {
    for (let px = 0; px < size; px += 1) {
      const x = px + 0.5 - centre;
      const y = py + 0.5 - centre;
      let pixel = [0, 0, 0, 0];

      const tile = fullBleed ? 1 : coverage(roundedSquareDistance(x, y, size / 2, size * 0.22));
      pixel = blend(pixel, TEAL, tile);

      // Rotate into the capsule's own frame.
      const u = x * cos - y * sin;
      const v = x * sin + y * cos;
      const body = coverage(capsuleDistance(u, v, halfSegment, radius));
      if (body > 0) {
        const half = u < 0 ? WHITE : AMBER;
        const seam = coverage(Math.abs(u) - seamHalfWidth);
        pixel = blend(pixel, half, body);
        pixel = blend(pixel, SEAM, body * seam * 0.9);
      }

      const offset = (py * size + px) * 4;
      rgba[offset] = Math.round(pixel[0]);
      rgba[offset + 1] = Math.round(pixel[1]);
      rgba[offset + 2] = Math.round(pixel[2]);
      rgba[offset + 3] = Math.round(pixel[3] * 255);
    }
  }
  return encodePng(size, rgba);
}

const icons = [
  { file: 'pwa-192x192.png', size: 192, fullBleed: false, capsuleScale: 0.66 },
  { file: 'pwa-512x512.png', size: 512, fullBleed: false, capsuleScale: 0.66 },
  // Maskable: the glyph stays inside the central 80 % safe zone (a circle of radius 0.4).
  { file: 'maskable-512x512.png', size: 512, fullBleed: true, capsuleScale: 0.52 },
  { file: 'apple-touch-icon.png', size: 180, fullBleed: true, capsuleScale: 0.6 },
];

for (const { file, size, ...options } of icons) {
  writeFileSync(join(publicDir, file), drawIcon(size, options));
  console.log(`wrote public/${file}`);
}
