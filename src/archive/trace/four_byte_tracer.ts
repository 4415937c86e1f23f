// geth's 4byteTracer: "0x<selector>-<input bytes after it>" counted over every CALL, CALLCODE, DELEGATECALL
// and STATICCALL with at least four bytes of input, precompiles excepted (the top call included).
import type { Enter, Tracer } from './run.js';
import { bytesHex } from './hex.js';

export class FourByteTracer implements Tracer {
  private readonly ids = new Map<string, number>();

  constructor(private readonly isPrecompile: (address: Uint8Array) => boolean) {}

  enter(e: Enter): void {
    if (e.input.length < 4) return;
    if (e.type === 'CREATE' || e.type === 'CREATE2') return;
    if (this.isPrecompile(e.to)) return;
    const key = `${bytesHex(e.input.subarray(0, 4))}-${e.input.length - 4}`;
    this.ids.set(key, (this.ids.get(key) ?? 0) + 1);
  }

  result(): Record<string, number> {
    return Object.fromEntries(this.ids);
  }
}
