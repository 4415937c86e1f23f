// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A minimal ERC-721 for tests/e2e/log-filters.test.ts: its Transfer has three indexed arguments (4 topics,
/// no data), next to the ERC-20's two (3 topics, 32 bytes of data).
contract Nft {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    mapping(uint256 => address) public ownerOf;

    function mint(address to, uint256 id) external {
        require(ownerOf[id] == address(0), "minted");
        ownerOf[id] = to;
        emit Transfer(address(0), to, id);
    }

    function transferFrom(address from, address to, uint256 id) external {
        require(ownerOf[id] == from && msg.sender == from, "not owner");
        ownerOf[id] = to;
        emit Transfer(from, to, id);
    }
}

/// Logs with 0 to 4 topics, chosen by the caller.
contract Emitter {
    function emitLog(uint8 k, bytes32 t0, bytes32 t1, bytes32 t2, bytes32 t3, bytes calldata data) external {
        bytes memory d = data;
        assembly {
            let p := add(d, 32)
            let n := mload(d)
            switch k
            case 0 { log0(p, n) }
            case 1 { log1(p, n, t0) }
            case 2 { log2(p, n, t0, t1) }
            case 3 { log3(p, n, t0, t1, t2) }
            default { log4(p, n, t0, t1, t2, t3) }
        }
    }
}
