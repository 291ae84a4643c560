/** Why a message to a patient who unsubscribed was not sent (its `lastError`). */
export const EMAIL_OPT_OUT_REASON = 'the patient unsubscribed from email';

/** Why an email to `patient` must not be sent, or null: the one rule a message meets when queued and before each try. */
export function emailSuppression(patient: { emailOptOut: boolean } | null): string | null {
  return patient?.emailOptOut ? EMAIL_OPT_OUT_REASON : null;
}
