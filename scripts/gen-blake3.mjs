// Generates BLAKE3's compression function for src/core/blake3.ts (see the comment at its top for why it is
// shaped so) and writes it between the BEGIN/END GENERATED COMPRESS markers there.
// Usage: node scripts/gen-blake3.mjs [--check] (--check writes nothing and exits 1 when the committed function
// is not this generator's output).
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a];
const PERM = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
const i32 = (v) => v | 0;
const lit = (v) => (v < 0 ? `(${v})` : String(v));

/** One G: the four additions are folded to int32 with `| 0`, rotations are two shifts and an OR of int32s. */
function g(a, b, c, d, x, y) {
  return [
    `s${a} = (s${a} + s${b} | 0) + m${x} | 0; s${d} = (s${d} ^= s${a}) >>> 16 | s${d} << 16;`,
    `s${c} = s${c} + s${d} | 0; s${b} = (s${b} ^= s${c}) >>> 12 | s${b} << 20;`,
    `s${a} = (s${a} + s${b} | 0) + m${y} | 0; s${d} = (s${d} ^= s${a}) >>> 8 | s${d} << 24;`,
    `s${c} = s${c} + s${d} | 0; s${b} = (s${b} ^= s${c}) >>> 7 | s${b} << 25;`,
  ];
}

export function compressSource() {
  const lines = [];
  let m = Array.from({ length: 16 }, (_, i) => i);
  for (let r = 0; r < 7; r++) {
    lines.push(`// round ${r}`);
    lines.push(...g(0, 4, 8, 12, m[0], m[1]), ...g(1, 5, 9, 13, m[2], m[3]), ...g(2, 6, 10, 14, m[4], m[5]), ...g(3, 7, 11, 15, m[6], m[7]));
    lines.push(...g(0, 5, 10, 15, m[8], m[9]), ...g(1, 6, 11, 12, m[10], m[11]), ...g(2, 7, 8, 13, m[12], m[13]), ...g(3, 4, 9, 14, m[14], m[15]));
    m = PERM.map((p) => m[p]);
  }
  const loadCv = Array.from({ length: 8 }, (_, i) => `s${i} = h[ho + ${i}]!`).join(', ');
  const loadIv = IV.map((v, i) => `s${8 + i} = ${lit(i32(v))}`).join(', ');
  const loadM = Array.from({ length: 16 }, (_, i) => `m${i} = w[wo + ${i}]!`).join(', ');
  const store = Array.from({ length: 8 }, (_, i) => `out[oo + ${i}] = s${i} ^ s${8 + i};`).join(' ');
  return [
    '/**',
    ' * BLAKE3 compress: the chaining value h[ho..ho+7] and the 16 message words w[wo..wo+15] (little-endian) into the',
    ' * new chaining value out[oo..oo+7] (the first 8 words of the output; out may be h).',
    ' */',
    'function compress(h: Int32Array, ho: number, w: Int32Array, wo: number, counter: number, len: number, flags: number, out: Int32Array, oo: number): void {',
    `  var ${loadCv}, ${loadIv}, s12 = counter, s13 = 0, s14 = len, s15 = flags;`,
    `  var ${loadM};`,
    ...lines.map((l) => '  ' + l),
    `  ${store}`,
    '}',
  ].join('\n');
}

const FILE = new URL('../src/core/blake3.ts', import.meta.url);

function regenerated(text) {
  const begin = '// BEGIN GENERATED COMPRESS\n';
  const end = '// END GENERATED COMPRESS';
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error('gen-blake3: markers not found in src/core/blake3.ts');
  return text.slice(0, i + begin.length) + compressSource() + '\n' + text.slice(j);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = readFileSync(FILE, 'utf8');
  const next = regenerated(text);
  if (process.argv.includes('--check')) {
    if (next !== text) {
      console.error('gen-blake3: src/core/blake3.ts differs from the generator output; run node scripts/gen-blake3.mjs');
      process.exit(1);
    }
  } else writeFileSync(FILE, next);
}
