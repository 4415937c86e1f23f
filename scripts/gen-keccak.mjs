// Generates keccak-f[1600] for src/core/keccak.ts (see the comment at its top for why it is shaped so) and
// writes it between the BEGIN/END GENERATED PERMUTE markers there. Usage: node scripts/gen-keccak.mjs [--check]
// (--check writes nothing and exits 1 when the committed permutation is not this generator's output).
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const RC64 = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n, 0x000000000000808bn, 0x0000000080000001n,
  0x8000000080008081n, 0x8000000000008009n, 0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n, 0x8000000000008002n, 0x8000000000000080n,
  0x000000000000800an, 0x800000008000000an, 0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];
const ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const i32 = (v) => Number(BigInt.asIntN(32, v));

// first: the state before this block is all zero (the first block of a hash), so lanes 17..24 start as
// constants (0, or -1 when kept complemented) and are neither loaded nor XOR-ed into the first parities.
// digest: only the 256-bit digest is needed after this block (the last block of a hash), so the last round
// computes only lanes 0..3 (and only what they read) and only s[0..7] is stored.
export function generate({ complement = false, first = false, digest = false } = {}) {
  const X = ['a', 'e'];
  // lane complementing (Bertoni et al., "Keccak implementation overview" 2.2): lanes 1,2,8,12,17,20 are kept
  // complemented; chi per row uses the pattern below.
  const P = new Set([1, 2, 8, 12, 17, 20]);
  const lines = [];
  const lit = (v) => {
    if (v === -2147483648) return 'K31';
    return v < 0 ? `(${v})` : String(v);
  };
  // prologue: c from loaded a (with `first`, the words from 34 on are constants: dropped when 0, a NOT when -1)
  const constWord = (k) => (first && k >= 34 ? (complement && P.has(k >> 1) ? -1 : 0) : undefined);
  for (let w = 0; w < 10; w++) {
    const ks = [w, w + 10, w + 20, w + 30, w + 40];
    const vars = ks.filter((k) => constWord(k) === undefined).map((k) => `a${k}`);
    const nots = ks.filter((k) => constWord(k) === -1).length;
    let e = vars.join(' ^ ');
    if (nots & 1) e = `~(${e})`;
    lines.push(`c${w} = ${e};`);
  }
  for (let r = 0; r < 24; r++) {
    const src = X[r & 1], dst = X[(r + 1) & 1];
    const last = r === 23;
    const done = new Set();
    const dExpr = (w) => {
      const x = w >> 1, h = w & 1;
      const cm = ((x + 4) % 5) * 2, cp = ((x + 1) % 5) * 2;
      const c = (r & 1) === 0 ? 'c' : 'g';
      return h === 0 ? `${c}${cm} ^ ((${c}${cp} << 1) | (${c}${cp + 1} >>> 31))` : `${c}${cm + 1} ^ ((${c}${cp + 1} << 1) | (${c}${cp} >>> 31))`;
    };
    const ref = (name, exprFn) => {
      if (done.has(name)) return name;
      done.add(name);
      return `(${name} = ${exprFn()})`;
    };
    const d = (w) => ref(`d${w}`, () => dExpr(w));
    // t for source word k: src k ^= d, in place
    const tw = (k) => {
      const lane = k >> 1, x = lane % 5;
      const w = 2 * x + (k & 1);
      const key = `${src}${k}`;
      if (done.has('T' + key)) return key;
      done.add('T' + key);
      const cw = r === 0 ? constWord(k) : undefined;
      if (cw === 0) return `(${key} = ${d(w)})`;
      if (cw === -1) return `(${key} = ~${d(w)})`;
      return `(${key} ^= ${d(w)})`;
    };
    // b at destination lane D, half h: source lane L = inverse pi
    const inv = new Array(25);
    for (let x = 0; x < 5; x++) for (let y = 0; y < 5; y++) inv[y + 5 * ((2 * x + 3 * y) % 5)] = x + 5 * y;
    const bExpr = (D, h) => {
      const L = inv[D];
      const n = ROT[L];
      const lo = 2 * L, hi = 2 * L + 1;
      if (n === 0) {
        const k = h === 0 ? lo : hi;
        // no rotation: b is a ^ d itself (no in-place write needed)
        const x = L % 5;
        return `${src}${k} ^ ${d(2 * x + (k & 1))}`;
      }
      // order of evaluation: the expression references t(lo)/t(hi); first reference applies d
      let A, B, m;
      if (n < 32) { m = n; A = h === 0 ? lo : hi; B = h === 0 ? hi : lo; }
      else if (n === 32) { return tw(h === 0 ? hi : lo); }
      else { m = n - 32; A = h === 0 ? hi : lo; B = h === 0 ? lo : hi; }
      return `(${tw(A)} << ${m}) | (${tw(B)} >>> ${32 - m})`;
    };
    const b = (D, h) => ref(`b${2 * D + h}`, () => bExpr(D, h));
    const rcw = [i32(RC64[r] & 0xffffffffn), i32(RC64[r] >> 32n)];
    const chi = (x, y, h) => {
      const L = (i) => x + i < 5 ? x + i + 5 * y : x + i - 5 + 5 * y;
      let e;
      if (!complement) {
        e = `${b(L(0), h)} ^ (~${b(L(1), h)} & ${b(L(2), h)})`;
      } else e = chiComp(x, y, h, b, L);
      if (x === 0 && y === 0 && rcw[h] !== 0) e = `${e} ^ ${lit(rcw[h])}`;
      return e;
    };
    for (let w = 0; w < 10; w++) {
      const x = w >> 1, h = w & 1;
      if (last && digest && x >= 4) continue;
      const parts = [];
      for (let y = 0; y < (last && digest ? 1 : 5); y++) parts.push(`(${dst}${2 * (x + 5 * y) + h} = ${chi(x, y, h)})`);
      if (last) lines.push(parts.map((p) => p.slice(1, -1) + ';').join(' '));
      else lines.push(`${(r & 1) === 0 ? 'g' : 'c'}${w} = ${parts.join(' ^ ')};`);
    }
  }
  return lines;
}

