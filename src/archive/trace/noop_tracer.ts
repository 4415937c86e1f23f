// geth's noopTracer: runs the transaction and answers an empty object.
import type { Tracer } from './run.js';

export class NoopTracer implements Tracer {
  txEnd(): void {}

  result(): Record<string, never> {
    return {};
  }
}
