// Faster TextEncoder / TextDecoder for ASCII, over azle's (@sinonjs/text-encoding, JavaScript).
//
// Why: inside the canister the polyfill runs a JavaScript loop of many steps a character, and @dfinity/candid
// runs every Candid text through it: the `DIDL` magic of every argument, field labels, error codes and
// messages of every Err reply.
// ASCII text (all of the canister's own strings) takes a direct loop here; anything else, and every option
// (streaming, other encodings), goes to the polyfill unchanged, so results are the same.
// Installed after azle has set its globals (azle sets them when its library module loads).

import { asciiBytes, asciiText } from '../core/codec/bytes.js';

type Encoder = typeof TextEncoder;
type Decoder = typeof TextDecoder;
type DecodeArgs = Parameters<InstanceType<Decoder>['decode']>;

/** A TextEncoder class whose encode() has an ASCII path. */
export function asciiFastEncoder(Base: Encoder): Encoder {
  return class AsciiFastTextEncoder extends Base {
    override encode(input?: string): Uint8Array<ArrayBuffer> {
      const s = input === undefined ? '' : String(input);
      return asciiBytes(s) ?? super.encode(s);
    }
  };
}

/** A TextDecoder class whose decode() of a Uint8Array of ASCII bytes (UTF-8, not streaming) is a direct loop. */
export function asciiFastDecoder(Base: Decoder): Decoder {
  return class AsciiFastTextDecoder extends Base {
    /** Set once a decode streamed: the polyfill may hold bytes of a character, so it decodes from then on. */
    private streamed = false;
    override decode(input?: DecodeArgs[0], options?: DecodeArgs[1]): string {
      if (options?.stream === true) this.streamed = true;
      if (this.streamed || !(input instanceof Uint8Array) || this.encoding !== 'utf-8') return super.decode(input, options);
      return asciiText(input) ?? super.decode(input, options);
    }
  };
}

export function installFastTextCodecs(): void {
  const g = globalThis as { TextEncoder?: Encoder; TextDecoder?: Decoder };
  if (g.TextEncoder !== undefined) g.TextEncoder = asciiFastEncoder(g.TextEncoder);
  if (g.TextDecoder !== undefined) g.TextDecoder = asciiFastDecoder(g.TextDecoder);
}
