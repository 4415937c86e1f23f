// Per-wasm-function attribution of the IC instruction counter (IcHostOptions.profile). The profiling build
// (prepare.ts) calls `event(id, counter)` at every function entry (id > 0, the function's index) and exit
// (-id). The deltas of the counter between events are the instructions of the function on top of a shadow
// stack: its self instructions; a frame's inclusive instructions are charged to its function once, at its
// outermost activation (recursion is not counted twice). What runs outside any function (the counter's
// start before the entry's trace call) is `outside`; `self` of all functions plus `outside` is the counter's
// total of the messages profiled, exactly, by construction; `total` is what the host read from the counter.

export interface FunctionCost {
  /** Function index in the plain wasm. */
  readonly id: number;
  readonly name: string;
  readonly calls: number;
  /** Instructions in the function's own code. */
  readonly self: number;
  /** Instructions from its entry to its exit, callees included (outermost activations only). */
  readonly inclusive: number;
}

export interface Profile {
  /** Messages profiled. */
  readonly messages: number;
  /** Sum of the counter's value at the end of each message profiled. */
  readonly total: number;
  /** Instructions counted outside any function's entry/exit pair. */
  readonly outside: number;
  /** Functions called at least once, by self instructions, largest first. */
  readonly functions: FunctionCost[];
}

export class WasmProfiler {
  private self: Float64Array;
  private incl: Float64Array;
  private calls: Float64Array;
  private depth: Int32Array;
  private stackId = new Int32Array(1024);
  private stackStart = new Float64Array(1024);
  private stackChild = new Float64Array(1024);
  private sp = 0;
  private outside = 0;
  /** Counter value from which instructions are outside any frame (when the stack is empty). */
  private outsideFrom = 0;
  private total = 0;
  private messages = 0;
  private running = false;
  /** Off: messages are not profiled (a caller that wants only some turns it on around them). */
  enabled = true;
  /** When set, only messages of these kinds ('update', 'query', 'timer', ...) are profiled. */
  only: ReadonlySet<string> | undefined;

  constructor(private readonly names: readonly string[]) {
    const n = Math.max(names.length, 1);
    this.self = new Float64Array(n);
    this.incl = new Float64Array(n);
    this.calls = new Float64Array(n);
    this.depth = new Int32Array(n);
  }

  /** Forgets everything measured so far. */
  reset(): void {
    this.self.fill(0);
    this.incl.fill(0);
    this.calls.fill(0);
    this.outside = 0;
    this.total = 0;
    this.messages = 0;
  }

  /** A message of `kind` starts (the host has just set the counter to 0). */
  begin(kind: string): void {
    this.sp = 0;
    this.depth.fill(0);
    this.outsideFrom = 0;
    this.running = this.enabled && (this.only === undefined || this.only.has(kind));
  }

  /** The trace call: `id` > 0 at a function's entry, -id at its exit; `counter` the counter at that point. */
  readonly event = (id: number, counter: number): void => {
    if (!this.running) return;
    if (id > 0) {
      if (id >= this.self.length) this.grow(id + 1);
      if (this.sp === 0) this.outside += counter - this.outsideFrom;
      if (this.sp === this.stackId.length) this.growStack();
      this.stackId[this.sp] = id;
      this.stackStart[this.sp] = counter;
      this.stackChild[this.sp] = 0;
      this.sp++;
      this.calls[id]!++;
      this.depth[id]!++;
      return;
    }
    const fid = -id;
    // Frames above the one exiting never saw their exit (cannot happen without a trap): closed here.
    while (this.sp > 0 && this.stackId[this.sp - 1] !== fid) this.pop(counter);
    if (this.sp > 0) this.pop(counter);
  };

  /** The message ended with the counter at `counter`: frames left open (a trap) end there. */
  end(counter: number): void {
    if (!this.running) return;
    while (this.sp > 0) this.pop(counter);
    this.outside += counter - this.outsideFrom;
    this.total += counter;
    this.messages++;
    this.running = false;
  }

  private pop(counter: number): void {
    const i = --this.sp;
    const id = this.stackId[i]!;
    const inclusive = counter - this.stackStart[i]!;
    this.self[id]! += inclusive - this.stackChild[i]!;
    if (--this.depth[id]! === 0) this.incl[id]! += inclusive;
    if (i > 0) this.stackChild[i - 1]! += inclusive;
    else this.outsideFrom = counter;
  }

  private grow(n: number): void {
    const g = <T extends Float64Array | Int32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.self = g(this.self);
    this.incl = g(this.incl);
    this.calls = g(this.calls);
    this.depth = g(this.depth);
  }

