// `npm start -- --block-time 0` as a drop-in for anvil and the Hardhat node:
// - a Hardhat 2 project whose `localhost` network has no `accounts` (fixtures/hardhat-helpers) runs its
//   network-helpers test file, unmodified (loadFixture, time.increase, time.latest, mine, setBalance, setCode,
//   setStorageAt, impersonateAccount with a transfer out of an account whose key nobody has), with
//   `hardhat test --network localhost`;
// - `forge script --broadcast` deploys with `new C{salt: s}()` through the predeployed CREATE2 deployer, at the
//   address CREATE2 predicts (forge compiles with solc-js through fixtures/solc-js-cli.cjs, as foundry.test.ts).
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getContractAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccounts } from '../../src/devnet/accounts.js';
import { CREATE2_DEPLOYER } from '../../src/devnet/predeploys.js';
import { removeDir, ROOT, rpc, run, runOk, startAnvil, startDevnetProcess, tempDir, type DevnetProcess } from '../support/e2e.js';

let devnet: DevnetProcess;
let dataDir: string;
let work: string;

beforeAll(async () => {
  dataDir = tempDir('hardhat-helpers-');
  work = tempDir('hardhat-helpers-work-');
  mkdirSync(join(work, 'cache'));
  devnet = await startDevnetProcess({ dataDir, args: ['--block-time', '0'] });
}, 240_000);
afterAll(async () => {
  await devnet?.stop();
  removeDir(dataDir);
  removeDir(work);
});

async function hardhatTest(url: string, tag: string): Promise<string> {
  const started = performance.now();
  const r = await run('hardhat', ['test', '--network', 'localhost', 'test/Lock.test.cjs'], {
    cwd: join(ROOT, 'tests', 'e2e', 'fixtures', 'hardhat-helpers'),
    env: {
      E2E_RPC_URL: url,
      E2E_HARDHAT_CACHE: join(work, 'cache'),
      E2E_HARDHAT_ARTIFACTS: join(work, `artifacts-${tag}`),
      HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
    },
    timeoutMs: 280_000,
  });
  const out = `${r.stdout}\n${r.stderr}`;
  expect(out, out).toMatch(/\b6 passing\b/);
  expect(out).not.toMatch(/\bfailing\b/);
  expect(r.code, out).toBe(0);
  // The wall time, for the record (the bench measures it: bench/devnet_hardhat.ts).
  console.log(`hardhat test against ${tag}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return out;
}

describe('hardhat test --network localhost with @nomicfoundation/hardhat-network-helpers', () => {
  it('the test file passes against anvil, the reference', async () => {
    // anvil answers eth_sendTransaction before its miner task has mined the block, so on a loaded machine the
    // fixture's evm_snapshot (taken right after `deploy`, which does not wait) can precede the deployment and
    // every later loadFixture reverts to a state without the contract. That race is anvil's, not the test
    // file's: the reference gets a second, fresh anvil once. The devnet mines before it answers (--block-time 0)
    // and gets no second try.
    for (let attempt = 1; ; attempt++) {
      const anvil = await startAnvil();
      try {
        await hardhatTest(anvil.url, 'anvil');
        return;
      } catch (e) {
        if (attempt >= 2) throw e;
        console.log(`hardhat test against anvil failed once (anvil's snapshot-before-mining race); a fresh anvil: ${(e as Error).message.split('\n').find((l) => /\d\) /.test(l)) ?? ''}`);
      } finally {
        await anvil.stop();
      }
    }
  });

  it('the same file, unmodified, passes every test against npm start', async () => {
    await hardhatTest(devnet.url, 'devnet');
  });
});

describe('forge script --broadcast with new C{salt: s}()', () => {
  it('deploys through the predeployed CREATE2 deployer at the predicted address', async () => {
    const project = join(work, 'forge');
    mkdirSync(join(project, 'script'), { recursive: true });
    cpSync(join(ROOT, 'tests', 'e2e', 'fixtures', 'forge-create2', 'script', 'Deploy.s.sol'), join(project, 'script', 'Deploy.s.sol'));
    const solc = join(ROOT, 'tests', 'e2e', 'fixtures', 'solc-js-cli.cjs');
    writeFileSync(
      join(project, 'foundry.toml'),
      ['[profile.default]', 'src = "script"', 'out = "out"', 'libs = []', 'offline = true', 'auto_detect_solc = false', `solc = "${solc}"`, 'evm_version = "prague"', ''].join('\n'),
    );
    const sender = devAccounts()[1]!;
    const out = await runOk('forge', ['script', 'script/Deploy.s.sol:Deploy', '--rpc-url', devnet.url, '--broadcast', '--unlocked', '--sender', sender.address, '--slow'], { cwd: project, timeoutMs: 240_000 });
    const artifact = JSON.parse(readFileSync(join(project, 'out', 'Deploy.s.sol', 'Answer.json'), 'utf8')) as { bytecode: { object: Hex }; deployedBytecode: { object: Hex } };
    const salt = `0x${'1ce'.padStart(64, '0')}` as Hex;
    const predicted = getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER.address, salt, bytecode: artifact.bytecode.object });
    expect(out, out).toContain(predicted);
    expect(await rpc(devnet.url, 'eth_getCode', [predicted, 'latest'])).toBe(artifact.deployedBytecode.object);
    // The broadcast transaction went to the deployer, from the unlocked sender.
    const broadcast = JSON.parse(readFileSync(join(project, 'broadcast', 'Deploy.s.sol', '4801360', 'run-latest.json'), 'utf8')) as { receipts: { status: string; from: string; to: string }[] };
    expect(broadcast.receipts.map((r) => [r.status, r.from.toLowerCase(), r.to?.toLowerCase()])).toEqual([['0x1', sender.address.toLowerCase(), CREATE2_DEPLOYER.address.toLowerCase()]]);
  });
});
