// Readers of environment variables shared by the gateway, indexer, archive and explorer configurations: a blank value
// counts as unset, and a bad one throws the caller's configuration error naming the variable.

export type Env = Readonly<Record<string, string | undefined>>;

export interface EnvReaders {
  /** The trimmed value, or undefined when unset or blank. */
  present(env: Env, name: string): string | undefined;
  /** A whole number in [min, max], or `def` when unset. */
  int(env: Env, name: string, def: number, min: number, max: number): number;
  /** 1/true/yes/on or 0/false/no/off (any case), or `def` when unset. */
  bool(env: Env, name: string, def: boolean): boolean;
  /** A URL whose protocol is one of `protocols` (e.g. `['postgres:', 'postgresql:']`), or undefined when unset. */
  url(env: Env, name: string, protocols: readonly string[]): string | undefined;
  /** A canister id in principal text form, or undefined when unset. */
  canisterId(env: Env, name: string): string | undefined;
}

/** Principals in text form: groups of 5 base32 characters separated by dashes (the last may be shorter). */
const PRINCIPAL_TEXT = /^[a-z2-7]{5}(-[a-z2-7]{5})*(-[a-z2-7]{1,5})?$/;

export function envReaders(
  fail: (variable: string, message: string) => Error,
  opts: { readonly signedInts?: boolean; readonly boolExpected?: string } = {},
): EnvReaders {
  const wholeNumber = opts.signedInts === true ? /^-?[0-9]+$/ : /^[0-9]+$/;
  const boolExpected = opts.boolExpected ?? 'true or false';
  const present = (env: Env, name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  return {
    present,
    int(env, name, def, min, max) {
      const v = present(env, name);
      if (v === undefined) return def;
      if (!wholeNumber.test(v)) throw fail(name, `expected a whole number, got ${JSON.stringify(v)}`);
      const n = Number(v);
      if (n < min || n > max) throw fail(name, `must be between ${min} and ${max}, got ${n}`);
      return n;
    },
    bool(env, name, def) {
      const v = present(env, name);
      if (v === undefined) return def;
      const l = v.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(l)) return true;
      if (['0', 'false', 'no', 'off'].includes(l)) return false;
      throw fail(name, `expected ${boolExpected}, got ${JSON.stringify(v)}`);
    },
    url(env, name, protocols) {
      const v = present(env, name);
      if (v === undefined) return undefined;
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        throw fail(name, `not a URL: ${JSON.stringify(v)}`);
      }
      if (!protocols.includes(u.protocol)) throw fail(name, `must be a ${protocols.map((x) => x.slice(0, -1)).join(' or ')} URL, got ${u.protocol.slice(0, -1)}:`);
      return v;
    },
    canisterId(env, name) {
      const v = present(env, name);
      if (v !== undefined && !PRINCIPAL_TEXT.test(v)) throw fail(name, `not a canister id (principal text), got ${JSON.stringify(v)}`);
      return v;
    },
  };
}
