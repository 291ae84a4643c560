// What other modules may use of scheduling: the Nest module, the services, and the DTOs and range rules
// other APIs share.
export { SchedulingModule } from './scheduling.module';
export { AppointmentsService } from './appointments/appointments.service';
export type { BookingRequest, ChangeSource, EncounterReferences } from './appointments/appointments.service';
export { AvailabilityService, offering } from './availability/availability.service';
export { HoldsService } from './holds/holds.service';
export type { HoldRequest, HeldBooking } from './holds/holds.service';
export { HOLD_TTL } from './holds/dto/hold.dto';
export { UnlessHeld } from './holds/unless-held';
export { AppointmentTypesService } from './appointment-types/appointment-types.service';
export { durationPolicy, typePolicy } from './appointments/appointment-policies';
export type { BookingPolicy } from './appointments/appointment-policies';
export { ProvidersService } from './providers/providers.service';
export { parseRange } from './availability/date-range';
export { DateRangeQueryDto, SlotDto } from './availability/dto/availability.dto';
export { IsInstant } from './is-instant';
export { publicSlots } from './availability/public-slots';
// The provider as ProvidersService.require answers it and AppointmentsService.claimSlot takes it back.
export type { ProviderEntity } from './providers/entities/provider.entity';
