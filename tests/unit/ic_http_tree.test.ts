// The devnet's certified state (src/host/ic_http/tree.ts): labels in lexicographic byte order (the spec's
// order, which the Rust agent's lookups rely on; the JS agent's `compare` is length-first and would put
// "time" before "subnet"), a signature the agent's own Certificate verifies, and lookups through it.
import { Certificate, Cbor, lookupResultToBuffer, NodeType, type HashTree } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { describe, expect, it } from 'vitest';
import { SubnetKeys } from '../../src/host/ic_http/keys.js';
import { certify, lebEncode, StateTree, toHashTree } from '../../src/host/ic_http/tree.js';

const labels = (t: HashTree): string[] => {
  if (t[0] === NodeType.Fork) return [...labels(t[1] as HashTree), ...labels(t[2] as HashTree)];
  if (t[0] === NodeType.Labeled) return [Buffer.from(t[1] as Uint8Array).toString('latin1')];
  return [];
};

describe('ic_http state tree', () => {
  it('orders labels lexicographically by bytes', () => {
    const s = new StateTree().set(['time'], lebEncode(1n)).set(['subnet', 'x'], new Uint8Array([1])).set(['canister_ranges', 'y'], new Uint8Array([2])).set(['a'], new Uint8Array());
    expect(labels(toHashTree(s.root))).toEqual(['a', 'canister_ranges', 'subnet', 'time']);
  });

  it('is signed so that the agent verifies it with the root key, and lookups find the leaves', async () => {
    const keys = SubnetKeys.generate();
    const now = BigInt(Date.now()) * 1_000_000n;
    const id = new Uint8Array(32).fill(5);
    const s = new StateTree().set(['time'], lebEncode(now)).set(['request_status', id, 'status'], new TextEncoder().encode('replied')).set(['request_status', id, 'reply'], new Uint8Array([7, 8]));
    const certificate = await certify(s, keys);
    const cert = await Certificate.create({ certificate, rootKey: keys.rootKeyDer, principal: { canisterId: Principal.fromText('rrkah-fqaaa-aaaaa-aaaaq-cai') } });
    expect(lookupResultToBuffer(cert.lookup_path(['request_status', id, 'reply']))).toEqual(new Uint8Array([7, 8]));
    // A different key does not verify it.
    await expect(Certificate.create({ certificate, rootKey: SubnetKeys.generate().rootKeyDer, principal: { canisterId: Principal.fromText('rrkah-fqaaa-aaaaa-aaaaq-cai') } })).rejects.toThrow();
    // Tampering with a leaf changes the root hash: the signature no longer verifies.
    const decoded = Cbor.decode(certificate) as { tree: HashTree; signature: Uint8Array };
    const tampered = new Uint8Array(Cbor.encode({ tree: toHashTree(new StateTree().set(['time'], lebEncode(now)).root), signature: decoded.signature }));
    await expect(Certificate.create({ certificate: tampered, rootKey: keys.rootKeyDer, principal: { canisterId: Principal.fromText('rrkah-fqaaa-aaaaa-aaaaq-cai') } })).rejects.toThrow();
  });
});
