// Bodies for attacks on the IC HTTP interface (tests/unit/ic_http_hostile.test.ts, tests/wasm/ic-http.test.ts,
// the fuzz target ic-http in tests/support/fuzz.ts): CBOR written by hand so that any size can be reached.
import { Principal } from '@icp-sdk/core/principal';

const textHead = (s: string): number[] => [0x60 | s.length, ...Buffer.from(s, 'utf8')];
const u32Head = (major: number, n: number): number[] => [(major << 5) | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const bytesHead = (b: Uint8Array): number[] => [0x58, b.length, ...b];

/**
 * An anonymous envelope of at most `size` bytes (filled to within a few bytes of it) whose bulk is small
 * arrays `[0]` (2 bytes each): in an unknown content field, in a delegation's map, or as read_state paths.
 */
export function smallArraysBody(where: 'content' | 'delegation' | 'paths', size: number, expiryNs = BigInt(Date.now() + 60_000) * 1_000_000n): Uint8Array {
  const anon = Principal.anonymous().toUint8Array();
  const canister = Principal.fromText('rrkah-fqaaa-aaaaa-aaaaq-cai').toUint8Array();
  const exp = Buffer.alloc(8);
  exp.writeBigUInt64BE(expiryNs);
  const expiry = [0x1b, ...exp];
  const common = [...textHead('sender'), ...bytesHead(anon), ...textHead('ingress_expiry'), ...expiry];
  const callFields = [...textHead('request_type'), ...textHead('call'), ...textHead('canister_id'), ...bytesHead(canister), ...textHead('method_name'), ...textHead('m'), ...textHead('arg'), 0x40];
  let prefix: number[];
  if (where === 'content') prefix = [0xd9, 0xd9, 0xf7, 0xa1, ...textHead('content'), 0xa7, ...callFields, ...common, ...textHead('x')];
  else if (where === 'paths') prefix = [0xd9, 0xd9, 0xf7, 0xa1, ...textHead('content'), 0xa4, ...textHead('request_type'), ...textHead('read_state'), ...common, ...textHead('paths')];
  else {
    // A signed-looking envelope whose one delegation carries the arrays as its targets.
    prefix = [0xd9, 0xd9, 0xf7, 0xa4, ...textHead('content'), 0xa6, ...callFields, ...common, ...textHead('sender_pubkey'), 0x40, ...textHead('sender_sig'), 0x40];
    prefix.push(...textHead('sender_delegation'), 0x81, 0xa2, ...textHead('signature'), 0x40, ...textHead('delegation'), 0xa3, ...textHead('pubkey'), 0x40, ...textHead('expiration'), ...expiry, ...textHead('targets'));
  }
  const n = Math.max(0, Math.floor((size - prefix.length - 5) / 2));
  const out = new Uint8Array(prefix.length + 5 + 2 * n);
  out.set(prefix);
  out.set(u32Head(4, n), prefix.length);
  for (let i = prefix.length + 5; i < out.length; i += 2) {
    out[i] = 0x81;
    out[i + 1] = 0x00;
  }
  return out;
}

/** One body's answer as the flooding process saw it: HTTP status (0: the connection failed) and round trip. */
export interface FloodAnswer {
  readonly status: number;
  readonly ms: number;
  readonly text: string;
}

/**
 * A stream of bodies from another Node process, as an attacker would send them: `connections` loops each POST
 * `body` to `url` again as soon as the last answer came, until `stop()`, which resolves with every answer.
 * The body is written to `file` first, so the child needs nothing but Node; `start` resolves once it runs
 * (spawning holds this event loop, so it is not done while latencies are measured).
 */
export async function startBodyFlood(url: string, body: Uint8Array, file: string, connections = 2): Promise<{ stop(): Promise<FloodAnswer[]> }> {
  const { writeFileSync } = await import('node:fs');
  const { spawn } = await import('node:child_process');
  writeFileSync(file, body);
  const script = `
    const body = require('node:fs').readFileSync(process.argv[2]);
    const out = [];
    let stop = false;
    const loop = async () => {
      while (!stop) {
        const t = performance.now();
        try {
          const r = await fetch(process.argv[1], { method: 'POST', headers: { 'content-type': 'application/cbor' }, body });
          const text = await r.text();
          out.push({ status: r.status, ms: performance.now() - t, text: text.slice(0, 200) });
        } catch (e) {
          out.push({ status: 0, ms: performance.now() - t, text: String(e && e.cause ? e.cause : e).slice(0, 200) });
        }
      }
    };
    process.stdout.write('ready\\n');
    process.stdin.once('data', () => {
      const loops = Array.from({ length: ${connections} }, loop);
      process.stdin.once('data', async () => {
        stop = true;
        await Promise.all(loops);
        process.stdout.write(JSON.stringify(out) + '\\n');
        process.exit(0);
      });
    });`;
  const child = spawn(process.execPath, ['-e', script, url, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  let text = '';
  const waiters: (() => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    text += d;
    for (const w of waiters.splice(0)) w();
  });
  const lines = (n: number): Promise<string[]> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const l = text.split('\n');
        if (l.length > n) resolve(l.slice(0, n));
        else waiters.push(check);
      };
      child.once('exit', (code) => text.split('\n').length <= n && reject(new Error(`flooding process exited with ${code}`)));
      check();
    });
  await lines(1);
  child.stdin.write('go\n');
  return {
    stop: async () => {
      child.stdin.write('stop\n');
      return JSON.parse((await lines(2))[1]!) as FloodAnswer[];
    },
  };
}
