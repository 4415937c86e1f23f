// Names the wasm rewrite (prepare.ts) adds, and the module hash. Kept apart from prepare.ts so that code that
// only runs a prepared module (the query replica's worker) does not load binaryen (a large module, slow to load).
import { createHash } from 'node:crypto';

/** Export names the rewrite adds. */
export const COUNTER_EXPORT = '__host_instruction_counter';
export const LIMIT_EXPORT = '__host_instruction_limit';
export const TABLE_EXPORT = '__host_table';
export const GLOBAL_EXPORT_PREFIX = '__host_global_';
/** Import the injected limit check calls when the counter passes the limit (the host throws from it). */
export const LIMIT_IMPORT_MODULE = 'ic0_host';
export const LIMIT_IMPORT_NAME = 'instruction_limit_exceeded';
/** Profiling build: the import ic-wasm's trace printer calls with (function id or minus it, counter as f64). */
export const PROFILE_IMPORT_NAME = 'profile';

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
