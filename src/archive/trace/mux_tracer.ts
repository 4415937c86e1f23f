// geth's muxTracer: several native tracers over one run, answered as { name: result }.
import type { EVMResult, InterpreterStep } from '@ethereumjs/evm';
import type { RunTxResult } from '@ethereumjs/vm';
import type { Enter, Tracer, TxContext } from './run.js';

export interface Named {
  readonly name: string;
  readonly tracer: Tracer;
  result(): unknown;
}

export class MuxTracer implements Tracer {
  constructor(private readonly parts: readonly Named[]) {}

  async txStart(ctx: TxContext): Promise<void> {
    for (const p of this.parts) await p.tracer.txStart?.(ctx);
  }
  async step(s: InterpreterStep, ctx: TxContext): Promise<void> {
    for (const p of this.parts) await p.tracer.step?.(s, ctx);
  }
  async enter(e: Enter, ctx: TxContext): Promise<void> {
    for (const p of this.parts) await p.tracer.enter?.(e, ctx);
  }
  async exit(r: EVMResult, depth: number, ctx: TxContext): Promise<void> {
    for (const p of this.parts) await p.tracer.exit?.(r, depth, ctx);
  }
  async txEnd(r: RunTxResult, ctx: TxContext): Promise<void> {
    for (const p of this.parts) await p.tracer.txEnd?.(r, ctx);
  }
  result(): Record<string, unknown> {
    return Object.fromEntries(this.parts.map((p) => [p.name, p.result()]));
  }
}
