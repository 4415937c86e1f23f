// Envelope validation of the devnet's IC HTTP interface (src/host/ic_http/envelope.ts) without a canister:
// the identities @icp-sdk/core makes (Ed25519, secp256k1, P-256 through WebCrypto, delegation chains of
// one and two levels) are accepted with the request id the agent computes; expired or foreign delegations,
// values outside the representation-independent hash and oversized fields are refused with 400.
import { Cbor, requestIdOf, type HttpAgentRequest, type Identity } from '@icp-sdk/core/agent';
import { DelegationChain, DelegationIdentity, ECDSAKeyIdentity, Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Secp256k1KeyIdentity } from '@icp-sdk/core/identity/secp256k1';
import { Principal } from '@icp-sdk/core/principal';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../src/host/ic_http/envelope.js';

const canister = Principal.fromText('rrkah-fqaaa-aaaaa-aaaaq-cai');
const now = BigInt(Date.now()) * 1_000_000n;
const content = (sender: Principal, extra: Record<string, unknown> = {}) => ({
  request_type: 'call',
  canister_id: canister.toUint8Array(),
  method_name: 'submit_ic_tx',
  arg: new Uint8Array([0x44, 0x49, 0x44, 0x4c]),
  sender: sender.toUint8Array(),
  ingress_expiry: now + 60_000_000_000n,
  ...extra,
});

async function body(identity: Identity, c: Record<string, unknown>): Promise<Uint8Array> {
  const req = (await identity.transformRequest({ request: { method: 'POST', headers: {} }, endpoint: 'call', body: c } as unknown as HttpAgentRequest)) as { body: unknown };
  return new Uint8Array(Cbor.encode(req.body));
}

