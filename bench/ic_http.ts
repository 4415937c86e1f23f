// The IC HTTP interface's costs on the devnet's event loop (wall time on this machine; docs/ic-http.md
// "Limits", docs/hardening.md "IC HTTP interface"): refusing a 4 MiB body of small arrays, decoding and
// hashing an envelope at the item budget and one with a 2 MiB argument, signing a certificate (BLS), and
// recording a request id in the replay log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cbor } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { decodeEnvelope, MAX_ENVELOPE_ITEMS } from '../src/host/ic_http/envelope.js';
import { SubnetKeys } from '../src/host/ic_http/keys.js';
import { SeenRequestLog } from '../src/host/ic_http/replay.js';
import { MAX_BODY_BYTES } from '../src/host/ic_http/server.js';
import { certify, StateTree } from '../src/host/ic_http/tree.js';
import { smallArraysBody } from '../tests/support/ic_http_attack.js';
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

export async function benchIcHttp(report: Report): Promise<void> {
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

  const canister = Principal.fromText('rrkah-fqaaa-aaaaa-aaaaq-cai').toUint8Array();
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
}
