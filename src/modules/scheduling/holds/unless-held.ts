import { ValidateIf } from 'class-validator';

/** A booking body's member that is required unless the body books a hold (`holdId`), which names it; sent anyway, it is checked. */
export const UnlessHeld = (): PropertyDecorator =>
  ValidateIf((body: { holdId?: unknown }, value) => body.holdId === undefined || value !== undefined);
