/** Test or live: every tenant's data exists twice, once per mode, and a key sees only its own mode's. */
export type Mode = 'test' | 'live';
export const MODES: readonly Mode[] = ['test', 'live'];
