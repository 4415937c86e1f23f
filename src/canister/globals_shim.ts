// Imported first by the canister entry. Azle's stable mode defines throwing getters for browser/Node
// globals (window, self, global, ...). Libraries that probe `typeof window` or `self` at load time
// (js-sha3, debug) would crash the canister at start; the getters are configurable, so remove the ones
// such probes touch. Probes then see `undefined` and take their plain-JS path.
for (const name of ['window', 'self', 'global']) {
  const desc = Object.getOwnPropertyDescriptor(globalThis, name);
  if (desc?.get !== undefined && desc.configurable === true) {
    delete (globalThis as Record<string, unknown>)[name];
  }
}

export {};
