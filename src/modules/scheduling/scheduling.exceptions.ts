import { ApiException, ConflictProblem, ResourceNotFoundProblem } from '../../common/http/errors/problem';
import type { SlotDto } from './availability/dto/availability.dto';
import { publicSlots, type PublicSlot } from './availability/public-slots';
import type { AppointmentStatus } from './appointments/transitions';

export class ProviderNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The provider');
  }
}

export class TimeOffNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The time off');
  }
}

export class AppointmentNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The appointment');
  }
}

/** 409 with the provider's next free slots of the same duration, so a client can offer them at once. */
export class SlotUnavailableException extends ConflictProblem {
  constructor(
    reason: string,
    readonly alternatives: SlotDto[] | PublicSlot[],
  ) {
    super('slot_unavailable', 'Slot unavailable', reason, { alternatives });
  }

  /** The same refusal for a keyless caller: its alternatives as public slots, naming no provider. */
  keyless(): SlotUnavailableException {
    return new SlotUnavailableException(this.detail!, publicSlots(this.alternatives));
  }
}

export class InvalidTransitionException extends ConflictProblem {
  constructor(from: AppointmentStatus, to: AppointmentStatus | 'rescheduled') {
    const detail =
      to === 'rescheduled'
        ? `A ${from} appointment cannot be rescheduled; only scheduled and confirmed ones can`
        : `An appointment cannot go from ${from} to ${to}`;
    super('invalid_transition', 'Invalid transition', detail, { from, to });
  }
}

export class AppointmentTypeNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The appointment type');
  }
}

/** 409: a patient's link may no longer cancel or reschedule (the type's cancellation window has begun). */
export class ChangeWindowClosedException extends ConflictProblem {
  constructor(changeDeadline: string) {
    super(
      'change_window_closed',
      'Change window closed',
      `This appointment can no longer be changed online (the deadline was ${changeDeadline}); please contact the practice`,
      { changeDeadline },
    );
  }
}

export class HoldNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The hold');
  }
}

/** 409: the hold was booked already; the problem names its appointment. */
export class HoldConsumedException extends ConflictProblem {
  constructor(appointmentId: string | null) {
    super('hold_consumed', 'Hold consumed', 'This hold has already been booked', { appointmentId });
  }
}

/** 410: the hold keeps its time no more (expired, or released by its taker). */
export class HoldExpiredException extends ApiException {
  constructor(status: 'expired' | 'released') {
    super(410, 'hold_expired', 'Hold expired', status === 'expired' ? 'This hold has expired' : 'This hold was released');
  }
}

export class WaitlistEntryNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The waitlist entry');
  }
}

/** 409: one waiting entry per patient and type; the problem names it. */
export class WaitlistEntryExistsException extends ConflictProblem {
  constructor(entryId: string) {
    super('waitlist_entry_exists', 'Waitlist entry exists', 'The patient is already waiting for this appointment type', { entryId });
  }
}

export class WaitlistOfferNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The waitlist offer');
  }
}

/** 410: the offer keeps its slot no more (expired, or withdrawn with its entry). */
export class OfferExpiredException extends ApiException {
  constructor() {
    super(410, 'offer_expired', 'Offer expired', 'This offer has expired; the time is no longer kept for you');
  }
}
