import type { SlotDto } from './dto/availability.dto';

/** A free time as a keyless answer shows it. */
export type PublicSlot = Pick<SlotDto, 'start' | 'end'>;

/**
 * Slots as every keyless (public) answer shows them, availability and a refusal's alternatives alike: no
 * provider ids (they are the practice's internal ids), one per start time, ascending.
 */
export function publicSlots(slots: readonly PublicSlot[]): PublicSlot[] {
  const byStart = new Map<string, PublicSlot>();
  for (const s of slots) if (!byStart.has(s.start)) byStart.set(s.start, { start: s.start, end: s.end });
  return [...byStart.values()].sort((a, b) => a.start.localeCompare(b.start));
}
