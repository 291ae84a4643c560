/**
 * How many SMS a text takes, which is what SMS senders bill (3GPP TS 23.038 / 23.040).
 *
 * - GSM-7 when every character is in the GSM 03.38 default alphabet or its extension table: 160
 *   septets in one message, 153 per part of a concatenated one (the user-data header takes 7). An
 *   extension character (`{ } [ ] ~ \ | ^ €`, form feed) is an escape plus a septet: it counts 2, and the
 *   pair is never split across parts.
 * - UCS-2 otherwise (one emoji or one Cyrillic letter is enough): 70 UTF-16 code units in one message,
 *   67 per part; a surrogate pair (an emoji) counts 2 and is never split across parts.
 */
export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSegments {
  encoding: SmsEncoding;
  /** Messages billed; an empty text is still one message. */
  segments: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) the text takes. */
  units: number;
}

// The default alphabet, without ESC (0x1B), which only introduces an extension character.
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENSION = new Set('\f^{}\\[~]|€');

const LIMITS: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

export function smsSegments(text: string): SmsSegments {
  // Iterating a string yields code points, so an emoji is one item of two code units.
  const chars = [...text];
  const gsm = chars.every((c) => GSM_BASIC.has(c) || GSM_EXTENSION.has(c));
  const encoding: SmsEncoding = gsm ? 'GSM-7' : 'UCS-2';
  const sizes = chars.map((c) => (gsm ? (GSM_EXTENSION.has(c) ? 2 : 1) : c.length));
  const units = sizes.reduce((sum, size) => sum + size, 0);
  const { single, part } = LIMITS[encoding];
  if (units <= single) return { encoding, segments: 1, units };
  // Fill parts in order; a two-unit character that does not fit in what is left starts the next part.
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      segments++;
      used = 0;
    }
    used += size;
  }
  return { encoding, segments, units };
}
