import { readFile, writeFile } from "node:fs/promises";
import { AddressIndex } from "./address-index.ts";
import { AddressIndexError } from "./errors.ts";
import { type AddressIndexData, STRING_TABLES, TYPED_ARRAYS } from "./index-data.ts";

/**
 * The index file, version 1:
 *
 *   bytes 0-7   "MPADDRS\n"
 *   bytes 8-11  header length H, unsigned 32-bit little endian
 *   then        H bytes of JSON: { "version": 1, "country": "US", the string tables, and
 *                                  "arrays": [{ "name", "type", "length", "offset" }] }
 *   then        the typed arrays, little endian, each at an offset (from the end of the header) that is a
 *               multiple of 8
 *
 * A reader refuses another magic or version; a change of layout takes a new version.
 */
export const INDEX_FILE_VERSION = 1;
const MAGIC = "MPADDRS\n";

type ArrayName = keyof typeof TYPED_ARRAYS;
type ArrayEntry = { name: ArrayName; type: string; length: number; offset: number };

/** The index as the bytes of an index file. */
export function serializeIndex(index: AddressIndex): Buffer {
  const data = index.data;
  const arrays: ArrayEntry[] = [];
  let offset = 0;
  for (const name of Object.keys(TYPED_ARRAYS) as ArrayName[]) {
    const array = data[name];
    arrays.push({ name, type: array.constructor.name, length: array.length, offset });
    offset += Math.ceil(array.byteLength / 8) * 8;
  }
  const tables = Object.fromEntries(STRING_TABLES.map((name) => [name, data[name]]));
  const header = Buffer.from(
    JSON.stringify({ version: INDEX_FILE_VERSION, country: data.country, ...tables, arrays }),
  );
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, "latin1");
  prefix.writeUInt32LE(header.length, 8);
  const body = Buffer.alloc(offset);
  for (const entry of arrays) {
    const array = data[entry.name];
    body.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), entry.offset);
  }
  return Buffer.concat([prefix, header, body]);
}

/** The index in the bytes of an index file; throws `invalid_index_file` for anything else. */
export function deserializeIndex(bytes: Uint8Array): AddressIndex {
  const invalid = (why: string) =>
    new AddressIndexError("invalid_index_file", `not an address index: ${why}`);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 12 || buffer.toString("latin1", 0, 8) !== MAGIC) throw invalid("no index file header");
  const headerLength = buffer.readUInt32LE(8);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(buffer.toString("utf8", 12, 12 + headerLength));
  } catch {
    throw invalid("its header is not JSON");
  }
  if (header.version !== INDEX_FILE_VERSION) {
    throw invalid(`version ${String(header.version)}, this reader knows ${INDEX_FILE_VERSION}`);
  }
  if (typeof header.country !== "string" || !/^[A-Z]{2}$/.test(header.country)) throw invalid("no country");
  const body = buffer.subarray(12 + headerLength);
  const data: Record<string, unknown> = { country: header.country };
  for (const name of STRING_TABLES) {
    const table = header[name];
    if (!Array.isArray(table) || !table.every((s) => typeof s === "string"))
      throw invalid(`no ${name} table`);
    data[name] = table;
  }
  const entries = new Map((header.arrays as ArrayEntry[] | undefined)?.map((e) => [e.name, e]) ?? []);
  for (const [name, Type] of Object.entries(TYPED_ARRAYS) as Array<
    [ArrayName, (typeof TYPED_ARRAYS)[ArrayName]]
  >) {
    const entry = entries.get(name);
    const bytesNeeded = (entry?.length ?? 0) * Type.BYTES_PER_ELEMENT;
    if (!entry || entry.type !== Type.name || entry.offset + bytesNeeded > body.length)
      throw invalid(`no ${name}`);
    const array = new Type(entry.length);
    new Uint8Array(array.buffer).set(body.subarray(entry.offset, entry.offset + bytesNeeded));
    data[name] = array;
  }
  const index = data as unknown as AddressIndexData;
  const n = index.recordStreet.length;
  const consistent =
    [index.recordNumber, index.recordUnit, index.recordLocality, index.keyHashes, index.keyRecords].every(
      (array) => array.length === n,
    ) &&
    index.keyStart.length === n + 1 &&
    index.postingStart.length === index.tokens.length + 1 &&
    index.groupStart.length === index.groupOrder.length + 1;
  if (!consistent) throw invalid("its tables do not fit together");
  return new AddressIndex(index);
}

/** Writes the index to `path` in the index file format. */
export async function writeIndexFile(index: AddressIndex, path: string): Promise<void> {
  await writeFile(path, serializeIndex(index));
}

/** Reads an index file written by writeIndexFile or importAddresses. */
export async function openIndexFile(path: string): Promise<AddressIndex> {
  return deserializeIndex(await readFile(path));
}
