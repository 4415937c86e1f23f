// Readers of environment variables shared by the gateway, indexer and explorer configurations: a blank value
// counts as unset, and a bad one throws the caller's configuration error naming the variable.

export type Env = Readonly<Record<string, string | undefined>>;

export interface EnvReaders {
  /** The trimmed value, or undefined when unset or blank. */
  present(env: Env, name: string): string | undefined;
  /** A whole number in [min, max], or `def` when unset. */
  int(env: Env, name: string, def: number, min: number, max: number): number;
  /** 1/true/yes/on or 0/false/no/off (any case), or `def` when unset. */
  bool(env: Env, name: string, def: boolean): boolean;
}

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
  };
}
