// Field-by-field comparison of two JSON answers: every path where they differ, with both values.
export interface Difference {
  readonly path: string;
  readonly anvil: unknown;
  readonly ours: unknown;
}

export function jsonDiff(anvil: unknown, ours: unknown, path = '$'): Difference[] {
  if (anvil === ours) return [];
  if (typeof anvil !== 'object' || typeof ours !== 'object' || anvil === null || ours === null || Array.isArray(anvil) !== Array.isArray(ours)) {
    return [{ path, anvil, ours }];
  }
  const out: Difference[] = [];
  if (Array.isArray(anvil) && Array.isArray(ours)) {
    for (let i = 0; i < Math.max(anvil.length, ours.length); i++) out.push(...jsonDiff(anvil[i], ours[i], `${path}[${i}]`));
    return out;
  }
  const a = anvil as Record<string, unknown>;
  const o = ours as Record<string, unknown>;
  for (const k of new Set([...Object.keys(a), ...Object.keys(o)])) out.push(...jsonDiff(a[k], o[k], `${path}.${k}`));
  return out;
}
