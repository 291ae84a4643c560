/** A sending number as Twilio names it: E.164. */
export const SENDER_NUMBER_PATTERN = /^\+[1-9]\d{6,14}$/;
