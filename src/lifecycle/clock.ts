/**
 * What time it is. The clock is chosen once, where a process is assembled (src/daemon, the CLI
 * context, the simulator, the demo), and passed down as `now`; tests pass their own. The lint
 * rule `paysync/one-clock` (eslint.config.mjs) keeps every other file from reading the machine's.
 */
export type Clock = () => Date;

/** The machine's clock, for composition roots only. */
export const systemClock: Clock = () => new Date();
