// Lifecycle costs on the real wasm: one prune step of DEFAULT_PRUNE_MAX_OPS_PER_TICK deletions (the timer's
// default tick, run through prune_blocks, the same code) and one export_blocks response of 1 MiB.
import { DEFAULT_PRUNE_MAX_OPS_PER_TICK } from '../src/core/constants.js';
import { build, isStale, WASM_PATH } from '../src/devnet/build.js';
import { IcHost } from '../src/host/index.js';
import { encodeInitArgs, HostClient } from '../src/client/host.js';
import { selfAuthenticating, syntheticSender } from '../tests/support/ic.js';
import { GWEI } from './support.js';
import type { Report } from './evm.js';

const CONTROLLER = selfAuthenticating(0x71);
const USERS = Array.from({ length: 12 }, (_, i) => selfAuthenticating(0x80 + i));
const TO = new Uint8Array(20).fill(0x44);

export async function benchLifecycle(report: Report): Promise<void> {
  if (isStale()) build({ quiet: true });
  const host = await IcHost.create({ wasm: WASM_PATH, controllers: [CONTROLLER], debugPrint: () => {} });
  try {
    await host.install(encodeInitArgs({ genesis_allocations: [USERS.map((u) => ({ address: syntheticSender(u), balance: 10n ** 24n }))] }));
    const evm = new HostClient(host);
    const nonces = USERS.map(() => 0n);
    const submit = async (u: number, data = new Uint8Array(0), gas = 21000n): Promise<void> => {
      const tx = { to: [TO] as [Uint8Array], value: data.length === 0 ? 1n : 0n, gas_limit: gas, nonce: nonces[u]!++, max_fee_per_gas: 1000n * GWEI, max_priority_fee_per_gas: 250n * GWEI, data };
      const r = await evm.as({ caller: USERS[u]! }).updateMeasured('submit_ic_tx', [tx]);
      if ('Err' in r.value) throw new Error(`submit failed: ${r.value.Err.code}`);
    };
    const mineAll = async (): Promise<void> => {
      while (evm.querySync('health', []).pending_txs > 0n) await host.advanceTime(2000);
    };
    // 1.1 MB of history in bodies: 11 transactions with 100 KB of calldata (two a block at 1.02 M gas each).
    for (let i = 0; i < 11; i++) await submit(i % USERS.length, new Uint8Array(100_000), 1_100_000n);
    await mineAll();
    // 1260 transfers (5040 deletions once pruned): rounds of 12 senders x 30 (pool limit 32 per principal).
    for (let round = 0; round < 4; round++) {
      for (let k = 0; k < 30; k++) for (let u = 0; u < USERS.length; u++) if (round * 360 + k * 12 + u < 1260) await submit(u);
      await mineAll();
    }
    // Past the 256-block floor: one transfer a block.
    for (let i = 0; i < 260; i++) {
      await submit(i % USERS.length);
      await host.advanceTime(2000);
    }

    const exp = evm.queryMeasured('export_blocks', [[], 1024 * 1024]);
    if (!('Ok' in exp.value)) throw new Error(`export failed: ${JSON.stringify(exp.value.Err)}`);
    const bytes = exp.value.Ok.chunks.reduce((n, c) => n + c.data.length, 0);
    if (bytes !== 1024 * 1024) throw new Error(`export returned ${bytes} bytes`);
    report('export.1mib.instructions', exp.instructions ?? 0n, 'instructions');

    const head = evm.querySync('rpc_eth_block_number', []);
    const p = await evm.as({ caller: CONTROLLER }).updateMeasured('prune_blocks', [head, DEFAULT_PRUNE_MAX_OPS_PER_TICK]);
    if ('Err' in p.value) throw new Error(`prune_blocks failed: ${p.value.Err.code}: ${p.value.Err.message}`);
    if (p.value.Ok.ops !== DEFAULT_PRUNE_MAX_OPS_PER_TICK) throw new Error(`prune step did ${p.value.Ok.ops} deletions`);
    report('prune.tick.instructions', p.instructions ?? 0n, 'instructions');
    report('prune.op.instructions', (p.instructions ?? 0n) / BigInt(DEFAULT_PRUNE_MAX_OPS_PER_TICK), 'instructions');
  } finally {
    host.close();
  }
}
