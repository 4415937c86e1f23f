// The IC HTTP interface in front of the real canister wasm: the unmodified HttpAgent (default verification:
// fetched root key, certificate signatures and time, query signatures by the certified node key) makes
// queries and updates with anonymous, Ed25519, secp256k1 and delegated identities, over the synchronous
// call and over the older call + read_state path; bad envelopes get the IC's HTTP status and text, unknown
// canisters the IC's reject code.
import { join } from 'node:path';
import { Actor, Cbor, HttpAgent, type Identity, type HttpAgentRequest } from '@icp-sdk/core/agent';
import { IDL } from '@icp-sdk/core/candid';
import { DelegationChain, DelegationIdentity, Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Secp256k1KeyIdentity } from '@icp-sdk/core/identity/secp256k1';
import { Principal } from '@icp-sdk/core/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentTransport } from '../../src/client/agent.js';
import { CanisterCallError } from '../../src/client/errors.js';
import { account, feeMarketTx } from '../support/eth.js';
import { idlFactory } from '../../src/canister/idl.js';
import { CHAIN_ID } from '../../src/core/constants.js';
import { deriveSyntheticSender } from '../../src/core/tx/ic_synthetic.js';
import { SubnetKeys, type IcHttpServer } from '../../src/host/ic_http/index.js';
import { projectTempDir } from '../../src/host/paths.js';
import { CANISTER_ID, type Evm } from '../support/canister.js';
import { minedReceipt, startIcHttpEvm, type IcHttpEvm } from '../support/ic_http_evm.js';

const dir = projectTempDir('ic-http-');
const ed = Ed25519KeyIdentity.generate(new Uint8Array(32).fill(7));
const k1 = Secp256k1KeyIdentity.generate(new Uint8Array(32).fill(9));
const root = Ed25519KeyIdentity.generate(new Uint8Array(32).fill(11));
const session = Ed25519KeyIdentity.generate(new Uint8Array(32).fill(12));
const canister = Principal.fromText(CANISTER_ID);
const senderOf = (p: Principal): Uint8Array => {
  const r = deriveSyntheticSender(p.toUint8Array(), canister.toUint8Array());
  if (!r.ok) throw new Error('derivation failed');
  return r.value;
};
const ETH = 10n ** 18n;

/** The devnet mines on the wall clock: waits for the transaction's receipt. */
const receiptOf = (txId: Uint8Array) => minedReceipt(evm, txId);

let net: IcHttpEvm;
let evm: Evm;
let server: IcHttpServer;
let keys: SubnetKeys;

type Res<T> = { Ok: T } | { Err: { code: string; message: string } };
type EvmActor = Record<string, (...a: unknown[]) => Promise<any>>;

async function actorFor(identity?: Identity, opts: { callSync?: boolean } = {}): Promise<{ actor: EvmActor; agent: HttpAgent }> {
  const agent = await HttpAgent.create({ host: server.url, shouldFetchRootKey: true, ...(identity === undefined ? {} : { identity }) });
  const actor = Actor.createActor(idlFactory as never, { agent, canisterId: canister, ...(opts.callSync === false ? { callSync: false } : {}) }) as unknown as EvmActor;
  return { actor, agent };
}

const tx = (nonce: bigint) => ({ to: [new Uint8Array(20).fill(0xde)], value: 1000n, gas_limit: 21000n, max_fee_per_gas: 10n ** 12n, max_priority_fee_per_gas: 250n * 10n ** 9n, nonce, data: new Uint8Array() });

beforeAll(async () => {
  const delegated = Principal.selfAuthenticating(new Uint8Array(root.getPublicKey().toDer()));
  net = await startIcHttpEvm(dir, { genesis: [ed.getPrincipal(), k1.getPrincipal(), delegated].map((p) => ({ address: senderOf(p), balance: 100n * ETH })) });
  ({ evm, server, keys } = net);
});

afterAll(() => net?.close());

