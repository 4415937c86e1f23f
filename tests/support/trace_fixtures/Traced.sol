// SPDX-License-Identifier: MIT
// Contracts for the tracer differential test: nested calls, DELEGATECALL (also nested), STATICCALL, CREATE and CREATE2 from
// a contract, value sent by contracts, caught and uncaught reverts (string, custom error, panic), a
// self-destruct of a contract created in the same transaction and of an older one, logs at several depths,
// a call refused for want of balance.
pragma solidity ^0.8.24;

contract Child {
    uint256 public v;
    event Born(address indexed by, uint256 v);

    constructor(uint256 x) payable {
        v = x;
        emit Born(msg.sender, x);
    }

    function bye(address payable to) external {
        selfdestruct(to);
    }
}

contract Lib {
    uint256 public slot0;

    function setSlot(uint256 x) external payable {
        slot0 = x;
    }

    /// Delegate-called itself, delegate-calls again: the inner frame runs in the outer caller's storage.
    function viaDelegate(address target, uint256 x) external payable {
        (bool ok, ) = target.delegatecall(abi.encodeWithSignature("setSlot(uint256)", x));
        require(ok, "inner delegatecall");
    }
}

contract Reverter {
    error Custom(uint256 code);

    function fail(string calldata why) external pure {
        revert(why);
    }

    function custom() external pure {
        revert Custom(7);
    }

    function panic(uint256 d) external pure returns (uint256) {
        return 10 / d;
    }
}

contract Tracee {
    uint256 public slot0;
    uint256 public counter;
    event Ping(uint256 indexed n, bytes data);

    function run(address lib, address reverter, address payable sink) external payable returns (address, address) {
        emit Ping(1, "start");
        counter += 1;
        (bool ok, ) = lib.delegatecall(abi.encodeWithSignature("viaDelegate(address,uint256)", lib, 42));
        require(ok, "delegatecall");
        uint256 got = Tracee(payable(address(this))).counter();
        try Reverter(reverter).fail("nope") {} catch {}
        try Reverter(reverter).panic(0) {} catch {}
        Child c1 = new Child{value: 1}(got);
        Child c2 = new Child{salt: bytes32(uint256(7)), value: 2}(5);
        c2.bye(sink);
        sink.transfer(3);
        emit Ping(2, "");
        return (address(c1), address(c2));
    }

    function boom(address reverter) external {
        counter += 1;
        emit Ping(3, "lost");
        Reverter(reverter).fail("deep");
    }

    /// A call with more value than the contract holds: it fails before its frame starts (no code runs).
    function overspend(address payable to) external {
        (bool ok, ) = to.call{value: address(this).balance + 1}("");
        emit Ping(ok ? 1 : 0, "overspend");
    }

    function burn() external {
        while (true) {
            counter += 1;
        }
    }

    receive() external payable {}
}