// chi with lane complementing, pattern "bebigokimisa" (XKCP KeccakP-1600-64.macros, UseBebigokimisa): the
// formulas for row y given as [op, notB1, notB2, notResult...]; filled below.
function chiComp(x, y, h, b, L) {
  const f = COMP[y][x];
  const B = (i) => b(L(i), h);
  return f(B);
}
// rows: index y (b,g,k,m,s = y 0..4); each entry for x = a,e,i,o,u, using B(0)=B[x], B(1)=B[x+1], B(2)=B[x+2]
const COMP = [
  // row b (y=0): Eba = Bba ^ (Bbe | Bbi); Ebe = Bbe ^ (~Bbi | Bbo); Ebi = Bbi ^ (Bbo & Bbu); Ebo = Bbo ^ (Bbu | Bba); Ebu = Bbu ^ (Bba & Bbe)
  [(B) => `${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (~${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} & ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} & ${B(2)})`],
  // row g: Ega = Bga ^ (Bge | Bgi); Ege = Bge ^ (Bgi & Bgo); Egi = Bgi ^ (Bgo | ~Bgu); Ego = Bgo ^ (Bgu | Bga); Egu = Bgu ^ (Bga & Bge)
  [(B) => `${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} & ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} | ~${B(2)})`, (B) => `${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} & ${B(2)})`],
  // row k: Eka = Bka ^ (Bke | Bki); Eke = Bke ^ (Bki & Bko); Eki = Bki ^ (~Bko & Bku); Eko = ~Bko ^ (Bku | Bka); Eku = Bku ^ (Bka & Bke)
  [(B) => `${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} & ${B(2)})`, (B) => `${B(0)} ^ (~${B(1)} & ${B(2)})`, (B) => `~${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} & ${B(2)})`],
  // row m: Ema = Bma ^ (Bme & Bmi); Eme = Bme ^ (Bmi | Bmo); Emi = Bmi ^ (~Bmo | Bmu); Emo = ~Bmo ^ (Bmu & Bma); Emu = Bmu ^ (Bma | Bme)
  [(B) => `${B(0)} ^ (${B(1)} & ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (~${B(1)} | ${B(2)})`, (B) => `~${B(0)} ^ (${B(1)} & ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} | ${B(2)})`],
  // row s: Esa = Bsa ^ (~Bse & Bsi); Ese = ~Bse ^ (Bsi | Bso); Esi = Bsi ^ (Bso & Bsu); Eso = Bso ^ (Bsu | Bsa); Esu = Bsu ^ (Bsa & Bse)
  [(B) => `${B(0)} ^ (~${B(1)} & ${B(2)})`, (B) => `~${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} & ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} | ${B(2)})`, (B) => `${B(0)} ^ (${B(1)} & ${B(2)})`],
];