  private growStack(): void {
    const n = this.stackId.length * 2;
    const id = new Int32Array(n);
    id.set(this.stackId);
    const start = new Float64Array(n);
    start.set(this.stackStart);
    const child = new Float64Array(n);
    child.set(this.stackChild);
    this.stackId = id;
    this.stackStart = start;
    this.stackChild = child;
  }

  /** What was measured since the last reset. */
  profile(): Profile {
    const functions: FunctionCost[] = [];
    for (let id = 0; id < this.self.length; id++) {
      if (this.calls[id] === 0) continue;
      functions.push({ id, name: this.names[id] ?? `func[${id}]`, calls: this.calls[id]!, self: this.self[id]!, inclusive: this.incl[id]! });
    }
    functions.sort((a, b) => b.self - a.self);
    return { messages: this.messages, total: this.total, outside: this.outside, functions };
  }
}

/** `a - b` per function (e.g. a long run minus a short one: the marginal cost), largest self first. */
export function diffProfiles(a: Profile, b: Profile): Profile {
  const byId = new Map(b.functions.map((f) => [f.id, f]));
  const ids = new Set([...a.functions.map((f) => f.id), ...b.functions.map((f) => f.id)]);
  const aById = new Map(a.functions.map((f) => [f.id, f]));
  const functions: FunctionCost[] = [];
  for (const id of ids) {
    const x = aById.get(id);
    const y = byId.get(id);
    const name = x?.name ?? y?.name ?? `func[${id}]`;
    functions.push({
      id,
      name,
      calls: (x?.calls ?? 0) - (y?.calls ?? 0),
      self: (x?.self ?? 0) - (y?.self ?? 0),
      inclusive: (x?.inclusive ?? 0) - (y?.inclusive ?? 0),
    });
  }
  functions.sort((p, q) => q.self - p.self);
  return { messages: a.messages - b.messages, total: a.total - b.total, outside: a.outside - b.outside, functions };
}

/** A text table of the top `n` functions by self instructions, each figure divided by `per` (e.g. steps). */
export function formatProfile(p: Profile, opts: { top?: number; per?: number; unit?: string } = {}): string {
  const per = opts.per ?? 1;
  const top = opts.top ?? 30;
  const fmt = (v: number): string => (Math.abs(v / per) >= 100 ? Math.round(v / per).toLocaleString('en-US') : (v / per).toFixed(2));
  const pct = (v: number): string => (p.total === 0 ? '' : `${((100 * v) / p.total).toFixed(1)}%`);
  const short = (raw: string): string => {
    const s = demangle(raw).replace(/\|/g, '\\|');
    return s.length > 90 ? `${s.slice(0, 87)}...` : s;
  };
  const unit = opts.unit === undefined ? '' : ` per ${opts.unit}`;
  const lines = [
    `total ${fmt(p.total)} instructions${unit} (${p.messages} messages); outside any function ${fmt(p.outside)}`,
    `| function | self${unit} | self % | inclusive${unit} | calls${unit} |`,
    '|---|---|---|---|---|',
  ];
  for (const f of p.functions.slice(0, top)) lines.push(`| ${short(f.name)} | ${fmt(f.self)} | ${pct(f.self)} | ${fmt(f.inclusive)} | ${fmt(f.calls)} |`);
  return lines.join('\n');
}

const RUST_ESCAPES: Record<string, string> = { SP: '@', BP: '*', RF: '&', LT: '<', GT: '>', LP: '(', RP: ')', C: ',' };

/** Rust's legacy symbol mangling (`_ZN3foo3bar17h<hash>E`) as `foo::bar`; other names as they are. */
export function demangle(name: string): string {
  if (!name.startsWith('_ZN') || !name.endsWith('E')) return name;
  const parts: string[] = [];
  let p = 3;
  while (p < name.length - 1) {
    const m = /^\d+/.exec(name.slice(p));
    if (m === null) return name;
    const n = Number(m[0]);
    p += m[0].length;
    parts.push(name.slice(p, p + n));
    p += n;
  }
  if (parts.length > 1 && /^h[0-9a-f]{16}$/.test(parts[parts.length - 1]!)) parts.pop();
  return parts
    .map((s) =>
      s
        .replace(/^_\$/, '$')
        .replace(/\$u([0-9a-f]+)\$/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
        .replace(/\$([A-Z]+)\$/g, (all, k: string) => RUST_ESCAPES[k] ?? all)
        .replace(/\.\./g, '::'),
    )
    .join('::');
}
