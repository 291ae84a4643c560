import { isUuid } from '../../common/ids';

/** Objects and arrays looked into per answer: far above any page's, a bound on a pathological one. */
const MAX_NODES = 50_000;

/**
 * The patients whose data a JSON answer carries, found in the answer as it is sent rather than declared
 * by each route, so that a new route or a new embedding is covered by itself:
 * - a patient: an object with an `id` and a `joiningCode`, which only patients have (a read, a page of a
 *   list or a search, an appointment's embedded `patient`, an event's payload), or the summary a key without
 *   `patients:read` sees instead (`id`, `firstName`, `lastName`, `email`, `phone`);
 * - a reference: any `patientId` (an appointment, a form submission, an email message, an event of them).
 * A patient object is not looked into further. At most `max` ids, each once.
 */
export function patientsCarried(payload: unknown, max: number, found: Set<string> = new Set()): Set<string> {
  const pending: unknown[] = [payload];
  for (let visited = 0; pending.length && visited < MAX_NODES && found.size < max; visited++) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) if (typeof node[i] === 'object' && node[i] !== null) pending.push(node[i]);
      continue;
    }
    const record = node as Record<string, unknown>;
    if (isPatient(record) && isUuid(record.id)) {
      found.add(record.id.toLowerCase());
      continue;
    }
    for (const key in record) {
      const value = record[key];
      if (typeof value === 'object' && value !== null) pending.push(value);
      else if (key === 'patientId' && isUuid(value)) found.add(value.toLowerCase());
    }
  }
  return found;
}

/** A whole patient, or the summary embedded for a key without `patients:read` (patientSummary). */
function isPatient(record: Record<string, unknown>): boolean {
  return 'joiningCode' in record || ('firstName' in record && 'lastName' in record && 'email' in record && 'phone' in record);
}