describe('IC HTTP interface with the unmodified HttpAgent', () => {
  it('publishes the root key in /api/v2/status and keeps it per data folder', async () => {
    const agent = HttpAgent.createSync({ host: server.url });
    const key = await agent.fetchRootKey();
    expect(Buffer.from(key!).equals(Buffer.from(keys.rootKeyDer))).toBe(true);
    expect(Buffer.from(SubnetKeys.loadOrCreate(join(dir, 'ic-keys.json')).rootKeyDer).equals(Buffer.from(keys.rootKeyDer))).toBe(true);
    const status = Cbor.decode(new Uint8Array(await (await fetch(`${server.url}/api/v2/status`)).arrayBuffer())) as Record<string, unknown>;
    expect(status.replica_health_status).toBe('healthy');
  });

  it('answers an anonymous query with a node-signed response the agent verifies', async () => {
    const { actor } = await actorFor();
    expect(await actor.rpc_eth_chain_id!()).toBe(CHAIN_ID);
  });

  it('runs an Ed25519 update synchronously (v4 call, certificate) as the same message as in-process', async () => {
    const { actor } = await actorFor(ed);
    const r = (await actor.submit_ic_tx!(tx(0n))) as Res<Uint8Array>;
    if ('Err' in r) throw new Error(r.Err.message);
    const pending = await actor.get_pending!(r.Ok);
    expect(Object.keys(pending)[0]).toMatch(/Queued|Included/);
    // The caller was the envelope's sender: the canister derived that principal's sender address.
    const receipt = await receiptOf(r.Ok);
    expect(Buffer.from(receipt.from).equals(Buffer.from(senderOf(ed.getPrincipal())))).toBe(true);
  });

  it('runs a secp256k1 update over the v2 call + read_state polling path', async () => {
    const { actor } = await actorFor(k1, { callSync: false });
    const r = (await actor.submit_ic_tx!(tx(0n))) as Res<Uint8Array>;
    if ('Err' in r) throw new Error(r.Err.message);
    expect(Buffer.from((await receiptOf(r.Ok)).from).equals(Buffer.from(senderOf(k1.getPrincipal())))).toBe(true);
  });

  it('accepts a one-level delegation; the caller is the delegating principal', async () => {
    const chain = await DelegationChain.create(root, session.getPublicKey(), new Date(Date.now() + 10 * 60_000));
    const id = DelegationIdentity.fromDelegation(session, chain);
    const { actor } = await actorFor(id);
    const r = (await actor.submit_ic_tx!(tx(0n))) as Res<Uint8Array>;
    if ('Err' in r) throw new Error(r.Err.message);
    expect(Buffer.from((await receiptOf(r.Ok)).from).equals(Buffer.from(senderOf(root.getPrincipal())))).toBe(true);
  });

  it('refuses a delegation whose targets exclude the canister', async () => {
    const other = Principal.fromText('ryjl3-tyaaa-aaaaa-aaaba-cai');
    const chain = await DelegationChain.create(root, session.getPublicKey(), new Date(Date.now() + 10 * 60_000), { targets: [other] });
    const { actor } = await actorFor(DelegationIdentity.fromDelegation(session, chain));
    await expect(actor.rpc_eth_chain_id!()).rejects.toThrow(/not one of the delegation targets/);
  });

  it('rejects a query to an update-only method with the IC reject code and error code', async () => {
    const { agent } = await actorFor();
    const res = await agent.query(canister, { methodName: 'submit_ic_tx', arg: new Uint8Array(IDL.encode([], [])) });
    expect(res.status).toBe('rejected');
    expect(res).toMatchObject({ reject_code: 3, error_code: 'IC0536' });
  });

  it("an ingress refusal by canister_inspect_message reaches the agent's caller with its error code", async () => {
    const transport = await createAgentTransport({ icHost: server.url, canisterId: canister.toText(), fetchRootKey: true });
    // A signed transfer from an account with no funds: refused by inspection (docs/hardening.md "Submits").
    const raw = feeMarketTx(account(91), { nonce: 0n, to: new Uint8Array(20).fill(1), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 250n * 10n ** 9n }).serialize();
    const e = await transport.call('update', 'rpc_eth_send_raw_transaction', [raw]).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(CanisterCallError);
    expect((e as CanisterCallError).refusal?.code).toBe('submit.insufficient_funds');
  });
});

/** A signed envelope as the agent would send it, with `edit` applied to the content after signing. */
async function envelope(identity: Identity, content: Record<string, unknown>, edit?: (c: Record<string, unknown>) => void, sigEdit?: (s: Uint8Array) => void): Promise<Uint8Array> {
  const req = (await identity.transformRequest({ request: { method: 'POST', headers: {} }, endpoint: 'call', body: content } as unknown as HttpAgentRequest)) as { body: Record<string, unknown> };
  const body: Record<string, unknown> & { content: Record<string, unknown> } = { ...req.body, content: { ...(req.body.content as Record<string, unknown>) } };
  edit?.(body.content);
  if (body.sender_sig instanceof Uint8Array) sigEdit?.(body.sender_sig);
  return new Uint8Array(Cbor.encode(body));
}

const post = async (path: string, body: Uint8Array | string, contentType = 'application/cbor') => {
  const r = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const bytes = new Uint8Array(await r.arrayBuffer());
  return { status: r.status, text: Buffer.from(bytes).toString('utf8'), bytes };
};

const queryContent = (overrides: Record<string, unknown> = {}) => ({
  request_type: 'query',
  canister_id: canister.toUint8Array(),
  method_name: 'rpc_eth_chain_id',
  arg: new Uint8Array(IDL.encode([], [])),
  sender: ed.getPrincipal().toUint8Array(),
  ingress_expiry: BigInt(Date.now() + 60_000) * 1_000_000n,
  ...overrides,
});

