/** How an interrupt is handled while a run is going. */
export interface InterruptOptions {
  /** Where the notice goes (stderr). */
  readonly write: (text: string) => void;
  /** Leaves at once on the second signal; default process.exit. */
  readonly exit?: (code: number) => void;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Runs `work` with an AbortSignal that the first Ctrl-C (SIGINT) or SIGTERM
 * aborts: the run ends `aborted`, keeping its record and worktree. A second
 * signal exits at once with 130. The handlers exist only while `work` runs.
 */
export async function withInterrupt<T>(
  work: (signal: AbortSignal) => Promise<T>,
  options: InterruptOptions,
): Promise<T> {
  const controller = new AbortController();
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const onSignal = () => {
    if (controller.signal.aborted) {
      exit(130);
      return;
    }
    options.write(
      "\ncloser: stopping; the run record and the worktree are kept (press Ctrl-C again to quit at once)\n",
    );
    controller.abort();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    return await work(controller.signal);
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}
