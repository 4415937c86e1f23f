// Fee rules: EIP-1559 base fee evolution and the effective gas price.

/**
 * Base fee of the block after `parent` (EIP-1559: target = gasLimit / 2, change at most 1/8 per block),
 * never below `floor`. The floor is the minimum gas price: submit already requires maxFee >= that
 * minimum, so a lower base fee would admit no additional transaction and would only make the
 * recovery after a burst slower.
 */
export function computeNextBaseFee(parentBaseFee: bigint, parentGasUsed: bigint, parentGasLimit: bigint, floor: bigint): bigint {
  const target = parentGasLimit / 2n;
  let next: bigint;
  if (target === 0n || parentGasUsed === target) next = parentBaseFee;
  else if (parentGasUsed > target) {
    const delta = (parentBaseFee * (parentGasUsed - target)) / target / 8n;
    next = parentBaseFee + (delta > 1n ? delta : 1n);
  } else {
    next = parentBaseFee - (parentBaseFee * (target - parentGasUsed)) / target / 8n;
  }
  return next < floor ? floor : next;
}

/** min(maxFee, baseFee + priority); undefined when maxFee cannot cover the base fee (not includable). */
export function computeEffectiveGasPrice(maxFee: bigint, maxPriority: bigint, baseFee: bigint): bigint | undefined {
  if (maxFee < baseFee) return undefined;
  const p = baseFee + maxPriority;
  return p < maxFee ? p : maxFee;
}

/** The miner's tip per gas used for ordering: min(priority, maxFee - baseFee). */
export function effectiveTip(maxFee: bigint, maxPriority: bigint, baseFee: bigint): bigint {
  const room = maxFee - baseFee;
  return maxPriority < room ? maxPriority : room;
}
