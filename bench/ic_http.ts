// The IC HTTP interface's costs on the devnet's event loop (wall time on this machine; docs/ic-http.md
// "Limits", docs/hardening.md "IC HTTP interface"): refusing a 4 MiB body of small arrays, decoding and
// hashing an envelope at the item budget and one with a 2 MiB argument, signing a certificate (BLS), and
// recording a request id in the replay log; and on `npm start`, eth_blockNumber through the gateway while another
// process sends 4 MiB hostile bodies to the IC HTTP interface without pause.
//
//   ic_http.victim_eth_blockNumber.quiet.p50_ms / .p99_ms      the devnet at rest (the same run, before the attack)
//   ic_http.victim_eth_blockNumber_under_body_flood.p50_ms / .p99_ms
//                                                               while two connections each post the 4 MiB body of
//                                                               small arrays again as soon as it is answered
//   ic_http.body_flood.refusal_ms.p50 / .p99                  each body's round trip to its 400, as the sender sees it
//   ic_http.body_flood.refused_per_s                          bodies refused a second
//   ic_http.body_flood.devnet_cpu_ms_per_body                 the devnet's CPU time (its process, user and kernel)
//                                                               per refused body, over its time at rest (Linux /proc)
//   host.heap_snapshot.diff_restore_ms_per_mib                 the host's per-message atomicity (src/host/heap.ts):
//                                                               compare a 128 MiB heap page by page, restore 16 pages
//   host.heap_snapshot.full_copy_ms_per_mib                    a whole copy of the same heap, for comparison
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cbor } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { decodeEnvelope, MAX_ENVELOPE_ITEMS } from '../src/host/ic_http/envelope.js';
import { SubnetKeys } from '../src/host/ic_http/keys.js';
import { SeenRequestLog } from '../src/host/ic_http/replay.js';
import { MAX_BODY_BYTES } from '../src/host/ic_http/server.js';
import { measureSnapshotCost } from '../src/host/bench.js';
import { certify, StateTree } from '../src/host/ic_http/tree.js';
import { smallArraysBody, startBodyFlood } from '../tests/support/ic_http_attack.js';
import { removeDir, rpc, startDevnetProcess, tempDir } from '../tests/support/e2e.js';
import type { Report } from './evm.js';

/** Median wall time of `runs` calls of `f`, in ms (after one warm-up call). */
async function median(runs: number, f: () => unknown): Promise<number> {
  await f();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return Number(ms[Math.floor(runs / 2)]!.toFixed(3));
}

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
const round = (v: number): number => Math.round(v * 10) / 10;

/** eth_blockNumber one after another (5 ms apart) for `ms`: each round trip in ms. */
async function victim(url: string, ms: number): Promise<number[]> {
  const lat: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t = performance.now();
    await rpc(url, 'eth_blockNumber');
    lat.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 5));
  }
  return lat;
}