describe('IC HTTP interface refuses bad envelopes as the IC does', () => {
  const q = `/api/v3/canister/${CANISTER_ID}/query`;

  it('accepts the well-formed baseline envelope', async () => {
    const r = await post(q, await envelope(ed, queryContent()));
    expect(r.status).toBe(200);
    expect((Cbor.decode(r.bytes) as { status: string }).status).toBe('replied');
  });

  it('tampered signature: 400, invalid signature', async () => {
    const r = await post(q, await envelope(ed, queryContent(), undefined, (s) => (s[0]! ^= 1)));
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/^Failed to authenticate request 0x[0-9a-f]{64} due to: Invalid signature/);
  });

  it('wrong request id (content changed after signing): 400, the recomputed id does not match the signature', async () => {
    const r = await post(q, await envelope(ed, queryContent(), (c) => (c.method_name = 'rpc_eth_block_number')));
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/Invalid signature/);
  });

  it('expired request: 400, Invalid request expiry', async () => {
    const r = await post(q, await envelope(ed, queryContent({ ingress_expiry: BigInt(Date.now() - 60_000) * 1_000_000n })));
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/^Invalid request expiry: Specified ingress_expiry not within expected range/);
    // Too far in the future is refused the same way.
    const far = await post(q, await envelope(ed, queryContent({ ingress_expiry: BigInt(Date.now() + 3_600_000) * 1_000_000n })));
    expect(far.status).toBe(400);
  });

  it('non-CBOR body: 400; wrong content type: 400', async () => {
    const r = await post(q, '{"jsonrpc":"2.0"}');
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/^Failed to deserialize cbor request|^Could not parse body/);
    const ct = await post(q, await envelope(ed, queryContent()), 'application/json');
    expect(ct.status).toBe(400);
    expect(ct.text).toBe('Unexpected content-type, expected application/cbor.');
  });

  it('unknown canister id: reject code 3 / IC0301 for a query and an update; 400 outside the subnet', async () => {
    const unknown = Principal.fromText('ryjl3-tyaaa-aaaaa-aaaba-cai');
    const r = await post(`/api/v3/canister/${unknown.toText()}/query`, await envelope(ed, queryContent({ canister_id: unknown.toUint8Array() })));
    expect(r.status).toBe(200);
    expect(Cbor.decode(r.bytes)).toMatchObject({ status: 'rejected', reject_code: 3, error_code: 'IC0301' });
    const call = await post(
      `/api/v4/canister/${unknown.toText()}/call`,
      await envelope(ed, queryContent({ request_type: 'call', canister_id: unknown.toUint8Array(), method_name: 'submit_ic_tx' })),
    );
    expect(call.status).toBe(200);
    expect(Cbor.decode(call.bytes)).toMatchObject({ reject_code: 3, error_code: 'IC0301' });
    const outside = ed.getPrincipal();
    const o = await post(`/api/v3/canister/${outside.toText()}/query`, await envelope(ed, queryContent({ canister_id: outside.toUint8Array() })));
    expect(o.status).toBe(400);
  });

  it('canister id in the content differs from the URL: 400', async () => {
    const other = Principal.fromText('ryjl3-tyaaa-aaaaa-aaaba-cai');
    const r = await post(`/api/v3/canister/${other.toText()}/query`, await envelope(ed, queryContent()));
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/does not match effective canister id in URL/);
  });

  it('sender that does not match the public key, and a signature on an anonymous request: 400', async () => {
    const r = await post(q, await envelope(ed, queryContent({ sender: k1.getPrincipal().toUint8Array() })));
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/does not match the public key/);
    const a = await post(q, await envelope(ed, queryContent({ sender: Principal.anonymous().toUint8Array() })));
    expect(a.status).toBe(400);
  });

  it('read_state of another sender\'s request id: 403', async () => {
    const callBody = await envelope(k1, queryContent({ request_type: 'call', method_name: 'rpc_eth_block_number', sender: k1.getPrincipal().toUint8Array(), nonce: new Uint8Array([1, 2, 3]) }));
    const call = await post(`/api/v2/canister/${CANISTER_ID}/call`, callBody);
    expect(call.status).toBe(202);
    const content = (Cbor.decode(callBody) as { content: Record<string, unknown> }).content;
    const { requestIdOf } = await import('@icp-sdk/core/agent');
    const id = new Uint8Array(requestIdOf(content));
    const rs = (sender: Identity) =>
      envelope(sender, { request_type: 'read_state', paths: [[new TextEncoder().encode('request_status'), id]], sender: sender.getPrincipal().toUint8Array(), ingress_expiry: BigInt(Date.now() + 60_000) * 1_000_000n });
    const other = await post(`/api/v3/canister/${CANISTER_ID}/read_state`, await rs(ed));
    expect(other.status).toBe(403);
    const own = await post(`/api/v3/canister/${CANISTER_ID}/read_state`, await rs(k1));
    expect(own.status).toBe(200);
  });

  it('unknown endpoint: 404', async () => {
    expect((await post('/api/v9/nothing', new Uint8Array())).status).toBe(404);
  });
});
