import { crc32, deflateSync } from "node:zlib";

/** A PNG (8-bit RGB, no interlace) of `width` x `height` pixels coloured by `pixel`. */
export function png(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number],
): Uint8Array {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  let o = 0;
  for (let y = 0; y < height; y++) {
    raw[o++] = 0;
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      raw[o++] = r;
      raw[o++] = g;
      raw[o++] = b;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", deflateSync(raw)),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}

/** A sunset-like gradient, the stand-in for a photograph. */
export function gradientPng(width: number, height: number): Uint8Array {
  return png(width, height, (x, y) => [
    Math.round(255 * (x / width)),
    Math.round(120 + 100 * (y / height)),
    Math.round(255 * (1 - x / width)),
  ]);
}

/**
 * A photograph-like picture: a gradient with fine grain, so that it compresses about as badly as a photo does.
 * Deterministic: the grain comes from a fixed hash of the pixel position.
 */
export function photoPng(width: number, height: number): Uint8Array {
  return png(width, height, (x, y) => {
    const grain = (((x * 73856093) ^ (y * 19349663)) >>> 0) % 48;
    return [
      Math.min(255, Math.round(200 * (x / width)) + grain),
      Math.min(255, Math.round(90 + 110 * (y / height)) + grain),
      Math.min(255, Math.round(210 * (1 - x / width)) + grain),
    ];
  });
}