/** CPU time (user and kernel, ms) of process `pid` and its descendants so far; undefined without Linux's /proc. */
function treeCpuMs(pid: number): number | undefined {
  if (!existsSync(`/proc/${pid}/stat`)) return undefined;
  let ticks = 0;
  const walk = (p: number): void => {
    try {
      // Fields after the command (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
      for (const t of readdirSync(`/proc/${p}/task`)) {
        for (const c of readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter((x) => x !== '')) walk(Number(c));
      }
    } catch {
      // a process that ended meanwhile
    }
  };
  walk(pid);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** The attack of docs/hardening.md "IC HTTP interface" on `npm start`, timed from outside the devnet's process. */
export async function benchIcHttpFlood(report: Report): Promise<void> {
  const dataDir = tempDir('bench-ic-http-');
  const devnet = await startDevnetProcess({ dataDir, ...(process.env.BENCH_DEVNET_NODE_OPTIONS === undefined ? {} : { env: { NODE_OPTIONS: process.env.BENCH_DEVNET_NODE_OPTIONS } }) });
  try {
    await victim(devnet.url, 1_000); // warm
    const pid = devnet.proc.child.pid!;
    const q0 = { cpu: treeCpuMs(pid), t: performance.now() };
    const quiet = await victim(devnet.url, 4_000);
    const q1 = { cpu: treeCpuMs(pid), t: performance.now() };
    const body = smallArraysBody('content', MAX_BODY_BYTES, BigInt(Date.now() + 240_000) * 1_000_000n);
    const flood = await startBodyFlood(`${devnet.icUrl}/api/v4/canister/${CANISTER}/call`, body, join(dataDir, 'flood.cbor'));
    await new Promise((r) => setTimeout(r, 500));
    const started = performance.now();
    const a0 = treeCpuMs(pid);
    const attacked = await victim(devnet.url, 8_000);
    const a1 = { cpu: treeCpuMs(pid), t: performance.now() };
    const answers = await flood.stop();
    const during = answers.length * ((a1.t - started) / (a1.t - started + 500)); // bodies answered in the window
    const seconds = (performance.now() - started + 500) / 1000;
    const wrong = answers.filter((a) => a.status !== 400);
    if (wrong.length > 0) throw new Error(`ic_http flood: ${wrong.length} of ${answers.length} bodies not refused with 400 (first: ${JSON.stringify(wrong[0])})`);
    report('ic_http.victim_eth_blockNumber.quiet.p50_ms', round(pct(quiet, 0.5)), 'ms');
    report('ic_http.victim_eth_blockNumber.quiet.p99_ms', round(pct(quiet, 0.99)), 'ms');
    report('ic_http.victim_eth_blockNumber_under_body_flood.p50_ms', round(pct(attacked, 0.5)), 'ms');
    report('ic_http.victim_eth_blockNumber_under_body_flood.p99_ms', round(pct(attacked, 0.99)), 'ms');
    report('ic_http.body_flood.refusal_ms.p50', round(pct(answers.map((a) => a.ms), 0.5)), 'ms');
    report('ic_http.body_flood.refusal_ms.p99', round(pct(answers.map((a) => a.ms), 0.99)), 'ms');
    report('ic_http.body_flood.refused_per_s', round(answers.length / seconds), 'requests/s');
    if (q0.cpu !== undefined && q1.cpu !== undefined && a0 !== undefined && a1.cpu !== undefined) {
      const restPerMs = (q1.cpu - q0.cpu) / (q1.t - q0.t);
      report('ic_http.body_flood.devnet_cpu_ms_per_body', Math.round(((a1.cpu - a0 - restPerMs * (a1.t - started)) / during) * 100) / 100, 'ms');
    }
  } finally {
    await devnet.stop();
    removeDir(dataDir);
  }
}

const CANISTER = 'rrkah-fqaaa-aaaaa-aaaaq-cai';

export async function benchIcHttp(report: Report): Promise<void> {
  await benchIcHttpFlood(report);
  const now = BigInt(Date.now()) * 1_000_000n;
  const expiry = BigInt(Date.now() + 60_000) * 1_000_000n;
  const anon = Principal.anonymous().toUint8Array();

  const bomb = smallArraysBody('content', MAX_BODY_BYTES, expiry);
  report('ic_http.refuse_items_body_ms', await median(9, () => decodeEnvelope(bomb, 'call', now)), 'ms');

  // A read_state of the most paths (1,000 of three labels: 4,000 items, just under the item budget):
  // decoded, checked and hashed.
  const paths = Array.from({ length: 1_000 }, (_, i) => [Uint8Array.of(1), Uint8Array.of(i & 255), Uint8Array.of(2)]);
  if (4 * paths.length + 16 > MAX_ENVELOPE_ITEMS) throw new Error('the read_state no longer fits the item budget');
  const full = new Uint8Array(Cbor.encode({ content: { request_type: 'read_state', paths, sender: anon, ingress_expiry: expiry } }));
  const ok = decodeEnvelope(full, 'read_state', now);
  if (!ok.ok) throw new Error(ok.error.message);
  report('ic_http.envelope_at_item_budget_ms', await median(9, () => decodeEnvelope(full, 'read_state', now)), 'ms');

  const canister = Principal.fromText(CANISTER).toUint8Array();
  const big = new Uint8Array(Cbor.encode({ content: { request_type: 'call', canister_id: canister, method_name: 'm', arg: new Uint8Array(2 * 1024 * 1024).fill(7), sender: anon, ingress_expiry: expiry } }));
  report('ic_http.envelope_2mib_arg_ms', await median(9, () => decodeEnvelope(big, 'call', now)), 'ms');

  const keys = SubnetKeys.generate();
  const tree = new StateTree().set(['time'], Uint8Array.of(1)).set(['request_status', new Uint8Array(32), 'status'], new TextEncoder().encode('replied'));
  report('ic_http.certificate_sign_ms', await median(9, () => certify(tree, keys)), 'ms');

  const dir = mkdtempSync(join(tmpdir(), 'bench-ic-http-'));
  try {
    const { log } = SeenRequestLog.open(join(dir, 'ic-requests.log'), now, 0n);
    const n = 10_000;
    const t = performance.now();
    for (let i = 0; i < n; i++) log.record({ id: i.toString(16).padStart(64, '0'), expiry, sender: '2vxsx-fae' });
    report('ic_http.replay_record_us', Number((((performance.now() - t) / n) * 1000).toFixed(2)), 'us');
    log.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const heap = measureSnapshotCost(128);
  report('host.heap_snapshot.diff_restore_ms_per_mib', Number((heap.diffRestoreMs / heap.heapMiB).toFixed(3)), 'ms');
  report('host.heap_snapshot.full_copy_ms_per_mib', Number((heap.fullCopyMs / heap.heapMiB).toFixed(3)), 'ms');
}
