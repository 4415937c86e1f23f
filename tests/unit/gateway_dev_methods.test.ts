// The devnet-only development methods at the gateway's edge: -32601 without a DevControl (a gateway in front
// of a real canister), parameters decoded into typed values (-32602 otherwise), anvil's answer shapes.
import { describe, expect, it } from 'vitest';
import type { DevControl } from '../../src/gateway/methods/dev.js';
import { handleBody } from '../../src/gateway/rpc.js';
import { FakeClient, fakeContext } from '../support/gateway_fake.js';

const req = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

class RecordingDev implements DevControl {
  calls: unknown[][] = [];
  async mine(blocks: number) {
    this.calls.push(['mine', blocks]);
  }
  setAutomine(on: boolean) {
    this.calls.push(['setAutomine', on]);
  }
  snapshot() {
    this.calls.push(['snapshot']);
    return 10n;
  }
  async revert(id: bigint) {
    this.calls.push(['revert', id]);
    return id === 10n;
  }
  increaseTime(s: bigint) {
    this.calls.push(['increaseTime', s]);
    return s + 1n;
  }
  async setNextBlockTimestamp(ts: bigint) {
    this.calls.push(['setNextBlockTimestamp', ts]);
    return ts < 100n ? 'timestamp is not after the head block' : undefined;
  }
}

const withDev = (dev: DevControl) => ({ ...fakeContext(new FakeClient({})), dev });

describe('development methods', () => {
  it('are -32601 without the devnet', async () => {
    const ctx = fakeContext(new FakeClient({}));
    for (const m of ['evm_mine', 'evm_snapshot', 'evm_revert', 'evm_increaseTime', 'evm_setNextBlockTimestamp', 'evm_setAutomine']) {
      expect(await handleBody(req(m, []), ctx)).toMatchObject({ error: { code: -32601, message: expect.stringMatching(/devnet only/) } });
    }
  });

  it('decode their parameters and answer as anvil does', async () => {
    const dev = new RecordingDev();
    const ctx = withDev(dev);
    const result = async (m: string, p: unknown[]) => ((await handleBody(req(m, p), ctx)) as { result: unknown }).result;
    expect(await result('evm_mine', [])).toBe('0x0');
    expect(await result('evm_mine', [{ blocks: '0x3', timestamp: 200 }])).toBe('0x0');
    expect(await result('evm_mine', [300])).toBe('0x0');
    expect(await result('evm_setAutomine', [false])).toBe(null);
    expect(await result('evm_snapshot', [])).toBe('0xa');
    expect(await result('evm_revert', ['0xa'])).toBe(true);
    expect(await result('evm_revert', ['0xb'])).toBe(false);
    expect(await result('evm_increaseTime', ['0x10'])).toBe(17);
    expect(await result('evm_setNextBlockTimestamp', [1000])).toBe(null);
    expect(dev.calls).toEqual([
      ['mine', 1],
      ['setNextBlockTimestamp', 200n],
      ['mine', 3],
      ['setNextBlockTimestamp', 300n],
      ['mine', 1],
      ['setAutomine', false],
      ['snapshot'],
      ['revert', 10n],
      ['revert', 11n],
      ['increaseTime', 16n],
      ['setNextBlockTimestamp', 1000n],
    ]);
  });

  it('refuse bad parameters with -32602 before doing anything', async () => {
    const dev = new RecordingDev();
    const ctx = withDev(dev);
    for (const [m, p] of [
      ['evm_mine', [{ blocks: 0 }]],
      ['evm_mine', [{ blocks: 1001 }]],
      ['evm_mine', [{ block: 1 }]],
      ['evm_mine', [-1]],
      ['evm_mine', [1, 2]],
      ['evm_setAutomine', ['true']],
      ['evm_setAutomine', []],
      ['evm_snapshot', [1]],
      ['evm_revert', [{}]],
      ['evm_increaseTime', [-5]],
      ['evm_increaseTime', [1.5]],
      ['evm_increaseTime', ['0x' + 'f'.repeat(40)]],
      ['evm_setNextBlockTimestamp', ['soon']],
    ] as const) {
      expect(await handleBody(req(m, [...p]), ctx), `${m} ${JSON.stringify(p)}`).toMatchObject({ error: { code: -32602 } });
    }
    expect(dev.calls).toEqual([]);
    // A refused timestamp mines nothing.
    expect(await handleBody(req('evm_mine', [50]), ctx)).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/not after/) } });
    expect(dev.calls).toEqual([['setNextBlockTimestamp', 50n]]);
  });
});
