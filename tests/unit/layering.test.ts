// The layering of DESIGN.md ("Dependencies point down the table"), checked on every import in src/: each
// part names the parts it may use; src/ never reaches scripts/, bench/ or tests/; core never imports azle;
// on the Node side only the client imports the canister's Candid (the host knows none); only the indexer
// imports its schema and migrations (others ask it through ensureSchema).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** What each part may import besides itself, in DESIGN's order of roles (core, canister, host, client, ...). */
const MAY_USE: Readonly<Record<string, readonly string[]>> = {
  core: [],
  canister: ['core'],
  host: ['core'],
  client: ['core', 'canister', 'host'],
  gateway: ['core', 'client', 'archive'],
  indexer: ['core', 'client'],
  archive: ['core', 'client', 'indexer'],
  explorer: ['core', 'client', 'indexer', 'gateway'],
  devnet: ['core', 'canister', 'host', 'client', 'gateway', 'indexer', 'archive', 'explorer'],
};
/** Parts whose code runs in Node (the canister and core run in the wasm). */
const NODE_PARTS = new Set(['host', 'client', 'gateway', 'indexer', 'archive', 'explorer', 'devnet']);
/** The canister's Candid: its types, their value shapes, the codecs and the argument checks. */
const CANISTER_CANDID = new Set(['idl', 'values', 'candid_fast', 'convert', 'arg_check', 'decorators'].map((m) => `src/canister/${m}.ts`));
/** The indexer's tables and their migrations. */
const INDEXER_SCHEMA = 'src/indexer/schema.ts';

export interface Edge {
  /** Importing file, relative to the project root with `/` separators. */
  readonly from: string;
  /** The specifier as written. */
  readonly spec: string;
  /** For a relative specifier: the file it names, relative to the project root (extension as written). */
  readonly to: string | undefined;
}

/** Why an edge breaks a rule, or undefined when it is allowed. */
export function violation(e: Edge): string | undefined {
  const fromPart = e.from.split('/')[1]!;
  if (e.to === undefined) {
    // A package: only core's rule concerns them (core never imports azle).
    if (fromPart === 'core' && (e.spec === 'azle' || e.spec.startsWith('azle/'))) return 'core never imports azle';
    return undefined;
  }
  const [top, toPart] = e.to.split('/');
  if (top !== 'src') return `src/ never imports ${top}/`;
  if (toPart === fromPart) return undefined;
  const allowed = MAY_USE[fromPart];
  if (allowed === undefined) return `${fromPart} is not a part of DESIGN's table`;
  if (!allowed.includes(toPart!)) return `${fromPart} may not use ${toPart} (it uses ${allowed.join(', ') || 'nothing of ours but itself'})`;
  const file = e.to.replace(/\.js$/, '.ts');
  if (NODE_PARTS.has(fromPart) && fromPart !== 'client' && CANISTER_CANDID.has(file)) return "on the Node side only src/client encodes or decodes the canister's Candid";
  if (file === INDEXER_SCHEMA) return "only the indexer uses its schema and migrations (ask it with ensureSchema)";
  return undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

function edgesOf(file: string): Edge[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const from = relative(ROOT, file).split(sep).join('/');
  return info.importedFiles.map(({ fileName: spec }) => ({
    from,
    spec,
    to: spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)).split(sep).join('/') : undefined,
  }));
}

describe('layering: imports in src/ follow DESIGN.md', () => {
  const edges = sourceFiles(SRC).flatMap(edgesOf);

  it('reads the imports of every part', () => {
    const parts = new Set(edges.map((e) => e.from.split('/')[1]));
    for (const p of ['core', 'canister', 'host', 'client', 'gateway', 'indexer', 'explorer', 'devnet']) expect(parts.has(p), p).toBe(true);
    // Static, type-only, re-exports and dynamic imports are all read.
    expect(edges.some((e) => e.from === 'src/client/host.ts' && e.spec === '../host/index.js')).toBe(true);
    expect(edges.some((e) => e.spec === './prepare.js' && e.from === 'src/host/index.ts')).toBe(true);
  });

  it('has no edge the rules do not allow', () => {
    const bad = edges.flatMap((e) => {
      const why = violation(e);
      return why === undefined ? [] : [`${e.from} -> ${e.spec}: ${why}`];
    });
    expect(bad).toEqual([]);
  });

  it('the IC host has no import circle, not even a type-only one', () => {
    const host = edges.filter((e) => e.from.startsWith('src/host/') && e.to?.startsWith('src/host/'));
    const next = new Map<string, string[]>();
    for (const e of host) next.set(e.from, [...(next.get(e.from) ?? []), e.to!.replace(/\.js$/, '.ts')]);
    const circles: string[] = [];
    const walk = (file: string, path: string[]): void => {
      if (path.includes(file)) {
        if (file === path[0]) circles.push([...path, file].join(' -> '));
        return;
      }
      for (const to of next.get(file) ?? []) walk(to, [...path, file]);
    };
    for (const file of next.keys()) walk(file, []);
    expect(circles).toEqual([]);
  });

  it('refuses the edges the rules forbid', () => {
    const edge = (from: string, to: string): Edge => ({ from, spec: to, to });
    expect(violation(edge('src/devnet/index.ts', 'scripts/build.js'))).toMatch(/never imports scripts/);
    expect(violation(edge('src/client/x.ts', 'tests/support/canister.js'))).toMatch(/never imports tests/);
    expect(violation(edge('src/gateway/x.ts', 'bench/support.js'))).toMatch(/never imports bench/);
    expect(violation(edge('src/core/a.ts', 'src/host/index.js'))).toMatch(/core may not use host/);
    expect(violation({ from: 'src/core/a.ts', spec: 'azle', to: undefined })).toMatch(/azle/);
    expect(violation(edge('src/host/evm_client.ts', 'src/canister/idl.js'))).toMatch(/host may not use canister/);
    expect(violation(edge('src/gateway/format.ts', 'src/canister/values.js'))).toMatch(/gateway may not use canister/);
    expect(violation(edge('src/devnet/index.ts', 'src/canister/idl.js'))).toMatch(/only src\/client/);
    expect(violation(edge('src/explorer/index.ts', 'src/indexer/schema.js'))).toMatch(/only the indexer/);
    expect(violation(edge('src/client/host.ts', 'src/gateway/index.js'))).toMatch(/client may not use gateway/);
    expect(violation(edge('src/indexer/a.ts', 'src/explorer/b.js'))).toMatch(/indexer may not use explorer/);
    // and allows the ones they name
    expect(violation(edge('src/client/host.ts', 'src/canister/idl.js'))).toBeUndefined();
    expect(violation(edge('src/explorer/index.ts', 'src/indexer/store.js'))).toBeUndefined();
    expect(violation(edge('src/indexer/store.ts', 'src/indexer/schema.js'))).toBeUndefined();
  });
});
