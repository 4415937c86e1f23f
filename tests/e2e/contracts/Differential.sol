// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Contracts for the differential run against anvil (tests/e2e/differential.test.ts). None reads the block
/// (number, timestamp, base fee, coinbase, prevrandao), so results do not depend on how transactions are
/// grouped into blocks, only on their order.

/// Calls a precompile (or any address) with the given input, keeps a hash of each answer in storage and logs it.
contract Probe {
    uint256 public count;
    mapping(uint256 => bytes32) public results;

    event Probed(address indexed target, bool ok, bytes output);

    function probe(address target, bytes calldata input, uint256 gasLimit) external returns (bool ok, bytes memory out) {
        (ok, out) = target.staticcall{gas: gasLimit}(input);
        results[count++] = keccak256(abi.encodePacked(ok, out));
        emit Probed(target, ok, out);
    }
}

/// Storage-heavy work: fresh slots, overwrites, clears (refunds) and transient storage.
contract Store {
    uint256[64] public data;
    uint256 public writes;

    event Filled(uint256 from, uint256 n);

    function fill(uint256 from, uint256 n, uint256 seed) external {
        for (uint256 i = from; i < from + n; i++) data[i] = uint256(keccak256(abi.encode(seed, i)));
        writes += n;
        emit Filled(from, n);
    }

    function clear(uint256 from, uint256 n) external {
        for (uint256 i = from; i < from + n; i++) delete data[i];
    }

    function transientRoundTrip(uint256 v) external returns (uint256 r) {
        assembly {
            tstore(7, v)
            r := tload(7)
        }
        data[63] = r + 1;
    }
}

/// CREATE2 of a Store.
contract Factory {
    event Deployed(address store);

    function make(bytes32 salt) external returns (address a) {
        a = address(new Store{salt: salt}());
        emit Deployed(a);
    }
}

/// A creation that reverts (status 0) when asked to.
contract Reverter {
    uint256 public x;

    constructor(bool fail) {
        require(!fail, "constructor failed");
        x = 1;
    }
}
