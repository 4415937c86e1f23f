// geth's callTracer (eth/tracers/native/call.go): the call tree with gas, input, output, error and revert
// reason per frame; `onlyTopCall` keeps the top frame only, `withLog` adds each frame's surviving logs.
import { revertReason } from './errors.js';
import { FrameRecorder, type Frame } from './frames.js';
import { addressHex, bytesHex, quantity } from './hex.js';
import type { CallTracerConfig } from './types.js';

export interface CallFrameJson {
  type: string;
  from: string;
  gas: string;
  gasUsed: string;
  to?: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrameJson[];
  logs?: { address: string; topics: string[]; data: string; index: string; position: string }[];
  value?: string;
}

export class CallTracer extends FrameRecorder {
  constructor(private readonly config: CallTracerConfig) {
    super({ logs: config.withLog === true, selfdestructs: config.onlyTopCall !== true });
  }

  result(): CallFrameJson {
    if (this.root === undefined) throw new Error('callTracer: no top-level call');
    return frameJson(this.root, this.config, false);
  }
}

export function frameJson(f: Frame, config: CallTracerConfig, parentFailed: boolean): CallFrameJson {
  const out: CallFrameJson = {
    type: f.type,
    from: addressHex(f.from),
    gas: quantity(f.gas),
    gasUsed: quantity(f.gasUsed),
    input: bytesHex(f.input),
  };
  if (f.to !== undefined) out.to = addressHex(f.to);
  if (f.output.length > 0) out.output = bytesHex(f.output);
  if (f.error !== undefined) {
    out.error = f.error;
    if (f.rawError === 'revert') {
      const reason = revertReason(f.output);
      if (reason !== undefined) out.revertReason = reason;
    }
  }
  const failed = parentFailed || f.error !== undefined;
  if (config.onlyTopCall !== true && f.calls.length > 0) out.calls = f.calls.map((c) => frameJson(c, config, failed));
  if (config.withLog === true && !failed && f.logs.length > 0) {
    out.logs = f.logs.map((l) => ({
      address: addressHex(l.address),
      topics: l.topics.map(bytesHex),
      data: bytesHex(l.data),
      index: quantity(l.index),
      position: quantity(l.position),
    }));
  }
  if (f.value !== undefined) out.value = quantity(f.value);
  return out;
}
