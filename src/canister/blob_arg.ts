// A direct decoder for the commonest argument, one `vec nat8` (eth_sendRawTransaction's raw bytes).
//
// Why: IDL.decode reads and checks a type table, the `DIDL` magic through TextDecoder and the value, for
// 0.6 M instructions of a submit (2.7 M for 128 KiB). The bytes every encoder produces for this argument are
// fixed: `DIDL`, a one-entry type table (vec nat8), one argument of that type, the LEB128 length, the bytes.
// Anything else (other type tables, e.g. `blob` declared through an alias table) returns undefined and is left
// to IDL.decode. Runs after the argument check (arg_check.ts), like IDL.decode.

const HEADER = [0x44, 0x49, 0x44, 0x4c, 0x01, 0x6d, 0x7b, 0x01, 0x00];

/** The blob of a single-`vec nat8` argument in its standard encoding (a fresh copy, as IDL.decode gives), or undefined. */
export function decodeSingleBlob(bytes: Uint8Array): Uint8Array | undefined {
  const h = HEADER.length;
  if (bytes.length <= h) return undefined;
  for (let i = 0; i < h; i++) if (bytes[i] !== HEADER[i]) return undefined;
  let len = 0;
  let scale = 1;
  let o = h;
  for (;;) {
    // At most 5 LEB128 bytes: lengths below 2^35, far above any argument the IC delivers.
    if (o >= bytes.length || o >= h + 5) return undefined;
    const b = bytes[o++]!;
    len += (b & 0x7f) * scale;
    scale *= 128;
    if (b < 0x80) break;
  }
  if (o + len !== bytes.length) return undefined;
  return bytes.slice(o);
}
