// Function names for the profiling build (prepare.ts): ic-wasm's trace id of a function is its index in the
// plain wasm, so names are looked up by that index. Azle strips the name section when it builds a canister
// (unless AZLE_CANISTER_BACKTRACES=true), but its template, which keeps it, is the same code: azle only
// removes a few placeholder and method-proxy functions from it and appends its own. So when the wasm has no
// names, the template's functions are aligned with the wasm's in order, a pair only when their bodies are the
// same (call targets and local names left out), and an unmatched function is named by its export or index.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import binaryen from 'binaryen';
import { PROJECT_ROOT } from './paths.js';

export const AZLE_TEMPLATE = join(PROJECT_ROOT, 'node_modules', 'azle', 'dist', 'canister_templates', 'stable.wasm');

/** Names of the custom sections of a wasm binary, in order. */
export function customSections(wasm: Uint8Array): string[] {
  const out: string[] = [];
  let p = 8;
  const leb = (): number => {
    let r = 0;
    let shift = 0;
    let b: number;
    do {
      b = wasm[p++]!;
      r += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return r;
  };
  while (p < wasm.length) {
    const id = wasm[p++]!;
    const len = leb();
    const start = p;
    if (id === 0) {
      const n = leb();
      out.push(Buffer.from(wasm.subarray(p, p + n)).toString('utf8'));
    }
    p = start + len;
  }
  return out;
}

interface Fn {
  name: string;
  imported: boolean;
  /** Signature and body with every `$name` blanked (names differ between the two builds, code does not). */
  shape: string;
}

function functions(wasm: Uint8Array, withShape: boolean): { fns: Fn[]; exports: Map<string, string> } {
  const prev = binaryen.getDebugInfo();
  binaryen.setDebugInfo(true); // keep the name section's names
  const m = binaryen.readBinary(wasm);
  binaryen.setDebugInfo(prev);
  try {
    const fns: Fn[] = [];
    for (let i = 0; i < m.getNumFunctions(); i++) {
      const f = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
      const imported = f.module !== '' && f.module !== null;
      const shape =
        withShape && !imported
          ? `${f.params}/${f.results}/${binaryen
              .emitText(f.body)
              .replace(/\$[^\s()]+/g, '$')
              .replace(/\s*\(unreachable\)/g, '')}`
          : '';
      fns.push({ name: imported ? `${f.module}.${f.base}` : f.name, imported, shape });
    }
    const exports = new Map<string, string>();
    for (let i = 0; i < m.getNumExports(); i++) {
      const e = binaryen.getExportInfo(m.getExportByIndex(i));
      if (e.kind === binaryen.ExternalFunction && !exports.has(e.value)) exports.set(e.value, e.name);
    }
    return { fns, exports };
  } finally {
    m.dispose();
  }
}

const MAX_SKIP = 128;

/** Names by function index of `plain` (the wasm ic-wasm instrumented). Takes ~15 s without a name section. */
export function functionNames(plain: Uint8Array, template: string = AZLE_TEMPLATE): string[] {
  const own = customSections(plain).includes('name');
  const { fns, exports } = functions(plain, !own);
  const names = fns.map((f, i) => (f.imported || own ? f.name : (exports.get(f.name) ?? `func[${i}]`)));
  if (own || !existsSync(template)) return names;
  const t = functions(readFileSync(template), true).fns;
  let j = 0;
  for (let i = 0; i < fns.length && j < t.length; i++) {
    if (fns[i]!.imported) continue;
    // Skip template functions azle removed (a few dozen), up to the next one with the same body; a function
    // with no such match nearby is not from the template (azle's own, appended at the end).
    let k = j;
    const end = Math.min(t.length, j + MAX_SKIP);
    while (k < end && (t[k]!.imported || t[k]!.shape !== fns[i]!.shape)) k++;
    if (k === end) continue;
    names[i] = t[k]!.name;
    j = k + 1;
  }
  return names;
}
