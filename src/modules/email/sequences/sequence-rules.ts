/** A sequence's lifecycle: draft → active ⇄ paused, any → archived; archived is final. */
export const SEQUENCE_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];

/** An enrolment walks the steps while `active`, then ends completed, cancelled (archived, no email) or failed. */
export const ENROLLMENT_STATUSES = ['active', 'completed', 'cancelled', 'failed'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

export const MAX_STEPS = 50;
/** One year: a longer pause between two emails is a new campaign, not a step. */
export const MAX_DELAY_MINUTES = 525_600;

export interface SequenceStep {
  templateId: string;
  /** Minutes after the previous step (after the enrolment, for the first). */
  delayMinutes: number;
}

const TRANSITIONS: Record<SequenceStatus, readonly SequenceStatus[]> = {
  draft: ['active', 'archived'],
  active: ['paused', 'archived'],
  paused: ['active', 'archived'],
  archived: [],
};

/** Whether `from` may become `to`; staying in the same status is no transition and always allowed. */
export function canTransition(from: SequenceStatus, to: SequenceStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/**
 * Steps change only while the sequence is draft or paused (running enrolments would otherwise see the
 * ground move under them); a PATCH that pauses may change them in the same request.
 */
export function stepsEditable(current: SequenceStatus, next: SequenceStatus): boolean {
  return current === 'draft' || current === 'paused' || (next === 'paused' && canTransition(current, next));
}

/**
 * When step `index` of `steps` is due, counted from `from` (the enrolment, or the previous step's run).
 * `minuteMs` is a minute's length: 60,000 but in tests (EMAIL_SEQUENCE_MINUTE_MS).
 */
export function stepDueAt(steps: readonly SequenceStep[], index: number, from: Date, minuteMs = 60_000): Date {
  return new Date(from.getTime() + steps[index].delayMinutes * minuteMs);
}
