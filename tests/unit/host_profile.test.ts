// The per-function attribution of the instruction counter (src/host/profile.ts), on synthetic trace events.
import { describe, expect, it } from 'vitest';
import { demangle, diffProfiles, WasmProfiler, type Profile } from '../../src/host/profile.js';

const names = ['imp', 'main', 'f', 'g', 'rec'];
const byName = (p: Profile, n: string) => p.functions.find((f) => f.name === n);
/** One message of trace events: [function index (negative: its exit), counter], then the final count. */
function message(p: WasmProfiler, kind: Parameters<WasmProfiler['begin']>[0], events: [number, number][], end: number): void {
  p.begin(kind);
  for (const [id, counter] of events) p.event(id, counter);
  p.end(end);
}

describe('WasmProfiler', () => {
  it('splits the counter into self and inclusive instructions along the call tree', () => {
    const p = new WasmProfiler(names);
    // [1, 5]: main enters after 5 outside; [2, 10]: f; [3, 12]: g; [3, 40]: g again, from main
    message(p, 'update', [[1, 5], [2, 10], [3, 12], [-3, 20], [-2, 30], [3, 40], [-3, 41], [-1, 50]], 53);
    const r = p.profile();
    expect(r.total).toBe(53);
    expect(r.outside).toBe(5 + 3);
    expect(byName(r, 'main')).toMatchObject({ calls: 1, self: 5 + 10 + 9, inclusive: 45 });
    expect(byName(r, 'f')).toMatchObject({ calls: 1, self: 2 + 10, inclusive: 20 });
    expect(byName(r, 'g')).toMatchObject({ calls: 2, self: 9, inclusive: 9 });
    expect(r.functions.reduce((s, f) => s + f.self, 0) + r.outside).toBe(r.total);
    expect(r.functions[0]!.name).toBe('main');
  });

  it('counts a recursive function inclusive once, and closes the frames a trap left open', () => {
    const p = new WasmProfiler(names);
    message(p, 'update', [[4, 0], [4, 10], [-4, 15], [-4, 20]], 20);
    // [2, 4]: traps inside f
    message(p, 'update', [[1, 0], [2, 4]], 10);
    const r = p.profile();
    expect(byName(r, 'rec')).toMatchObject({ calls: 2, self: 20, inclusive: 20 });
    expect(byName(r, 'main')).toMatchObject({ self: 4, inclusive: 10 });
    expect(byName(r, 'f')).toMatchObject({ self: 6, inclusive: 6 });
    expect(r).toMatchObject({ messages: 2, total: 30, outside: 0 });
  });

  it('profiles only the message kinds asked for, and subtracts profiles', () => {
    const p = new WasmProfiler(names);
    p.only = new Set(['timer']);
    message(p, 'query', [[1, 0], [-1, 7]], 7);
    expect(p.profile().messages).toBe(0);
    message(p, 'timer', [[1, 0], [-1, 7]], 7);
    const a = p.profile();
    message(p, 'timer', [[1, 0], [2, 1], [-2, 3], [-1, 9]], 9);
    const d = diffProfiles(p.profile(), a);
    expect(d.total).toBe(9);
    expect(byName(d, 'main')).toMatchObject({ calls: 1, self: 7, inclusive: 9 });
    expect(byName(d, 'f')).toMatchObject({ calls: 1, self: 2 });
  });

  it('demangles Rust legacy symbols and leaves C names alone', () => {
    expect(demangle('_ZN3ic03sys12call_perform17h8ded59b85a9c0c96E')).toBe('ic0::sys::call_perform');
    expect(demangle('_ZN5alloc2rc15Rc$LT$T$C$A$GT$9drop_slow17h5bf909fd57b07baeE')).toBe('alloc::rc::Rc<T,A>::drop_slow');
    expect(demangle('JS_CallInternal')).toBe('JS_CallInternal');
  });
});