export const COMPLEMENTED_LANES = [1, 2, 8, 12, 17, 20];

export function permuteSource(name, opts = {}) {
  const lines = generate(opts);
  const decl = (p, n) => Array.from({ length: n }, (_, i) => `${p}${i}`).join(', ');
  const load = Array.from({ length: opts.first ? 34 : 50 }, (_, i) => {
    const lane = i >> 1;
    const neg = opts.complement && COMPLEMENTED_LANES.includes(lane);
    const v = opts.first ? `w[o + ${i}]!` : i < 34 ? `s[${i}]! ^ w[o + ${i}]!` : `s[${i}]!`;
    return `a${i} = ${neg ? `~${opts.first ? v : `(${v})`}` : v}`;
  }).join(', ');
  const store = Array.from({ length: opts.digest ? 8 : 50 }, (_, i) => {
    const lane = i >> 1;
    const neg = opts.complement && COMPLEMENTED_LANES.includes(lane);
    return `${opts.digest ? 'out' : 's'}[${i}] = ${neg ? '~' : ''}a${i};`;
  }).join(' ');
  // loop: the blocks from word o up to word `end` in one call, the lanes staying in locals between blocks
  // (no store and reload of the 50 words; a block after the first only XORs its 34 words in).
  const body = opts.loop
    ? [
        `for (;;) {`,
        ...lines.map((l) => '  ' + l),
        `  o += 34;`,
        `  if (o >= end) break;`,
        '  ' + Array.from({ length: 34 }, (_, i) => `a${i} ^= w[o + ${i}]!;`).join(' '),
        `}`,
      ]
    : lines;
  return [
    `function ${name}(${opts.first && opts.digest ? '' : 's: Int32Array, '}w: Int32Array, o: number${opts.loop ? ', end: number' : ''}${opts.digest ? ', out: Int32Array' : ''}): void {`,
    `  var ${load};`,
    ...(opts.first ? [`  var ${Array.from({ length: 16 }, (_, i) => `a${i + 34}`).join(', ')}: number;`] : []),
    `  var ${decl('e', 50)}: number;`,
    `  var ${decl('b', 50)}: number;`,
    `  var ${decl('c', 10)}: number;`,
    `  var ${decl('g', 10)}: number;`,
    `  var ${decl('d', 10)}: number;`,
    `  var K31 = 1 << 31; // an int; the literal -2147483648 would be a float in QuickJS`,
    ...body.map((l) => '  ' + l),
    `  ${store}`,
    `}`,
  ].join('\n');
}

const FILE = new URL('../src/core/keccak.ts', import.meta.url);

function regenerated(text) {
  const begin = '// BEGIN GENERATED PERMUTE\n';
  const end = '// END GENERATED PERMUTE';
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error('gen-keccak: markers not found in src/core/keccak.ts');
  const gen = (name, o) => permuteSource(name, { complement: true, ...o }) + '\n';
  const body =
    '/** permute over the blocks from word o to word end (at least one), the state read once and stored once. */\n' +
    gen('permute', { loop: true }) +
    '/** permute for the first block of a hash (s all zero on entry). */\n' + gen('permuteFirst', { first: true }) +
    '/** permute for the last block of a hash: only the digest is written, to out[0..7]. */\n' + gen('permuteLast', { digest: true }) +
    '/** permute for a one-block hash: both of the above (no state). */\n' + gen('permuteOnly', { first: true, digest: true });
  return text.slice(0, i + begin.length) + body + text.slice(j);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = readFileSync(FILE, 'utf8');
  const next = regenerated(text);
  if (process.argv.includes('--check')) {
    if (next !== text) {
      console.error('gen-keccak: src/core/keccak.ts differs from the generator output; run node scripts/gen-keccak.mjs');
      process.exit(1);
    }
  } else writeFileSync(FILE, next);
}
