import { IsIn } from 'class-validator';
import { IntVar } from './env';

export type LogFormat = 'auto' | 'json' | 'pretty';

/** The process itself: its log, its heap's growth and (tests only) its business clock. */
export class RuntimeEnv {
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** auto: readable lines (pino-pretty) when the output is a terminal, JSON lines otherwise. */
  @IsIn(['auto', 'json', 'pretty'])
  LOG_FORMAT: LogFormat = 'auto';

  /**
   * How far V8 lets the heap grow past what the last full collection kept, in percent (V8's
   * --heap-growing-percent; 0 leaves V8's own factor, up to 300%). Under load V8's factor lets the old
   * generation fill with short-lived request garbage far past the memory target; 50 holds it under for a
   * few more full collections (docs/decisions/0007-heap-growth-cap.md).
   */
  @IntVar(0, 1_000)
  HEAP_GROWING_PERCENT = 50;

  /**
   * Tests only: moves the business clock (src/common/time/clock.ts) this many milliseconds, so that a
   * suite runs as if on another date. At most ten years either way.
   */
  @IntVar(-315_576_000_000, 315_576_000_000)
  CLOCK_OFFSET_MS = 0;
}

export function logSettings(vars: RuntimeEnv): { level: string; format: LogFormat } {
  return { level: vars.LOG_LEVEL, format: vars.LOG_FORMAT };
}

/** `heapGrowingPercent`: see HEAP_GROWING_PERCENT; 0 leaves V8's default. */
export function runtimeSettings(vars: RuntimeEnv): { heapGrowingPercent: number } {
  return { heapGrowingPercent: vars.HEAP_GROWING_PERCENT };
}

/** `offsetMs`: CLOCK_OFFSET_MS (tests only); CoreModule applies it to the clock at start-up. */
export function clockSettings(vars: RuntimeEnv): { offsetMs: number } {
  return { offsetMs: vars.CLOCK_OFFSET_MS };
}
