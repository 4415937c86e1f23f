import { IDL, query, update, StableBTreeMap } from 'azle';

export default class {
    counter = 0n;
    map = new StableBTreeMap<Uint8Array, Uint8Array>(0, { toBytes: (x: Uint8Array) => x, fromBytes: (x: Uint8Array) => x }, { toBytes: (x: Uint8Array) => x, fromBytes: (x: Uint8Array) => x });

    @query([], IDL.Nat64)
    rpc_eth_chain_id(): bigint {
        return 4801360n;
    }

    @update([IDL.Text, IDL.Text], IDL.Nat64)
    put(k: string, v: string): bigint {
        this.map.insert(new TextEncoder().encode(k), new TextEncoder().encode(v));
        this.counter += 1n;
        return this.counter;
    }
}
