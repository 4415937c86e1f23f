// `npm run profile -- <scenario> [--top N]`: runs a benchmark scenario on the profiling build of the canister
// wasm (src/host/prepare.ts, `profile`) and prints the wasm functions that spent its instructions, by self
// instructions (Markdown table). For the interpreter loops the figure is the difference of a long and a short
// run divided by the steps (or gas) between them, so every fixed cost cancels out, as in bench/evm.ts.
import { CHEAP_LOOP, CHEAP_LOOP_STEPS, deployLoop, JUMPDEST_LOOP, JUMPDEST_LOOP_GAS_PER_ITERATION, loopTx } from '../bench/evm.js';
import { account, BenchChain, signTx } from '../bench/support.js';
import { diffProfiles, formatProfile, type Profile } from '../src/host/profile.js';

interface Scenario {
  readonly about: string;
  run(chain: BenchChain): Promise<{ profile: Profile; per: number; unit: string }>;
}

const senders = Array.from({ length: 3 }, (_, i) => account(i));
const sink = account(1000).address;

// Profiles the block-production message(s) of one mined block.
async function mineProfiled(chain: BenchChain): Promise<Profile> {
  const p = chain.host.profiler!;
  p.reset();
  p.only = new Set(['timer', 'update', 'reply_callback', 'reject_callback', 'cleanup']);
  await chain.mine();
  p.only = new Set([]);
  return p.profile();
}

// Profiles one submit after warm-up submits from the same sender (two with a key: its first recovers, its
// second builds the key's tables; one without).
const submitProfiled =
  (opts: { readonly withKey?: boolean }): Scenario['run'] =>
  async (chain) => {
    const transfer = (): Uint8Array => signTx(senders[0]!, { to: sink, value: 1n, gasLimit: 21000n });
    for (let i = 0; i < (opts.withKey === false ? 1 : 2); i++) await chain.submit(transfer(), opts);
    const p = chain.host.profiler!;
    p.reset();
    p.only = new Set(['update']);
    await chain.submit(transfer(), opts);
    p.only = new Set([]);
    return { profile: p.profile(), per: 1, unit: 'submit' };
  };

const loop = (runtime: Uint8Array, short: bigint, long: bigint, per: number, unit: string): Scenario['run'] =>
  async (chain) => {
    const from = senders[0]!;
    const at = await deployLoop(chain, from, runtime);
    const profiles: Profile[] = [];
    for (const n of [short, long]) {
      await chain.submit(loopTx(from, at, n));
      profiles.push(await mineProfiled(chain));
    }
    return { profile: diffProfiles(profiles[1]!, profiles[0]!), per, unit };
  };

const scenarios: Record<string, Scenario> = {
  'interp.step': {
    about: 'CHEAP_LOOP (bench/evm.ts), 4000 minus 2000 iterations, per EVM step',
    run: loop(CHEAP_LOOP, 2000n, 4000n, 2000 * Number(CHEAP_LOOP_STEPS), 'step'),
  },
  'interp.jumpdest_loop': {
    about: 'JUMPDEST_LOOP (bench/evm.ts), 1000 minus 500 iterations, per gas',
    run: loop(JUMPDEST_LOOP, 500n, 1000n, 500 * Number(JUMPDEST_LOOP_GAS_PER_ITERATION), 'gas'),
  },
  'submit_raw.transfer': {
    about: "a sender's third signed value transfer as the gateway submits it (rpc_eth_send_raw_transaction_with_key: verification)",
    run: submitProfiled({}),
  },
  'submit_raw.transfer.without_key': {
    about: "a sender's second signed value transfer from the anonymous principal (rpc_eth_send_raw_transaction: recovery)",
    run: submitProfiled({ withKey: false }),
  },
  'block.fixed': {
    about: 'a one-transfer block after a block of 40 (what block.fixed.instructions measures, with its transaction)',
    run: async (chain) => {
      for (let i = 0; i < 40; i++) await chain.submit(signTx(senders[i % 3]!, { to: sink, value: 1n, gasLimit: 21000n }));
      await chain.mine();
      await chain.submit(signTx(senders[0]!, { to: sink, value: 1n, gasLimit: 21000n }));
      return { profile: await mineProfiled(chain), per: 1, unit: 'block' };
    },
  },
  'block.transfer': {
    about: 'a block of 40 value transfers, per transaction',
    run: async (chain) => {
      await chain.mine();
      for (let i = 0; i < 40; i++) await chain.submit(signTx(senders[i % 3]!, { to: sink, value: 1n, gasLimit: 21000n }));
      return { profile: await mineProfiled(chain), per: 40, unit: 'tx' };
    },
  },
};

const name = process.argv[2];
const topAt = process.argv.indexOf('--top');
const top = topAt >= 0 ? Number(process.argv[topAt + 1]) : 30;
const scenario = name === undefined ? undefined : scenarios[name];
if (scenario === undefined) {
  console.error(`usage: npm run profile -- <scenario> [--top N]\nscenarios:\n${Object.entries(scenarios).map(([k, s]) => `  ${k}: ${s.about}`).join('\n')}`);
  process.exit(2);
}
const chain = await BenchChain.start({ accounts: senders, profile: true });
try {
  const { profile, per, unit } = await scenario.run(chain);
  console.log(`${name}: ${scenario.about}`);
  console.log(formatProfile(profile, { top, per, unit }));
} finally {
  chain.close();
}