describe('ic_http envelope', () => {
  it('accepts Ed25519, secp256k1 and P-256 senders with the agent\'s request id', async () => {
    for (const id of [Ed25519KeyIdentity.generate(), Secp256k1KeyIdentity.generate(), await ECDSAKeyIdentity.generate()]) {
      const c = content(id.getPrincipal());
      const r = decodeEnvelope(await body(id, c), 'call', now);
      if (!r.ok) throw new Error(r.error.message);
      expect(Buffer.from(r.value.requestId).equals(Buffer.from(requestIdOf(c)))).toBe(true);
      expect(r.value.content.sender.toText()).toBe(id.getPrincipal().toText());
    }
  });

  it('accepts one- and two-level delegation chains, the sender being the first key\'s principal', async () => {
    const root = Ed25519KeyIdentity.generate();
    const mid = Secp256k1KeyIdentity.generate();
    const session = Ed25519KeyIdentity.generate();
    const exp = new Date(Date.now() + 600_000);
    const one = await DelegationChain.create(root, session.getPublicKey(), exp);
    const two = await DelegationChain.create(mid, session.getPublicKey(), exp, { previous: await DelegationChain.create(root, mid.getPublicKey(), exp, { targets: [canister] }) });
    for (const chain of [one, two]) {
      const id = DelegationIdentity.fromDelegation(session, chain);
      expect(id.getPrincipal().toText()).toBe(root.getPrincipal().toText());
      const r = decodeEnvelope(await body(id, content(id.getPrincipal())), 'call', now);
      if (!r.ok) throw new Error(r.error.message);
    }
    const r = decodeEnvelope(await body(DelegationIdentity.fromDelegation(session, two), content(root.getPrincipal())), 'call', now);
    expect(r.ok && r.value.targets?.map((t) => t.toText())).toEqual([canister.toText()]);
  });

  it('refuses an expired delegation and a delegation signed by another key', async () => {
    const root = Ed25519KeyIdentity.generate();
    const session = Ed25519KeyIdentity.generate();
    const expired = await DelegationChain.create(root, session.getPublicKey(), new Date(Date.now() - 600_000));
    const r = decodeEnvelope(await body(DelegationIdentity.fromDelegation(session, expired), content(root.getPrincipal())), 'call', now);
    expect(r.ok ? '' : r.error.message).toMatch(/Invalid delegation expiry/);
    // A chain made by another key, presented as if `root` had signed it: the delegation signature fails.
    const other = await DelegationChain.create(Ed25519KeyIdentity.generate(), session.getPublicKey(), new Date(Date.now() + 600_000));
    const forged = DelegationChain.fromDelegations(other.delegations, root.getPublicKey().toDer());
    const f = decodeEnvelope(await body(DelegationIdentity.fromDelegation(session, forged), content(root.getPrincipal())), 'call', now);
    expect(f.ok ? '' : f.error.message).toMatch(/Invalid delegation: entry 0/);
  });

  it('refuses values outside the representation-independent hash, unknown fields, a long nonce, too many paths', async () => {
    const id = Ed25519KeyIdentity.generate();
    const withBool = new Uint8Array(Cbor.encode({ content: { ...content(Principal.anonymous()), nonce: true } }));
    const b = decodeEnvelope(withBool, 'call', now);
    expect(b.ok ? 0 : b.error.status).toBe(400);
    expect(b.ok ? '' : b.error.message).toMatch(/^Failed to deserialize cbor request: float or simple value/);
    const unknown = decodeEnvelope(new Uint8Array(Cbor.encode({ content: { ...content(Principal.anonymous()), flag: 1 } })), 'call', now);
    expect(unknown.ok ? '' : unknown.error.message).toMatch(/unknown content field "flag"/);
    const top = decodeEnvelope(new Uint8Array(Cbor.encode({ content: content(Principal.anonymous()), padding: new Uint8Array(8) })), 'call', now);
    expect(top.ok ? '' : top.error.message).toMatch(/unknown envelope field "padding"/);
    const nonce = decodeEnvelope(await body(id, content(id.getPrincipal(), { nonce: new Uint8Array(33) })), 'call', now);
    expect(nonce.ok ? '' : nonce.error.message).toMatch(/Nonce in request is too big/);
    const paths = Array.from({ length: 1001 }, () => [new TextEncoder().encode('time')]);
    const rs = decodeEnvelope(new Uint8Array(Cbor.encode({ content: { request_type: 'read_state', paths, sender: Principal.anonymous().toUint8Array(), ingress_expiry: now + 1n } })), 'read_state', now);
    expect(rs.ok ? '' : rs.error.message).toMatch(/Too many paths/);
  });

  it('computes the agent\'s request id for read_state paths and delegated senders', async () => {
    const rsContent = { request_type: 'read_state', paths: [[new TextEncoder().encode('request_status'), new Uint8Array(32).fill(3)], [new TextEncoder().encode('time')]], sender: Principal.anonymous().toUint8Array(), ingress_expiry: now + 1n, nonce: new Uint8Array([1, 2]) };
    const rs = decodeEnvelope(new Uint8Array(Cbor.encode({ content: rsContent })), 'read_state', now);
    if (!rs.ok) throw new Error(rs.error.message);
    expect(Buffer.from(rs.value.requestId).equals(Buffer.from(requestIdOf(rsContent)))).toBe(true);
    // A 2 MiB argument and an 8-byte expiry: the same bytes as the agent's hash.
    const big = content(Principal.anonymous(), { arg: new Uint8Array(2 * 1024 * 1024).fill(7), ingress_expiry: now + 299_000_000_000n });
    const r = decodeEnvelope(new Uint8Array(Cbor.encode({ content: big })), 'call', now);
    if (!r.ok) throw new Error(r.error.message);
    expect(Buffer.from(r.value.requestId).equals(Buffer.from(requestIdOf(big)))).toBe(true);
  });

  it('accepts an anonymous envelope without signature and refuses one with a signature', async () => {
    const anon = decodeEnvelope(new Uint8Array(Cbor.encode({ content: content(Principal.anonymous()) })), 'call', now);
    expect(anon.ok).toBe(true);
    const signed = decodeEnvelope(await body(Ed25519KeyIdentity.generate(), content(Principal.anonymous())), 'call', now);
    expect(signed.ok ? '' : signed.error.message).toMatch(/Signature is not allowed for the anonymous user/);
  });
});
