import { canTransition, SEQUENCE_STATUSES, SequenceStatus, stepDueAt, stepsEditable } from './sequence-rules';

describe('sequence lifecycle', () => {
  const allowed: [SequenceStatus, SequenceStatus][] = [
    ['draft', 'active'],
    ['draft', 'archived'],
    ['active', 'paused'],
    ['active', 'archived'],
    ['paused', 'active'],
    ['paused', 'archived'],
  ];

  it('allows draft → active ⇄ paused and any → archived, and nothing else', () => {
    for (const from of SEQUENCE_STATUSES) {
      for (const to of SEQUENCE_STATUSES) {
        const expected = from === to || allowed.some(([f, t]) => f === from && t === to);
        expect([from, to, canTransition(from, to)]).toEqual([from, to, expected]);
      }
    }
  });

  it('keeps archived final and never goes back to draft', () => {
    for (const to of ['draft', 'active', 'paused'] as const) expect(canTransition('archived', to)).toBe(false);
    for (const from of ['active', 'paused'] as const) expect(canTransition(from, 'draft')).toBe(false);
  });

  it('lets steps change only while draft or paused, or in the PATCH that pauses', () => {
    expect(stepsEditable('draft', 'draft')).toBe(true);
    expect(stepsEditable('draft', 'active')).toBe(true);
    expect(stepsEditable('paused', 'paused')).toBe(true);
    expect(stepsEditable('paused', 'active')).toBe(true);
    expect(stepsEditable('active', 'paused')).toBe(true);
    expect(stepsEditable('active', 'active')).toBe(false);
    expect(stepsEditable('active', 'archived')).toBe(false);
    expect(stepsEditable('archived', 'archived')).toBe(false);
    expect(stepsEditable('archived', 'paused')).toBe(false);
  });

  it('counts each delay from the previous step', () => {
    const steps = [
      { templateId: 'a', delayMinutes: 0 },
      { templateId: 'b', delayMinutes: 90 },
    ];
    const from = new Date('2026-11-23T10:00:00.000Z');
    expect(stepDueAt(steps, 0, from).toISOString()).toBe('2026-11-23T10:00:00.000Z');
    expect(stepDueAt(steps, 1, from).toISOString()).toBe('2026-11-23T11:30:00.000Z');
  });
});
