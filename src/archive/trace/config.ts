// Reading geth's TraceConfig: the tracer's name, its tracerConfig, and `timeout` in Go's duration syntax.
import { TraceError, TraceErrorCode } from './types.js';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration, in milliseconds ("5s", "300ms", "1m30s", "1.5h"). */
export function parseDuration(text: string): number {
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  if (text === '0') return 0;
  let ms = 0;
  let at = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = re.lastIndex;
  }
  if (at === 0 || at !== text.length) throw new TraceError(TraceErrorCode.BadConfig, `time: invalid duration "${text}"`);
  return ms;
}

/** A tracerConfig object's known boolean fields; anything else named in it is refused, as geth's JSON decoding would not be silent about a wrong type. */
export function booleans<K extends string>(tracer: string, cfg: unknown, keys: readonly K[]): Partial<Record<K, boolean>> {
  if (cfg === undefined || cfg === null) return {};
  if (typeof cfg !== 'object' || Array.isArray(cfg)) throw new TraceError(TraceErrorCode.BadConfig, `${tracer}: tracerConfig must be an object`);
  const out: Partial<Record<K, boolean>> = {};
  for (const [k, v] of Object.entries(cfg)) {
    if (!(keys as readonly string[]).includes(k)) continue;
    if (typeof v !== 'boolean') throw new TraceError(TraceErrorCode.BadConfig, `${tracer}: ${k} must be a boolean`);
    out[k as K] = v;
  }
  return out;
}
