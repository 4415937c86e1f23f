// A pause between polls that stop() or a rewind request can cut short: the indexer's and the archive's
// followers both wait on it.
export class Pause {
  private wakeUp: (() => void) | undefined;

  /** Resolves after `ms`, or as soon as wake() is called. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }

  /** Ends the current sleep, if any. */
  wake(): void {
    this.wakeUp?.();
  }
}
